#!/usr/bin/env bash
# Adam beside the Hessian-free headline runs (issue: optimizers): the same 100-unit tanh RNN on the
# same task, Adam with gradient-norm clipping (docs/results/configs/adam_<task>_T100.json), given as
# CPU budget the wall-clock seconds its HF run took (docs/results/hf_pathological.md; measured on a
# loaded machine, so more than HF's own CPU time: the comparison is tilted towards Adam).
# Resumable: rerunning continues unfinished runs. Each run stops at the success criterion or the budget.
#
#   bash scripts/experiments/adam_beside_hf.sh                 # the headline runs
#   SWEEP=1 bash scripts/experiments/adam_beside_hf.sh          # learning-rate sweep first (seed 1, addition)
#   env: LRS="0.0003 0.001 0.003", SWEEP_BUDGET=240, LR (override the config's), MAX_SECONDS
set -euo pipefail
cd "$(dirname "$0")/../.."
TG=${TG:-./build/tools/tapegrad}
export OPENBLAS_NUM_THREADS=1
root=runs/adam_beside_hf
mkdir -p "$root"

run_one() {  # config seed budget out [extra args]
  local config=$1 seed=$2 budget=$3 out=$4
  shift 4
  local args=(--config "$config" --seed "$seed" --cpu-budget "$budget" --out "$out" --quiet "$@")
  [ -f "$out/checkpoint.npz" ] && args+=(--resume)
  [ -n "${MAX_SECONDS:-}" ] && args+=(--max-seconds "$MAX_SECONDS")
  $TG train "${args[@]}" --threads "${THREADS:-1}" >"$out.train.txt" 2>&1 || { echo "$out: train exited with $? (see $out.train.txt)"; return 0; }
  [ -s "$out/eval.txt" ] || $TG eval --run "$out" --seed 2026 -n 10000 >"$out/eval.txt"
  tail -n 1 "$out/metrics.jsonl" | /usr/bin/python3 -c "
import json,sys
d=json.load(sys.stdin); e=open('$out/eval.txt').read().split()
err=e[e.index('error_rate')+1] if 'error_rate' in e else '?'
print(f'$out: {d[\"iteration\"]} iterations, {d[\"cpu_seconds\"]:.0f} CPU s of $budget, test error (10,000 fresh) {err}')"
}

if [ -n "${SWEEP:-}" ]; then
  for lr in ${LRS:-0.0003 0.001 0.003}; do
    run_one docs/results/configs/adam_addition_T100.json 1 "${SWEEP_BUDGET:-240}" "$root/sweep_addition_lr$lr" \
      --set "optimizer_options.lr=$lr"
  done
  exit 0
fi

extra=()
[ -n "${LR:-}" ] && extra=(--set "optimizer_options.lr=$LR")
# task seed HF-seconds (hf_pathological.md: addition seeds 1-3, temporal order seed 1)
while read -r task seed budget; do
  run_one "docs/results/configs/adam_${task}_T100.json" "$seed" "$budget" "$root/${task}_s$seed" "${extra[@]}"
done <<'LIST'
addition 1 961
addition 2 864
addition 3 663
temporal_order 1 272
LIST
