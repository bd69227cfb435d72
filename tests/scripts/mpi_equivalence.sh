#!/usr/bin/env bash
# Data parallelism over MPI: `tapegrad train` as 2 (and 3) ranks must give what one process gives on
# the same global batch and seed, to float tolerance, with the same optimizer decisions (HF's CG
# iterations, backtracking choice, acceptance); the same job run twice must be bitwise identical; a
# resumed job must equal an uninterrupted one bitwise; an error on one rank must end the job, not hang it.
# Usage: mpi_equivalence.sh TAPEGRAD SOURCE_DIR
set -euo pipefail
TG=$1
SRC=$2
PY=/usr/bin/python3
if ! $PY -c "import numpy" 2>/dev/null; then echo "numpy for /usr/bin/python3 is missing: skipped"; exit 77; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OPENBLAS_NUM_THREADS=1
mpi() { timeout 120 bash "$SRC/scripts/mpi_run.sh" "$@"; }

common=(--model rnn --task addition --seed 3 --quiet --set task_options.T=10 --set model_options.hidden=16
        --set eval_every=5 --set eval_batch=200)
sgd=("${common[@]}" --optimizer sgd --steps 20 --set batch=50 --set optimizer_options.lr=0.05)  # float32
hf=("${common[@]}" --optimizer hf --set batch=200 --set curvature_batch=50 --set dtype=float64
    --set optimizer_options.max_cg=30)

"$TG" train "${sgd[@]}" --out "$work/sgd1" >/dev/null
mpi 2 "$TG" train "${sgd[@]}" --out "$work/sgd2" >/dev/null
mpi 3 "$TG" train "${sgd[@]}" --out "$work/sgd3" >/dev/null   # uneven shards: 16 + 17 + 17
"$TG" train "${hf[@]}" --steps 5 --out "$work/hf1" >/dev/null
mpi 2 "$TG" train "${hf[@]}" --steps 5 --out "$work/hf2" >/dev/null
mpi 2 "$TG" train "${hf[@]}" --steps 5 --out "$work/hf2again" >/dev/null
mpi 2 "$TG" train "${hf[@]}" --steps 3 --out "$work/hf2resumed" >/dev/null
mpi 2 "$TG" train "${hf[@]}" --steps 5 --out "$work/hf2resumed" --resume >/dev/null

$PY - "$work" <<'PYEOF'
import json, sys, numpy as np
w = sys.argv[1]
def theta(run): return np.load(f"{w}/{run}/checkpoint.npz")["theta"]
def metrics(run):
    rows = [json.loads(l) for l in open(f"{w}/{run}/metrics.jsonl")]
    for r in rows:
        r.pop("seconds", None)
        r.pop("comm_seconds", None)
        r.pop("cpu_seconds", None)
    return rows
def close(a, b, what, rtol, atol, quiet=False):
    if a.shape != b.shape or not np.allclose(a, b, rtol=rtol, atol=atol):
        sys.exit(f"FAIL: {what}: max |difference| {np.max(np.abs(a - b)):.3g} (rtol {rtol}, atol {atol})")
    if not quiet: print(f"{what}: max |difference| {np.max(np.abs(a - b)):.3g}")
def series(run, keys): return np.array([[r[k] for k in keys] for r in metrics(run)])
# SGD, float32: the ranks' shard means are combined in double, one process averages in float32
for n in ("sgd2", "sgd3"):
    close(theta("sgd1"), theta(n), f"sgd θ, 1 process vs {n[-1]} ranks", 1e-4, 1e-6)
    close(series("sgd1", ["loss", "grad_norm"]), series(n, ["loss", "grad_norm"]), f"sgd losses and ‖g‖, 20 steps, 1 process vs {n[-1]} ranks", 1e-4, 1e-7)
# HF, float64: rounding differences grow through CG but stay tiny; every decision must match
close(theta("hf1"), theta("hf2"), "hf θ, 1 process vs 2 ranks", 1e-5, 1e-7)
for a, b in zip(metrics("hf1"), metrics("hf2")):
    for k in ("cg_iters", "chosen_iter", "cg_stop", "accepted", "step_size"):
        if a[k] != b[k]: sys.exit(f"FAIL: hf iteration {a['iteration']}: {k} is {a[k]} in 1 process, {b[k]} in 2 ranks")
keys = ["loss", "new_loss", "lambda", "grad_norm"]
close(series("hf1", keys), series("hf2", keys), "hf loss, new_loss, λ, ‖g‖ over 5 iterations, 1 process vs 2 ranks", 1e-6, 1e-9)
print("hf decisions (CG iterations, backtracking choice, step, acceptance) identical")
# determinism
if theta("hf2").tobytes() != theta("hf2again").tobytes() or metrics("hf2") != metrics("hf2again"):
    sys.exit("FAIL: the same 2-rank job twice: not bitwise identical")
print("the same 2-rank job twice: bitwise identical θ and metrics")
# exact resume (the checkpoint: θ, λ, CG warm start, RNG; the run stopped at 3 also validated there)
a, b = np.load(f"{w}/hf2/checkpoint.npz"), np.load(f"{w}/hf2resumed/checkpoint.npz")
diff = [k for k in a.files if k not in ("seconds", "cpu_seconds") and a[k].tobytes() != b[k].tobytes()]
if diff: sys.exit(f"FAIL: 2 ranks, stopped at 3 and resumed vs uninterrupted: {diff} differ")
train_keys = lambda rows: [{k: v for k, v in r.items() if not k.startswith("valid")} for r in rows]
if train_keys(metrics("hf2")) != train_keys(metrics("hf2resumed")): sys.exit("FAIL: resumed 2-rank metrics differ")
print("2 ranks, stopped at 3 and resumed to 5: checkpoint and training metrics bitwise identical to an uninterrupted run")
PYEOF

# An error on rank 0 only (its run directory already holds a run; the other rank never checks) must
# end the job with the error, not leave rank 1 waiting for rank 0 forever.
set +e
out=$(timeout 60 bash "$SRC/scripts/mpi_run.sh" 2 "$TG" train "${sgd[@]}" --out "$work/sgd2" 2>&1)
rc=$?
set -e
if [ "$rc" -eq 0 ] || [ "$rc" -eq 124 ]; then echo "FAIL: a one-rank error gave exit code $rc (124: the job hung)"; echo "$out"; exit 1; fi
echo "$out" | grep -q "tapegrad: error: train: .* already holds a run" || { echo "FAIL: no clear error message:"; echo "$out"; exit 1; }
echo "one-rank error: the job ended with exit code $rc and the error message"
echo "mpi_equivalence: 1 process and 2 / 3 ranks agree"
