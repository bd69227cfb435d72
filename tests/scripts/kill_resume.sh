#!/usr/bin/env bash
# Kills `tapegrad train` with SIGKILL at 20+ random moments after its first checkpoint. After every
# kill the checkpoint must load, and the run continued with --resume must end bit-identical
# (parameters, optimizer state, metrics) to an uninterrupted run with the same seed and thread count.
# Usage: kill_resume.sh TAPEGRAD [optimizer] [noise|network|control|video|gated|speech]   (optimizer: any of train's, riemannian included)
# With "noise", training uses dropout and weight noise, drawn from the checkpointed RNG. With "network",
# the run is a feedforward autoencoder with dropout on images of an IDX file (the image data path). With
# "control", the arm controller on DDN's fresh reaches (tasks/reaching.h). With "video", the RTRBM on fresh
# bouncing balls: its Gibbs chains drawn from each batch's seed, CD-k switching k mid-run. With "gated", a
# 2-layer predictive gating pyramid: each layer pre-trained as a denoising autoencoder (corruption drawn
# from each batch's seed), the loss switching at iterations 200 and 400 (HF: 50, 100), then closed-loop prediction.
# With "speech", a deep BLSTM learns CTC on a tiny random corpus of utterances of different lengths, with
# dropout, the norm-stabilizer, early stopping (its state and best parameters in the checkpoint) and the
# NaN rule.
set -euo pipefail
TG=$1
OPT=${2:-adam}
NOISE=${3:-}
PY=/usr/bin/python3
if ! $PY -c "import numpy" 2>/dev/null; then echo "numpy for /usr/bin/python3 is missing: skipped"; exit 77; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OPENBLAS_NUM_THREADS=1
STEPS=5000; [ "$OPT" = hf ] && STEPS=1500
args=(--model rnn --task addition --optimizer "$OPT" --seed 7 --steps $STEPS --quiet
      --set task_options.T=20 --set model_options.hidden=32 --set batch=100 --set curvature_batch=20
      --set eval_every=5 --set eval_batch=200 --set checkpoint_every=1 --set optimizer_options.max_cg=30)
[ "$OPT" = hf ] || args=("${args[@]:0:${#args[@]}-2}")  # max_cg is an HF option
if [ "$OPT" = riemannian ]; then  # Ollivier's methods train his models on his tasks, in float64
  args=(--model glnn --task distant_xor --optimizer riemannian --seed 7 --steps 1500 --quiet --set dtype=float64
        --set task_options.T=10 --set task_options.lines=400 --set model_options.units=6 --set model_options.graph=full
        --set optimizer_options.line_batch=64 --set eval_every=5 --set eval_batch=2 --set checkpoint_every=1)
fi
if [ "$NOISE" = network ]; then  # 300 random 8x8 images of unsigned bytes in an IDX file
  $PY - "$work/images.idx" <<'PYEOF'
import sys, numpy as np
x = np.random.default_rng(3).integers(0, 256, size=(300, 8, 8), dtype=np.uint8)
open(sys.argv[1], "wb").write(bytes([0, 0, 8, 3]) + np.array(x.shape, dtype=">u4").tobytes() + x.tobytes())
PYEOF
  STEPS=30000; [ "$OPT" = hf ] && STEPS=3000  # a small network's steps are fast
  args=(--model autoencoder --task images --optimizer "$OPT" --seed 7 --steps $STEPS --quiet
        --set task_options.file="$work/images.idx" --set model_options.encoder=64-16-4 --set model_options.dropout=0.2
        --set batch=50 --set curvature_batch=10 --set eval_every=5 --set eval_batch=100 --set checkpoint_every=1)
  [ "$OPT" = hf ] && args+=(--set optimizer_options.max_cg=30)
fi
if [ "$NOISE" = control ]; then  # the arm controller on DDN's fresh reaches: disturbances and noise drawn every batch
  STEPS=10000; [ "$OPT" = hf ] && STEPS=2500
  args=(--model controller --task ddn --optimizer "$OPT" --seed 7 --steps $STEPS --quiet
        --set task_options.pool=0 --set task_options.steps=12 --set task_options.held_out=40
        --set model_options.hidden1=6 --set model_options.hidden2=6 --set batch=30 --set curvature_batch=10
        --set eval_every=5 --set eval_batch=40 --set checkpoint_every=1)
  [ "$OPT" = hf ] && args+=(--set optimizer_options.max_cg=20)
fi
if [ "$NOISE" = video ]; then
  STEPS=12000
  args=(--model rtrbm --task bouncing_balls --optimizer "$OPT" --seed 7 --steps $STEPS --quiet
        --set task_options.size=8 --set task_options.steps=8 --set model_options.hidden=12
        --set model_options.cd_k=2 --set model_options.cd_k_late=3 --set model_options.cd_switch=300
        --set model_options.predict_gibbs=2 --set batch=2 --set eval_every=5 --set eval_batch=4 --set checkpoint_every=1)
