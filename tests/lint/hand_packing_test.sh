#!/usr/bin/env bash
# tests/lint/hand_packing_test.sh SOURCE_DIR — no source outside spec/gen packs or unpacks a
# descriptor or register field, or takes a register address apart, by hand: it calls the
# generated code (spec::DatapathDesc, the field structs' encode/decode/parse, spec::decode_addr,
# the C header's axc_addr_*). Each rule is an extended regex over the C/C++ files git tracks,
# comment lines skipped; docs/spec.md ("Hand packing") lists the rules and their exemptions.
set -u
src=${1:?usage: hand_packing_test.sh SOURCE_DIR}
cd "$src" || exit 2
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  echo "hand_packing_test: $src is not a git work tree; skipped"
  exit 77
fi
mapfile -t files < <(git ls-files '*.c' '*.h' '*.cpp' '*.hpp' | grep -v '^spec/gen/')

names=() regexes=() exempts=()
rule() { names+=("$1"); regexes+=("$2"); exempts+=("$3"); }
# An address split by its shifts instead of spec::decode_addr / axc_addr_*. The TXN library's own
# col/row split belongs to the TXN format (its AIE layouts share it): common/txn, tests/txn; the
# firmware's error channel key (firmware.c, col << 24 | row << 16 | dir << 8 | channel) is its own.
rule "address split" \
  'addr_(col|row)_shift|addr_offset_bits|AXC_ADDR_(COL|ROW)_SHIFT|AXC_ADDR_OFFSET_BITS|\<addr\w*\)? *>> *(1[0-9]|2[0-9])\>' \
  '^(tests/spec/|common/txn/|tests/txn/|firmware/src/firmware\.c)'
# A datapath descriptor assembled section by section instead of spec::DatapathDesc::words().
rule "datapath descriptor by hand" \
  '\.magic *= *([A-Za-z_:]*::)?magic::datapath|(datapath_desc::|\<dd::|\<L::)(header|ifd0|ifd1|mvm|dwpu|dpu|odr|program)\>[^;]*(encode|copy)|(put|encode_to)\([^;]*(datapath_desc::|\<dd::|\<L::)' \
  '^$'
# A register or descriptor field shifted into place by name instead of its struct's encode().
# The TXN opcodes' own fields (common/txn, tests/txn, the firmware's TXN player) are not spec fields.
rule "field shifted by hand" \
  '\<(dir|ch|channel|code|detail|tag|repeat|token|valid|busy|error|pending|done|cur_bd|start|row|col|kind|magic|words|mem|core|length|running|last_error|iter_current|iter_size|next_bd)\>\)?( *& *0x[0-9A-Fa-f]+u?\)?)? *<< *[0-9]+u?\>|\? *1u *: *0u\) *<< *[0-9]+' \
  '^(common/txn/|tests/txn/|firmware/src/txn_player\.c)'
# A register value masked or shifted to its field bits instead of the register's field struct
# (a 64-bit value from its _HI and _LO registers, << 32, is no field).
rule "register field by hand" \
  '(::[A-Z][A-Z0-9_]+\.(offset|at\()|AXC_[A-Z0-9_]+_OFFSET)[^;]*((>>|<<) *([0-9]|[12][0-9]|3[01])u?\>|& *\(?0x[0-9A-Fa-f]+u?\>|& *\(?[0-9]+u\>)' \
  '^$'

fail=0
for i in "${!names[@]}"; do
  # candidates, then the code part of each line (comments dropped) matched again
  hits=$(printf '%s\0' "${files[@]}" | xargs -0 grep -HnE -- "${regexes[$i]}" | grep -vE "${exempts[$i]}" |
         while IFS= read -r hit; do
           code=${hit#*:*:}
           code=${code%%//*}
           code=${code%%/\**}
           [[ $code =~ ^[[:space:]]*\* ]] && continue
           grep -qE -- "${regexes[$i]}" <<<"$code" && printf '%s\n' "$hit"
         done)
  if [ -n "$hits" ]; then
    echo "hand_packing_test: ${names[$i]} (call the generated code; docs/spec.md, Hand packing):"
    echo "$hits"
    fail=1
  fi
done
[ $fail -eq 0 ] && echo "hand_packing_test: no hand packing in ${#files[@]} files"
exit $fail
