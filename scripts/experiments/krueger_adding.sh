#!/usr/bin/env bash
# Krueger's adding task at T = 400 (seed 004 digest §3.3, thesis §5.4.3; issue 23 item 2): with and without the
# norm-stabilizer (β = 1), 9 seeds each. The thesis: stabilized runs beat the short-sighted baseline (test MSE
# < 1/12) in 8 of 9 runs (mean MSE 0.059), unregularized ones in 4 of 9 (mean 0.105).
# What the thesis states: uniform initialisation in [-0.01, 0.01], learning rate 0.01, gradient clipping 1,
# 9 seeds, β = 1. What it does not, and our choice: an IRNN (Le et al.'s setting the section follows) of 100
# units, its recurrence the identity and every other weight uniform in [-0.01, 0.01]; plain SGD; norm clipping;
# batch 16 (Le et al.); markers one in each half (task adding's default, Le et al.'s convention); the loss on
# the last step only. Budget: BUDGET CPU seconds per run (default 600), validation on 1,000 fresh sequences
# every 2,000 iterations; the best validation's parameters are kept (patience 1000: the trainer's early
# stopping, which never stops a run within this budget: a plateau before the drop is common on this task).
# Test: `tapegrad eval --run OUT -n 10000 --seed 777` (MSE on 10,000 fresh sequences, the best parameters).
# Runs: $ROOT/b<β>_s<seed>, resumable (scripts/experiments/lane.sh).
#   SEEDS default "1 2 3 4 5 6 7 8 9"   BETAS default "0 1"   ROOT default runs/krueger_adding (runs/krueger_adding_T<T>
#   for another T)   T the sequence length (default 400, the thesis's; shorter ones probe where this setup learns)
#   TG the tapegrad binary   PRINT=1 print the commands   EVAL=1 score finished runs into OUT/eval.txt
# Table: /usr/bin/python3 scripts/experiments/krueger_adding_table.py [ROOT]
set -euo pipefail
cd "$(dirname "$0")/../.."
TG=${TG:-./build/tools/tapegrad}
export OPENBLAS_NUM_THREADS=1
source scripts/experiments/lane.sh
T=${T:-400}
# runs of another length go to a root of their own: one table, one T (krueger_adding_table.py refuses a mix)
if [ "$T" = 400 ]; then ROOT=${ROOT:-runs/krueger_adding}; else ROOT=${ROOT:-runs/krueger_adding_T$T}; fi
SEEDS=${SEEDS:-1 2 3 4 5 6 7 8 9}
BETAS=${BETAS:-0 1}
BUDGET=${BUDGET:-600}
[ "${PRINT:-0}" = 1 ] || mkdir -p "$ROOT"
for seed in $SEEDS; do  # seed-major: a partial set still compares the two settings seed by seed
  for beta in $BETAS; do
    out=$ROOT/b${beta}_s$seed
    if [ "${EVAL:-0}" = 1 ]; then
      eval_lane "$out" error_rate -n 10000 --seed 777
      continue
    fi
    args=(--model irnn --set model_options.hidden=100 --set model_options.init=uniform --set model_options.init_scale=0.01
          --task adding --set task_options.T="$T" --optimizer sgd --set optimizer_options.lr=0.01
          --set optimizer_options.clip_norm=1 --set batch=16 --set eval_every=2000 --set eval_batch=1000
          --set checkpoint_every=2000 --set patience=1000 --seed "$seed" --steps 100000000 --cpu-budget "$BUDGET")
    [ "$beta" != 0 ] && args+=(--set "objective_options.norm_stabilizer=$beta")
    train_or_print "$out" "${args[@]}"  # lane.sh
  done
done
