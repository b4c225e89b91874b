#!/bin/sh
# The tools' messages and exit codes as a user meets them (issue 29): did-you-mean for unknown
# operators and arguments, axrun's filled inputs and default output folder, axrun --expect, --stats-json, the summary's DMA
# rows and roofline line, --fst on a backend without waveforms, <build>/bin + env.sh.
#   cli_messages_test.sh BUILD OUT
set -u
build=$1 out=$2
rm -rf "$out" && mkdir -p "$out"
fails=0
check() {  # DESCRIPTION EXPECTED_RC PATTERN FILE RC
  if [ "$5" != "$2" ]; then echo "FAIL: $1: exit $5, expected $2"; cat "$4"; fails=$((fails + 1)); return; fi
  if ! grep -q -- "$3" "$4"; then echo "FAIL: $1: no '$3' in:"; cat "$4"; fails=$((fails + 1)); return; fi
  echo "ok: $1"
}
# One bin/ with every tool, and env.sh putting it on PATH.
. "$build/env.sh"
for t in axc axrun axtrace axrand axregress axcosim; do
  [ "$(command -v $t)" = "$build/bin/$t" ] || { echo "FAIL: $t is not $build/bin/$t after env.sh ($(command -v $t))"; fails=$((fails + 1)); }
done
cat > "$out/typo_arg.yaml" <<'Y'
name: typo
inputs:
  - {name: x, shape: [4, 64], dtype: int8}
constants:
  - {name: w, shape: [64, 64], dtype: int8, init: {seed: 1, low: -4, high: 4}}
  - {name: b, shape: [64], dtype: float32, init: {seed: 2, low: -4, high: 4}}
ops:
  - {op: core.linear, input: x, weight: w, bais: b, out: y}
outputs: [y]
Y
sed -e 's/bais: b/bias: b/' -e 's/, out: y}/, out: h}\n  - {op: atomic.rleu, input: h, out: y}/' "$out/typo_arg.yaml" > "$out/typo_op.yaml"
axc compile "$out/typo_arg.yaml" -o "$out/t.axb" > "$out/1.txt" 2>&1; check "unknown argument" 1 "did you mean 'bias'?" "$out/1.txt" $?
axc compile "$out/typo_op.yaml" -o "$out/t.axb" > "$out/2.txt" 2>&1; check "unknown operator" 1 "did you mean 'atomic.relu'?" "$out/2.txt" $?
axrand --seed 3 --out "$out/p" -q
# An input not given: seeded random data (axrand --inputs-for's, seed 1 unless --seed), written
# next to the outputs and named on stderr and in the summary; without --output-dir the outputs go
# to PROGRAM.out/ beside the bundle. A given --input wins; a wrong shape or name is still refused.
axrun "$out/p/program.axb" --backend regfile > "$out/3.txt" 2> "$out/3.err"
rc=$?
check "input not given: filled, said on stderr" 0 \
  "input 'x' not given: seeded random [A-Z0-9]* (.*) (seed 1, .*) -> $out/p/program.out/inputs/x.npy; pass --input x=FILE.npy" \
  "$out/3.err" $rc
check "filled input in the summary" 0 "input x: seeded random data, seed 1 -> $out/p/program.out/inputs/x.npy" \
  "$out/3.txt" 0
check "default output dir beside the bundle" 0 "output y -> $out/p/program.out/y.npy" "$out/3.txt" 0
[ -f "$out/p/program.out/y.npy" ] || { echo "FAIL: no $out/p/program.out/y.npy"; fails=$((fails + 1)); }
axrand --inputs-for "$out/p/program.axb" --seed 1 --out "$out/r1" > /dev/null
cmp -s "$out/p/program.out/inputs/x.npy" "$out/r1/x.npy" ||
  { echo "FAIL: the filled input is not axrand --inputs-for --seed 1's"; fails=$((fails + 1)); }
axrun "$out/p/program.axb" --backend regfile --seed 7 --output-dir "$out/s7" > "$out/3b.txt" 2>&1
check "--seed picks the filled data" 0 "(seed 7, " "$out/3b.txt" $?
cmp -s "$out/s7/inputs/x.npy" "$out/r1/x.npy" && { echo "FAIL: --seed 7 filled seed 1's data"; fails=$((fails + 1)); }
axrun "$out/p/program.axb" --backend regfile --input "x=$out/p/inputs/x.npy" --output-dir "$out/g" \
  --expect "$out/p/expected" > "$out/3c.txt" 2>&1
check "a given --input wins" 0 "outputs equal $out/p/expected" "$out/3c.txt" $?
if grep -q "not given\|seeded random" "$out/3c.txt" || [ -e "$out/g/inputs" ]; then
  echo "FAIL: a given input was filled"; cat "$out/3c.txt"; fails=$((fails + 1)); fi
/usr/bin/python3 - "$out/p/inputs/x.npy" "$out/short.npy" <<'PY' 2>/dev/null || cp "$out/p/expected/y.npy" "$out/short.npy"
import sys, numpy as np
np.save(sys.argv[2], np.load(sys.argv[1])[:1])
PY
axrun "$out/p/program.axb" --backend regfile --input "x=$out/short.npy" > "$out/3d.txt" 2>&1
check "a wrong shape is still refused" 2 "input 'x': expected [A-Z0-9]* (.*), got" "$out/3d.txt" $?
axrun "$out/p/program.axb" --backend regfile --input "z=$out/p/inputs/x.npy" > "$out/3e.txt" 2>&1
check "an unknown input is still refused" 2 "unknown input 'z'" "$out/3e.txt" $?
if grep -q "not given" "$out/3d.txt" "$out/3e.txt"; then
  echo "FAIL: inputs filled before a refusal"; fails=$((fails + 1)); fi
axrun "$out/p/program.axb" --backend regfile --input "x=$out/p/inputs/x.npy" --output-dir "$out/o" \
  --expect "$out/p/expected" --stats-json "$out/stats.json" > "$out/4.txt" 2>&1
check "--expect equal" 0 "outputs equal $out/p/expected" "$out/4.txt" $?
check "summary roofline line" 0 "roofline: .* cycles (max of MVM" "$out/4.txt" 0
check "summary DMA rows" 0 "sysdma\.\(mm2s\|s2mm\)[0-9] *busy .* bytes .* B/cycle" "$out/4.txt" 0
for k in cycles macs ddr_bytes dpu_instructions roofline_cycles mvm_utilization; do
  check "--stats-json has $k" 0 "\"$k\": " "$out/stats.json" 0
done
check "--stats-json checked against the counters" 0 '"mismatches": \[\]' "$out/stats.json" 0
mkdir -p "$out/wrong" && cp "$out/p/inputs/x.npy" "$out/wrong/y.npy"
axrun "$out/p/program.axb" --backend regfile --input "x=$out/p/inputs/x.npy" --output-dir "$out/o" \
  --expect "$out/wrong" > "$out/5.txt" 2>&1
check "--expect differs" 1 "the outputs differ from $out/wrong: y.npy" "$out/5.txt" $?
axrun "$out/p/program.axb" --backend regfile --input "x=$out/p/inputs/x.npy" --output-dir "$out/o" \
  --fst "$out/w.fst" > "$out/6.txt" 2>&1
check "--fst needs rtl" 2 "--fst needs --backend rtl" "$out/6.txt" $?
[ "$fails" = 0 ] && echo "cli messages: all checks passed"
