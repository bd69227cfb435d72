#!/usr/bin/env bash
# Fig. 4.1's grid (seed 000 ch. 4): every pathological problem at T in {30, 50, 100, 200}, 100 tanh
# units, Hessian-free with structural damping and with Tikhonov damping only, seeds 1..SEEDS. One run
# per cell and seed under runs/hf_grid/<problem>_T<T>_<damping>_s<seed>; success is the trainer's
# confirmed rule (stop_on_success: validation on 2,000 sequences, then 10,000 fresh ones), within
# BUDGET CPU seconds per run (default 900) and 2,000 HF iterations. Resumable: rerunning skips finished
# runs and continues an interrupted one from its checkpoint. Cells run smallest T first, so a partial
# grid is the most informative one. The table: python3 scripts/experiments/hf_grid_table.py
# Adam beside HF (issue 24 item 4): METHODS (default "structural tikhonov adam") may include adam, which
# trains the same RNN on the same task and seed with Adam (lr 0.001, clipping 1.0, batch 100, as
# docs/results/configs/adam_addition_T100.json; validation every 250 iterations, the same confirmed
# success rule) for the CPU seconds the structural-damping HF run of that cell and seed used (all of
# BUDGET when HF failed): runs/hf_grid/<problem>_T<T>_adam_s<seed>, made after that HF run is done.
# Usage: bash scripts/experiments/hf_grid.sh            (SEEDS=3 BUDGET=900 PROBLEMS="addition ..." TS="30 50")
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/experiments/lane.sh  # train_lane; archived, archive_of: runs finished in an earlier session
source scripts/experiments/hf_grid_tasks.sh  # grid_task, grid_hf_args
TG=${TG:-./build/tools/tapegrad}
export OPENBLAS_NUM_THREADS=1
SEEDS=${SEEDS:-3}
BUDGET=${BUDGET:-900}
PROBLEMS=${PROBLEMS:-"addition multiplication xor temporal_order2 temporal_order3 random_permutation memorization5 memorization20"}
TS=${TS:-"30 50 100 200"}
METHODS=${METHODS:-"structural tikhonov adam"}
for method in $METHODS; do
  case $method in structural|tikhonov|adam) ;; *) echo "hf_grid.sh: unknown method '$method' (structural tikhonov adam)" >&2; exit 2 ;; esac
done
for T in $TS; do
  for problem in $PROBLEMS; do
    for damping in $METHODS; do
      for seed in $(seq 1 "$SEEDS"); do
        out=runs/hf_grid/${problem}_T${T}_${damping}_s$seed
        [ -f "$out/done" ] && continue
        archived "$out" && continue  # archived by hf_grid_table.py
        read -r task task_options <<< "$(grid_task "$problem" "$T")"
        if [ "$damping" = adam ]; then
          hf_run=runs/hf_grid/${problem}_T${T}_structural_s$seed
          [ -f "$hf_run/done" ] || hf_run=$(archive_of "$hf_run")
          [ -f "$hf_run/done" ] || continue  # its budget is that run's CPU time
          budget=$(/usr/bin/python3 -c "import json,sys; print(json.loads(open(sys.argv[1]).read().split(' ', 1)[1])['cpu_seconds'])" "$hf_run/summary.txt")
          args=(--model rnn --task "$task" --optimizer adam --seed "$seed" --steps 100000000 --cpu-budget "$budget" --quiet
                --set model_options.hidden=100 --set batch=100 --set optimizer_options.lr=0.001
                --set optimizer_options.clip_norm=1.0 --set eval_every=250 --set eval_batch=2000 --set checkpoint_every=250
                --set stop_on_success=true --set "task_options=$task_options")
        else
          grid_hf_args "$task" "$task_options" "$seed" "$BUDGET"
          args=("${hf_args[@]}")
        fi
        # Tikhonov only: no structural term, and the larger starting lambda of docs/results/hf_pathological.md
        [ "$damping" = tikhonov ] && args+=(--set objective_options.structural=none --set optimizer_options.lambda=0.3)
        train_lane "$out" "${args[@]}"  # resumes, marks it done (lane.sh)
      done
    done
  done
done
