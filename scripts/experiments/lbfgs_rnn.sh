#!/usr/bin/env bash
# L-BFGS on an RNN task beside Hessian-free and Adam (issue 23 item 5): the addition problem at T = 30 (task
# addition; success: under 1% of 10,000 fresh sequences off by more than 0.04), a tanh RNN of 100 units,
# seeds 1..3, every method for the same CPU budget (BUDGET, default 600 s), stopping at a confirmed success
# (stop_on_success: validation on 2,000 fresh sequences < 1%, then 10,000 further ones).
#   lbfgs  L-BFGS (history 10, Armijo backtracking from α₀ = 1) on batches of 1,000 (HF's gradient batch)
#   hf     HF with structural damping, batch 1,000, curvature 200, CG up to 100 (as scripts/experiments/hf_grid.sh)
#   adam   Adam lr 0.001, clipping 1.0, batch 100 (as hf_grid.sh's Adam)
# Validation every 5 iterations (HF, L-BFGS) or 250 (Adam). Runs: $ROOT/<method>_s<seed>, resumable.
#   SEEDS default "1 2 3"   METHODS default "lbfgs hf adam"   ROOT default runs/lbfgs_rnn   TG the binary
#   PRINT=1 print the commands   EVAL=1 score finished runs (OUT/eval.txt: 10,000 fresh sequences, seed 777)
set -euo pipefail
cd "$(dirname "$0")/../.."
TG=${TG:-./build/tools/tapegrad}
export OPENBLAS_NUM_THREADS=1
source scripts/experiments/lane.sh
ROOT=${ROOT:-runs/lbfgs_rnn}
SEEDS=${SEEDS:-1 2 3}
METHODS=${METHODS:-lbfgs hf adam}
BUDGET=${BUDGET:-600}
[ "${PRINT:-0}" = 1 ] || mkdir -p "$ROOT"
for seed in $SEEDS; do
  for method in $METHODS; do
    out=$ROOT/${method}_s$seed
    if [ "${EVAL:-0}" = 1 ]; then
      eval_lane "$out" error_rate -n 10000 --seed 777
      continue
    fi
    args=(--model rnn --set model_options.hidden=100 --task addition --set task_options.T=30 --optimizer "$method"
          --set eval_batch=2000 --set stop_on_success=true --seed "$seed" --steps 100000000 --cpu-budget "$BUDGET")
    case $method in
      lbfgs) args+=(--set batch=1000 --set eval_every=5 --set checkpoint_every=5) ;;
      hf) args+=(--set batch=1000 --set curvature_batch=200 --set optimizer_options.max_cg=100 --set eval_every=5
                 --set checkpoint_every=5) ;;
      adam) args+=(--set batch=100 --set optimizer_options.lr=0.001 --set optimizer_options.clip_norm=1.0
                   --set eval_every=250 --set checkpoint_every=250) ;;
      *) echo "lbfgs_rnn.sh: unknown method '$method' (lbfgs hf adam)" >&2; exit 2 ;;
    esac
    train_or_print "$out" "${args[@]}"  # lane.sh
  done
done