fi
if [ "$NOISE" = gated ]; then
  STEPS=6000; [ "$OPT" = hf ] && STEPS=1500
  args=(--model pgp --task transformed_video --optimizer "$OPT" --seed 7 --steps $STEPS --quiet
        --set task_options.size=5 --set task_options.steps=6 --set task_options.seed_frames=3
        --set model_options.layers=2 --set model_options.factors=8 --set model_options.mappings=4
        --set model_options.pretrain_steps=200 --set batch=20 --set curvature_batch=10
        --set eval_every=5 --set eval_batch=20 --set checkpoint_every=1
        --threads 1)  # with 2 threads the shards' corruption masks differ (own seeds) and this HF run
                      # diverges (lambda past 1e25 at iteration 614): this test is about exact resume
  # HF: λ may not fall below 1 (min_lambda; it starts at 0.1). With the default floor (1e-10) λ sank to it, and with a 10-sequence curvature batch
  # a step then blew the loss up on other batches: seed 7 diverged (loss inf, HF gave up at iteration
  # 791) under OpenBLAS's Haswell kernels and not under its SkylakeX ones, seeds 1-6 in 6 of 12 runs;
  # with the floor at 1 none of those 14 runs diverged and their validation loss ended lower.
  [ "$OPT" = hf ] && args+=(--set model_options.pretrain_steps=50 --set optimizer_options.max_cg=20
                            --set optimizer_options.min_lambda=1)
fi
if [ "$NOISE" = speech ]; then  # CTC on a tiny random corpus in the maker's format, early stopping, NaN rule
  $PY - "$work/speech" <<'PYEOF'
import os, sys, numpy as np
out = sys.argv[1]
os.makedirs(out)
rng = np.random.default_rng(5)
for split, n in (("train", 40), ("dev", 10), ("test", 10)):
    lengths = rng.integers(10, 31, n)
    labels = [rng.integers(0, 39, rng.integers(1, 5)) for _ in range(n)]
    frames = rng.standard_normal((lengths.sum(), 5)).astype(np.float32)
    np.savez(f"{out}/{split}.npz", mfcc=frames, fbank=frames,
             frame_offsets=np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64),
             labels=np.concatenate(labels).astype(np.int64),
             label_offsets=np.concatenate([[0], np.cumsum([len(l) for l in labels])]).astype(np.int64),
             speaker=np.zeros(n, dtype=np.int64))
PYEOF
  STEPS=6000
  args=(--model deep_blstm --task phonemes --data "$work/speech" --optimizer "$OPT" --seed 7 --steps $STEPS --quiet
        --set "model_options.layers=[6,6]" --set objective_options.output_dropout=0.2
        --set objective_options.norm_stabilizer=1 --set nan_rule=true --set patience=600
        --set batch=4 --set eval_every=5 --set eval_batch=10 --set checkpoint_every=1)
fi
[ "$NOISE" = noise ] && args+=(--set objective_options.input_dropout=0.2 --set objective_options.output_dropout=0.3
                               --set objective_options.weight_noise=0.01)

"$TG" train "${args[@]}" --out "$work/full" >/dev/null

kills=0
RANDOM=12345
"$TG" train "${args[@]}" --out "$work/killed" >/dev/null 2>&1 &
pid=$!
# The first kill comes after the first checkpoint: before it there is nothing to resume, and how long
# start-up takes depends on the build (under ASan, about 1 s).
waited=0
while [ ! -e "$work/killed/checkpoint.npz" ] && kill -0 "$pid" 2>/dev/null; do
  sleep 0.02
  waited=$((waited + 1))
  [ "$waited" -lt 6000 ] || { echo "FAIL: no checkpoint after 120 s"; kill -KILL "$pid"; exit 1; }
done
[ -e "$work/killed/checkpoint.npz" ] || { echo "FAIL: the run ended without a checkpoint"; exit 1; }
while :; do
  sleep "0.$(( RANDOM % 25 + 3 ))"
  if ! kill -0 "$pid" 2>/dev/null; then wait "$pid" || true; break; fi
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  kills=$((kills + 1))
  # the checkpoint left behind must always load
  $PY - "$work/killed/checkpoint.npz" <<'PYEOF'
import sys, numpy as np
d = np.load(sys.argv[1])
assert "theta" in d.files and "iteration" in d.files, d.files
assert np.all(np.isfinite(d["theta"]))
PYEOF
  rm -f "$work/killed/checkpoint.npz.tmp".*  # a torn temporary file is fine; the real one is intact
  "$TG" train "${args[@]}" --out "$work/killed" --resume >/dev/null 2>&1 &
  pid=$!
  if [ "$kills" -ge 20 ]; then wait "$pid"; break; fi
done
[ "$kills" -ge 20 ] || { echo "FAIL: only $kills kills before the run finished (make it longer)"; exit 1; }

$PY - "$work/full" "$work/killed" "$kills" <<'PYEOF'
import sys, json, numpy as np
a, b = (np.load(d + "/checkpoint.npz") for d in sys.argv[1:3])
for key in a.files:
    if key in ("seconds", "cpu_seconds"):  # time, not state
        continue
    if not np.array_equal(a[key], b[key]):
        sys.exit(f"FAIL: '{key}' differs between the uninterrupted and the killed-and-resumed run")
def metrics(d):
    rows = [json.loads(l) for l in open(d + "/metrics.jsonl")]
    for r in rows:
        r.pop("seconds", None)
        r.pop("cpu_seconds", None)
    return rows
ma, mb = metrics(sys.argv[1]), metrics(sys.argv[2])
if ma != mb:
    sys.exit(f"FAIL: metrics differ ({len(ma)} vs {len(mb)} rows)")
print(f"kill_resume: {sys.argv[3]} SIGKILLs; checkpoint loaded after each; resumed run bit-identical "
      f"({len(a['theta'])} parameters, {len(ma)} metric rows)")
PYEOF
