#!/usr/bin/env bash
# The feedforward net of the zoo at work (issue 23 item 4; docs/results/zoo.md): an MLP classifying
# Fashion-MNIST (task fashion_mnist_classes, Debian's dataset-fashion-mnist; MNIST is not packaged), two
# ReLU layers of 500 units, with and without dropout (Galvan 002 §2.8: p = 0.5 on the hidden layers'
# outputs, 0.2 on the input), Adam lr 0.001, batches of 100. Validation scores 2,000 training images
# (validate_on train), so nothing is selected on the test part; the test error is measured once, by
# EVAL=1, on all 10,000 test images with the parameters of the best validation.
# Every run trains to BUDGET CPU seconds and resumes from its checkpoint when an invocation is cut short
# (scripts/experiments/lane.sh). Runs: $ROOT/<setting>_s<seed>.
#   SETTINGS   plain dropout (default both)    SEEDS  default "1"    BUDGET  CPU seconds per run (default 300)
set -euo pipefail
cd "$(dirname "$0")/../.."
TG=${TG:-./build/tools/tapegrad}
export OPENBLAS_NUM_THREADS=1
source scripts/experiments/lane.sh
ROOT=${ROOT:-runs/mlp}
BUDGET=${BUDGET:-300}
SEEDS=${SEEDS:-1}
SETTINGS=${SETTINGS:-plain dropout}
common=(--model mlp --task fashion_mnist_classes --set task_options.validate_on=train
        --set 'model_options.hidden=[500,500]' --set model_options.activation=relu
        --optimizer adam --set optimizer_options.lr=0.001 --set batch=100
        --set eval_every=600 --set eval_batch=2000 --set checkpoint_every=600
        --steps 100000000 --cpu-budget "$BUDGET")
for name in $SETTINGS; do
  case $name in
    plain) reg=() ;;
    dropout) reg=(--set model_options.dropout=0.5 --set model_options.input_dropout=0.2) ;;
    *) echo "mlp.sh: unknown setting '$name' (settings: plain dropout)" >&2; exit 2 ;;
  esac
  for seed in $SEEDS; do
    out=$ROOT/${name}_s$seed
    if [ "${EVAL:-0}" = 1 ]; then
      [ -f "$out/done" ] || continue
      if [ ! -f "$out/eval.txt" ]; then  # whole or not at all
        "$TG" eval --run "$out" --task-set part=test -n 10000 > "$out/eval.txt.tmp"
        mv "$out/eval.txt.tmp" "$out/eval.txt"
      fi
      echo "$name seed $seed: $(grep -m1 '(test part)' "$out/eval.txt")"
      continue
    fi
    train_lane "$out" "${common[@]}" "${reg[@]}" --seed "$seed"
  done
done
