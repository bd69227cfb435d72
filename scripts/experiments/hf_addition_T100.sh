#!/usr/bin/env bash
# HF + structural damping, 100 tanh units, addition T = 100 (issue: the seeds' headline result), with
# small gradient/curvature batches (docs/results/configs/hf_addition_T100_small.json), seeds given as
# arguments (default 1 2 3). Resumable: rerunning continues each unfinished run from its checkpoint.
# Usage: bash scripts/experiments/hf_addition_T100.sh [seeds...]   (MAX_SECONDS per invocation, default none)
set -euo pipefail
cd "$(dirname "$0")/../.."
TG=${TG:-./build/tools/tapegrad}
CONFIG=${CONFIG:-docs/results/configs/hf_addition_T100_small.json}
seeds=("${@:-1 2 3}")
for s in ${seeds[*]}; do
  out=runs/$(basename "$CONFIG" .json)_s$s
  args=(--config "$CONFIG" --seed "$s" --out "$out")
  [ -f "$out/checkpoint.npz" ] && args+=(--resume)
  [ -n "${MAX_SECONDS:-}" ] && args+=(--max-seconds "$MAX_SECONDS")
  $TG train "${args[@]}" --threads "${THREADS:-1}"
  OPENBLAS_NUM_THREADS=1 $TG eval --run "$out" --seed 2026 -n 10000 | tee "$out/eval.txt"
done
