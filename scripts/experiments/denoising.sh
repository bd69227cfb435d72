#!/usr/bin/env bash
# The thesis's TRBM denoising (§3.3, Fig. 3.2; docs/results/boltzmann.md): a TRBM-VV (hidden-to-hidden and
# past-visible-to-hidden links, no visible-to-visible; m = 4 taps, 200 hidden units) trained on clean 20x20
# video of 2 bouncing balls, one sequence of 100 frames per update, 10,000 updates, momentum 0.9, CD-1, the
# learning rate 5e-5 doubled at updates 100, 200, 500 and 1000 (all as §3.3); and, as the thesis's
# comparison, a plain RBM (no links to the past) trained the same way. Then each denoises the same noisy
# sequences (blinking spots, tasks/bouncing_balls.h) online: docs/results/boltzmann_denoising_<model>.png.
set -euo pipefail
cd "$(dirname "$0")/../.."
TG=${TG:-./build/tools/tapegrad}
export OPENBLAS_NUM_THREADS=1
mkdir -p runs/boltzmann
for name in trbm_vv rbm; do
  out=runs/boltzmann/denoise_$name
  case $name in
    trbm_vv) links=hh,vh ;;
    rbm) links="" ;;
  esac
  if [ ! -f "$out/done" ]; then
    args=(--model trbm --task bouncing_balls --seed 1 --optimizer momentum --steps 10000
          --set task_options.size=20 --set task_options.balls=2 --set model_options.hidden=200
          --set model_options.taps=4 "--set=model_options.links=$links" --set model_options.cd_k=1
          --set model_options.cd_k_late=1 --set optimizer_options.momentum=0.9 --set batch=1
          --set 'optimizer_options.lr={"kind": "piecewise", "pieces": [[100, 5e-5], [200, 1e-4], [500, 2e-4], [1000, 4e-4]], "then": 8e-4}'
          --set eval_every=1000 --set eval_batch=100 --set checkpoint_every=500)
    [ -f "$out/checkpoint.npz" ] && args+=(--resume)
    echo "$(date +%T) $out" >&2
    "$TG" train "${args[@]}" --threads "${THREADS:-1}" --out "$out" > "$out.summary" 2> "$out.log"
    mv "$out.summary" "$out/summary.txt"
    touch "$out/done"
  fi
  "$TG" video --run "$out" --denoise -n 3 --frames 15 --scale 3 --seed 5 \
    --output "docs/results/boltzmann_denoising_$name.png" | tee "$out/denoise.txt"
done
