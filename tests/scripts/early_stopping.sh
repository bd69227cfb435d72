#!/usr/bin/env bash
# Early stopping with patience (run option patience) and the NaN rule (nan_rule):
#  1. a run that cannot improve (lr 0) stops after `patience` validations without a lower error, says
#     so, keeps the best validation's parameters in best.npz, which eval reads (and --last does not);
#     resuming the stopped run trains nothing;
#  2. a learning run stopped by --steps (at an iteration with no scheduled validation) and resumed with
#     its own arguments again gives the same metrics and best.npz as one that ran through (the
#     early-stopping state and the best parameters are in the checkpoint);
#  3. with nan_rule, a diverging run rolls back to its last checkpoint with half the learning rate
#     (metrics say so, the rate scale halves each time), and nan_rule with hf is refused.
# Usage: early_stopping.sh path/to/tapegrad
set -uo pipefail
TG=$1
PY=/usr/bin/python3
if ! $PY -c "import numpy" 2>/dev/null; then echo "numpy for /usr/bin/python3 is missing: skipped"; exit 77; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
small=(--model rnn --task addition --set task_options.T=10 --set model_options.hidden=8 --set batch=20
       --set eval_batch=100)

# 1. no improvement possible
"$TG" train "${small[@]}" --optimizer sgd --set optimizer_options.lr=0 --set patience=3 --set eval_every=2 \
  --steps 100 --out "$work/flat" >"$work/flat.out" 2>"$work/flat.err" || fail "exit $?: $(cat "$work/flat.err")"
grep -q "early stopping at iteration 8: 3 validations without a lower" "$work/flat.out" "$work/flat.err" ||
  fail "no early-stopping message at iteration 8: $(cat "$work/flat.out" "$work/flat.err")"
[ "$(wc -l <"$work/flat/metrics.jsonl")" -eq 8 ] || fail "the run did not stop at iteration 8"
[ -f "$work/flat/best.npz" ] || fail "no best.npz"
grep -q '"best_iteration":2' "$work/flat.out" || fail "summary lacks best_iteration 2: $(cat "$work/flat.out")"
"$TG" eval --run "$work/flat" -n 50 >"$work/eval_best" 2>&1 || fail "eval: $(cat "$work/eval_best")"
grep -q "parameters of the best validation: .*best.npz (iteration 2" "$work/eval_best" ||
  fail "eval did not read best.npz: $(cat "$work/eval_best")"
"$TG" eval --run "$work/flat" -n 50 --last >"$work/eval_last" 2>&1 || fail "eval --last: $(cat "$work/eval_last")"
grep -q "best validation" "$work/eval_last" && fail "eval --last read best.npz"
grep -q "parameters of the last checkpoint: .*checkpoint.npz (iteration [0-9]" "$work/eval_last" ||
  fail "eval --last does not say which parameters it scored: $(cat "$work/eval_last")"
# a run without early stopping keeps no best.npz: eval says it scored the last checkpoint
"$TG" train "${small[@]}" --optimizer sgd --set eval_every=2 --steps 4 --out "$work/plain" >/dev/null 2>&1 ||
  fail "plain run: exit $?"
"$TG" eval --run "$work/plain" -n 50 >"$work/eval_plain" 2>&1 || fail "eval of a plain run: $(cat "$work/eval_plain")"
grep -q "parameters of the last checkpoint: .*checkpoint.npz (iteration 4; the run kept no best validation's)" \
  "$work/eval_plain" || fail "eval of a run without best.npz does not say what it scored: $(cat "$work/eval_plain")"
"$TG" train --resume --steps 200 --out "$work/flat" >"$work/again.out" 2>"$work/again.err" ||
  fail "resume of a stopped run: exit $?: $(cat "$work/again.err")"
grep -q "early stopping had ended the run" "$work/again.err" || fail "resume trained on: $(cat "$work/again.err")"
[ "$(wc -l <"$work/flat/metrics.jsonl")" -eq 8 ] || fail "the resumed stopped run trained"

