#!/usr/bin/env bash
# Krause's Ch. 4 (seed 001 digest §4.2, Tables 4.1-4.5; issue 23 item 3) with his exact models, on the
# default corpus (data/kjv.txt, split 90/5/5 % in file order, V = 64; PTB is not packaged in Debian).
# Models (Krause's sizes and initialisations; parameter counts at his V = 70 / at ours, V = 64):
#   rnn           hidden 400, no output bias; W_hh sparse (40 nonzero N(0, 0.1²) weights per unit: his
#                 Bernoulli 0.1 sparsity as a fixed count), input/output N(0, 0.1²)    216,400 / 211,600
#   mrnn          hidden 280, no output bias, all N(0, 0.05²)                          215,880 / 210,840
#   lstm_krause   hidden 195, all N(0, 0.1²)                                           220,350 / 214,500
#   stacked_mrnn  layers 150-130-110, no output bias, all N(0, 0.05²)                  219,090 / 212,070
#   mlstm         hidden 170, all N(0, 0.1²)                                           215,900 / 209,780
# Hessian-free as Krause: length-200 sequences, curvature batch a quarter of the gradient batch, CG up to
# 100 iterations, his weighting B = G + μ G_S (mu_times_lambda false, no Tikhonov term: lambda 0) with μ
# (RNN 0.01, mRNN 0.3, LSTM 0.01, stacked mRNN 0.3, mLSTM 0.1) adapted inside CG and CG stopped once
# μ >= 3 μ0 (adapt_mu); line-search damping (rule line_search_damping: each conjugate step scaled by
# its own backtracking search, CG stopped after more than 5 failed searches) with the same fixed μ.
# Scaled to this machine: his gradient batch is the whole 2.8M-character training set; ours is 100
# sequences (20,000 characters), curvature 25 (cg_restart_if_stuck, docs/results/char_level.md).
# "online": Krause's LSTM baseline, the original truncated gradient (lstm_krause truncated_gradient: the
# recurrent inputs of the gates held constant), here with Adam (his learning rate is not given), so that
# it differs from the Adam row of the same LSTM by the truncation only.
# Adam beside each model: lr 0.003, clipping 1.0, batch 32 (docs/results/zoo.md's probes).
# Every run: BUDGET CPU seconds (default 1500: two lanes finish eight runs in one session), seed 1,
# validation on 500 sequences (HF every 5 iterations, Adam every 1,000), early stopping with patience 20
# validations (Krause stopped early; the test scores the best validation's parameters).
# Runs: $ROOT/<name>_s<seed>, resumable.
#   RUNS    names to run (default all, in table order)   SEEDS default "1"   ROOT default runs/krause
#   TG      the tapegrad binary   PRINT=1 print the commands   EVAL=1 score finished runs into OUT/eval.txt
#   EVERY   validations and checkpoints every EVERY iterations (quick checks only)
# Table: /usr/bin/python3 scripts/experiments/krause_table.py [ROOT]
set -euo pipefail
cd "$(dirname "$0")/../.."
TG=${TG:-./build/tools/tapegrad}
export OPENBLAS_NUM_THREADS=1
source scripts/experiments/lane.sh
ROOT=${ROOT:-runs/krause}
SEEDS=${SEEDS:-1}
BUDGET=${BUDGET:-1500}

# name model "model options" optimizer "optimizer options"
PLAN="rnn_structural|rnn|hidden=400 output_bias=false init_scale=0.1 recurrent_init=sparse sparse_k=40|hf|mu=0.01 adapt_mu=true
rnn_linesearch|rnn|hidden=400 output_bias=false init_scale=0.1 recurrent_init=sparse sparse_k=40|hf|mu=0.01 rule=line_search_damping
mrnn_structural|mrnn|hidden=280 output_bias=false init_scale=0.05|hf|mu=0.3 adapt_mu=true
mrnn_linesearch|mrnn|hidden=280 output_bias=false init_scale=0.05|hf|mu=0.3 rule=line_search_damping
lstm_hf|lstm_krause|hidden=195 init_scale=0.1|hf|mu=0.01 adapt_mu=true
lstm_online|lstm_krause|hidden=195 init_scale=0.1 truncated_gradient=true|adam|
stacked_mrnn_hf|stacked_mrnn|layers=[150,130,110] output_bias=false init_scale=0.05|hf|mu=0.3 adapt_mu=true
mlstm_hf|mlstm|hidden=170 init_scale=0.1|hf|mu=0.1 adapt_mu=true
rnn_adam|rnn|hidden=400 output_bias=false init_scale=0.1 recurrent_init=sparse sparse_k=40|adam|
mrnn_adam|mrnn|hidden=280 output_bias=false init_scale=0.05|adam|
lstm_adam|lstm_krause|hidden=195 init_scale=0.1|adam|
stacked_mrnn_adam|stacked_mrnn|layers=[150,130,110] output_bias=false init_scale=0.05|adam|
mlstm_adam|mlstm|hidden=170 init_scale=0.1|adam|"
ALL=$(echo "$PLAN" | cut -d'|' -f1 | tr '\n' ' ')
RUNS=${RUNS:-$ALL}
for r in $RUNS; do
  case " $ALL " in *" $r "*) ;; *) echo "krause.sh: unknown run '$r' (runs: $ALL)" >&2; exit 2 ;; esac
done
if [ "${EVAL:-0}" != 1 ] && [ "${PRINT:-0}" != 1 ] && [ ! -s data/kjv.txt ]; then
  echo "krause.sh: no data/kjv.txt: bash scripts/corpus.sh writes it" >&2
  exit 2
fi

[ "${PRINT:-0}" = 1 ] || mkdir -p "$ROOT"
for r in $RUNS; do
  IFS='|' read -r name model mopts optimizer oopts <<< "$(echo "$PLAN" | grep "^$r|")"
  for seed in $SEEDS; do
    out=$ROOT/${name}_s$seed
    if [ "${EVAL:-0}" = 1 ]; then
      eval_lane "$out" bpc -n 1000000
      continue
    fi
    args=(--model "$model")
    for o in $mopts; do args+=(--set "model_options.$o"); done
    args+=(--task text --set task_options.file=data/kjv.txt --set task_options.T=200 --optimizer "$optimizer"
           --set eval_batch=500 --set patience=20)
    if [ "$optimizer" = hf ]; then
      every=5
      args+=(--set batch=100 --set curvature_batch=25 --set optimizer_options.max_cg=100
             --set optimizer_options.lambda=0 --set optimizer_options.mu_times_lambda=false
             --set optimizer_options.cg_restart_if_stuck=true)
    else
      every=1000
      args+=(--set batch=32 --set optimizer_options.lr=0.003 --set optimizer_options.clip_norm=1.0)
    fi
    for o in $oopts; do args+=(--set "optimizer_options.$o"); done
    [ -n "${EVERY:-}" ] && every=$EVERY
    args+=(--set "eval_every=$every" --set "checkpoint_every=$every" --seed "$seed" --steps 100000000
           --cpu-budget "$BUDGET")
    train_or_print "$out" "${args[@]}"  # lane.sh
  done
done
