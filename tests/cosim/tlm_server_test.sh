#!/usr/bin/env bash
# axrun --serve on the TLM: a job's outputs, stats, trace and timeline are byte-identical to a
# fresh `axrun` process's, whether the job runs first in the server or after other jobs (each runs
# in a child forked from the once-elaborated model; nothing of a job stays for the next). A request
# for another backend or core count is refused (exit 2), the server going on.
#   tlm_server_test.sh AXC AXRUN MODELS_DIR OUTDIR
set -euo pipefail
axc=$1 axrun=$2 models=$3 out=$4
rm -rf "$out" && mkdir -p "$out"
for m in mlp attention; do
  "$axc" compile "$models/$m.yaml" -o "$out/$m.axb" --cores 1 >/dev/null
done
args() {  # job folder, model
  printf '%s\t' "$1/$2.axb" --backend tlm --cores 1 -q --seed 5 --output-dir "$1/out" --trace "$1/t.trace" \
    --timeline "$1/t.json" --stats-json "$1/s.json"
}
request() {  # job folder, model: the request line (the job runs in its folder)
  mkdir -p "$1"
  cp "$out/$2.axb" "$1/"
  printf '%s\t%s\t%s\n' "$1" "$1/log" "$(args "$1" "$2" | sed 's/\t$//')"
}
# Fresh processes: the reference.
for m in mlp attention; do
  mkdir -p "$out/fresh-$m" && cp "$out/$m.axb" "$out/fresh-$m/"
  IFS=$'\t' read -r -a a <<<"$(args "$out/fresh-$m" "$m")"
  "$axrun" "${a[@]}" >"$out/fresh-$m/log" 2>&1
done
# One server: mlp first, attention, mlp again, a refused request, attention again.
{
  request "$out/s1-mlp" mlp
  request "$out/s2-attention" attention
  request "$out/s3-mlp" mlp
  printf '%s\t%s\t%s\t--backend\trtl\t--cores\t1\n' "$out" "$out/refused.log" "$out/mlp.axb"
  request "$out/s4-attention" attention
} | "$axrun" --serve --backend tlm --cores 1 >"$out/replies" 2>"$out/server.err"
cat "$out/replies"
[ "$(head -n 1 "$out/replies")" = ready ] || { echo "the server did not say ready"; exit 1; }
[ "$(grep -c '^pid ' "$out/replies")" = 5 ] || { echo "expected 5 jobs started"; exit 1; }
[ "$(grep '^exit ' "$out/replies" | tr '\n' ,)" = "exit 0 0,exit 0 0,exit 0 0,exit 2 0,exit 0 0," ] ||
  { echo "unexpected exit codes"; exit 1; }
grep -q 'this axrun server runs --backend tlm --cores 1' "$out/refused.log" || { cat "$out/refused.log"; exit 1; }
same() {  # server job folder, fresh job folder: every file it wrote equal, paths aside
  for f in t.trace s.json t.json $(cd "$2" && find out -type f | sort); do
    if ! cmp -s <(sed "s|$1|X|g" "$1/$f") <(sed "s|$2|X|g" "$2/$f"); then
      echo "$1/$f differs from $2/$f"
      exit 1
    fi
  done
  echo "$1: trace, stats, timeline and outputs equal those of $2"
}
same "$out/s1-mlp" "$out/fresh-mlp"
same "$out/s2-attention" "$out/fresh-attention"
same "$out/s3-mlp" "$out/fresh-mlp"
same "$out/s4-attention" "$out/fresh-attention"
