#!/usr/bin/env bash
# scripts/experiments/lane.sh's eval_lane scores a finished run with the best validation's parameters into
# eval.txt and, with EVAL_LAST=1, with the last checkpoint's into eval_last.txt; an unfinished run is skipped.
# The Krueger T = 400 table counts both (docs/results/krueger_adding.md), so the two files must hold what their
# names say. Usage: eval_lane.sh TAPEGRAD REPO
set -euo pipefail
TG=$(realpath "$1")
cd "$2"
if ! /usr/bin/python3 -c "import json" 2>/dev/null; then echo "/usr/bin/python3 is missing: skipped"; exit 77; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
export OPENBLAS_NUM_THREADS=1
source scripts/experiments/lane.sh
# a run whose best validation comes before its end: validation every 20 steps, patience long enough to go on
args=(--model rnn --task addition --optimizer adam --seed 3 --quiet --set task_options.T=10
      --set model_options.hidden=8 --set batch=20 --set eval_every=20 --set eval_batch=50 --set patience=1000)
train_lane "$work/run" "${args[@]}" --steps 70
[ -f "$work/run/done" ] || fail "train_lane did not mark the run done"
train_lane "$work/open" "${args[@]}" --steps 30
rm "$work/open/done"  # as a run cut short: never scored

EVAL_LAST=1 eval_lane "$work/run" error_rate -n 200 --seed 5 > "$work/out"
EVAL_LAST=1 eval_lane "$work/open" error_rate -n 200 --seed 5 >> "$work/out"
grep -q "^error_rate " "$work/run/eval.txt" || fail "eval.txt has no error_rate: $(cat "$work/run/eval.txt")"
grep -q "parameters of the best validation: .*best.npz" "$work/run/eval.txt" ||
  fail "eval.txt did not score the best validation's parameters: $(head -1 "$work/run/eval.txt")"
grep -q "parameters of the last checkpoint: .*checkpoint.npz (iteration 70)" "$work/run/eval_last.txt" ||
  fail "eval_last.txt did not score the last checkpoint's: $(head -1 "$work/run/eval_last.txt")"
grep -q "^error_rate " "$work/run/eval_last.txt" || fail "eval_last.txt has no error_rate"
[ -z "$(ls "$work/run" | grep '\.tmp$')" ] || fail "a partial file was left: $(ls "$work/run")"
[ ! -e "$work/open/eval.txt" ] && [ ! -e "$work/open/eval_last.txt" ] || fail "an unfinished run was scored"
[ "$(wc -l < "$work/out")" -eq 1 ] || fail "eval_lane printed $(wc -l < "$work/out") lines, not one: $(cat "$work/out")"
# without EVAL_LAST only eval.txt is written
rm "$work/run/eval.txt" "$work/run/eval_last.txt"
eval_lane "$work/run" error_rate -n 200 --seed 5 > /dev/null
[ -f "$work/run/eval.txt" ] && [ ! -e "$work/run/eval_last.txt" ] || fail "eval_lane wrote eval_last.txt without EVAL_LAST=1"
echo "eval_lane: eval.txt and eval_last.txt score the parameters they name"
