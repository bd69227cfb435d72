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
# The NaN rule (NAN_RULE=1, the default; Krueger trained with it, §5.4.2): a non-finite loss or gradient rolls θ
# back to the last checkpoint (every 2,000 iterations) with half the learning rate. Without it (NAN_RULE=0, the
# runs recorded before 2026-11-28's second session) such steps are skipped and 200 in a row end the run.
# Runs: $ROOT/b<β>_s<seed>, resumable (scripts/experiments/lane.sh).
#   SEEDS default "1 2 3 4 5 6 7 8 9"   BETAS default "0 1"   ROOT default runs/krueger_adding_nanrule
#   (runs/krueger_adding_nanrule_T<T> for another T; with NAN_RULE=0 runs/krueger_adding and
#   runs/krueger_adding_T<T>)   T the sequence length (default 400, the thesis's; shorter ones probe where this
#   setup learns)
#   TG the tapegrad binary   PRINT=1 print the commands   EVAL=1 score finished runs into OUT/eval.txt
# Table: /usr/bin/python3 scripts/experiments/krueger_adding_table.py [ROOT]
set -euo pipefail
cd "$(dirname "$0")/../.."
TG=${TG:-./build/tools/tapegrad}
export OPENBLAS_NUM_THREADS=1
source scripts/experiments/lane.sh
T=${T:-400}
NAN_RULE=${NAN_RULE:-1}
case $NAN_RULE in 0|1) ;; *) echo "krueger_adding.sh: NAN_RULE must be 0 or 1, not '$NAN_RULE'" >&2; exit 2 ;; esac
# runs of another length or rule go to a root of their own: one table, one T, one rule (krueger_adding_table.py
# refuses a mix)
base=runs/krueger_adding; [ "$NAN_RULE" = 1 ] && base=runs/krueger_adding_nanrule
if [ "$T" = 400 ]; then ROOT=${ROOT:-$base}; else ROOT=${ROOT:-${base}_T$T}; fi
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
    [ "$NAN_RULE" = 1 ] && args+=(--set nan_rule=true)
    train_or_print "$out" "${args[@]}"  # lane.sh
  done
done
