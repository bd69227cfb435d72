# Sourced by hf_grid.sh and hf_grid_probe.sh, so that a probe reruns exactly the grid's cell and HF run.
# grid_task PROBLEM T prints the task and its options with T set, e.g. `temporal_order {"bits":2,"T":200}`
# (temporal order and memorization take their bits from the problem's name).
grid_task() {
  local options
  case $1 in
    temporal_order2) echo -n 'temporal_order ' ; options='{"bits":2}' ;;
    temporal_order3) echo -n 'temporal_order ' ; options='{"bits":3}' ;;
    memorization5) echo -n 'memorization ' ;     options='{"bits":5}' ;;
    memorization20) echo -n 'memorization ' ;    options='{"bits":20}' ;;
    *) echo -n "$1 " ;                           options='{}' ;;
  esac
  echo "$options" | sed "s/}$/,\"T\":$2}/; s/{,/{/"
}

# grid_hf_args TASK TASK_OPTIONS SEED BUDGET [BATCH CURVATURE_BATCH] sets the array hf_args to the grid's HF run's
# `tapegrad train` arguments (batch 1,000 and curvature batch 200 unless given), so a probe changes only what it names.
grid_hf_args() {
  hf_args=(--model rnn --task "$1" --optimizer hf --seed "$3" --steps 2000 --cpu-budget "$4" --quiet
           --set model_options.hidden=100 --set "batch=${5:-1000}" --set "curvature_batch=${6:-200}"
           --set optimizer_options.max_cg=100 --set eval_every=5 --set eval_batch=2000 --set checkpoint_every=5
           --set stop_on_success=true --set "task_options=$2")
}
