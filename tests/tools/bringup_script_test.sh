#!/bin/sh
# scripts/bringup/bringup picks build/release over other trees (not glob order), else the newest,
# names the tree it uses, and takes --build DIR. Stub axbringup binaries say which tree ran.
#   bringup_script_test.sh SCRIPT OUT
set -eu
script=$1 out=$2
rm -rf "$out" && mkdir -p "$out/root/scripts/bringup"
cp "$script" "$out/root/scripts/bringup/bringup"
stub() {  # TREE
  mkdir -p "$out/root/build/$1/firmware/bringup"
  printf '#!/bin/sh\necho "ran %s $*"\n' "$1" > "$out/root/build/$1/firmware/bringup/axbringup"
  chmod +x "$out/root/build/$1/firmware/bringup/axbringup"
}
stub release-fpga-small
sleep 1
stub aaa-newest
unset AXBRINGUP || true
s="$out/root/scripts/bringup/bringup"
# No build/release: the newest tree, named on stderr.
"$s" --target tlm --log l > "$out/1.out" 2> "$out/1.err"
grep -q '^ran aaa-newest --target tlm --log l$' "$out/1.out" || { echo "FAIL: newest not chosen"; cat "$out/1.out"; exit 1; }
grep -q "using $out/root/build/aaa-newest" "$out/1.err" || { echo "FAIL: tree not named"; cat "$out/1.err"; exit 1; }
stub release
touch "$out/root/build/aaa-newest/firmware/bringup/axbringup"
"$s" --target rtl --log l > "$out/2.out" 2> "$out/2.err"
grep -q '^ran release ' "$out/2.out" || { echo "FAIL: build/release not preferred"; cat "$out/2.out"; exit 1; }
"$s" --build "$out/root/build/release-fpga-small" --target tlm --log l > "$out/3.out" 2>&1
grep -q '^ran release-fpga-small --target tlm --log l$' "$out/3.out" || { echo "FAIL: --build ignored"; cat "$out/3.out"; exit 1; }
# Without --log the wrapper names a log file.
(cd "$out" && "$s" --target tlm > "$out/4.out" 2>&1)
grep -q -- '--log bringup-tlm-' "$out/4.out" || { echo "FAIL: no log file named"; cat "$out/4.out"; exit 1; }
echo "bringup script: tree choice and naming ok"
