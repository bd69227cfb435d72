#!/usr/bin/env bash
# A run parked at a session's end (scripts/experiments/runs.py park) and restored in a new checkout whose runs/
# is gone (lane.sh's train_lane: runs.py unpark, then --resume) must end bit-identical (parameters, optimizer
# state, best parameters) to an uninterrupted run; the validation records must match too. The park is made in a
# scratch tree laid out as the repository (R/runs/GROUP/NAME -> R/docs/results/parked/GROUP/NAME).
# Usage: park_resume.sh TAPEGRAD REPO
set -euo pipefail
TG=$1
RUNS_PY=$2/scripts/experiments/runs.py
PY=/usr/bin/python3
if ! $PY -c "import numpy" 2>/dev/null; then echo "numpy for /usr/bin/python3 is missing: skipped"; exit 77; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OPENBLAS_NUM_THREADS=1
args=(--model rnn --task addition --optimizer adam --seed 7 --quiet --threads 1
      --set task_options.T=10 --set model_options.hidden=16 --set batch=50
      --set eval_every=20 --set eval_batch=100 --set checkpoint_every=20 --set patience=1000)
"$TG" train "${args[@]}" --steps 300 --out "$work/full/runs/g/a" > /dev/null

run=$work/session1/runs/g/a
"$TG" train "${args[@]}" --steps 140 --out "$run" > /dev/null   # a session cut short at iteration 140
$PY "$RUNS_PY" park "$work/session1/runs/g"
parked=$work/session1/docs/results/parked/g/a
[ -f "$parked/checkpoint.npz" ] || { echo "FAIL: nothing parked at $parked"; exit 1; }
# a park is whole: parking again replaces it and leaves no partial copy beside it
$PY "$RUNS_PY" park "$work/session1/runs/g" > /dev/null
[ -z "$(ls -d "$parked".* 2>/dev/null)" ] || { echo "FAIL: a partial park was left beside $parked"; exit 1; }
# an Ollivier run scores the validation sequence itself every round (no valid_error): every round is kept
"$TG" train --model glnn --task distant_xor --optimizer riemannian --set dtype=float64 --set task_options.T=10 \
  --set task_options.lines=400 --set model_options.units=6 --set eval_every=0 --set eval_batch=1 --quiet \
  --steps 5 --out "$work/session1/runs/o/r" > /dev/null
$PY "$RUNS_PY" park "$work/session1/runs/o" > /dev/null
kept=$(wc -l < "$work/session1/docs/results/parked/o/r/metrics.jsonl")
[ "$kept" -eq 5 ] || { echo "FAIL: an Ollivier run's park kept $kept of its 5 rounds' records"; exit 1; }

# the next session: a new checkout holds docs/ but not runs/
mkdir -p "$work/session2"
cp -r "$work/session1/docs" "$work/session2/docs"
run2=$work/session2/runs/g/a
$PY "$RUNS_PY" unpark "$run2" 2> "$work/unpark.err"
grep -q "restored from" "$work/unpark.err" || { echo "FAIL: unpark restored nothing"; cat "$work/unpark.err"; exit 1; }
# a live run is never overwritten by its park
$PY "$RUNS_PY" unpark "$run2" 2> "$work/unpark2.err"
[ ! -s "$work/unpark2.err" ] || { echo "FAIL: unpark overwrote a live run"; exit 1; }
"$TG" train "${args[@]}" --steps 300 --resume --out "$run2" > /dev/null

$PY - "$work/full/runs/g/a" "$run2" <<'PYEOF'
import sys, json, numpy as np
for f in ("checkpoint.npz", "best.npz"):
    a, b = (np.load(f"{d}/{f}") for d in sys.argv[1:3])
    for key in a.files:
        if key in ("seconds", "cpu_seconds"):  # time, not state
            continue
        if not np.array_equal(a[key], b[key]):
            sys.exit(f"FAIL: {f} '{key}' differs between the uninterrupted and the parked-and-resumed run")
def valid(d):
    rows = [json.loads(l) for l in open(d + "/metrics.jsonl")]
    return [(r["iteration"], r["valid_error"], r["loss"]) for r in rows if "valid_error" in r]
va, vb = valid(sys.argv[1]), valid(sys.argv[2])
# resumed, not begun again: the park kept only the validation records of iterations 1..140
rows = sum(1 for _ in open(sys.argv[2] + "/metrics.jsonl"))
if rows != 300 - 140 + 7:
    sys.exit(f"FAIL: the restored run has {rows} metric rows, not 160 after the park's 7: it did not resume at 140")
if not va or va != vb:
    sys.exit(f"FAIL: validation records differ ({len(va)} vs {len(vb)})")
print(f"park_resume: parked at iteration 140, restored in a fresh tree, resumed to 300: bit-identical "
      f"({len(a['theta'])} parameters, {len(va)} validation records)")
PYEOF
# archiving the finished run drops its park, stale from then on (a later session would restore it otherwise); a
# scratch tree's run is not archived (only the repository's runs/ are), but its park goes all the same
[ -d "$work/session2/docs/results/parked/g/a" ] || { echo "FAIL: the park is gone before the run was archived"; exit 1; }
touch "$run2/done"  # as lane.sh's train_lane marks a run that ended by its own rule
# archive() itself, as every table script calls it (runs.py's archive verb is a wrapper of it)
$PY -c 'import sys; sys.path.insert(0, sys.argv[1]); from runs import archive; archive(sys.argv[2], "g")' \
  "$(dirname "$RUNS_PY")" "$run2"
[ ! -e "$work/session2/docs/results/parked/g/a" ] || { echo "FAIL: archiving the finished run left its park"; exit 1; }
