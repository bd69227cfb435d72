# Sourced by hf_grid.sh and hf_grid_probe.sh, so that a probe reruns exactly the grid's cell.
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
