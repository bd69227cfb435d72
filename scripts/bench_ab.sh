#!/usr/bin/env bash
# Two tapegrad binaries side by side: `bench` with the same arguments, alternating A, B for ROUNDS rounds, so
# that the machine's drift falls on both (docs/results/engine_bench.md's A/B tables). Prints per run the
# step median, the Gauss-Newton product median and the step's gemms alone (the backend), in ms. Training
# lanes (`tapegrad-* train` processes) are paused with SIGSTOP for the run and resumed after, also on error.
# Usage: bash scripts/bench_ab.sh BINARY_A BINARY_B ROUNDS bench-arguments...
#   e.g. bash scripts/bench_ab.sh runs/bin/tapegrad-6797974 build/tools/tapegrad 6 --model lstm --hidden 512 \
#        --batch 128 --steps 100 --vocab 96 --reps 3 --threads 1
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: bash scripts/bench_ab.sh BINARY_A BINARY_B ROUNDS bench-arguments..." >&2
  exit 2
fi
a=$1 b=$2 rounds=$3
shift 3
for bin in "$a" "$b"; do
  [ -x "$bin" ] || { echo "bench_ab.sh: $bin is not an executable" >&2; exit 2; }
done
pkill -STOP -f "tapegrad-.* train" || true
trap 'pkill -CONT -f "tapegrad-.* train" || true' EXIT
echo "binary step_ms gn_ms gemms_alone_ms"
for _ in $(seq "$rounds"); do
  for bin in "$a" "$b"; do
    out=$("$bin" bench "$@" 2>&1) || { echo "$out" >&2; exit 1; }
    step=$(awk '/^step \(forward/ {print $(NF-1)}' <<<"$out")
    gn=$(awk '/^Gauss-Newton product/ {print $(NF-1)}' <<<"$out")
    alone=$(awk '/gemms alone \(the backend\)/ {print $(NF-1)}' <<<"$out")
    echo "$bin $step $gn $alone"
  done
done
