#!/usr/bin/env bash
# train --threads N (optim/threaded_objective.h), float32 through the trainer:
#  1. two runs with 2 threads end with the same bits; 1 and 2 threads agree to rounding;
#  2. a 2-thread run stopped at iteration 10 and resumed without --threads keeps 2 threads and ends with
#     the uninterrupted run's bits;
#  3. the default is recorded resolved (threads a number, gemm onednn or openblas), and a thread count
#     above the cores is refused with one line and exit 2.
# Usage: threads.sh path/to/tapegrad
set -uo pipefail
TG=$1
PY=/usr/bin/python3
if ! $PY -c "import numpy" 2>/dev/null; then echo "numpy for /usr/bin/python3 is missing: skipped"; exit 77; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
run=(--model lstm --task addition --set task_options.T=20 --set model_options.hidden=32 --set batch=40
     --optimizer adam --set eval_every=10 --set eval_batch=100 --set checkpoint_every=5 --seed 4 --quiet)
train() { "$TG" train "${run[@]}" "$@" >/dev/null 2>"$work/err" || fail "train $*: $(cat "$work/err")"; }
theta() { $PY -c "import numpy as np, sys; np.save(sys.argv[2], np.load(sys.argv[1])['theta'])" "$1/checkpoint.npz" "$2"; }

# 1.
train --threads 2 --steps 20 --out "$work/a"
train --threads 2 --steps 20 --out "$work/b"
train --threads 1 --steps 20 --out "$work/one"
$PY - "$work" <<'PY' || fail "thread counts"
import numpy as np, sys
w = sys.argv[1]
t = {k: np.load(f"{w}/{k}/checkpoint.npz")["theta"] for k in ("a", "b", "one")}
assert np.array_equal(t["a"], t["b"]), "two 2-thread runs differ"
d = np.abs(t["a"] - t["one"]).max()
assert 0 < d < 1e-4, f"1 and 2 threads: max |difference| {d}"
print(f"2 threads twice: the same bits; 1 against 2 threads: max |difference| {d:.2e}")
PY

# 2.
train --threads 2 --steps 10 --out "$work/cut"
"$TG" train --out "$work/cut" --resume --steps 20 --quiet >/dev/null 2>"$work/err" || fail "resume: $(cat "$work/err")"
grep -q '"threads": 2' "$work/cut/config.json" || fail "the resumed run lost its 2 threads"
$PY -c "import numpy as np, sys; assert np.array_equal(np.load(sys.argv[1])['theta'], np.load(sys.argv[2])['theta'])" \
  "$work/cut/checkpoint.npz" "$work/a/checkpoint.npz" || fail "resumed 2-thread run differs from the uninterrupted one"
echo "resumed without --threads: 2 threads kept, the same bits as the uninterrupted run"

# 3.
train --steps 1 --out "$work/default"
$PY -c "
import json, sys
c = json.load(open(sys.argv[1]))
assert isinstance(c['threads'], int) and c['threads'] >= 1, c['threads']
assert c['gemm'] in ('onednn', 'openblas'), c['gemm']
print('default recorded as', c['threads'], 'threads,', c['gemm'])" "$work/default/config.json" || fail "default not resolved"
"$TG" train "${run[@]}" --threads 1000 --steps 1 --out "$work/many" >"$work/out" 2>&1
code=$?
[ $code -eq 2 ] || fail "--threads 1000: exit $code, want 2"
[ "$(wc -l <"$work/out")" -eq 1 ] && grep -q "threads=1000 but this process may use" "$work/out" ||
  fail "--threads 1000: $(cat "$work/out")"
echo "PASS"
