#!/usr/bin/env bash
# A success is confirmed on fresh data: with a validation set of 40 sequences (which a model with a few
# percent error passes by luck), stop_on_success stops only once 10,000 fresh sequences are below the
# threshold too. A model whose validation passes but whose confirmation does not is not declared solved:
# training goes on. Usage: success_confirmed.sh TAPEGRAD
set -euo pipefail
TG=$1
PY=/usr/bin/python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OPENBLAS_NUM_THREADS=1
for seed in 1 2 3; do
  "$TG" train --model rnn --task addition --optimizer hf --seed $seed --steps 300 --set task_options.T=10 \
    --set model_options.hidden=16 --set batch=200 --set curvature_batch=50 --set eval_every=1 --set eval_batch=40 \
    --set stop_on_success=true --quiet --out "$work/s$seed" > "$work/s$seed.summary" 2> /dev/null
done
"$PY" - "$work" <<'PYEOF'
import json, sys, os
work = sys.argv[1]
threshold = 0.01  # addition: < 1% of sequences off by more than 0.04
rejected = 0
for seed in (1, 2, 3):
    rows = [json.loads(l) for l in open(os.path.join(work, f"s{seed}", "metrics.jsonl"))]
    summary = json.loads(open(os.path.join(work, f"s{seed}.summary")).read().split(" ", 1)[1])
    passed_valid = [r for r in rows if "valid_error" in r and r["valid_error"] < threshold]
    for r in passed_valid:
        if "confirm_error" not in r:
            sys.exit(f"FAIL seed {seed}: validation {r['valid_error']} passed at iteration {r['iteration']} with no confirmation")
        if r["confirm_sequences"] < 10000:
            sys.exit(f"FAIL seed {seed}: confirmed on only {r['confirm_sequences']} sequences")
        if r["confirm_error"] >= threshold:
            rejected += 1
            if r["iteration"] == rows[-1]["iteration"]:
                sys.exit(f"FAIL seed {seed}: stopped at iteration {r['iteration']} on a confirmation of {r['confirm_error']}")
    if summary.get("success"):
        if not summary.get("confirm_error", 1) < threshold:
            sys.exit(f"FAIL seed {seed}: declared solved without a passing confirmation: {summary}")
        lo, hi = summary["confirm_interval"]
        if not (lo <= summary["confirm_error"] <= hi):
            sys.exit(f"FAIL seed {seed}: the interval {lo, hi} does not hold the rate {summary['confirm_error']}")
    print(f"seed {seed}: {len(passed_valid)} validation passes, stopped at iteration {rows[-1]['iteration']}, "
          f"confirmed {summary.get('confirm_error')} on {summary.get('confirm_sequences')} fresh sequences")
if rejected == 0:
    sys.exit("FAIL: no validation pass was refused by its confirmation (make the validation set smaller)")
print(f"ok: {rejected} validation passes refused by their confirmation; every stop confirmed on 10,000 fresh sequences")
PYEOF
# eval prints a 95% interval with the error rate.
"$TG" eval --run "$work/s1" -n 2000 --seed 99 > "$work/eval.txt"
grep -q '^error_rate [0-9.]*  95% interval \[[0-9.]*, [0-9.]*\]' "$work/eval.txt" || { echo "FAIL: eval printed no interval"; cat "$work/eval.txt"; exit 1; }
echo "ok: $(grep '^error_rate' "$work/eval.txt" | cut -c1-60)"
