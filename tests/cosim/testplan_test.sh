#!/bin/sh
# The plan against the spec: the real spec passes; a spec with one more error code and DPU op fails
# naming both, so a spec change is seen (one more register is mapped to tlm-regmap, which checks
# every register); the report on a results.json counts;
# `axregress --testplan` over the selftest suite gives each status where it is due.
#   testplan_test.sh SRC WORK [AXREGRESS]
set -eu
src=$1 work=$2 axregress=${3:-}
tp="python3 $src/cosim/testplan/testplan.py"
rm -rf "$work" && mkdir -p "$work"
$tp check "$src/spec/axcore.yaml" - "$src/cosim/testplan/testplan.yaml"
python3 - "$src/spec/axcore.yaml" "$work/spec.yaml" <<'PY'
import sys, yaml
s = yaml.safe_load(open(sys.argv[1]))
s["tiles"]["core"]["registers"].append({"name": "NEW_REG", "offset": 0x500, "access": "rw", "reset": 0, "doc": "x"})
s["enums"]["error_code"]["values"].append({"name": "NEW_ERROR", "value": 31, "doc": "x"})
s["enums"]["dpu_op"]["values"].append({"name": "NEW_OP", "value": 63, "doc": "x"})
yaml.safe_dump(s, open(sys.argv[2], "w"))
PY
if $tp check "$work/spec.yaml" - "$src/cosim/testplan/testplan.yaml" >"$work/check.log"; then
  echo "FAIL: a spec with a new error code and DPU op passed the plan check"; exit 1
fi
grep -q "enum:dpu_op.NEW_OP" "$work/check.log" || { echo "FAIL: the new DPU op is not named"; exit 1; }
grep -q "enum:error_code.NEW_ERROR" "$work/check.log" || { echo "FAIL: the new error code is not named"; exit 1; }
# A new register is in the plan already: tlm-regmap checks the reset value and access of every
# register the spec generates.
if grep -q "register:core.NEW_REG" "$work/check.log"; then echo "FAIL: NEW_REG reported missing"; exit 1; fi
echo '{"jobs": []}' >"$work/empty.json"
$tp report "$work/spec.yaml" - "$src/cosim/testplan/testplan.yaml" "$work/empty.json" >"$work/new.log"
grep -q "^planned   register:core.NEW_REG .*tlm-regmap" "$work/new.log" || { echo "FAIL: NEW_REG not planned on tlm-regmap"; exit 1; }
cat >"$work/results.json" <<'JSON'
{"jobs": [{"test": "dma-random", "status": "pass"}, {"test": "dpu-random", "status": "fail"}]}
JSON
$tp report "$src/spec/axcore.yaml" - "$src/cosim/testplan/testplan.yaml" "$work/results.json" --html "$work/t.html" >"$work/report.log"
grep -q "^passing   field:dma_bd.d0_stride" "$work/report.log" || { echo "FAIL: dma_bd.d0_stride not passing"; exit 1; }
grep -q "^failing   enum:dpu_op.FMA" "$work/report.log" || { echo "FAIL: dpu_op.FMA not failing"; exit 1; }
grep -q "^planned   enum:error_code.WATCHDOG" "$work/report.log" || { echo "FAIL: WATCHDOG (not run) not planned"; exit 1; }
grep -q "^uncovered enum:mem_sel.RESERVED" "$work/report.log" || { echo "FAIL: mem_sel.RESERVED not uncovered"; exit 1; }
grep -q "<table id=testplan>" "$work/t.html" || { echo "FAIL: no HTML table"; exit 1; }
tail -n 1 "$work/report.log"
echo "ok: plan check sees a spec change; report counts passing / failing / uncovered"
[ -n "$axregress" ] || exit 0

# axregress --testplan: selftest = true (pass), writes-per-config (pass x2), fails-on-purpose (fail),
# skips (skip); selftest-plan.yaml maps one feature group to each combination.
rc=0
"$axregress" "$src/cosim/suites/selftest.yaml" --no-progress-line --out "$work/run" \
  --testplan "$src/cosim/testplan/selftest-plan.yaml" >"$work/run.log" 2>&1 || rc=$?
[ "$rc" = 1 ] || { cat "$work/run.log"; echo "FAIL: axregress --testplan exit $rc (want 1: a job failed)"; exit 1; }
want() {  # want FEATURE STATUS: the row of report.html and the line of testplan.txt
  grep -q "<tr data-status=$2><td>$1<td" "$work/run/report.html" ||
    { echo "FAIL: report.html: $1 is not $2"; grep -F ">$1<" "$work/run/report.html"; exit 1; }
  grep -q "^$2 *$1 " "$work/run/testplan.txt" || { echo "FAIL: testplan.txt: $1 is not $2"; exit 1; }
}
want enum:dtype.INT8 passing
want enum:dpu_op.ADD failing
want enum:queue.CTRL planned
want enum:perf_unit.MVM planned
want enum:mem_sel.L2 passing
want register:shim.ID uncovered
grep -q "^testplan: uncovered ([0-9]*): .*register:shim.ID" "$work/run.log" ||
  { echo "FAIL: the uncovered features are not named on the terminal"; exit 1; }
grep -q "<table id=\"results\">" "$work/run/report.html" || { echo "FAIL: report.html lost its job table"; exit 1; }
grep "^testplan: [0-9]* features" "$work/run.log"
echo "ok: axregress --testplan: passing, failing, planned (skipped / not run), uncovered named"
