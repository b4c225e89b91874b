#!/bin/sh
# Runs the commands of docs/runtime.md and docs/regress.md verbatim, as a new user would from the
# repository root of a fresh build: every fenced block opened with ```sh test is run (in order,
# one shell per block, `set -e`) in a scratch folder that looks like the repository root (its
# source folders linked, build/release -> this build tree), so what the docs promise is checked.
#   docs_commands.sh BUILD SRC OUT DOC...
set -eu
build=$1 src=$2 out=$3
shift 3
rm -rf "$out" && mkdir -p "$out/build"
for d in examples cosim tests scripts docs spec; do ln -s "$src/$d" "$out/$d"; done
ln -s "$build" "$out/build/release"
n=0
for doc in "$@"; do
  awk -v dir="$out" -v base="$(basename "$doc" .md)" '
    /^```sh test/ { n++; f = sprintf("%s/%s.%d.sh", dir, base, n); printf "set -e\n" > f; inblock = 1; next }
    /^```/ && inblock { inblock = 0; close(f); next }
    inblock { print >> f }
  ' "$src/$doc"
done
for f in "$out"/*.sh; do
  [ -e "$f" ] || continue
  n=$((n + 1))
  echo "== $(basename "$f")"
  if ! (cd "$out" && sh "$f") > "$f.log" 2>&1; then
    echo "FAIL: $(basename "$f") (from the docs) failed:"; sed 's/^/  /' "$f.log" | tail -n 30; exit 1
  fi
  tail -n 3 "$f.log" | sed 's/^/  /'
done
[ "$n" -gt 0 ] || { echo "FAIL: no \`\`\`sh test block in $*"; exit 1; }
echo "docs: $n blocks ran as written"
