#!/usr/bin/env bash
# A run saved by an older build, whose config lacks options added since, still resumes: the missing
# options take their defaults. A real change of an option is still refused.
# Usage: resume_older_run.sh path/to/tapegrad
set -euo pipefail
TG=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
run=$work/run
"$TG" train --model rnn --task addition --optimizer sgd --seed 3 --steps 3 --quiet \
  --set task_options.T=10 --set model_options.hidden=4 --set batch=8 --set eval_every=0 --out "$run" >/dev/null
# as an older build wrote it: without options added later, and without the CPU-time record
/usr/bin/python3 - "$run/checkpoint.npz" <<'PY'
import json, sys, numpy as np
path = sys.argv[1]
d = dict(np.load(path))
cfg = json.loads(bytes(d["config"]).decode())
for key in ("remat_segments", "stability_penalty"):
    assert key in cfg["objective_options"], key
    del cfg["objective_options"][key]
del cfg["cpu_budget"]
del d["cpu_seconds"]
d["config"] = np.frombuffer(json.dumps(cfg).encode(), dtype=np.uint8)
with open(path, "wb") as f:
    np.savez(f, **d)
PY
"$TG" train --out "$run" --resume --steps 5 --quiet >/dev/null || { echo "FAIL: an older run's checkpoint did not resume"; exit 1; }
last=$(tail -n 1 "$run/metrics.jsonl")
case $last in *'"iteration":5'*) ;; *) echo "FAIL: resumed run did not reach iteration 5: $last"; exit 1 ;; esac
if "$TG" train --out "$run" --resume --steps 7 --set batch=9 --quiet >/dev/null 2>"$work/err"; then
  echo "FAIL: a changed batch size was accepted on resume"; exit 1
fi
grep -q "options differ" "$work/err" || { echo "FAIL: unexpected error: $(cat "$work/err")"; exit 1; }
echo "PASS: an older run resumes with the new options at their defaults; a real change is refused"
