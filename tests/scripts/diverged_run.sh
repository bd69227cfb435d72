#!/usr/bin/env bash
# A first-order run whose steps are all skipped (non-finite loss) stops after 200 of them with exit
# code 3, a message naming the cause, and a checkpoint of finite parameters that eval can read.
# Usage: diverged_run.sh path/to/tapegrad
set -uo pipefail
TG=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
run=$work/run
"$TG" train --model rnn --task addition --optimizer sgd --set optimizer_options.lr=1000 --steps 5000 \
  --set task_options.T=10 --set model_options.hidden=8 --set batch=10 --set eval_every=0 --quiet --out "$run" \
  >/dev/null 2>"$work/err"
code=$?
[ "$code" -eq 3 ] || { echo "FAIL: exit code $code, expected 3: $(cat "$work/err")"; exit 1; }
grep -q "diverged: the last 200 steps were all skipped (nonfinite_" "$work/err" ||
  { echo "FAIL: unexpected message: $(cat "$work/err")"; exit 1; }
n=$(wc -l <"$run/metrics.jsonl")
[ "$n" -lt 5000 ] || { echo "FAIL: the run did not stop early ($n iterations)"; exit 1; }
"$TG" eval --run "$run" -n 10 >/dev/null 2>"$work/eval_err" ||
  { echo "FAIL: the diverged run's checkpoint does not load: $(cat "$work/eval_err")"; exit 1; }
echo "PASS: stopped after $n iterations with exit code 3: $(cat "$work/err")"
