#!/usr/bin/env bash
# --cpu-budget counts the run's training CPU seconds over every invocation: a run stopped by it
# resumes with a larger budget and stops again near that total; at the same budget it does nothing.
# Usage: cpu_budget.sh path/to/tapegrad
set -euo pipefail
TG=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
run=$work/run
common=(--quiet)
last_cpu() { tail -n 1 "$run/metrics.jsonl" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["cpu_seconds"])'; }
iterations() { wc -l <"$run/metrics.jsonl"; }
"$TG" train --model rnn --task addition --optimizer sgd --seed 3 --steps 1000000 --cpu-budget 0.5 \
  --set task_options.T=30 --set model_options.hidden=32 --set batch=50 --set eval_every=0 --out "$run" \
  "${common[@]}" 2>"$work/err1" >/dev/null
grep -q "CPU budget of .* reached: checkpoint saved" "$work/err1" || { echo "FAIL: no budget message: $(cat "$work/err1")"; exit 1; }
first=$(last_cpu)
n1=$(iterations)
/usr/bin/python3 -c "import sys; c=float('$first'); sys.exit(0 if 0.5 <= c < 1.5 else 1)" ||
  { echo "FAIL: first leg stopped at $first CPU s for a 0.5 s budget"; exit 1; }
"$TG" train --out "$run" --resume --cpu-budget 1.5 "${common[@]}" >/dev/null 2>&1
second=$(last_cpu)
n2=$(iterations)
/usr/bin/python3 -c "import sys; c=float('$second'); sys.exit(0 if 1.5 <= c < 2.5 else 1)" ||
  { echo "FAIL: resumed leg stopped at $second CPU s for a 1.5 s total budget"; exit 1; }
[ "$n2" -gt "$n1" ] || { echo "FAIL: the resumed leg ran no iterations ($n1 -> $n2)"; exit 1; }
"$TG" train --out "$run" --resume --cpu-budget 1.5 "${common[@]}" >/dev/null 2>&1
n3=$(iterations)
[ "$n3" -eq "$n2" ] || { echo "FAIL: a spent budget still ran $((n3 - n2)) iterations"; exit 1; }
echo "PASS: CPU budget 0.5 s stopped at $first s ($n1 iterations); resumed to 1.5 s stopped at $second s ($n2)"
