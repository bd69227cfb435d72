#!/usr/bin/env bash
# Pascanu, Mikolov & Bengio's norm-preserving regulariser Ω with SGD and gradient clipping (seed 002 §4.2,
# Galvan; issue 23 item 5) beside SGD with clipping alone, on the addition problem at T = 50 (task addition:
# lengths 50-55, the mean of two marked numbers; success: under 1% of 10,000 fresh sequences off by more
# than 0.04), where the zoo's tanh RNN under Adam stayed at chance (docs/results/zoo.md).
# Settings (the seed gives no λ, rate or threshold; ours): tanh RNN of 100 units (rnn's default
# initialisation), plain SGD, learning rate 0.01, norm clipping at 1 (Galvan's heuristic, half to ten times
# the mean gradient norm, needs a first run to know that norm), batch 100, Ω weighted by λ ∈ LAMBDAS (0 is
# clipping alone; Ω's error vectors held constant, as Pascanu et al.). Validation on 2,000 fresh sequences
# every 2,000 iterations; stop_on_success (validation < 1% and 10,000 further fresh sequences confirming it).
# Budget: BUDGET CPU seconds per run (default 600). Runs: $ROOT/l<λ>_s<seed>, resumable.
#   SEEDS default "1 2 3"   LAMBDAS default "0 1"   ROOT default runs/omega   TG the tapegrad binary
#   PRINT=1 print the commands   EVAL=1 score finished runs (OUT/eval.txt: 10,000 fresh sequences, seed 777)
set -euo pipefail
cd "$(dirname "$0")/../.."
TG=${TG:-./build/tools/tapegrad}
export OPENBLAS_NUM_THREADS=1
source scripts/experiments/lane.sh
ROOT=${ROOT:-runs/omega}
SEEDS=${SEEDS:-1 2 3}
LAMBDAS=${LAMBDAS:-0 1}
BUDGET=${BUDGET:-600}
[ "${PRINT:-0}" = 1 ] || mkdir -p "$ROOT"
for seed in $SEEDS; do
  for lambda in $LAMBDAS; do
    out=$ROOT/l${lambda}_s$seed
    if [ "${EVAL:-0}" = 1 ]; then
      eval_lane "$out" error_rate -n 10000 --seed 777
      continue
    fi
    args=(--model rnn --set model_options.hidden=100 --task addition --set task_options.T=50 --optimizer sgd
          --set optimizer_options.lr=0.01 --set optimizer_options.clip_norm=1 --set batch=100 --set eval_every=2000
          --set eval_batch=2000 --set checkpoint_every=2000 --set stop_on_success=true --seed "$seed"
          --steps 100000000 --cpu-budget "$BUDGET")
    [ "$lambda" != 0 ] && args+=(--set "objective_options.norm_preserving=$lambda")
    train_or_print "$out" "${args[@]}"  # lane.sh
  done
done
