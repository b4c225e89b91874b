#!/bin/sh
# The model reducer through the CLI on a planted bug: "a model with a softmax fails". Seed 31's
# model has 8 operators (a softmax among them); the reduced model must keep the softmax and have
# at most 2 operators. A check that passes on the model already is refused (exit 2).
# Then the runner on a planted backend bug (planted-regfile.yaml): the failing model is reduced
# through compile, inputs, ref, the failing backend and the comparison, to one operator.
#   rand_model_reduce.sh AXRAND WORK [AXREGRESS SUITE]
set -eu
axrand=$1 work=$2 axregress=${3:-} suite=${4:-}
rm -rf "$work" && mkdir -p "$work"
"$axrand" --kind model --seed 31 --out "$work/m" -q
grep -q core.softmax "$work/m/model.yaml" || { echo "FAIL: seed 31 has no softmax (generator changed?)"; exit 1; }
"$axrand" --reduce "$work/m/model.json" --check '! grep -q core.softmax {dir}/model.yaml' --save "$work/reduced.json" | tee "$work/reduce.log"
"$axrand" --program "$work/reduced.json" --out "$work/r" -q
grep -q core.softmax "$work/r/model.yaml" || { echo "FAIL: the reduced model lost the softmax"; exit 1; }
ops=$(grep -c "op:" "$work/r/model.yaml")
[ "$ops" -le 2 ] || { echo "FAIL: the reduced model has $ops operators"; cat "$work/r/model.yaml"; exit 1; }
rc=0
"$axrand" --reduce "$work/m/model.json" --check 'true' --save "$work/none.json" 2>"$work/none.log" || rc=$?
[ "$rc" = 2 ] && grep -q "nothing to reduce" "$work/none.log" || { echo "FAIL: a passing check was not refused ($rc)"; exit 1; }
echo "ok: $(grep -c 'op:' "$work/m/model.yaml") operators reduced to $ops, the softmax kept"
[ -n "$axregress" ] || exit 0
rc=0
"$axregress" "$suite" --no-progress-line --out "$work/run" >"$work/run.log" 2>&1 || rc=$?
[ "$rc" = 1 ] || { cat "$work/run.log"; echo "FAIL: the planted bug did not fail the run ($rc)"; exit 1; }
job="$work/run/jobs/model-random#31@c1"
grep -q "reduced the model from 8 to 1 operators" "$job/reduce.log" || { tail -3 "$job/reduce.log"; echo "FAIL: not reduced to 1 operator"; exit 1; }
grep -q '"name": "reduce"' "$work/run/results.json" || { echo "FAIL: no reduce step in results.json"; exit 1; }
echo "ok: the runner reduced the planted failure: $(grep 'reduced the model' "$job/reduce.log")"