# 2. exact resume of the early-stopping state
learn=("${small[@]}" --optimizer adam --set optimizer_options.lr=0.03 --set patience=3 --set eval_every=2
       --set checkpoint_every=1 --set eval_batch=40 --set objective_options.norm_stabilizer=1 --quiet)
"$TG" train "${learn[@]}" --steps 60 --out "$work/through" >/dev/null 2>&1 || fail "through: exit $?"
"$TG" train "${learn[@]}" --steps 7 --out "$work/split" >/dev/null 2>&1 || fail "split: exit $?"
# resumed with the run's own arguments again (the shorthand norm_stabilizer beside its resolved form)
"$TG" train "${learn[@]}" --resume --steps 60 --out "$work/split" >/dev/null 2>"$work/split.err" ||
  fail "split resume: exit $?: $(cat "$work/split.err")"
$PY - "$work/through" "$work/split" <<'PYEOF' || exit 1
import json, sys, numpy as np
a, b = sys.argv[1], sys.argv[2]
def rows(d):
    out = []
    for line in open(d + "/metrics.jsonl"):
        r = json.loads(line)
        for k in ("seconds", "cpu_seconds"): r.pop(k, None)
        if r["iteration"] % 2:  # the split run validates at its --steps limit too (not counted)
            for k in ("valid_loss", "valid_error"): r.pop(k, None)
        out.append(r)
    return out
ra, rb = rows(a), rows(b)
if ra != rb: sys.exit(f"FAIL: metrics differ ({len(ra)} vs {len(rb)} rows)")
best = [r["iteration"] for r in ra if r.get("best")]
if not best: sys.exit("FAIL: no validation was ever the best")
ta, tb = np.load(a + "/best.npz")["theta"], np.load(b + "/best.npz")["theta"]
if not np.array_equal(ta, tb): sys.exit("FAIL: best.npz differs between the uninterrupted and the resumed run")
print(f"resume exact over {len(ra)} iterations; best validations at {best}")
PYEOF

# 3. the NaN rule
"$TG" train "${small[@]}" --optimizer sgd --set optimizer_options.lr=1000 --set nan_rule=true --set eval_every=0 \
  --set checkpoint_every=5 --steps 30 --quiet --out "$work/nan" >/dev/null 2>&1
$PY - "$work/nan" <<'PYEOF' || exit 1
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1] + "/metrics.jsonl")]
rb = [r for r in rows if "nan_rule" in r]
if len(rb) < 2: sys.exit(f"FAIL: {len(rb)} rollbacks in a run at lr 1000")
scales = [r["nan_rule"]["lr_scale"] for r in rb]
if scales != [0.5 ** (k + 1) for k in range(len(scales))]: sys.exit(f"FAIL: the rate scales are {scales}")
for r in rb:
    if not r["skip_reason"].startswith("nonfinite"): sys.exit(f"FAIL: a rollback after {r['skip_reason']}")
    if r["nan_rule"]["rolled_back_to"] >= r["iteration"]: sys.exit(f"FAIL: rolled forward: {r}")
lrs = [r["lr"] for r in rows if r["iteration"] > rb[-1]["iteration"]]
if lrs and any(abs(l - 1000 * scales[-1]) > 1e-9 * l for l in lrs): sys.exit(f"FAIL: lr after the last rollback {lrs}")
work = [r["minibatches"] for r in rows]
if any(b < a for a, b in zip(work, work[1:])): sys.exit(f"FAIL: the work counter went back: {work}")
print(f"{len(rb)} rollbacks, rate scales {scales[:4]}...")
PYEOF
"$TG" train "${small[@]}" --optimizer hf --set nan_rule=true --steps 2 --out "$work/hf" >/dev/null 2>"$work/hf.err"
code=$?
[ $code -eq 2 ] && grep -q "nan_rule halves a learning rate, and optimizer 'hf' has none" "$work/hf.err" ||
  fail "nan_rule with hf: exit $code, $(cat "$work/hf.err")"
echo "PASS: early stopping at iteration 8, best.npz read by eval, exact resume, NaN rule, hf refused"
