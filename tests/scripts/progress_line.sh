#!/usr/bin/env bash
# The progress line tells the truth: its ETA counts --max-seconds and --cpu-budget (a 2-second run of
# a million steps must not promise hours), and a text run's measure is called bpc, not error.
# Usage: progress_line.sh TAPEGRAD SOURCE_DIR
set -euo pipefail
TG=$1
SRC=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OPENBLAS_NUM_THREADS=1
fail=0
small=(--model rnn --task addition --optimizer adam --steps 1000000 --set task_options.T=10 --set model_options.hidden=8
       --set batch=20 --set eval_every=50 --set eval_batch=100)
# ETA of every progress line, in seconds (lines: "iteration i/n  r it/s  ETA m:ss  ..."; h:mm:ss past an hour).
etas() { grep -o 'ETA [0-9:?]*' "$1" | awk '{ n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }'; }
# --max-seconds 2: no line may promise more than 2 s (+1 for rounding). --cpu-budget 2: the ETA is the
# CPU left times the wall time per CPU second so far, which the machine's load and the checkpoints'
# fsyncs move (a run that starts beside a build and ends alone promised more than twice what it took
# once), so no line may promise more than twice what the whole run then took, nor than 20 s; a count of
# the million steps left at the current rate would promise minutes to hours.
for budget in "--max-seconds 2" "--cpu-budget 2"; do
  out="$work/run_${budget// /_}"
  start=$(date +%s.%N)
  "$TG" train "${small[@]}" $budget --out "$out" 2> "$work/err" > /dev/null
  took=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  bound=3
  [ "$budget" = "--cpu-budget 2" ] && bound=$(awk -v t="$took" 'BEGIN { b = 2 * t + 2; printf "%d", b > 20 ? b : 20 }')
  worst=$(etas "$work/err" | sort -n | tail -1)
  if [ -z "$worst" ] || [ "$worst" -gt "$bound" ]; then
    echo "FAIL ($budget): the progress line promised an ETA of ${worst:-nothing} s (the bound: $bound s)"
    grep ETA "$work/err" | head -3; fail=1
  else
    echo "ok ($budget): largest ETA shown ${worst} s (the bound: $bound s; the run took ${took} s)"
  fi
done
"$TG" train --model lstm --data "$SRC/tests/data/tiny.txt" --optimizer adam --steps 20 --set eval_every=10 \
  --set model_options.hidden=8 --set batch=4 --out "$work/text" 2> "$work/err" > /dev/null
if grep -q ' error [0-9]' "$work/err" || ! grep -q ' bpc [0-9]' "$work/err"; then
  echo "FAIL: a text run's progress does not call its measure bpc"; grep iteration "$work/err" | head -2; fail=1
else
  echo "ok: text progress says bpc"
fi
exit $fail
