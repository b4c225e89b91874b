#!/usr/bin/env bash
# The Slurm launcher against a real single-host Slurm (scripts/slurm-local), one case per call:
#   slurm_test.sh CASE AXREGRESS WORK [SUITE LOCAL_RESULTS]
#   smoke      SUITE through --launcher slurm; every job's verdict equal to the local run's
#              (LOCAL_RESULTS, a results.json of --launcher local; run here when absent)
#   timeout    a job over its Slurm time limit is reported as timeout, the other job passes
#   node-down  a node taken down (scontrol update state=down) mid-run: its job is lost (NODE_FAIL),
#              resubmitted and finished; every job passes once; --resume --launcher local reuses all
#   interrupt  SIGINT to the runner: its jobs are cancelled, none is left in the queue, exit 130
# Exit 77 (CTest skip) with the reason when the Slurm packages are absent.
set -euo pipefail
case_=$1 axregress=$2 work=$3 suite=${4:-} local_results=${5:-}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
slurm_local=$root/scripts/slurm-local
"$slurm_local" check || exit 77

rm -rf "$work"
mkdir -p "$work"
cluster=$work/cluster
trap '"$slurm_local" stop "$cluster" >/dev/null 2>&1 || true' EXIT
eval "$("$slurm_local" start "$cluster" --nodes 2 --cpus 1)"
export SLURM_CONF

fail() { echo "FAIL: $*"; exit 1; }
ok() { echo "ok: $*"; }
queue_empty() { [ -z "$(squeue -h -o %i)" ]; }
# Waits up to $2 s until `squeue -t running` lists at least $1 tasks.
wait_running() {
  for _ in $(seq 1 $(($2 * 5))); do
    [ "$(squeue -h -t running -o %i | wc -l)" -ge "$1" ] && return 0
    sleep 0.2
  done
  return 1
}
statuses() { python3 -c 'import json,sys; [print(j["id"], j["status"]) for j in json.load(open(sys.argv[1]))["jobs"]]' "$1" | sort; }

case "$case_" in
  smoke)
    if [ -z "$local_results" ] || [ ! -f "$local_results" ]; then
      "$axregress" "$suite" -j 2 --out "$work/local" --no-progress-line >"$work/local.log" 2>&1 || true
      local_results=$work/local/results.json
    fi
    set +e
    "$axregress" "$suite" -j 2 --launcher slurm --poll 0.5 --out "$work/slurm" --no-progress-line | tee "$work/slurm.log"
    set -e
    [ -f "$work/slurm/results.json" ] || fail "no results.json from the Slurm run"
    statuses "$local_results" >"$work/local.status"
    statuses "$work/slurm/results.json" >"$work/slurm.status"
    diff "$work/local.status" "$work/slurm.status" || fail "verdicts differ between --launcher local and slurm"
    n=$(wc -l <"$work/slurm.status")
    [ "$n" -gt 0 ] || fail "no jobs"
    ok "$n jobs, the same verdicts as --launcher local ($(cut -d' ' -f2 "$work/slurm.status" | sort | uniq -c | xargs))"
    queue_empty || fail "jobs left in the queue"
    ;;

  timeout)
    cat >"$work/suite.yaml" <<'EOF'
suite: slurm-timeout
tests:
  - {name: over-limit, command: [sleep, "317"], timeout: 20}   # Slurm limit: 1 minute
  - {name: within, command: ["true"], timeout: 20}
EOF
    set +e
    "$axregress" "$work/suite.yaml" --launcher slurm --poll 0.5 --out "$work/out" --no-progress-line | tee "$work/run.log"
    rc=${PIPESTATUS[0]}
    set -e
    [ "$rc" = 1 ] || fail "exit $rc, expected 1 (a job timed out)"
    statuses "$work/out/results.json" >"$work/status"
    grep -qx "over-limit@c1 timeout" "$work/status" || fail "over-limit not reported as timeout: $(cat "$work/status")"
    grep -qx "within@c1 pass" "$work/status" || fail "within did not pass"
    grep -q "Slurm time limit of 1 min exceeded" "$work/run.log" || fail "no Slurm time limit message"
    pgrep -f "sleep 317" >/dev/null && fail "the timed-out job's process is still running"
    ok "over-limit timed out under Slurm's 1 min limit; within passed"
    ;;

  node-down)
    cat >"$work/suite.yaml" <<'EOF'
