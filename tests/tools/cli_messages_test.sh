#!/bin/sh
# The tools' messages and exit codes as a user meets them (issue 29): did-you-mean for unknown
# operators and arguments, the missing-input hint, axrun --expect, --stats-json, the summary's DMA
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
axrun "$out/p/program.axb" --backend regfile --output-dir "$out/o" > "$out/3.txt" 2>&1
check "missing input names axrand --inputs-for" 2 "axrand --inputs-for $out/p/program.axb" "$out/3.txt" $?
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
