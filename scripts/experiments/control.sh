#!/usr/bin/env bash
# The thesis's Ch. 6 at this machine's scale (docs/results/control.md): the 100+100 recurrent controller
# trained through the arm on
#   center_out  gradient descent, L-BFGS (L = 100), HF with structural damping, augmented HF; iLQR per reach
#   postural    augmented HF, L-BFGS
#   ddn         augmented HF, L-BFGS (the training pool of 400 reaches for both, as the thesis; held-out
#               reaches for the test figure); AHF on 400 fresh reaches every iteration (ahf_fresh)
# every run with the same CPU budget (BUDGET CPU seconds, default 900), seed 1, float32. One run per task
# and method under runs/control/<task>_<method>; resumable: finished runs are skipped, an interrupted one
# continues from its checkpoint. The table and the figures:
#   python3 scripts/experiments/control_table.py
# Usage: TASKS="center_out" METHODS="hf ahf" bash scripts/experiments/control.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
TG=${TG:-./build/tools/tapegrad}
export OPENBLAS_NUM_THREADS=1
source scripts/experiments/lane.sh
BUDGET=${BUDGET:-900}
TASKS=${TASKS:-"center_out postural ddn"}
mkdir -p runs/control
[ -f runs/control/ilqr_center_out.json ] || "$TG" ilqr -q --out runs/control/ilqr_center_out.json > runs/control/ilqr_center_out.txt
for task in $TASKS; do
  case $task in
    center_out) batch=64; default_methods="gd lbfgs hf ahf" ;;
    postural) batch=72; default_methods="ahf lbfgs" ;;
    ddn) batch=400; default_methods="ahf lbfgs ahf_fresh" ;;
    *) echo "control.sh: unknown task '$task' (center_out postural ddn)" >&2; exit 2 ;;
  esac
  for method in ${METHODS:-$default_methods}; do
    out=runs/control/${task}_$method
    [ -f "$out/done" ] && continue
    args=(--model controller --task "$task" --seed 1 --steps 100000000 --cpu-budget "$BUDGET"
          --set batch=$batch --set curvature_batch=$batch --set eval_every=10 --set checkpoint_every=10)
    case $method in
      # plain gradient descent on the whole batch: lr 0.003 was the best of 0.001 ... 1 (0.01 and above diverge)
      gd) args+=(--optimizer sgd --set optimizer_options.lr=0.003 --set eval_every=100 --set checkpoint_every=100) ;;
      lbfgs) args+=(--optimizer lbfgs --set optimizer_options.history=100) ;;
      # HF with structural damping (mu = 1/30, the Levenberg-Marquardt lambda rule), up to 100 CG steps
      hf) args+=(--optimizer hf --set optimizer_options.max_cg=100) ;;
      # AHF: the true objective minimised along each conjugate step; lambda fixed small, no lambda rule
      ahf) args+=(--optimizer hf --set optimizer_options.rule=augmented --set optimizer_options.lambda=0.001
                  --set optimizer_options.max_cg=100) ;;
      # DDN: AHF on 400 fresh reaches every iteration instead of the fixed pool (which it overfits)
      ahf_fresh) args+=(--optimizer hf --set optimizer_options.rule=augmented --set optimizer_options.lambda=0.001
                        --set optimizer_options.max_cg=100 --set task_options.pool=0) ;;
      *) echo "control.sh: unknown method '$method' (gd lbfgs hf ahf ahf_fresh)" >&2; exit 2 ;;
    esac
    train_lane "$out" "${args[@]}"
  done
done
