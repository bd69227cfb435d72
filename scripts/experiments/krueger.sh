#!/usr/bin/env bash
# Krueger's Ch. 5.4.1 tables (seed 004 digest §3.1; issue 23 item 1) at this machine's scale: the
# norm-stabilizer β (1/T) Σ_t (‖h_t‖ - ‖h_{t-1}‖)² and its alternatives on a character-level language model.
#   Corpus    the default corpus (data/kjv.txt, the King James Bible; PTB is not packaged in Debian): task
#             text, split 90/5/5 % in file order, length-50 sequences without overlap (Krueger), V = 64.
#   Training  Krueger's: SGD with momentum 0.99 (optimizer momentum: v <- μ v - ε g; at a constant rate the
#             same iterates as his v <- γ v + g, θ <- θ - α v), learning rate 0.002, gradient clipping 1 (norm clipping: the
#             thesis does not say norm or elementwise), the NaN rule (nan_rule: a non-finite loss or gradient rolls the
#             run back to its last checkpoint, θ and velocity, and halves the learning rate; Krueger restarts from
#             the previous epoch's parameters on a NaN cost, and his α also scales the old velocity: ours
#             adapt his rule to checkpoints every ~30 CPU s and keep the velocity as saved). Batch 32 (not stated).
#             Validation on 500 sequences about every 30 CPU s; early stopping (patience 20 validations,
#             which a budget of 600 s never reaches: it keeps the best validation's parameters, best.npz)
#             and the test scores those on the whole test part.
#   Widths    thesis LSTM 1000 and SRNN 1600 units; here LSTM 100 and SRNN 160 (the same 1 : 1.6).
#   Budgets   equal within a table: LSTM (Table 5.I) BUDGET_LSTM CPU s per run (default 600); SRNN
#             (Tables 5.II and 5.III, which share a run) BUDGET_SRNN (default 400). Krueger ran up to 1,000 epochs.
#   5.1  Table 5.I, LSTM, β ∈ {0, 50, 500}: "hidden" = the penalty on h_t of lstm_no_output_tanh (the thesis
#        removed the output tanh for these runs), "cell" = the penalty on the memory c_t of lstm
#        (stability_penalty on = cell).
#   5.2  Table 5.II, SRNN with tanh, ReLU (with bias: irnn) and TRec (zero-bias IRNN: irnn_zero_bias),
#        β ∈ {0, 500}, learning rate 0.002 and 0.0002, clipping 1 and 1e6 (none). Every activation starts
#        from the identity recurrence and irnn's input scale 0.001 (the thesis states the identity for its
#        IRNNs; for tanh it is silent: our choice, so the rows differ in the activation only).
#   5.3  Table 5.III, zero-bias IRNN, lr 0.002, clipping 1, β ∈ {50, 500}, the penalties state_diff
#        (Δh_t)², norm (the norm-stabilizer), relative (Δ‖h_t‖/‖h_t‖)², l1_norm (Δ‖h_t‖₁)², target_norm
#        (‖h_t‖ - 5)², initial_final (‖h_0‖ - ‖h_T‖)² (with skip_first, the default: the difference
#        terms start at t = 2, and initial_final compares h_1, not the zero h_0, with h_T; target_norm
#        sums t = 1..T). The thesis's sums run from t = 1 with h_0 (‖h_0‖ in initial_final): a departure,
#        as models/regularizers.h says (with a zero h_0 its (‖h_1‖ - ‖h_0‖)² term penalises ‖h_1‖ itself). Its norm β = 500 cell is Table 5.II's TRec β = 500,
#        lr 0.002, clipping 1 run (the thesis: the same setup, the same 1.48), trained once.
# Runs: $ROOT/t51_<hidden|cell>_b<β>_s<seed>, t52_<tanh|relu|trec>_b<β>_lr<lr>_gc<clip>_s<seed>,
# t53_<penalty>_b<β>_s<seed>; each resumes from its checkpoint (scripts/experiments/lane.sh).
#   TABLES   default "5.1 5.2 5.3"       SEEDS  default "1"       ROOT  default runs/krueger
#   TG       the tapegrad binary          PRINT=1  print each run's command instead of training
#   EVAL=1   score the finished runs into OUT/eval.txt: `tapegrad eval --run OUT -n 1000000` (every test
#            sequence, bits per character, the best validation's parameters)
#   EVERY    iterations between validations and checkpoints instead of ~30 CPU s (quick checks only)
# Table: /usr/bin/python3 scripts/experiments/krueger_table.py [ROOT]
set -euo pipefail
cd "$(dirname "$0")/../.."
TG=${TG:-./build/tools/tapegrad}
export OPENBLAS_NUM_THREADS=1
source scripts/experiments/lane.sh
ROOT=${ROOT:-runs/krueger}
SEEDS=${SEEDS:-1}
TABLES=${TABLES:-5.1 5.2 5.3}
BUDGET_LSTM=${BUDGET_LSTM:-600}
BUDGET_SRNN=${BUDGET_SRNN:-400}
for t in $TABLES; do
  case $t in 5.1|5.2|5.3) ;; *) echo "krueger.sh: unknown table '$t' (tables: 5.1 5.2 5.3)" >&2; exit 2 ;; esac