suite: slurm-node-down
tests:
  - {name: work, command: [sh, -c, "sleep 5 && echo {seed} > {out}/done"], random: null, timeout: 120}
EOF
    # four jobs of one test: cores 1..4 give four configurations
    sed -i 's/random: null, /cores: [1, 2, 3, 4], /' "$work/suite.yaml"
    "$axregress" "$work/suite.yaml" -j 2 --launcher slurm --poll 0.3 --retries 2 --out "$work/out" \
      --no-progress-line >"$work/run.log" 2>&1 &
    pid=$!
    wait_running 2 30 || { kill -INT $pid; fail "jobs did not start"; }
    victim=$(squeue -h -t running -o "%N" | sort | head -n 1)
    scontrol update nodename="$victim" state=down reason=farm-test
    echo "took $victim down"
    sleep 3
    scontrol update nodename="$victim" state=resume
    echo "resumed $victim"
    set +e
    wait $pid
    rc=$?
    set -e
    cat "$work/run.log"
    [ "$rc" = 0 ] || fail "exit $rc"
    grep -q "^4 passed, 0 failed$" "$work/run.log" || fail "not 4 passed, 0 failed"
    [ "$(statuses "$work/out/results.json" | grep -c ' pass$')" = 4 ] || fail "results.json does not hold 4 passes"
    [ "$(statuses "$work/out/results.json" | cut -d' ' -f1 | sort -u | wc -l)" = 4 ] || fail "a job counted twice"
    grep -q "^retry .*NODE_FAIL" "$work/run.log" || fail "no job was lost to the node failure and retried"
    python3 - "$work/out/slurm/launch.json" <<'EOF' || fail "launch.json does not show the lost attempt"
import json, sys
jobs = json.load(open(sys.argv[1]))["jobs"]
retried = [j for j in jobs if len(j["attempts"]) > 1]
assert retried, "no job has two attempts"
for j in retried:
    assert j["attempts"][0]["state"] == "NODE_FAIL", j
    assert j["attempts"][-1]["state"] in ("COMPLETED", "COMPLETING"), j
print("retried:", ", ".join(f'{j["id"]} ({" -> ".join(a["state"] + "@" + a["node"] for a in j["attempts"])})' for j in retried))
EOF
    for c in 1 2 3 4; do [ -f "$work/out/jobs/work@c$c/done" ] || fail "work@c$c left no output"; done
    # --resume across launchers: the local launcher reuses every job the Slurm run passed.
    "$axregress" "$work/suite.yaml" --resume --out "$work/out" --no-progress-line >"$work/resume.log" 2>&1 ||
      fail "resume failed"
    grep -q "^4 passed, 0 failed$" "$work/resume.log" || fail "resume: not 4 passed"
    [ "$(grep -c '"reused": true' "$work/out/results.json")" = 4 ] || fail "resume did not reuse the 4 jobs"
    queue_empty || fail "jobs left in the queue"
    ok "node $victim taken down mid-run: the lost job ran again, 4 passed once each; --resume --launcher local reused 4"
    ;;

  interrupt)
    cat >"$work/suite.yaml" <<'EOF'
suite: slurm-interrupt
tests:
  - {name: long, command: [sleep, "319"], cores: [1, 2, 3], timeout: 600}
EOF
    "$axregress" "$work/suite.yaml" -j 2 --launcher slurm --poll 0.3 --out "$work/out" --no-progress-line \
      >"$work/run.log" 2>&1 &
    pid=$!
    wait_running 2 30 || { kill -INT $pid; fail "jobs did not start"; }
    squeue -h -r -o "%i %T %N"
    kill -INT $pid
    set +e
    timeout 60 tail --pid=$pid -f /dev/null
    wait $pid
    rc=$?
    set -e
    cat "$work/run.log"
    [ "$rc" = 130 ] || fail "exit $rc, expected 130"
    queue_empty || { squeue; fail "jobs left in the queue after Ctrl-C"; }
    sleep 1
    pgrep -f "sleep 319" >/dev/null && fail "a cancelled job's process is still running"
    [ "$(statuses "$work/out/results.json" | grep -c ' error$')" = 3 ] || fail "the 3 jobs are not marked error"
    grep -q "interrupted" "$work/out/results.json" || fail "no 'interrupted' in results.json"
    ok "SIGINT: Slurm jobs cancelled, the queue is empty, exit 130, the jobs recorded as interrupted"
    ;;
  *) echo "unknown case $case_" >&2; exit 2 ;;
esac
