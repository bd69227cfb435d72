#!/usr/bin/env bash
# Sizes this machine cannot run are refused up front (tools/run_limits.h), with the estimate and the
# bound in one line, exit code 2 and no run directory: eval_batch=1e12 used to score fresh sequences
# forever (ignoring SIGTERM, with the run directory already written), batch=1e8 to allocate until
# killed, threads above the cores to oversubscribe the machine. Usage: run_limits.sh TAPEGRAD
set -uo pipefail
TG=$1
source "$(cd "$(dirname "$0")" && pwd)/expect_error.sh"
EXPECT_MEMORY_KB=4000000 EXPECT_SECONDS=30  # each case within 4 GB and 30 s
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
cores=$(nproc)
expect eval_batch_1e12 "eval_batch=1000000000000 fresh validation sequences per evaluation is above the bound of 10000000.*multiply-adds" \
  -- train --task addition --steps 2 --set eval_batch=1e12 --quiet --out run
expect eval_batch_1e15 "eval_batch=1000000000000000 .*above the bound" -- train --task addition --steps 2 --set eval_batch=1e15 --quiet --out run
expect threads_above_cores "threads=$((cores + 1)) but this process may use $cores core.*set threads <= $cores" \
  -- train --task addition --steps 2 --set threads=$((cores + 1)) --quiet --out run
expect threads_100000 "threads=100000 but this process may use" -- train --task addition --steps 2 --set threads=100000 --quiet --out run
expect batch_1e8 "batch=100000000 sequences of up to 111 steps need about .* GB for a training step's tape.* are available" \
  -- train --task addition --steps 2 --set batch=1e8 --quiet --out run
# what the machine can do still runs: all the cores, and a large eval_batch of text (bounded by its part)
"$TG" train --task addition --set task_options.T=10 --set model_options.hidden=4 --set batch=20 --steps 1 \
  --set threads="$cores" --quiet --out ok1 >/dev/null 2>err.txt || { echo "FAIL: threads=$cores: $(cat err.txt)"; failures=$((failures + 1)); }
printf 'In the beginning was the word.\n%.0s' $(seq 50) >t.txt
"$TG" train --data t.txt --set task_options.T=20 --set model_options.hidden=4 --set batch=5 --steps 1 \
  --set eval_batch=1e12 --quiet --out ok2 >/dev/null 2>err.txt || { echo "FAIL: text eval_batch=1e12: $(cat err.txt)"; failures=$((failures + 1)); }
expect_done
echo "run_limits: every case refused up front"
