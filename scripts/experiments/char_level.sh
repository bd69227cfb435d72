#!/usr/bin/env bash
# Character-level comparison at equal parameter count (~200k) and equal CPU budget (issue: optimizers):
# RNN, mRNN, LSTM and mLSTM on the default corpus (data/kjv.txt), each trained with Hessian-free and
# with Adam (gradient clipping, learning rate from the sweep below) from
# docs/results/configs/char/<model>_<optimizer>.json. Every run stops at BUDGET training CPU seconds in
# total (tapegrad train --cpu-budget): CPU time, so runs sharing a machine get the same budget.
# Resumable: rerunning continues unfinished runs from their checkpoints; finished runs are only scored.
#
#   bash scripts/experiments/char_level.sh [models...]        # default: rnn mrnn lstm mlstm
#   env: OPTIMIZERS="hf adam"  BUDGET=1800  JOBS=1 (runs at once)  SEED=1  MAX_SECONDS (per invocation)
#   SWEEP=1: instead, Adam's learning-rate sweep: LRS="0.001 0.003 0.01" at SWEEP_BUDGET=120 CPU s each
#
# Output: runs/char/<model>_<optimizer>/ (eval.txt: test bpc), runs/char/summary.md (the table) and
# runs/char/valid_bpc.png (validation bpc against training CPU seconds, all runs).
set -euo pipefail
cd "$(dirname "$0")/../.."
TG=${TG:-./build/tools/tapegrad}
export OPENBLAS_NUM_THREADS=1
models=("${@:-rnn mrnn lstm mlstm}")
models=(${models[*]})
OPTIMIZERS=${OPTIMIZERS:-hf adam}
BUDGET=${BUDGET:-1800}
JOBS=${JOBS:-1}
SEED=${SEED:-1}
root=runs/char
mkdir -p "$root"

# one run: train (or resume) to the budget, then score the test part once
run_one() {
  local config=$1 out=$2 budget=$3
  shift 3
  local args=(--config "$config" --seed "$SEED" --cpu-budget "$budget" --out "$out" --quiet "$@")
  [ -f "$out/checkpoint.npz" ] && args+=(--resume)
  [ -n "${MAX_SECONDS:-}" ] && args+=(--max-seconds "$MAX_SECONDS")
  local code=0
  $TG train "${args[@]}" >"$out.train.txt" 2>&1 || code=$?
  if [ "$code" -ne 0 ]; then
    echo "$out: train exited with $code (see $out.train.txt)"
    return 0
  fi
  local cpu
  cpu=$(tail -n 1 "$out/metrics.jsonl" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["cpu_seconds"])')
  if /usr/bin/python3 -c "import sys; sys.exit(0 if float('$cpu') >= float('$budget') else 1)"; then
    [ -s "$out/eval.txt" ] || $TG eval --run "$out" -n 1000000 >"$out/eval.txt"
    echo "$out: done, $(cat "$out/eval.txt")"
  else
    echo "$out: stopped at $cpu CPU s of $budget; rerun to continue"
  fi
}

jobs_wait() {  # at most JOBS runs at once
  while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n || true; done
}

if [ -n "${SWEEP:-}" ]; then
  for m in "${models[@]}"; do
    for lr in ${LRS:-0.001 0.003 0.01}; do
      jobs_wait
      run_one "docs/results/configs/char/${m}_adam.json" "$root/sweep_${m}_lr$lr" "${SWEEP_BUDGET:-120}" \
        --set "optimizer_options.lr=$lr" &
    done
  done
  wait
  for m in "${models[@]}"; do
    for lr in ${LRS:-0.001 0.003 0.01}; do
      out=$root/sweep_${m}_lr$lr
      [ -f "$out/metrics.jsonl" ] || continue
      echo "$m adam lr $lr: valid bpc $(grep valid_error "$out/metrics.jsonl" | tail -n 1 |
        /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); print(round(d["valid_error"],4), "at", round(d["cpu_seconds"]), "CPU s")')"
    done
  done
  exit 0
fi

for m in "${models[@]}"; do
  for o in $OPTIMIZERS; do
    jobs_wait
    run_one "docs/results/configs/char/${m}_${o}.json" "$root/${m}_${o}" "$BUDGET" &
  done
done
wait

# the table and the learning curves of whatever has run so far
{
  echo "| model | optimizer | parameters | iterations | CPU s | valid bpc (last) | test bpc |"
  echo "|---|---|---|---|---|---|---|"
  for m in "${models[@]}"; do
    for o in $OPTIMIZERS; do
      out=$root/${m}_${o}
      [ -f "$out/metrics.jsonl" ] || continue
      params=$(/usr/bin/python3 -c "import numpy; print(numpy.load('$out/checkpoint.npz')['theta'].size)")
      test=$( [ -s "$out/eval.txt" ] && grep -o 'bpc [0-9.]*' "$out/eval.txt" | head -n 1 | cut -d' ' -f2 || echo "(running)")
      tail -n 1 "$out/metrics.jsonl" | /usr/bin/python3 -c "
import json,sys
d=json.load(sys.stdin)
v=[json.loads(l) for l in open('$out/metrics.jsonl') if 'valid_error' in l]
print(f\"| $m | $o | $params | {d['iteration']} | {d['cpu_seconds']:.0f} | {v[-1]['valid_error']:.3f} | $test |\" if v else '')"
    done
  done
} | tee "$root/summary.md"
runs=()
for m in "${models[@]}"; do for o in $OPTIMIZERS; do [ -f "$root/${m}_${o}/metrics.jsonl" ] && runs+=(--run "$root/${m}_${o}"); done; done
[ ${#runs[@]} -gt 0 ] && $TG plot "${runs[@]}" --metric valid_error --x cpu_seconds -o "$root/valid_bpc.png" || true
