#!/usr/bin/env bash
# Inputs that are not regular files, or whose declared sizes are absurd, fail at once with one error
# line and exit code 2: a FIFO used to block forever, /dev/zero to be read until memory ran out (12-16
# GB in 60 s), a 166-byte task file declaring 250,000,000 inputs to allocate 2 GB. Every case runs
# under a timeout and a memory limit, so a regression fails here instead of hanging or swapping.
# Usage: input_files.sh TAPEGRAD
set -uo pipefail
TG=$1
source "$(cd "$(dirname "$0")" && pwd)/expect_error.sh"
EXPECT_MEMORY_KB=1500000 EXPECT_SECONDS=20  # each case within 1.5 GB and 20 s
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

"$TG" train --task addition --set task_options.T=10 --set model_options.hidden=4 --set batch=20 --steps 1 --quiet \
  --out run >/dev/null 2>&1 || { echo "FAIL: the small run did not train"; exit 1; }
mkfifo fifo
printf '%s\n' '{"format":"tapegrad-task-file","version":1,"task":"x","input":{"kind":"dense","size":250000000},"output":{"kind":"linear","size":1}}' \
  '{"inputs":[[1]],"targets":[[1]]}' >huge_input.jsonl
printf '{"task": "addition", "batch": 1e300}' >batch.json

expect config_fifo      "cannot read config fifo: not a regular file \(a FIFO\)"              -- train --config fifo --out run1
expect config_zero      "cannot read config /dev/zero: not a regular file \(a character device\)" -- train --config /dev/zero --out run1
expect data_fifo        "cannot read text file .*fifo: not a regular file \(a FIFO\)"         -- train --data fifo --out run1
expect data_zero        "cannot read text file /dev/zero: not a regular file"                 -- train --data /dev/zero --out run1
expect data_directory   "cannot read text file .*run: it is a directory"                      -- train --data run --out run1
expect eval_data_fifo   "cannot read data file fifo: not a regular file \(a FIFO\)"           -- eval --run run --data fifo
expect check_fifo       "cannot read task file fifo: not a regular file \(a FIFO\)"           -- tasks --check fifo
expect check_zero       "cannot read task file /dev/zero: not a regular file"                 -- tasks --check /dev/zero
expect params_config_fifo "cannot read config fifo: not a regular file"                       -- params --model rnn --config fifo
expect huge_declared_input 'huge_input.jsonl:2: "inputs"\[0\]: expected a list of 250000000 numbers \(got a list of 1\)' -- tasks --check huge_input.jsonl
expect batch_1e300      "batch.json: 'batch' is out of range \(got 1e\+300; the limits are \[.*\]\)"  -- train --config batch.json --out run1
# A checkpoint replaced by a FIFO (eval reads it after config.json).
mv run/checkpoint.npz checkpoint.keep && mkfifo run/checkpoint.npz
expect checkpoint_fifo  "cannot read archive run/checkpoint.npz: not a regular file \(a FIFO\)" -- eval --run run
rm run/checkpoint.npz && mv checkpoint.keep run/checkpoint.npz

expect_done
echo "input_files: every case gives one line, exit code 2, no files, at once"
