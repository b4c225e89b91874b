#!/usr/bin/env bash
# scripts/setup-deps against stand-ins for dpkg-query, apt-get, sudo and id (the machine's packages
# are never touched): it installs only what is missing, runs `apt-get update` only when an install
# fails and then once, uses sudo only when not root, refuses clearly without root or sudo, and a
# second run installs nothing.
#   setup_deps_test.sh <repo>/scripts/setup-deps
set -uo pipefail
script=$1
fails=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A PATH holding only the stand-ins and the real tools the script needs.
# $work/missing: packages not installed (one a line); $work/log: apt-get and sudo calls;
# $work/empty-lists: present until `apt-get update` ran (install fails while it is there).
make_path() {  # make_path DIR WITH_SUDO
  local d=$1
  mkdir -p "$d"
  ln -sf "$(command -v grep)" "$d/grep"
  cat >"$d/dpkg-query" <<'STUB'
#!/bin/bash
PATH=/usr/bin:/bin
pkg=${!#}
if grep -qx -- "$pkg" "$WORK/missing"; then exit 1; fi
printf 'install ok installed'
STUB
  cat >"$d/apt-get" <<'STUB'
#!/bin/bash
PATH=/usr/bin:/bin
echo "apt-get $*" >>"$WORK/log"
case "$1" in
  update) rm -f "$WORK/empty-lists" ;;
  install)
    [ -e "$WORK/empty-lists" ] && { echo "E: Unable to locate package" >&2; exit 100; }
    for p in "$@"; do grep -vx -- "$p" "$WORK/missing" >"$WORK/missing.new"; mv "$WORK/missing.new" "$WORK/missing"; done ;;
esac
STUB
  cat >"$d/id" <<'STUB'
#!/bin/bash
echo "$STUB_UID"
STUB
  if [ "$2" = 1 ]; then
    cat >"$d/sudo" <<'STUB'
#!/bin/bash
echo "sudo" >>"$WORK/log"
exec "$@"
STUB
  fi
  chmod +x "$d"/*
}

# run NAME UID WITH_SUDO EMPTY_LISTS "MISSING..." [GROUPS...]: runs the script, leaves its exit code
# in $rc, its output in $out and the calls in $log.
run() {
  local name=$1 uid=$2 with_sudo=$3 empty=$4 missing=$5
  shift 5
  export WORK=$work/$name STUB_UID=$uid
  rm -rf "$WORK"
  mkdir -p "$WORK"
  : >"$WORK/log"
  printf '%s\n' $missing >"$WORK/missing"
  [ "$empty" = 1 ] && touch "$WORK/empty-lists"
  make_path "$WORK/bin" "$with_sudo"
  out=$(PATH="$WORK/bin" /bin/bash "$script" "$@" 2>&1)
  rc=$?
  log=$(cat "$WORK/log")
}
check() {  # check DESCRIPTION CONDITION...
  local what=$1
  shift
  if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; echo "  output: $out"; echo "  calls: $log"; fails=$((fails + 1)); fi
}

run all_present 0 1 0 ""
check "nothing missing: exit 0, no apt-get" test "$rc" = 0 -a -z "$log"
check "nothing missing: says so" grep -q "all [0-9]* packages present" <<<"$out"

run root 0 0 0 "verilator libyaml-cpp-dev"
check "as root without sudo: one install of exactly the missing packages" \
  test "$rc" = 0 -a "$log" = "apt-get install -y --no-install-recommends verilator libyaml-cpp-dev"
run_again_log=$(PATH="$WORK/bin" /bin/bash "$script" >/dev/null 2>&1; cat "$WORK/log")
check "idempotent: a second run calls apt-get no more" test "$run_again_log" = "$log"

run fresh 0 0 1 "cmake"
expected=$'apt-get install -y --no-install-recommends cmake\napt-get update\napt-get install -y --no-install-recommends cmake'
check "empty package lists: update once, then install" test "$rc" = 0 -a "$log" = "$expected"

run user 1000 1 0 "ccache"
check "not root: through sudo" \
  test "$rc" = 0 -a "$log" = $'sudo\napt-get install -y --no-install-recommends ccache'

run nosudo 1000 0 0 "ccache"
check "not root, no sudo: fails without calling apt-get" test "$rc" != 0 -a -z "$log"
check "not root, no sudo: names the missing package and what to do" \
  grep -q "ccache.*run as root or install sudo" <<<"$out"

run group 0 0 0 "yosys" synth
check "a group adds its packages" \
  test "$rc" = 0 -a "$log" = "apt-get install -y --no-install-recommends yosys"
run nogroup 0 0 0 "yosys"
check "without the group they are not installed" test "$rc" = 0 -a -z "$log"
run badgroup 0 0 0 "" nonsense
check "an unknown group: exit 2 and a message" test "$rc" = 2
check "an unknown group: names it" grep -q "unknown group 'nonsense'" <<<"$out"

[ "$fails" = 0 ] && echo "setup_deps_test: all passed" || echo "setup_deps_test: $fails failed"
exit $((fails > 0))
