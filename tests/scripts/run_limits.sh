#!/usr/bin/env bash
# Sizes this machine cannot run are refused up front (tools/run_limits.h), with the estimate and the
# bound in one line, exit code 2 and no run directory: eval_batch=1e12 used to score fresh sequences
# forever (ignoring SIGTERM, with the run directory already written), batch=1e8 to allocate until
# killed, threads above the cores to oversubscribe the machine. Usage: run_limits.sh TAPEGRAD
set -uo pipefail
TG=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail=0
cores=$(nproc)
expect() {  # expect NAME PATTERN -- ARGS...
  local name=$1 pattern=$2
  shift 3
  (ulimit -v 4000000; timeout -s KILL 30 "$TG" "$@") >out.txt 2>err.txt
  local rc=$?
  if [ "$rc" -ne 2 ] || [ "$(wc -l <err.txt)" -ne 1 ] || ! grep -q -E -e "$pattern" err.txt || [ -e run ]; then
    echo "FAIL $name: exit $rc$([ "$rc" -eq 137 ] && echo ' (killed after 30 s)'), run directory: $([ -e run ] && echo yes || echo no)"
    sed 's/^/    /' err.txt
    fail=1
  else
    echo "ok   $name: $(cat err.txt)"
  fi
  rm -rf run
}
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
  --set threads="$cores" --quiet --out ok1 >/dev/null 2>err.txt || { echo "FAIL: threads=$cores: $(cat err.txt)"; fail=1; }
printf 'In the beginning was the word.\n%.0s' $(seq 50) >t.txt
"$TG" train --data t.txt --set task_options.T=20 --set model_options.hidden=4 --set batch=5 --steps 1 \
  --set eval_batch=1e12 --quiet --out ok2 >/dev/null 2>err.txt || { echo "FAIL: text eval_batch=1e12: $(cat err.txt)"; fail=1; }
[ "$fail" -eq 0 ] && echo "run_limits: every case refused up front"
exit "$fail"
