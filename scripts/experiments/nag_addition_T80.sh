#!/usr/bin/env bash
# Thesis ch. 7 reproduction: NAG, ch. 7 addition schedule, spectral radius 1.2, addition T = 80, seeds 1..5.
# Each run is resumable: rerunning this script continues unfinished runs from their checkpoints.
# Usage: bash scripts/experiments/nag_addition_T80.sh [seeds...]
#   VARIANT=cues: the task with the released generator's start/end cues
#   (docs/results/configs/nag_addition_T80_cues.json, runs/nag_addition_T80_cues_s<seed>)
#   VARIANT=lr03: every learning rate of the ch. 7 schedule × 0.3 (docs/results/configs/nag_addition_T80_lr03.json)
#   VARIANT=clip1: the thesis settings plus gradient-norm clipping at 1 (docs/results/configs/nag_addition_T80_clip1.json)
set -euo pipefail
cd "$(dirname "$0")/../.."
TG=${TG:-./build/tools/tapegrad}
suffix=${VARIANT:+_$VARIANT}
seeds=("${@:-1 2 3 4 5}")
for s in ${seeds[*]}; do
  out=runs/nag_addition_T80${suffix}_s$s
  if [ -f "$out/checkpoint.npz" ]; then resume=--resume; else resume=; fi
  $TG train --threads "${THREADS:-1}" --config "docs/results/configs/nag_addition_T80${suffix}.json" --seed "$s" --out "$out" $resume
  OPENBLAS_NUM_THREADS=1 $TG eval --run "$out" --seed 2026 -n 10000 | tee "$out/eval.txt"
done
