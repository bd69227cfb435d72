#!/usr/bin/env bash
# Bad input to the tapegrad command: each case must print exactly one error line naming the problem,
# exit with code 2, and leave no partial or damaged files. Usage: cli_errors.sh TAPEGRAD
set -uo pipefail
TG=$1
source "$(cd "$(dirname "$0")" && pwd)/expect_error.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

printf '' >empty.txt
printf 'abc\0def\n' >binary.txt
printf 'caf\xe9 au lait\n' >latin1.txt
printf 'In the beginning was the word.\n%.0s' $(seq 200) >good.txt
mkdir -p existing && printf '{}' >existing/keep.json
# 100,000 nested objects in a config (crashed the JSON library before the nesting bound)
{ printf '{"model_options":'; for _ in $(seq 100000); do printf '{"a":'; done; printf '1'
  for _ in $(seq 100000); do printf '}'; done; printf '}'; } >deep.json

expect deep_config   "deep.json: JSON nested deeper than 64 levels" -- train --config deep.json --out run1
expect deep_set      "nested deeper than 64 levels"   -- train --task addition --set "model_options.x=$(printf '[%.0s' $(seq 100))" --out run1
expect missing_data  "nonexistent.txt"                 -- train --data nonexistent.txt --out run1
expect empty_data    "empty.txt: empty file"           -- train --data empty.txt --out run1
expect binary_data   "binary.txt.*binary file"         -- train --data binary.txt --out run1
expect non_utf8_data "latin1.txt.*invalid UTF-8"       -- train --data latin1.txt --out run1
expect unknown_model "unknown model 'lstmm'"           -- train --model lstmm --task addition --out run1
expect unknown_task  "unknown task 'adition'"          -- train --task adition --out run1
expect unknown_model_option "unknown option 'hiden'"   -- train --task addition --set model_options.hiden=3 --out run1
expect unknown_optimizer "unknown.*optimizer.*'adamw'" -- train --task addition --optimizer adamw --out run1
expect unknown_flag  "--bogus"                         -- train --bogus --out run1
expect network_params_sizes "network 'mlp' takes its sizes from the data in train" -- params --model mlp --set in=784
expect network_params_option "network 'autoencoder': unknown option 'encodr'"       -- params --model autoencoder --set in=784 --set encodr=5
expect invalid_number_steps "steps"                    -- train --task addition --steps -5 --out run1
expect invalid_number_text "seed"                      -- train --task addition --seed abc --out run1
# numbers read strictly (a CLI audit found these wrapping, saturating or misreported)
expect negative_seed "--seed: '-1' is not a whole number >= 0" -- train --task addition --seed -1 --out run1
expect negative_eval_seed "--seed: '-1' is not a whole number >= 0" -- eval --run nowhere --seed -1
expect huge_steps "--steps: 99999999999999999999 is out of range" -- train --task addition --steps 99999999999999999999 --out run1
expect steps_not_integer "--steps: '3.5' is not an integer" -- train --task addition --steps 3.5 --out run1
expect seconds_not_number "--max-seconds: 'abc' is not a number" -- train --task addition --max-seconds abc --out run1
expect ollivier_units "--units: 0 is outside \[1, 1000000\]" -- ollivier --task anbn --units 0
expect ollivier_negative_passes "--max-passes: -5 must be >= 0" -- ollivier --task anbn --max-passes -5 --units 8
expect ollivier_eps "--eps: 0 must be > 0" -- ollivier --task anbn --eps 0
expect ollivier_bad_size "--sizes: 'abc' is not a network size" -- ollivier --grid --sizes 8,abc --tasks anbn
expect ollivier_unknown_row "--rows: 'nosuch' is not a row of Table 1 here" -- ollivier --grid --rows nosuch --sizes 8 --tasks anbn
expect broken_json_set "--set model_options: invalid JSON: .*line 1, column 11" -- train --task addition --set 'model_options={"hidden":' --out run1
expect empty_optimizer "--optimizer: an empty name" -- train --task addition --optimizer '' --out run1
expect zero_eval_batch "'eval_batch' must be positive, got 0" -- train --task addition --set eval_batch=0 --out run1
expect negative_eval_every "'eval_every' must be >= 0, got -1" -- train --task addition --set eval_every=-1 --out run1
printf '{"steps": 3, "task": "addition", "steps": 4}' >twice.json
expect config_key_twice "twice.json: key 'steps' appears twice in one object" -- train --config twice.json --out run1
printf '{\n "hidden": 8,\n "x": ,\n}\n' >bad3.json
expect params_config_line "bad3.json: invalid JSON: .*line 3, column 7" -- params --model rnn --config bad3.json
expect hex_count_outside "-n: 0x401 is outside \[1, 1024\]" -- reconstruct --run nowhere -n 0x401
expect ollivier_sizes_spaces "--sizes: 'x' is not a network size" -- ollivier --grid --sizes '4, x' --tasks anbn
expect option_before_command "unknown option '--bogus': options follow a command" -- --bogus
expect bench_mode_option "--depth requires --ctc" -- bench --model rnn --depth 5 --reps 1
expect bench_ctc_without_model "--ctc requires --model" -- bench --ctc --reps 1
# eval on another task keeps only the run's options that task has (addition's own used to be "unknown")
"$TG" train --task addition --set task_options.T=10 --set model_options.hidden=4 --steps 1 --quiet --out tiny >/dev/null 2>&1
expect eval_other_task "task 'temporal_order' with [{]\"T\":10[}] gives inputs and outputs that run tiny does not read" -- eval --run tiny --task temporal_order
expect invalid_task_option "'T'"                       -- train --task addition --set task_options.T=2 --out run1
expect bad_remat_segments "remat_segments"              -- train --task addition --set objective_options.remat_segments=-3 --out run1
expect remat_needs_cell_model "remat_segments.*'esn'"    -- train --model esn --task addition --set objective_options.remat_segments=4 --out run1
expect unwritable_out "cannot create"                  -- train --task addition --steps 1 --out good.txt/run
expect existing_run_untouched "already holds a run|unknown key" -- train --task addition --config existing/keep.json --set bogus=1 --out existing
expect eval_missing_run "no such file|cannot open"     -- eval --run nowhere
expect unknown_subcommand "frobnicate"                 -- frobnicate
expect ollivier_bad_method "option 'transition' must be one of" -- ollivier --transition natural --max-passes 1
expect ollivier_bad_task "not one of Ollivier's"       -- ollivier --task addition --max-passes 1
expect ilqr_bad_reaches "--reaches: 0 is outside \[1, 100000\]" -- ilqr --reaches 0 --out ilqr.json
expect ilqr_bad_radius "ilqr: --radius must be a finite number > 0"    -- ilqr --radius -0.1 --out ilqr.json
expect ilqr_infinite_radius "ilqr: --radius must be a finite number > 0 \(got inf\)" -- ilqr --radius inf --out ilqr.json
expect ilqr_radius_out_of_reach "ilqr: --radius 1: .*out of reach" -- ilqr --radius 1 --out ilqr.json
expect ilqr_bad_alpha "ilqr: --alpha must be >= 0"     -- ilqr --alpha nan --out ilqr.json
expect ilqr_unwritable_out "cannot create"             -- ilqr --reaches 2 --steps 3 --out good.txt/ilqr.json
expect controller_on_sequences "model 'controller' drives the arm of a reaching task" -- train --model controller --task addition --out run1
expect sequence_model_on_arm "task 'center_out' is an arm to control: train model 'controller'" -- train --model rnn --task center_out --out run1
expect center_out_batch "task 'center_out' has 64 reaches: set batch" -- train --model controller --task center_out --set batch=100 --out run1
expect controller_objective_options "the reaching task defines the loss" -- train --model controller --task center_out --set batch=64 --set objective_options.mean_over=cases --out run1
expect controller_bad_option "unknown option 'hidden'" -- train --model controller --task center_out --set batch=64 --set model_options.hidden=3 --out run1
expect rtrbm_on_sequences "model 'rtrbm' learns video: train it on a next-frame task" -- train --model rtrbm --task addition --optimizer sgd --out run1
expect rtrbm_with_hf "contrastive divergence, whose surrogate loss has a gradient but no meaningful value" -- train --model rtrbm --task bouncing_balls --optimizer hf --out run1
expect rtrbm_bad_k "option cd_k=0 is outside" -- train --model rtrbm --task bouncing_balls --optimizer sgd --set model_options.cd_k=0 --out run1
expect trbm_bad_links "links 'hh,xx' has 'xx'" -- train --model trbm --task bouncing_balls --optimizer sgd --set model_options.links=hh,xx --out run1
expect trbm_too_big "taps 900.: more than 2.5e8" -- train --model trbm --task bouncing_balls --optimizer sgd --set model_options.taps=900 --set model_options.links=vv --out run1
expect rtrbm_taps "option 'taps'" -- train --model rtrbm --task bouncing_balls --optimizer sgd --set model_options.taps=2 --out run1
expect balls_bad_steps "steps must be at least 2" -- train --model rtrbm --task bouncing_balls --optimizer sgd --set task_options.steps=1 --out run1
expect pgp_on_sequences "model 'pgp' learns frame sequences: train it on image_pairs" -- train --model pgp --task addition --optimizer adam --out run1
expect pgp_with_inputs "gives 16 conditioning inputs beside each frame: only cpgp reads them" -- train --model pgp --task sine_walk --out run1
expect cpgp_without_inputs "the CPGP needs some" -- train --model cpgp --task transformed_video --out run1
expect pgp_short_sizes "option 'factors' lists 2 sizes for 3 layers" -- train --model pgp --task transformed_video --set model_options.factors=[10,10] --set model_options.layers=3 --out run1
expect pgp_seed_too_short "3 layers infer their top mapping from 4 frames; the data gives 2 seed frames" -- train --model pgp --task transformed_video --set model_options.layers=3 --set task_options.seed_frames=2 --steps 2 --out run1
expect pgp_with_mu "which model 'pgp' does not have: drop mu" -- train --model pgp --task transformed_video --optimizer hf --set optimizer_options.mu=0.1 --out run1
expect sine_codes_one "option .codes. must be 0 .no code. or at least 2" -- train --model cpgp --task sine_walk --set task_options.codes=1 --out run1
expect phonemes_no_corpus "nowhere/train.npz is missing: make the corpus with bash scripts/speech_corpus.sh" -- train --model deep_blstm --task phonemes --set task_options.dir=nowhere --out run1
expect phonemes_data_dir "nowhere/train.npz is missing: make the corpus with bash scripts/speech_corpus.sh" -- train --model deep_blstm --task phonemes --data nowhere --out run1
expect speech_frames_no_corpus "task 'speech_frames': .*nowhere/train.npz is missing" -- train --model rnn --task speech_frames --set task_options.dir=nowhere --out run1
expect negative_patience "'patience' must be >= 0 .0: no early stopping., got -1" -- train --set patience=-1 --out run1
expect nan_rule_hf "nan_rule halves a learning rate, and optimizer 'hf' has none" -- train --optimizer hf --set nan_rule=true --out run1
expect ddn_bad_part "option 'part'" -- train --model controller --task ddn --set task_options.part=dev --out run1
expect trajectories_no_run "does not exist|no such file|cannot open" -- plot --run nowhere --trajectories
expect ollivier_rnn_blocks "needs a gated model"       -- ollivier --model ollivier_rnn --transition rbpm --options '{"pairs":1,"n_min":3,"n_max":4}' --max-passes 2
# a new run never writes over files that are not a run's (an audit found config.json replaced, and --out / taken)
mkdir -p foreign_cfg foreign_file && printf 'notes\n' >foreign_cfg/config.json && printf 'mine\n' >foreign_file/notes.txt
expect foreign_config "foreign_cfg is not empty and holds no run \(its config.json is not a run's\)" -- train --task addition --set task_options.T=10 --steps 1 --out foreign_cfg
expect foreign_file "foreign_file is not empty and holds no run \('notes.txt' is not a file of a run\)" -- train --task addition --set task_options.T=10 --steps 1 --out foreign_file
[ "$(cat foreign_cfg/config.json)" = notes ] || { echo "FAIL: foreign_cfg/config.json was modified"; failures=$((failures + 1)); }
# what a run killed before its first checkpoint leaves is not foreign: the same command starts it again
mkdir -p leftover && cp tiny/config.json tiny/metrics.jsonl leftover/
if "$TG" train --task addition --set task_options.T=10 --set model_options.hidden=4 --steps 1 --quiet --out leftover >/dev/null 2>&1 &&
  [ -f leftover/checkpoint.npz ]; then echo "ok   leftover: a run's leftovers are trained over"
