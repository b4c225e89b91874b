#!/usr/bin/env bash
# Lockstep: an equivalent run passes; a divergence injected into side B's trace at record N stops
# both runs at exactly that record, sooner than the full run (both times printed); the report
# labels the record's fields and names the one that differs; no named pipe stays in --out.
#   cosim_test.sh AXCOSIM AXRAND OUTDIR A_BACKEND B_BACKEND
set -euo pipefail
axcosim=$1 axrand=$2 out=$3 a=$4 b=$5
rm -rf "$out" && mkdir -p "$out"
"$axrand" --seed 42 --out "$out/prog" -q
args=("$out/prog/program.axb" --input "x=$out/prog/inputs/x.npy" -a "$a" -b "$b")
t0=$(date +%s.%N)
"$axcosim" "${args[@]}" --out "$out/clean" | tee "$out/clean.txt"
t1=$(date +%s.%N)
grep -q '^equivalent$' "$out/clean.txt"
total=$(sed -n 's/.* \([0-9]*\) + \([0-9]*\) records read.*/\2/p' "$out/clean.txt")
[ "$total" -ge 4 ] || { echo "too few records ($total) to inject into"; exit 1; }
n=$((total / 2))
set +e
"$axcosim" "${args[@]}" --out "$out/bad" --inject-b "$n" | tee "$out/bad.txt"
rc=${PIPESTATUS[0]}
set -e
t2=$(date +%s.%N)
[ "$rc" = 1 ] || { echo "expected exit 1 at the divergence, got $rc"; exit 1; }
grep -q '^DIVERGENCE at tile' "$out/bad.txt"
grep -q 'records differ' "$out/bad.txt"
# The B record shown is the injected one: its seq is N (the runtime numbers records from 0).
line=$(grep "^  $b: record " "$out/bad.txt" | tail -n 1)
seq=$(echo "$line" | sed 's/^  [a-z]*: record \([0-9]*\) at cycle .*/\1/')
# The report names the field that differs, and the named pipes do not stay behind in --out.
grep -q '^  differs in ' "$out/bad.txt" || { echo "the report names no differing field"; exit 1; }
if ls "$out"/clean/*.pipe "$out"/bad/*.pipe 2>/dev/null; then echo "named pipes left in --out"; exit 1; fi
echo "divergent $b record: $line"
[ "$seq" = "$n" ] || [ "$seq" = "$((n + 1))" ] || { echo "stopped at record $seq, injected at $n"; exit 1; }
printf 'lockstep: full run %.2f s, stop at record %d of %d after %.2f s\n' \
  "$(echo "$t1 - $t0" | bc)" "$n" "$total" "$(echo "$t2 - $t1" | bc)"
