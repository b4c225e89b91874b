#!/bin/sh
# The MLP on the TLM as a user runs it (issue 29 item 2, 3): timeline spans carry the compiler's
# launch names (as `axc compile --explain` prints them) on one thread per unit, datapath units
# included; axrun's cycle count is axtrace compare's; progress lines at a fixed interval with
# done/total waits, cycles, cycles/s and an estimate; the summary's DMA rows.
#   timeline_test.sh BUILD MODELS_DIR OUT
set -u
build=$1 models=$2 out=$3
. "$build/env.sh"
rm -rf "$out" && mkdir -p "$out" && cd "$out" || exit 1
fails=0
need() {  # DESCRIPTION PATTERN FILE
  if grep -q -- "$2" "$3"; then echo "ok: $1"; else echo "FAIL: $1: no '$2' in $3"; fails=$((fails + 1)); fi
}
axc compile "$models/mlp.yaml" -o mlp.axb --explain > explain.txt || exit 1
axrand --inputs-for mlp.axb --seed 1 --out in -q || exit 1
axrun mlp.axb --backend tlm --input x=in/x.npy --output-dir o --trace t.trace --timeline t.json \
  > run.txt || exit 1
# Names: the compiler's launch names (`axc compile --explain`: "[0] sysdma w1_cb0 -> h_w_c0 (...)",
# the first column chunk of w1's column-block image copied into L1), not "task 0x1".
need "a DMA span named as the compiler named it" '"name":"sysdma w1_cb0 -> h_w_c0","cat":"dma"' t.json
need "a datapath span named as the compiler named it" '"name":"dp1.mvmexe (core.linear)","cat":"task"' t.json
if grep -q '"name":"task 0x' t.json; then echo "FAIL: a span named task 0x.."; fails=$((fails + 1)); fi
# Threads: one per unit, the datapath's units included, each with the datapath's span.
for u in dma.mm2s0 dma.s2mm0 cmdproc mvm.ifd0 mvm mvm.dpu mvm.odr loadimc; do
  need "thread $u" "\"thread_name\".*\"args\":{\"name\":\"$u\"}" t.json
done
need "the MVM's thread carries dp1's span" '"name":"dp1.mvmexe (core.linear)","cat":"unit"' t.json
# Memory writes are instants, not 1 ns spans.
if grep -q '"cat":"mem","ph":"X"' t.json; then echo "FAIL: memory writes as spans"; fails=$((fails + 1)); fi
# One cycle count: axrun's is axtrace compare's.
c_run=$(sed -n 's/^  cycles: \([0-9 ]*\) (.*/\1/p' run.txt | tr -d ' ')
axtrace compare t.trace t.trace > cmp.txt
c_cmp=$(sed -n 's/^cycles: [^ ]* \([0-9]*\),.*/\1/p' cmp.txt)
if [ -n "$c_run" ] && [ "$c_run" = "$c_cmp" ]; then echo "ok: one cycle count ($c_run)"; else
  echo "FAIL: axrun says '$c_run' cycles, axtrace compare '$c_cmp'"; fails=$((fails + 1)); fi
# Progress: done/total waits, cycle, cycles/s, an estimate, on stderr at a 1 ms interval, on the
# guide's ViTPatchEmbed (about 0.25 s on the TLM; the MLP's 3-5 ms gave no line when the progress
# thread waited for a CPU under a parallel ctest). Its inputs: axrun's seeded random data.
# The total: the waits of the overlap schedule, as --explain lists them.
axc compile "$models/vit_patch_embed_guide.yaml" -o long.axb --explain > long_explain.txt || exit 1
axrun long.axb --backend tlm --output-dir long_o --progress-interval 0.001 > long_run.txt 2> progress.txt ||
  { cat long_run.txt progress.txt; exit 1; }
waits=$(grep -c '^\[[0-9]*\] wait \[' long_explain.txt)
need "progress lines" "^\[axrun\] [0-9]*/$waits waits, cycle [0-9 ]*, [0-9 ]* cycles/s, " progress.txt
need "an estimate" 'about [0-9]* s left\|no estimate before the first wait' progress.txt
# Summary: per DMA channel busy, bytes and B/cycle; the roofline line.
need "DMA row" '^  sysdma.s2mm0 *busy *[0-9.]*%  *[0-9 ]* bytes *[0-9.]* B/cycle' run.txt
need "roofline line" '^  roofline: ' run.txt
if grep -q "warning: " run.txt; then echo "FAIL: the counts disagree with the TLM's counters"; grep warning run.txt; fails=$((fails + 1)); fi
# axtrace timeline names spans from the bundle too.
axtrace timeline t.trace -o t2.json --bundle mlp.axb
need "axtrace timeline --bundle names spans" '"name":"sysdma w1_cb0 -> h_w_c0","cat":"dma"' t2.json
[ "$fails" = 0 ] && echo "timeline: all checks passed"
