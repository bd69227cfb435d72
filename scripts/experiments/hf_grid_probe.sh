#!/usr/bin/env bash
# Reruns grid cells (hf_grid.sh: HF with structural damping, CG up to 100, validation every 5 iterations on 2,000,
# the confirmed success rule, BUDGET CPU s or 2,000 iterations) with one thing changed, named by VARIANT:
#   sparse          the thesis's sparse initialisation (hf_grid_init_probe.sh says why and how)
#   sparse_restart  the same, and CG rerun from 0 when the warm start leaves q >= 0 (cg_restart_if_stuck)
#   batch10k        the thesis's batch sizes, gradient 10,000 and curvature 1,000 (hf_grid_batch_probe.sh)
# Runs: $ROOT/<problem>_T<T>_<VARIANT>_s<seed>, resumable (lane.sh). CELLS (problem:T), SEEDS (default 1), BUDGET,
# ROOT (default runs/hf_grid_probe), TG the tapegrad binary, PRINT=1 prints the commands.
# The two scripts named above set VARIANT and their defaults; docs/results/hf_grid.md gives their results.
set -euo pipefail
cd "$(dirname "$0")/../.."
TG=${TG:-./build/tools/tapegrad}
export OPENBLAS_NUM_THREADS=1
source scripts/experiments/lane.sh
source scripts/experiments/hf_grid_tasks.sh  # grid_task, grid_hf_args: the grid's cells and HF runs
ROOT=${ROOT:-runs/hf_grid_probe}
SEEDS=${SEEDS:-1}
for name in VARIANT CELLS BUDGET; do
  [ -n "${!name:-}" ] || { echo "hf_grid_probe.sh: set $name (see the header)" >&2; exit 2; }
done
batches=()  # the grid's
changed=()
case $VARIANT in
  sparse|sparse_restart)  # the thesis's variances: √(1/15) = 0.2582 for W_hh, W_ho and the hidden biases, 1 for W_hv
    changed=(--set model_options.init=sparse --set model_options.init_scale=0.2582 --set model_options.input_scale=3.873
             --set model_options.bias_scale=0.2582) ;;
  batch10k) batches=(10000 1000) ;;
  *) echo "hf_grid_probe.sh: unknown VARIANT '$VARIANT' (sparse, sparse_restart, batch10k)" >&2; exit 2 ;;
esac
[ "$VARIANT" = sparse_restart ] && changed+=(--set optimizer_options.cg_restart_if_stuck=true)
[ "${PRINT:-0}" = 1 ] || mkdir -p "$ROOT"
for cell in $CELLS; do
  problem=${cell%%:*}
  T=${cell##*:}
  for seed in $SEEDS; do
    out=$ROOT/${problem}_T${T}_${VARIANT}_s$seed
    read -r task task_options <<< "$(grid_task "$problem" "$T")"
    grid_hf_args "$task" "$task_options" "$seed" "$BUDGET" "${batches[@]}"
    args=("${hf_args[@]}" "${changed[@]}")
    if [ "${PRINT:-0}" = 1 ]; then
      echo "tapegrad train ${args[*]} --out $out"
      continue
    fi
    train_lane "$out" "${args[@]}"
  done
done
