#!/usr/bin/env bash
# train -> eval -> sample -> plot on the in-repo tiny text, and the checkpoint read by numpy.
# Usage: round_trip.sh TAPEGRAD SOURCE_DIR
set -euo pipefail
TG=$1
SRC=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OPENBLAS_NUM_THREADS=1
"$TG" train --model lstm --data "$SRC/tests/data/tiny.txt" --optimizer adam --steps 30 --quiet \
  --set model_options.hidden=16 --set task_options.T=20 --set batch=8 --set eval_every=10 --out "$work/run" >"$work/train.txt"
grep -q '"iterations":30' "$work/train.txt"
"$TG" eval --run "$work/run" | tee "$work/eval.txt"
grep -q '^bpc ' "$work/eval.txt"
"$TG" sample --run "$work/run" --prompt "Four score" --length 40 --seed 3 >"$work/sample.txt"
grep -q '^Four score' "$work/sample.txt"
[ "$(wc -l <"$work/run/metrics.jsonl")" -eq 30 ]
if command -v gnuplot >/dev/null; then "$TG" plot --run "$work/run" >/dev/null; [ -s "$work/run/curves.png" ]; fi
if /usr/bin/python3 -c "import numpy" 2>/dev/null; then
  /usr/bin/python3 - "$work/run/checkpoint.npz" <<'PY'
import sys, numpy as np
d = np.load(sys.argv[1])
names = sorted(k for k in d.files if k.startswith("param/"))
assert names and all(np.all(np.isfinite(d[k])) for k in names), names
assert int(d["iteration"][0]) == 30
print("numpy reads", len(names), "parameters:", ", ".join(n[6:] for n in names))
PY
fi
echo "round_trip: train, eval, sample, plot and numpy.load all work"
