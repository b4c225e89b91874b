#!/bin/sh
# gtest.sh BINARY FILTER: runs the unit tests of BINARY matching FILTER (a plan suite's command
# test); exit 77 (the runner's "skip") when the build lacks the binary, 1 when no test matched.
set -u
bin=$1 filter=$2
if [ ! -x "$bin" ]; then
  echo "skipped: $bin is not built"
  exit 77
fi
"$bin" --gtest_filter="$filter" > gtest.out 2>&1
rc=$?
cat gtest.out
grep -q "^\[  PASSED  \] [1-9]" gtest.out || { echo "gtest.sh: no test of $bin matches $filter"; exit 1; }
exit $rc
