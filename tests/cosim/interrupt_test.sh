#!/usr/bin/env bash
# SIGINT (Ctrl-C) and SIGTERM of a local axregress run (tests/cosim/interrupt_test.sh
# AXREGRESS WORKDIR): the running commands are killed with their process groups, results.json,
# junit.xml and report.html are written with the finished jobs passed, the stopped ones and those
# never started marked "interrupted", exit 130; --resume then reruns only the unfinished jobs.
set -euo pipefail
axregress=$1 work=$2
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }
ok() { echo "ok: $*"; }
# Each command appends a line to runs-<job> (how often it ran); `hold` blocks while $work/hold exists.
cat >"$work/suite.yaml" <<YAML
suite: interrupt
defaults: {timeout: 600}
tests:
  - {name: quick, cores: [1, 2], command: [sh, -c, "echo run >> $work/runs-quick-{cores}"]}
  - {name: hold, cores: [1, 2], command: [sh, -c, "echo run >> $work/runs-hold-{cores}; echo \$\$ > $work/pid-hold-{cores}; while [ -e $work/hold ]; do sleep 0.05; done"]}
  - {name: later, command: [sh, -c, "echo run >> $work/runs-later"]}
YAML
statuses() {
  python3 - "$1" <<'PY'
import json, sys
for j in sorted(json.load(open(sys.argv[1]))["jobs"], key=lambda j: j["id"]):
    print(j["id"], j["status"], j.get("reused", False), j["message"])
PY
}
runs() { [ -f "$work/runs-$1" ] && wc -l <"$work/runs-$1" || echo 0; }

# The two `hold` jobs run (both workers busy, `later` not started) when the signal comes.
interrupt() {  # $1: INT or TERM, $2: extra axregress arguments
  local sig=$1 out=$work/out
  rm -f "$work"/pid-hold-*
  touch "$work/hold"
  # shellcheck disable=SC2086
  "$axregress" "$work/suite.yaml" -j 2 --out "$out" --no-progress-line $2 >"$work/run-$sig.log" 2>&1 &
  local pid=$!
  for _ in $(seq 1 600); do
    [ -s "$work/pid-hold-1" ] && [ -s "$work/pid-hold-2" ] && break
    sleep 0.1
  done
  [ -s "$work/pid-hold-1" ] && [ -s "$work/pid-hold-2" ] || { kill -9 $pid; cat "$work/run-$sig.log"; fail "the hold jobs did not start"; }
  kill -"$sig" $pid
  # The runner must stop by itself within a minute (the hold jobs never end on their own).
  timeout 60 tail --pid=$pid -f /dev/null ||
    { kill -9 $pid; rm -f "$work/hold"; cat "$work/run-$sig.log"; fail "SIG$sig: the runner did not stop"; }
  set +e
  wait $pid
  local rc=$?
  set -e
  cat "$work/run-$sig.log"
  [ "$rc" = 130 ] || fail "SIG$sig: exit $rc, expected 130"
  for c in 1 2; do
    if kill -0 "$(cat "$work/pid-hold-$c")" 2>/dev/null; then fail "SIG$sig: hold@c$c's command still runs"; fi
  done
  for f in results.json junit.xml report.html; do [ -s "$out/$f" ] || fail "SIG$sig: no $f"; done
  statuses "$out/results.json" | tee "$work/status-$sig"
  grep -q "^hold@c1 error False interrupted: the runner was stopped during step cmd" "$work/status-$sig" ||
    fail "SIG$sig: hold@c1 not marked interrupted"
  grep -q "^hold@c2 error False interrupted: " "$work/status-$sig" || fail "SIG$sig: hold@c2 not marked interrupted"
  grep -q "^later@c1 error False interrupted: not started" "$work/status-$sig" ||
    fail "SIG$sig: later not marked as not started"
  grep -q 'hold@c1.*interrupted' "$out/junit.xml" || fail "SIG$sig: junit.xml lacks the interrupted job"
  grep -q "interrupted; 2 jobs finished, 2 stopped, 1 not started" "$work/run-$sig.log" ||
    fail "SIG$sig: no interruption summary"
}

interrupt INT ""
grep -q "^quick@c1 pass False" "$work/status-INT" && grep -q "^quick@c2 pass False" "$work/status-INT" ||
  fail "the quick jobs did not pass before the interrupt"
ok "SIGINT: exit 130, commands killed, results.json/junit.xml/report.html with 2 passed, 2 interrupted, 1 not started"

# A resumed run interrupted again (SIGTERM): the quick jobs are kept, not rerun.
interrupt TERM --resume
grep -q "^quick@c1 pass True" "$work/status-TERM" || fail "SIGTERM: quick@c1 not kept by --resume"
[ "$(runs quick-1)" = 1 ] && [ "$(runs quick-2)" = 1 ] || fail "--resume reran a passed job"
ok "SIGTERM of a --resume run: exit 130, the passed jobs kept, the others interrupted again"

# --resume finishes the run: only the 3 unfinished jobs run.
rm -f "$work/hold"
set +e
"$axregress" "$work/suite.yaml" -j 2 --out "$work/out" --no-progress-line --resume >"$work/run-resume.log" 2>&1
rc=$?
set -e
cat "$work/run-resume.log"
[ "$rc" = 0 ] || fail "--resume: exit $rc"
statuses "$work/out/results.json" | tee "$work/status-resume"
[ "$(grep -c ' pass ' "$work/status-resume")" = 5 ] || fail "--resume: not every job passed"
[ "$(runs quick-1)" = 1 ] && [ "$(runs quick-2)" = 1 ] || fail "--resume reran a passed job"
[ "$(runs hold-1)" = 3 ] && [ "$(runs hold-2)" = 3 ] && [ "$(runs later)" = 1 ] ||
  fail "--resume: runs hold $(runs hold-1)/$(runs hold-2) (expected 3), later $(runs later) (expected 1)"
ok "--resume after the interrupts: 5 passed, the 2 quick jobs not rerun, hold and later finished"