else echo "FAIL leftover: a run's own leftovers were refused"; failures=$((failures + 1)); fi
# a picture never replaces a run's files
expect plot_over_checkpoint "--output: 'tiny/checkpoint.npz' does not end in .png" -- plot --run tiny -o tiny/checkpoint.npz
expect hline_without_metric "plot: --hline is for a comparison of runs; give --metric" -- plot --run tiny --hline 0.1 -o tiny/x.png
expect hline_not_number "--hline: 'abc' is not Y or Y=LABEL" -- plot --run tiny --metric valid_error --hline abc -o tiny/x.png
expect yrange_without_metric "plot: --y-range is for a comparison of runs; give --metric" -- plot --run tiny --y-range 0:1 -o tiny/x.png
expect yrange_empty "--y-range: '1:0' is empty: LO must be below HI" -- plot --run tiny --metric valid_error --y-range 1:0 -o tiny/x.png
expect label_without_metric "plot: --label is for a comparison of runs; give --metric" -- plot --run tiny --label x -o tiny/x.png
expect yrange_blank "--y-range: '' has no ':'" -- plot --run tiny --metric valid_error --y-range '' -o tiny/x.png
expect yrange_trajectories "plot: --y-range does not apply to --trajectories" -- plot --run tiny --trajectories --y-range 0:1
expect reconstruct_over_config "--output: 'tiny/config.json' does not end in .png" -- reconstruct --run tiny -o tiny/config.json
# a config that is JSON but not an object, and options that would be silently ignored (a CLI audit)
printf '[1,2]' >array.json && printf 'null' >null.json
expect config_array "config file 'array.json' must hold a JSON object of options" -- train --config array.json --out run1
expect config_null "config file 'null.json' must hold a JSON object of options" -- train --config null.json --out run1
expect gradcheck_op_and_model "--op excludes --model" -- gradcheck --op add --model rnn
expect gradcheck_op_and_models "--op excludes --models" -- gradcheck --op nosuch --models
expect unknown_before_required "train: unknown option '--bogus'" -- train --bogus
expect task_set_named "--task-set: expected key=value, got 'T'" -- eval --run tiny --task-set T
expect batch_fraction "'batch' must be a whole number \(got 1.5\)" -- train --task addition --set batch=1.5 --out run1
expect empty_run "--run: an empty path" -- eval --run ''
expect params_task_model "params: model 'rtrbm' is built for its task" -- params --model rtrbm
expect bench_ctc_model "bench --ctc stacks --depth layers, and model 'lstm' has no layers option" -- bench --model lstm --ctc --hidden 4 --batch 2 --steps 2 --reps 1
expect eval_too_many "-n: 99999999999 is outside \[1, 10000000\]" -- eval --run tiny -n 99999999999
# a model too large for the machine is refused before its parameters are allocated (it took minutes and 20 GB)
# (sizes no machine holds: W_hx alone is 200 TB, the reservoir 8 TB)
EXPECT_SECONDS=20 expect params_too_large "'rnn/W_hx' of shape \[50,1000000000000\].*more than a quarter of this machine's" -- params --model rnn --set hidden=1000000000000
EXPECT_SECONDS=20 expect train_too_large "more than a quarter of this machine's" -- train --task addition --set model_options.hidden=1000000000000 --out run1
EXPECT_SECONDS=20 expect esn_reservoir_too_large "option 'reservoir' \(1000000\) makes a \[1000000,1000000\] reservoir of .*more than a quarter" -- params --model esn --set reservoir=1000000
# --seed 0 is a seed like any other, as --set seed=0 always was
if "$TG" train --task addition --seed 0 --steps 1 --quiet --out seed0 >/dev/null 2>seed0.txt &&
  grep -q '"seed": 0,' seed0/config.json; then echo "ok   seed_zero: --seed 0 trains with seed 0"
else echo "FAIL seed_zero: $(cat seed0.txt)"; failures=$((failures + 1)); fi
rm -rf seed0 seed0.txt
# output that cannot be written is an error, not exit 0 with nothing printed
if [ -w /dev/full ]; then
  "$TG" eval --run tiny -n 3 >/dev/full 2>full.txt
  rc=$?
  if [ $rc -eq 2 ] && grep -q "cannot write to standard output" full.txt; then echo "ok   stdout_full: $(cat full.txt)"
  else echo "FAIL stdout_full: exit $rc: $(cat full.txt)"; failures=$((failures + 1)); fi
  rm -f full.txt
fi

[ "$(cat existing/keep.json)" = "{}" ] || { echo "FAIL: existing/keep.json was modified"; failures=$((failures + 1)); }
expect_done
echo "cli_errors: all cases give one line, exit code 2 and no files"
