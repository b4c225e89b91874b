#!/usr/bin/env bash
# clang_format_test.sh SOURCE_DIR CLANG_FORMAT — fails with the places clang-format would change
# (fix: scripts/lint --fix); exits 77 (CTest: skipped) when clang-format is not installed.
set -uo pipefail
src=$1
cf=${2:-}
if [ -z "$cf" ] || [ ! -x "$cf" ]; then
  echo "clang_format_test: clang-format not found (scripts/setup-deps installs it)"
  exit 77
fi
cd "$src" || exit 2
if [ -d .git ] || git rev-parse --git-dir >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.h' '*.cc' '*.c')
else
  mapfile -t files < <(find . -path ./build -prune -o \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' \
                          -o -name '*.cc' -o -name '*.c' \) -print)
fi
if [ ${#files[@]} -eq 0 ]; then
  echo "clang_format_test: no C/C++ files found under $src"
  exit 1
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if "$cf" --dry-run -Werror "${files[@]}" 2>"$log"; then
  echo "clang_format_test: ${#files[@]} files formatted as .clang-format says"
  exit 0
fi
echo "clang_format_test: $(grep -c 'error:' "$log") places in $(grep 'error:' "$log" | cut -d: -f1 | sort -u | wc -l)" \
     "of ${#files[@]} files differ from .clang-format (run scripts/lint --fix):"
grep 'error:' "$log" | head -20
exit 1
