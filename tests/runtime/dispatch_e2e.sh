#!/usr/bin/env bash
# Dispatch-time M end to end (issue 24): examples/models/dispatch_linear.yaml compiled once with
# axc, run with axrun --param M=... at three values on ref, TLM and (M = 24) the RTL, each equal to
# the reference bit for bit; the TXN each run plays (--txn-out) equal to the static build of the
# same M (the model written with that M) by axtxn compare and byte for byte; a failing guard
# refused with its message, exit 2, before any device exists (no trace file is written).
# With both tlm and rtl, the two traces of M = 24 must be equivalent (axtrace compare).
# Usage: dispatch_e2e.sh AXC AXRUN AXTXN AXTRACE MODEL WORKDIR [BACKENDS...]
set -euo pipefail
axc=$1 axrun=$2 axtxn=$3 axtrace=$4 model=$5 work=$6
shift 6
backends=("$@")
rm -rf "$work" && mkdir -p "$work" && cd "$work"
"$axc" compile "$model" -o dl.axb
for m in 8 24 64; do
  "$axrun" dl.axb --backend ref --param M=$m --seed $m --output-dir ref$m -q --txn-out dyn$m.txn
  sed -e '/^dispatch_time:/,/^inputs:/{/^inputs:/!d}' -e "s/\[M, 128\]/[$m, 128]/" "$model" > static$m.yaml
  "$axc" compile static$m.yaml -o static$m.axb
  "$axrun" static$m.axb --backend ref --seed $m --output-dir sref$m -q --txn-out static$m.txn
  "$axtxn" compare dyn$m.txn static$m.txn
  cmp dyn$m.txn static$m.txn
  for be in "${backends[@]}"; do
    if [ "$be" = rtl ] && [ $m != 24 ]; then continue; fi  # the RTL at one M (a few seconds each)
    "$axrun" dl.axb --backend "$be" --param M=$m --seed $m --input x=ref$m/inputs/x.npy --output-dir $be$m -q \
      --expect ref$m --trace $be$m.trace
  done
done
if [ -e tlm24.trace ] && [ -e rtl24.trace ]; then "$axtrace" compare tlm24.trace rtl24.trace; fi
for be in ref "${backends[@]}"; do
  set +e
  "$axrun" dl.axb --backend "$be" --param M=12 --trace refused.$be.trace -q > refused.$be.out 2> refused.$be.err
  rc=$?
  set -e
  [ $rc = 2 ] || { echo "M=12 on $be: exit $rc, expected 2"; cat refused.$be.err; exit 1; }
  grep -qx "axrun: the call is refused: M must be a multiple of 8" refused.$be.err ||
    { echo "M=12 on $be: no guard message"; cat refused.$be.err; exit 1; }
  [ ! -e refused.$be.trace ] || { echo "M=12 on $be: a trace was written"; exit 1; }
done
echo "dispatch_e2e: M = 8, 24, 64 equal the reference on ref ${backends[*]}; TXNs equal the static builds; M = 12 refused"
