#!/bin/sh
# axc explain on every example model (compiled with axc) and on every bundle the smoke suite runs
# (axrand: DMA seeds 1..12 on 1 core, 101..104 on 4 cores, matmul and DPU seeds 1..4): each must
# exit 0 and list the stream's pushes. Usage: axc_explain_all.sh AXC AXRAND MODELS_DIR OUT
set -eu
axc=$1 axrand=$2 models=$3 out=$4
rm -rf "$out" && mkdir -p "$out"
n=0
explain() {  # BUNDLE: axc explain must succeed and resolve at least one push
  if ! "$axc" explain "$1" > "$1.explain" 2> "$1.err"; then
    echo "FAIL: axc explain $1:"; cat "$1.err"; exit 1
  fi
  grep -q "push" "$1.explain" || { echo "FAIL: axc explain $1 lists no push"; exit 1; }
  n=$((n + 1))
}
for m in "$models"/*.yaml; do
  b="$out/$(basename "$m" .yaml).axb"
  "$axc" compile "$m" -o "$b" > /dev/null
  explain "$b"
done
gen() {  # DIR axrand-args...
  d=$1; shift
  "$axrand" "$@" --out "$out/$d" > /dev/null
  explain "$out/$d/program.axb"
}
for s in 1 2 3 4 5 6 7 8 9 10 11 12; do gen dma$s --seed $s --cores 1; done
for s in 101 102 103 104; do gen dma4c$s --seed $s --cores 4; done
for s in 1 2 3 4; do gen mm$s --seed $s --kind matmul; gen dpu$s --seed $s --kind dpu; done
echo "axc explain: $n bundles explained"
