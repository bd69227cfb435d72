#!/usr/bin/env bash
# The main job: installs what is missing, builds, then a short demo on built-in data (a few minutes
# on 2 cores):
#   1. every op through the gradient-check harness;
#   2. Hessian-free with structural damping trains a tanh RNN on the addition problem until it
#      meets the success criterion, scored on 10,000 fresh test sequences;
#   3. an LSTM character model on the King James Bible for a fixed time budget, its test bits per
#      character, and a sample;
#   4. training curves as PNG.
# Runs go to runs/demo/ (replaced on every demo). Extra arguments are ignored.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
bash scripts/corpus.sh
export OPENBLAS_NUM_THREADS=1
TG=./build/tools/tapegrad
out=runs/demo
rm -rf "$out"
mkdir -p "$out"
step() { printf '\n== %s\n' "$*"; }

step "gradient checks of every op (float64: finite differences, dot-product test, second order, linearize)"
$TG gradcheck | tail -n 1

step "Hessian-free + structural damping: 50-unit tanh RNN, addition problem, T = 30"
$TG train --model rnn --task addition --optimizer hf --seed 1 --steps 200 \
  --set task_options.T=30 --set model_options.hidden=50 \
  --set batch=1000 --set curvature_batch=200 --set optimizer_options.max_cg=100 \
  --set eval_every=5 --set eval_batch=1000 --set stop_on_success=true --out "$out/addition"
$TG eval --run "$out/addition" --seed 2026 -n 10000

step "character-level LSTM (128 units, Adam) on the King James Bible, 90 seconds"
$TG train --model lstm --data data/kjv.txt --optimizer adam --seed 1 --steps 100000 --max-seconds 90 \
  --set model_options.hidden=128 --set task_options.T=100 --set batch=32 \
  --set optimizer_options.lr=0.003 --set eval_every=100 --set eval_batch=200 --out "$out/kjv-lstm"
$TG eval --run "$out/kjv-lstm" -n 1000
$TG sample --run "$out/kjv-lstm" --prompt "And God said" --length 300 --temperature 0.7 --seed 1

step "training curves"
$TG plot --run "$out/addition"
$TG plot --run "$out/kjv-lstm"
