#!/usr/bin/env bash
# train --resume checks every field of a checkpoint, not only its structure: an empty, truncated or
# altered RNG state, negative or non-finite clocks, a non-positive λ, non-finite or missing optimizer
# vectors and param/* arrays that disagree with theta each give one error line naming the field, and exit 2.
# Usage: checkpoint_fields.sh path/to/tapegrad
set -uo pipefail
TG=$1
PY=/usr/bin/python3
$PY -c 'import numpy' 2>/dev/null || { echo "SKIP: needs python3-numpy"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
for opt in hf adam; do
  run=$work/$opt
  "$TG" train --model rnn --task addition --optimizer $opt --set task_options.T=10 --set model_options.hidden=4 \
    --set batch=20 --set curvature_batch=10 --set eval_every=0 --steps 3 --quiet --out "$run" >/dev/null 2>&1 ||
    { echo "FAIL: the $opt run did not train"; exit 1; }
  cp "$run/checkpoint.npz" "$work/good.npz"
  cases=(rng_empty rng_truncated rng_garbage cpu_nan seconds_negative param_disagrees)
  [ $opt = hf ] && cases+=(lambda_negative lambda_null)
  [ $opt = adam ] && cases+=(vector_nan vector_missing step_negative)
  for case in "${cases[@]}"; do
    $PY - "$work/good.npz" "$run/checkpoint.npz" "$case" <<'PYEOF'
import json, sys, numpy as np
src, dst, case = sys.argv[1:]
d = dict(np.load(src))
b = lambda s: np.frombuffer(s.encode(), dtype=np.uint8)
rng = bytes(d["rng_state"]).decode()
if case == "rng_empty": d["rng_state"] = np.zeros(0, dtype=np.uint8)
elif case == "rng_truncated": d["rng_state"] = b(rng[: len(rng) // 2])
elif case == "rng_garbage": d["rng_state"] = b("not a state")
elif case == "cpu_nan": d["cpu_seconds"] = np.array([np.nan])
elif case == "seconds_negative": d["seconds"] = np.array([-1.0])
elif case == "param_disagrees":
    k = sorted(x for x in d if x.startswith("param/"))[0]
    d[k] = d[k] + 1
else:
    s = json.loads(bytes(d["optimizer_scalars"]).decode())
    if case == "lambda_negative": s["lambda"] = -1
    elif case == "lambda_null": s["lambda"] = None
    elif case == "step_negative": s["step"] = -5
    elif case == "vector_missing":  # resumed from a zero m, silently (a CLI audit)
        del d["optimizer/m"]
    elif case == "vector_nan":
        k = [x for x in d if x.startswith("optimizer/")][0]
        d[k] = d[k].copy(); d[k][0] = np.nan
    d["optimizer_scalars"] = b(json.dumps(s))
np.savez(dst, **d)
PYEOF
    "$TG" train --out "$run" --resume --steps 6 --quiet >/dev/null 2>"$work/err"
    code=$?
    lines=$(wc -l <"$work/err")
    want=.  # the message a case must give, where another refusal could stand in for it
    [ "$case" = vector_missing ] && want="no vector 'm'"
    if [ "$code" -ne 2 ] || [ "$lines" -ne 1 ] || ! grep -q -- "$want" "$work/err"; then
      echo "FAIL ($opt, $case): exit $code, $lines line(s): $(cat "$work/err")"
      fail=1
    else
      echo "ok ($opt, $case): $(cat "$work/err")"
    fi
  done
  cp "$work/good.npz" "$run/checkpoint.npz"
  "$TG" train --out "$run" --resume --steps 4 --quiet >/dev/null 2>"$work/err" ||
    { echo "FAIL ($opt): the intact checkpoint no longer resumes: $(cat "$work/err")"; fail=1; }
done
[ "$fail" -eq 0 ] && echo "PASS: every altered field refused with one line and exit 2; intact checkpoints resume"
exit "$fail"
