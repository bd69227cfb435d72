#!/usr/bin/env bash
# The thesis's Ch. 3 comparison (§3.11.3; docs/results/boltzmann.md): RTRBM and TRBM (400 hidden units, no
# delay taps) on fresh 30x30 bouncing-balls video of 100 frames, one sequence per update, momentum 0.9,
# the learning rate decaying linearly from 0.01 to 0 over STEPS updates, CD-10 for the first 1000 updates
# and CD-25 after, the gradient divided by the length (the loss is a mean over frames). The thesis ran
# 100,000 updates; STEPS (default 100000) is the run's length and WALL (seconds, default 3000) how long one
# invocation trains it: every run resumes from its checkpoint, so repeated invocations finish it. Also the RTRBM with the thesis's printed BPTT (rtrbm_thesis_bptt) for the difference the omitted term
# makes. Each run: $ROOT/<model> (ROOT default runs/boltzmann; runs/boltzmann_100k for the thesis's length);
# scoring: MODELS=... EVAL=1 bash scripts/experiments/boltzmann.sh
# Usage: MODELS="rtrbm trbm" bash scripts/experiments/boltzmann.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
TG=${TG:-./build/tools/tapegrad}
export OPENBLAS_NUM_THREADS=1
STEPS=${STEPS:-100000}
WALL=${WALL:-3000}
MODELS=${MODELS:-"rtrbm trbm rtrbm_thesis_bptt"}
ROOT=${ROOT:-runs/boltzmann}
mkdir -p "$ROOT"
for name in $MODELS; do
  out=$ROOT/$name
  if [ "${EVAL:-0}" = 1 ]; then
    # 10,000 fresh sequences (a seed no training batch used), and the picture
    "$TG" eval --run "$out" -n "${EVAL_SEQUENCES:-10000}" --seed 777 | tee "$out/eval.txt"
    "$TG" video --run "$out" -n 3 --prefix 10 --frames 30 --output "docs/results/$(basename "$ROOT")_$name.png" | tee "$out/video.txt"
    continue
  fi
  [ -f "$out/done" ] && continue
  case $name in
    rtrbm) model=rtrbm; extra=() ;;
    trbm) model=trbm; extra=() ;;
    rtrbm_thesis_bptt) model=rtrbm; extra=(--set model_options.thesis_bptt=true) ;;
    *) echo "boltzmann.sh: unknown model '$name' (rtrbm trbm rtrbm_thesis_bptt)" >&2; exit 2 ;;
  esac
  args=(--model "$model" --task bouncing_balls --seed 1 --optimizer momentum --steps "$STEPS" --max-seconds "$WALL"
        --set batch=1 --set "optimizer_options.lr={\"kind\": \"linear\", \"from\": 0.01, \"steps\": $STEPS}"
        --set optimizer_options.momentum=0.9 --set eval_every=2000 --set eval_batch=100 --set checkpoint_every=200
        "${extra[@]}")
  [ -f "$out/checkpoint.npz" ] && args+=(--resume)
  echo "$(date +%T) $out" >&2
  code=0
  "$TG" train "${args[@]}" --threads "${THREADS:-1}" --out "$out" > "$out.summary" 2> "$out.log" || code=$?
  [ $code -eq 0 ] || [ $code -eq 3 ] || { echo "run $out stopped with exit $code (see $out.log)" >&2; exit $code; }
  # out of time for this invocation: the next one resumes
  grep -q "time budget of" "$out.log" "$out.summary" && continue
  mv "$out.summary" "$out/summary.txt"
  touch "$out/done"
done
