#!/usr/bin/env bash
# A resumed run whose metrics.jsonl lost lines before the checkpoint's iteration (a torn line: a kill, a
# full disk, a bad copy) says so on stderr, once, with the iterations lost; a torn line after the
# checkpoint (a kill while logging) is dropped without a word, as the run logs those iterations again.
# Usage: torn_metrics.sh TAPEGRAD
set -euo pipefail
TG=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
args=(--model rnn --task addition --set model_options.hidden=4 --set task_options.T=10 --set batch=5 --quiet)
"$TG" train "${args[@]}" --steps 3 --out run >/dev/null
keep=$(( $(head -n 1 run/metrics.jsonl | wc -c) + 20 ))
head -c "$keep" run/metrics.jsonl > cut && mv cut run/metrics.jsonl  # the first record kept, the second torn
"$TG" train "${args[@]}" --steps 5 --resume --out run >/dev/null 2>err.txt
grep -q "metrics.jsonl: 1 unreadable line(s) dropped; the last record kept is iteration 1, the checkpoint's 3" err.txt ||
  { echo "FAIL: no warning for the lost records: $(cat err.txt)"; exit 1; }
[ "$(wc -l < err.txt)" -eq 1 ] || { echo "FAIL: more than one line: $(cat err.txt)"; exit 1; }
"$TG" train "${args[@]}" --steps 3 --out run2 >/dev/null
printf '{"iteration": 4, "lo' >> run2/metrics.jsonl  # a kill while logging iteration 4
"$TG" train "${args[@]}" --steps 5 --resume --out run2 >/dev/null 2>err2.txt
[ ! -s err2.txt ] || { echo "FAIL: a warning for a torn line after the checkpoint: $(cat err2.txt)"; exit 1; }
[ "$(wc -l < run2/metrics.jsonl)" -eq 5 ] || { echo "FAIL: run2 should hold 5 records"; exit 1; }
echo "torn_metrics: lost records reported once; a torn last line after the checkpoint dropped quietly"
