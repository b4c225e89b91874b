#!/bin/sh
# gtest.sh BINARY FILTER: runs the unit tests of BINARY matching FILTER, each in a process of its
# own (the TLM binaries elaborate SystemC once per process) — a plan suite's command test. Exit 77
# (the runner's "skip") when the build lacks the binary, 1 when a test failed or none matched.
set -u
bin=$1 filter=$2
if [ ! -x "$bin" ]; then
  echo "skipped: $bin is not built"
  exit 77
fi
tests=$("$bin" --gtest_list_tests --gtest_filter="$filter" | awk '/^[^ ]/ {s=$1} /^  / {print s $1}')
[ -n "$tests" ] || { echo "gtest.sh: no test of $bin matches $filter"; exit 1; }
passed=0 failed=0
for t in $tests; do
  if "$bin" --gtest_filter="$t"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAILED: $t"; fi
done
echo "gtest.sh: $passed passed, $failed failed ($bin, $filter)"
[ "$failed" = 0 ]
