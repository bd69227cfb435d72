#!/usr/bin/env bash
# Subnormal floats (ops/float_env.h, RunConfig::denormals) through the trainer:
#  1. a new run records "denormals": "flush"; "keep" is recorded when asked for;
#  2. a run recorded before the option (config without the key, in config.json and in the checkpoint)
#     resumes keeping denormals, to the same bits as an uninterrupted run with denormals=keep;
#  3. asking a resumed run for the other mode is refused with one line and exit 2.
# Usage: denormals.sh path/to/tapegrad
set -uo pipefail
TG=$1
PY=/usr/bin/python3
if ! $PY -c "import numpy" 2>/dev/null; then echo "numpy for /usr/bin/python3 is missing: skipped"; exit 77; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
run=(--model lstm --task addition --set task_options.T=20 --set model_options.hidden=16 --set batch=20
     --optimizer adam --set eval_every=5 --set eval_batch=50 --set checkpoint_every=5 --seed 3 --threads 1 --quiet)
train() { "$TG" train "${run[@]}" "$@" >/dev/null 2>"$work/err" || fail "train $*: $(cat "$work/err")"; }
recorded() { $PY -c "import json, sys; print(json.load(open(sys.argv[1])).get('denormals', 'absent'))" "$1/config.json"; }

# the mode in effect while the run trained (train's summary line), not only the one recorded
in_effect() { grep -o '"denormals_flushed":[a-z]*' "$1" | cut -d: -f2; }

# 1.
"$TG" train "${run[@]}" --steps 2 --out "$work/new" >"$work/new.summary" 2>"$work/err" || fail "train: $(cat "$work/err")"
[ "$(recorded "$work/new")" = flush ] || fail "a new run recorded $(recorded "$work/new"), not flush"
[ "$(in_effect "$work/new.summary")" = true ] || fail "a new run trained with denormals kept: $(cat "$work/new.summary")"
"$TG" train "${run[@]}" --steps 10 --set denormals=keep --out "$work/keep" >"$work/keep.summary" 2>"$work/err" ||
  fail "train keep: $(cat "$work/err")"
[ "$(recorded "$work/keep")" = keep ] || fail "denormals=keep recorded as $(recorded "$work/keep")"
[ "$(in_effect "$work/keep.summary")" = false ] || fail "denormals=keep trained flushing: $(cat "$work/keep.summary")"
echo "recorded and in effect: flush by default, keep when asked"

# 2. an old run: the key removed from config.json and from the checkpoint's copy
train --steps 5 --set denormals=keep --out "$work/old"
$PY - "$work/old" <<'PY' || fail "could not make the old run"
import json, sys, numpy as np
d = sys.argv[1]
c = json.load(open(f"{d}/config.json")); del c["denormals"]
json.dump(c, open(f"{d}/config.json", "w"), indent=2)
z = dict(np.load(f"{d}/checkpoint.npz"))
cc = json.loads(bytes(z["config"]).decode()); del cc["denormals"]
z["config"] = np.frombuffer(json.dumps(cc).encode(), dtype=np.uint8)
np.savez(f"{d}/checkpoint.npz", **z)
PY
"$TG" train --out "$work/old" --resume --steps 10 --quiet >"$work/old.summary" 2>"$work/err" || fail "resume of the old run: $(cat "$work/err")"
[ "$(in_effect "$work/old.summary")" = false ] || fail "the old run resumed flushing: $(cat "$work/old.summary")"
$PY -c "import numpy as np, sys; assert np.array_equal(np.load(sys.argv[1])['theta'], np.load(sys.argv[2])['theta'])" \
  "$work/old/checkpoint.npz" "$work/keep/checkpoint.npz" || fail "the old run did not resume as denormals=keep"
# (this tiny run may make no subnormal at all, so the bits alone cannot tell the modes apart: the run's
# resolved mode shows in the refusal of the other one)
"$TG" train --out "$work/old" --resume --steps 12 --set denormals=flush --quiet >/dev/null 2>"$work/err" &&
  fail "the old run resumed with denormals=flush: it was not read as keep"
grep -q 'denormals: "keep" in the run' "$work/err" || fail "the old run: $(cat "$work/err")"
echo "a run recorded before the option resumed keeping denormals: the same bits as denormals=keep, and flush refused"

# 3.
"$TG" train --out "$work/new" --resume --steps 4 --set denormals=keep --quiet >/dev/null 2>"$work/err"
code=$?
[ $code -eq 2 ] || fail "changing denormals on resume: exit $code, not 2"
[ "$(wc -l < "$work/err")" -eq 1 ] && grep -q "denormals" "$work/err" || fail "changing denormals on resume: $(cat "$work/err")"
echo "changing the mode on resume: refused ($(cat "$work/err"))"
echo PASS
