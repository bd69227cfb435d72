#!/usr/bin/env bash
# Task files and the eval command agree on what is scored (and train --data names what a data file
# is for: a network's file must be IDX images, a sequence model refuses images): values beyond float32 are refused (1e39
# became inf and the loss with it), --task with --data is refused instead of ignored (both in train
# and eval), a file of another task names both tasks' inputs and outputs (it said "needs 30 steps of
# dense inputs, got 0"), and eval --seed S scores the sequences tasks --dump --seed S writes.
# Usage: task_file_mismatch.sh TAPEGRAD
set -uo pipefail
TG=$1
source "$(cd "$(dirname "$0")" && pwd)/expect_error.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
"$TG" train --task addition --set task_options.T=10 --set model_options.hidden=4 --set batch=20 --steps 2 --quiet \
  --out run >/dev/null 2>&1 || { echo "FAIL: training"; exit 1; }
printf '%s\n' '{"format":"tapegrad-task-file","version":1,"task":"custom","input":{"kind":"dense","size":2},"output":{"kind":"linear","size":1}}' \
  '{"inputs":[[1e39,0],[0.5,1]],"targets":[null,[0.5]]}' >big_input.jsonl
printf '%s\n' '{"format":"tapegrad-task-file","version":1,"task":"custom","input":{"kind":"dense","size":2},"output":{"kind":"linear","size":1}}' \
  '{"inputs":[[0.1,0],[0.5,1]],"targets":[null,[-1e39]]}' >big_target.jsonl
"$TG" tasks --dump temporal_order --set T=30 -n 5 -o to.jsonl >/dev/null
printf 'In the beginning was the word.\n%.0s' $(seq 50) >t.txt
printf '\0\0\x08\x03\0\0\0\x0a\0\0\0\x02\0\0\0\x02' >img.idx && head -c 40 /dev/zero >>img.idx  # 10 images of 2x2

expect float32_input  'big_input.jsonl:2: "inputs"\[0\]\[0\]: expected a finite number within float32.s range .* \(got 1e\+39\)' -- tasks --check big_input.jsonl
expect float32_target 'big_target.jsonl:2: "targets"\[1\]\[0\]: expected a finite number within float32.s range .* \(got -1e\+39\)' -- tasks --check big_target.jsonl
expect eval_data_and_task "eval: give --data .* or --task .*, not both" -- eval --run run --data to.jsonl --task xor
expect train_data_and_task "train: --data t.txt is a file for task 'text' or 'images' \(or the corpus directory of tasks 'phonemes' and 'speech_frames'\), but the task is \"addition\" \(--task\)" \
  -- train --task addition --data t.txt --steps 1 --out run2
expect network_text_data "t.txt: not an IDX file" -- train --model autoencoder --data t.txt --steps 1 --out run3
expect sequence_model_images "model 'lstm' reads sequences, but task 'images' holds images" \
  -- train --model lstm --data "$work/img.idx" --steps 1 --out run4
expect other_task_file "eval: to.jsonl holds task 'temporal_order' \(input symbols 6, output softmax 4\), but run run was trained on task 'addition' \(input dense 2, output linear 1\)" \
  -- eval --run run --data to.jsonl
# eval --seed S = tasks --dump --seed S
"$TG" tasks --dump addition --set T=10 -n 700 --seed 7 -o add7.jsonl >/dev/null
"$TG" eval --run run --data add7.jsonl -n 700 | tail -2 >from_file.txt
"$TG" eval --run run --seed 7 -n 700 | tail -2 >fresh.txt
if cmp -s from_file.txt fresh.txt; then echo "ok   seeds_agree: $(head -1 fresh.txt)"
else echo "FAIL seeds_agree: eval --seed 7 and the dump of seed 7 score differently"; paste from_file.txt fresh.txt; failures=$((failures + 1)); fi
expect_done
echo "task_file_mismatch: all cases pass"
