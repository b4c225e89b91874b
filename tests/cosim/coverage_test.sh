#!/bin/sh
# RTL code coverage end to end (a -DAXCORE_RTL_COVERAGE=ON build): the coverage suite with
# --coverage — every RTL job wrote a coverage.dat, verilator_coverage merged them, genhtml wrote
# the per-module report, and the run's report.html has the figures of rtl/core and rtl/dma.
#   coverage_test.sh AXREGRESS SUITE BUILD WORK
set -eu
axregress=$1 suite=$2 build=$3 work=$4
rm -rf "$work"
"$axregress" "$suite" --coverage --build "$build" -j 2 --no-progress-line --out "$work" | tee "$work.log"
n=$(ls "$work"/jobs/*/coverage*.dat | wc -l)
[ "$n" -ge 12 ] || { echo "FAIL: $n coverage.dat files (want one per RTL job, 12)"; exit 1; }
[ -s "$work/coverage/merged.dat" ] || { echo "FAIL: no merged.dat"; exit 1; }
[ -s "$work/coverage/html/index.html" ] || { echo "FAIL: no genhtml report"; exit 1; }
grep -q '<table id="rtl-coverage-table">' "$work/report.html" || { echo "FAIL: no coverage table in report.html"; exit 1; }
for d in rtl/core rtl/dma; do
  grep -q "^coverage: $d/ *line  *[1-9][0-9.]*%" "$work.log" || { echo "FAIL: no line coverage figure for $d"; exit 1; }
done
grep "^coverage: " "$work.log"
echo "ok: $n coverage files merged, per-module report written"
