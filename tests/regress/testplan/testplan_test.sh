#!/bin/sh
# The plan against the spec: the real spec passes; a spec with one more register and one more
# error code fails naming both (so a spec change is seen); the report on a results.json counts.
#   testplan_test.sh SRC WORK
set -eu
src=$1 work=$2
tp="python3 $src/tests/regress/testplan/testplan.py"
rm -rf "$work" && mkdir -p "$work"
$tp check "$src/spec/axcore.yaml" - "$src/tests/regress/testplan.yaml"
python3 - "$src/spec/axcore.yaml" "$work/spec.yaml" <<'PY'
import sys, yaml
s = yaml.safe_load(open(sys.argv[1]))
s["tiles"]["core"]["registers"].append({"name": "NEW_REG", "offset": 0x500, "access": "rw", "reset": 0, "doc": "x"})
s["enums"]["error_code"]["values"].append({"name": "NEW_ERROR", "value": 31, "doc": "x"})
yaml.safe_dump(s, open(sys.argv[2], "w"))
PY
if $tp check "$work/spec.yaml" - "$src/tests/regress/testplan.yaml" >"$work/check.log"; then
  echo "FAIL: a spec with a new register passed the plan check"; exit 1
fi
grep -q "register:core.NEW_REG" "$work/check.log" || { echo "FAIL: the new register is not named"; exit 1; }
grep -q "enum:error_code.NEW_ERROR" "$work/check.log" || { echo "FAIL: the new error code is not named"; exit 1; }
cat >"$work/results.json" <<'JSON'
{"jobs": [{"test": "dma-random", "status": "pass"}, {"test": "dpu-random", "status": "fail"}]}
JSON
$tp report "$src/spec/axcore.yaml" - "$src/tests/regress/testplan.yaml" "$work/results.json" --html "$work/t.html" >"$work/report.log"
grep -q "^passing   field:dma_bd.d0_stride" "$work/report.log" || { echo "FAIL: dma_bd.d0_stride not passing"; exit 1; }
grep -q "^failing   enum:dpu_op.FMA" "$work/report.log" || { echo "FAIL: dpu_op.FMA not failing"; exit 1; }
grep -q "^uncovered enum:error_code.WATCHDOG" "$work/report.log" || { echo "FAIL: WATCHDOG not uncovered"; exit 1; }
grep -q "<table id=testplan>" "$work/t.html" || { echo "FAIL: no HTML table"; exit 1; }
tail -n 1 "$work/report.log"
echo "ok: plan check sees a spec change; report counts passing / failing / uncovered"
