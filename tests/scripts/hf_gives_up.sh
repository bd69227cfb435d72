#!/usr/bin/env bash
# Hessian-free that can never accept a step (an exploding ReLU network: every gradient is non-finite)
# stops with a checkpoint, exit code 3 and a message naming the cause, instead of running to its step
# limit while λ grows towards overflow; the checkpoint loads (eval) and resumes.
# Usage: hf_gives_up.sh path/to/tapegrad
set -uo pipefail
TG=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
args=(train --model rnn --task addition --optimizer hf --set model_options.activation=relu
      --set model_options.init_scale=5 --set task_options.T=60 --set model_options.hidden=16 --set batch=50
      --set curvature_batch=10 --set eval_every=0 --quiet --out "$work/run")
"$TG" "${args[@]}" --steps 1000 >/dev/null 2>"$work/err"
code=$?
fail=0
if [ "$code" -ne 3 ] || ! grep -q "Hessian-free gave up: .* rejected (the last: nonfinite_gradient), lambda now" "$work/err"; then
  echo "FAIL: exit $code: $(cat "$work/err")"
  fail=1
else
  echo "ok: $(cat "$work/err")"
fi
n=$(wc -l <"$work/run/metrics.jsonl")
[ "$n" -lt 1000 ] || { echo "FAIL: ran all $n iterations"; fail=1; }
grep -q '"lambda":null' "$work/run/metrics.jsonl" && { echo "FAIL: lambda overflowed to null"; fail=1; }
"$TG" eval --run "$work/run" -n 10 >/dev/null 2>"$work/err" || { echo "FAIL: eval: $(cat "$work/err")"; fail=1; }
"$TG" "${args[@]}" --steps 1000 --resume >/dev/null 2>"$work/err"
code=$?
[ "$code" -eq 3 ] || { echo "FAIL: --resume: exit $code: $(cat "$work/err")"; fail=1; }
[ "$fail" -eq 0 ] && echo "PASS: stopped after $n iterations with exit 3; the checkpoint loads and resumes"
exit "$fail"
