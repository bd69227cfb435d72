#!/usr/bin/env bash
# Krueger's Ch. 6 at our scale (issue 22; docs/results/gated_pyramids.md): the factored gated autoencoder
# against a plain autoencoder of the same size (blob images and Fashion-MNIST), the predictive gating pyramid with 1-3 layers on
# constant-velocity and constant-acceleration rotations, Adam against Hessian-free and the effect of
# layer-wise pre-training on the 2-layer pyramid, and the conditional pyramid on the sine-walk task.
# Every run trains to a CPU budget (seconds: BUDGET_AE for the autoencoders, BUDGET for the pyramids) and
# resumes from its checkpoint when an invocation is cut short. Runs: $ROOT/<lane> (ROOT default
# runs/gated). LANES picks some (default all, in order); EVAL=1 scores the finished ones on 10,000 fresh
# sequences (a seed no training batch used) and draws their pictures into docs/results/.
# Usage: bash scripts/experiments/gated.sh;  EVAL=1 bash scripts/experiments/gated.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
TG=${TG:-./build/tools/tapegrad}
export OPENBLAS_NUM_THREADS=1
source scripts/experiments/lane.sh
ROOT=${ROOT:-runs/gated}
BUDGET_AE=${BUDGET_AE:-300}
BUDGET=${BUDGET:-450}
ALL="fgae_rotation fgae_rotation_denoising pair_ae_rotation pair_ae_rotation_denoising
     fgae_shift fgae_shift_denoising pair_ae_shift pair_ae_shift_denoising
     fgae_fashion_rotation pair_ae_fashion_rotation fgae_fashion_shift pair_ae_fashion_shift
     pgp1_order1 pgp2_order1 pgp3_order1 pgp1_order2 pgp2_order2 pgp3_order2
     pgp2_order2_pretrain pgp2_order2_hf cpgp_add cpgp_preact pgp3_sine_nocode"
LANES=${LANES:-$ALL}
adam=(--optimizer adam --set optimizer_options.lr=0.001 --set batch=100 --seed 1 --steps 100000000)
# The pyramids' closed loop multiplies: rare batches give gradients 100-5000x the usual norm (about 0.5),
# and one such step undoes thousands (docs/results/gated_pyramids.md); clipped at 1, as the authors clip.
pyramid=("${adam[@]}" --set optimizer_options.clip_norm=1.0)

lane_args() {  # the train arguments of lane $1
  local name=$1 corruption=0.0
  case $name in
    *_denoising) corruption=0.3 ;;
  esac
  case $name in
    fgae_*|pair_ae_*)  # <model>[_fashion]_<transform>[_denoising]
      local model=fgae source=blobs transform=rotation
      [[ $name == pair_ae_* ]] && model=pair_ae
      [[ $name == *_fashion_* ]] && source=fashion_mnist
      [[ $name == *_shift* ]] && transform=shift
      echo --model "$model" --task image_pairs --set "task_options.transform=$transform" \
        --set "task_options.source=$source" --set "model_options.corruption=$corruption" "${adam[@]}" \
        --cpu-budget "$BUDGET_AE" ;;
    pgp?_order?)
      local layers=${name:3:1} order=${name: -1}
      echo --model pgp --task transformed_video --set "task_options.order=$order" \
        --set "model_options.layers=$layers" "${pyramid[@]}" --cpu-budget "$BUDGET" ;;
    pgp2_order2_pretrain)  # 500 updates of autoencoder pre-training per layer, then BPTT
      echo --model pgp --task transformed_video --set task_options.order=2 --set model_options.layers=2 \
        --set model_options.pretrain_steps=500 "${pyramid[@]}" --cpu-budget "$BUDGET" ;;
    pgp2_order2_hf)
      echo --model pgp --task transformed_video --set task_options.order=2 --set model_options.layers=2 \
        --optimizer hf --set batch=1000 --set curvature_batch=200 --seed 1 --steps 100000000 --cpu-budget "$BUDGET" ;;
    cpgp_add|cpgp_preact)
      echo --model cpgp --task sine_walk --set "model_options.cond_mode=${name#cpgp_}" "${pyramid[@]}" \
        --cpu-budget "$BUDGET" ;;
    pgp3_sine_nocode)  # the same pyramid without the frequency code: what the inputs add
      echo --model pgp --task sine_walk --set task_options.codes=0 --set model_options.layers=3 "${pyramid[@]}" \
        --cpu-budget "$BUDGET" ;;
    *) echo "gated.sh: unknown lane '$name' (lanes: $(echo $ALL))" >&2; return 2 ;;
  esac
}

score() {  # eval lines and pictures of a finished lane
  local name=$1 out=$ROOT/$1
  "$TG" eval --run "$out" -n 10000 --seed 777 > "$out/eval.txt"
  case $name in
    fgae_*|pair_ae_*)
      "$TG" gated --run "$out" -n 6 --output "docs/results/gated_${name}.png" > "$out/picture.txt"
      [[ $name == fgae_* ]] && "$TG" gated --run "$out" --filters -n 64 --output "docs/results/gated_${name}_filters.png" >> "$out/picture.txt" ;;
    pgp?_order?|pgp2_order2_*)
      "$TG" gated --run "$out" -n 4 --output "docs/results/gated_${name}.png" > "$out/picture.txt" ;;
    cpgp_*|pgp3_sine_nocode)
      # the test part is the held-out frequency band; the training bands are part=valid
      "$TG" eval --run "$out" -n 10000 --seed 777 --task-set part=valid > "$out/eval_train_bands.txt"
      "$TG" eval --run "$out" -n 10000 --seed 777 --task-set part=valid --task-set steps=40 > "$out/eval_train_bands_2x.txt"
      "$TG" eval --run "$out" -n 10000 --seed 777 --task-set part=gap --task-set steps=40 > "$out/eval_gap_2x.txt"
      "$TG" gated --run "$out" -n 4 --task-set part=valid --task-set steps=40 --output "docs/results/gated_${name}_2x.png" > "$out/picture.txt"
      "$TG" gated --run "$out" -n 4 --task-set part=gap --task-set steps=40 --output "docs/results/gated_${name}_gap_2x.png" >> "$out/picture.txt" ;;
  esac
  echo "$name: $(grep -h "mean squared error" "$out"/eval*.txt | cut -c1-60 | tr '\n' ';')"
}

mkdir -p "$ROOT"
for name in $LANES; do
  if [ "${EVAL:-0}" = 1 ]; then
    [ -f "$ROOT/$name/done" ] && score "$name"
    continue
  fi
  text=$(lane_args "$name") || exit 2
  read -r -a args <<< "$text"
  train_lane "$ROOT/$name" "${args[@]}"
done
