#!/usr/bin/env bash
# Configure fails, naming the Debian package and scripts/setup-deps, when a dependency is missing.
# Each case configures tests/deps/probe (cmake/AxcoreDeps.cmake alone) with one dependency hidden
# from CMake (CMAKE_DISABLE_FIND_PACKAGE_<name>, or no pkg-config path for SystemC); the first
# case, nothing hidden, must configure.
#   configure_missing_test.sh <repo> <cmake> <AXCORE_BUILD_RTL> <AXCORE_BUILD_TLM>
set -uo pipefail
repo=$1
cmake=${2:-cmake}
rtl=${3:-ON}
tlm=${4:-ON}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0

# probe NAME EXPECT(ok|fail) MESSAGE [cmake args...]
probe() {
  local name=$1 expect=$2 message=$3
  shift 3
  local out rc
  out=$("$cmake" -S "$repo/tests/deps/probe" -B "$work/$name" -DAXCORE_SOURCE_DIR="$repo" \
          -DAXCORE_BUILD_RTL="$rtl" -DAXCORE_BUILD_TLM="$tlm" "$@" 2>&1)
  rc=$?
  out=$(tr -s ' \n' '  ' <<<"$out")  # CMake wraps long messages
  if [ "$expect" = ok ] && [ $rc = 0 ]; then echo "ok: $name configures"; return; fi
  if [ "$expect" = fail ] && [ $rc != 0 ] && grep -qF -- "$message" <<<"$out" &&
     grep -qF "scripts/setup-deps" <<<"$out"; then
    echo "ok: $name: $message"
    return
  fi
  echo "FAIL: $name (exit $rc, expected $expect${message:+ with '$message'})"
  echo "$out" | tail -c 1200
  fails=$((fails + 1))
}

probe everything ok ""
probe yaml-cpp fail "yaml-cpp not found: install the Debian package 'libyaml-cpp-dev'" \
  -DCMAKE_DISABLE_FIND_PACKAGE_yaml-cpp=ON
probe CLI11 fail "install the Debian package 'libcli11-dev'" -DCMAKE_DISABLE_FIND_PACKAGE_CLI11=ON
probe GTest fail "install the Debian package 'libgtest-dev libgmock-dev'" \
  -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON
probe Boost fail "install the Debian package 'libboost-dev'" -DCMAKE_DISABLE_FIND_PACKAGE_Boost=ON
[ "$rtl" = ON ] && probe verilator fail "Verilator not found: install the Debian package 'verilator'" \
  -DCMAKE_DISABLE_FIND_PACKAGE_verilator=ON
[ "$tlm" = ON ] && PKG_CONFIG_LIBDIR=$work/none PKG_CONFIG_PATH='' \
  probe systemc fail "install the Debian package 'libsystemc-dev'"

[ "$fails" = 0 ] && echo "configure_missing_test: all passed" || echo "configure_missing_test: $fails failed"
exit $((fails > 0))