done
if [ "${EVAL:-0}" != 1 ] && [ "${PRINT:-0}" != 1 ] && [ ! -s data/kjv.txt ]; then
  echo "krueger.sh: no data/kjv.txt: bash scripts/corpus.sh writes it" >&2
  exit 2
fi

# The runs of the chosen tables, one line each: name model budget lr clip penalty-kind beta on [model options...]
plan() {
  local b kind act lr gc
  for t in $TABLES; do
    case $t in
      5.1)
        for b in 0 50 500; do
          echo "t51_hidden_b$b lstm_no_output_tanh $BUDGET_LSTM 0.002 1 norm $b hidden hidden=100"
          echo "t51_cell_b$b lstm $BUDGET_LSTM 0.002 1 norm $b cell hidden=100"
        done ;;
      5.2)
        for act in tanh relu trec; do
          for b in 0 500; do
            for lr in 0.002 0.0002; do
              for gc in 1 1e6; do
                case $act in
                  tanh) echo "t52_tanh_b${b}_lr${lr}_gc${gc} rnn $BUDGET_SRNN $lr $gc norm $b hidden hidden=160 activation=tanh recurrent_init=identity init_scale=0.001" ;;
                  relu) echo "t52_relu_b${b}_lr${lr}_gc${gc} irnn $BUDGET_SRNN $lr $gc norm $b hidden hidden=160" ;;
                  trec) echo "t52_trec_b${b}_lr${lr}_gc${gc} irnn_zero_bias $BUDGET_SRNN $lr $gc norm $b hidden hidden=160" ;;
                esac
              done
            done
          done
        done ;;
      5.3)
        for b in 50 500; do
          for kind in state_diff norm relative l1_norm target_norm initial_final; do
            # the norm-stabilizer at β = 500 is Table 5.II's TRec run (made there, or here when 5.2 is not chosen)
            if [ "$kind" = norm ] && [ "$b" = 500 ]; then
              [[ " $TABLES " == *" 5.2 "* ]] || echo "t52_trec_b500_lr0.002_gc1 irnn_zero_bias $BUDGET_SRNN 0.002 1 norm 500 hidden hidden=160"
              continue
            fi
            echo "t53_${kind}_b$b irnn_zero_bias $BUDGET_SRNN 0.002 1 $kind $b hidden hidden=160"
          done
        done ;;
    esac
  done
}

[ "${PRINT:-0}" = 1 ] || mkdir -p "$ROOT"
plan | while read -r name model budget lr gc kind beta on opts; do
  for seed in $SEEDS; do
    out=$ROOT/${name}_s$seed
    if [ "${EVAL:-0}" = 1 ]; then
      eval_lane "$out" bpc -n 1000000
      continue
    fi
    args=(--model "$model")
    for o in $opts; do args+=(--set "model_options.$o"); done
    # Validation and checkpoints about every 30 CPU s (20-30 s probes: LSTM-100 ~7 ms, SRNN-160 2.6-3.7 ms
    # per iteration)
    every=$([ "$model" = lstm ] || [ "$model" = lstm_no_output_tanh ] && echo 4000 || echo 8000)
    [ -n "${EVERY:-}" ] && every=$EVERY
    args+=(--task text --set task_options.file=data/kjv.txt --set task_options.T=50
           --optimizer momentum --set "optimizer_options.lr=$lr" --set optimizer_options.momentum=0.99
           --set "optimizer_options.clip_norm=$gc" --set nan_rule=true --set batch=32 --set eval_batch=500 --set patience=20)
    [ "$beta" != 0 ] && args+=(--set "objective_options.stability_penalty={\"kind\": \"$kind\", \"beta\": $beta, \"on\": \"$on\"}")
    args+=(--set "eval_every=$every" --set "checkpoint_every=$every" --seed "$seed" --steps 100000000
           --cpu-budget "$budget")
    train_or_print "$out" "${args[@]}"  # lane.sh
  done
done
