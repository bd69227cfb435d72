#!/usr/bin/env bash
# Krueger's Table 5.IV at our scale (seed 004 §5.4.2; issue 21; docs/results/speech.md): a 3-layer deep
# bidirectional LSTM with a CTC output on the espeak-ng phoneme corpus (scripts/speech_corpus.sh), Adam
# lr 0.001 with gradient clipping 200 as Krueger, early stopping on the dev part's phoneme error rate
# and the NaN rule, for the norm-stabilizer beta in {0, 50, 500}, weight noise sigma 0.05, dropout 0.5
# and their pairwise combinations (Krueger's eight settings and the two he left out, weight noise with
# the stabilizer). Every run trains to a CPU budget (BUDGET seconds) or until early stopping ends it,
# and resumes from its checkpoint when an invocation is cut short. Runs: $ROOT/<setting>_s<seed>.
#   SETTINGS   which settings (default all ten, in order)    SEEDS   default "1"
#   HIDDEN     units per direction and layer (default 64)    BUDGET  CPU seconds per run (default 1200)
#   PATIENCE   validations without a lower dev PER before early stopping (default 10 = 5 epochs;
#              Krueger's 25 epochs = 50); a resume with another PATIENCE is refused
# Scoring: EVAL=1 bash scripts/experiments/speech.sh (dev and test PER of each run's best dev validation, and
# the PER on the 4,000 test utterances of data/speech_frames when that corpus is made).
set -euo pipefail
cd "$(dirname "$0")/../.."
TG=${TG:-./build/tools/tapegrad}
export OPENBLAS_NUM_THREADS=1
source scripts/experiments/lane.sh
ROOT=${ROOT:-runs/speech}
BUDGET=${BUDGET:-1200}
HIDDEN=${HIDDEN:-64}
SEEDS=${SEEDS:-1}
PATIENCE=${PATIENCE:-10}
ALL="base b50 b500 wn do b50_do b500_do wn_do wn_b50 wn_b500"
SETTINGS=${SETTINGS:-$ALL}
[ -f data/speech/train.npz ] || { echo "speech.sh: no corpus in data/speech: run bash scripts/speech_corpus.sh" >&2; exit 2; }
# 3000 training utterances in batches of 16: an epoch is 188 iterations. Validation every half epoch on
# the whole dev part (400 utterances); patience 10 validations = 5 epochs (Krueger: 25 epochs).
common=(--model deep_blstm --task phonemes --data data/speech --set "model_options.layers=[$HIDDEN,$HIDDEN,$HIDDEN]"
        --optimizer adam --set optimizer_options.lr=0.001 --set optimizer_options.clip_norm=200 --set batch=16
        --set eval_every=94 --set eval_batch=400 --set patience=$PATIENCE --set nan_rule=true --set checkpoint_every=47
        --steps 100000000 --cpu-budget "$BUDGET")

setting_args() {  # the regularizers of setting $1
  local name=$1 args=()
  [[ $name == *b50* && $name != *b500* ]] && args+=(--set objective_options.norm_stabilizer=50)
  [[ $name == *b500* ]] && args+=(--set objective_options.norm_stabilizer=500)
  [[ $name == *wn* ]] && args+=(--set objective_options.weight_noise=0.05)
  [[ $name == *do* ]] && args+=(--set objective_options.output_dropout=0.5)
  case " $ALL " in *" $name "*) ;; *) echo "speech.sh: unknown setting '$name' (settings: $ALL)" >&2; return 2 ;; esac
  echo "${args[@]}"
}

mkdir -p "$ROOT"
for name in $SETTINGS; do
  text=$(setting_args "$name") || exit 2
  read -r -a reg <<< "$text"
  for seed in $SEEDS; do
    out=$ROOT/${name}_s$seed
    if [ "${EVAL:-0}" = 1 ]; then
      [ -f "$out/done" ] || continue
      if [ ! -f "$out/eval.txt" ]; then  # whole or not at all: a failed eval leaves no file to trust
        "$TG" eval --run "$out" > "$out/eval.txt.tmp"
        mv "$out/eval.txt.tmp" "$out/eval.txt"
      fi
      # and the 4,000 test utterances of the larger corpus (its first 400 are the test part above)
      if [ -f data/speech_frames/test.npz ] && [ ! -f "$out/eval_4000.txt" ]; then
        "$TG" eval --run "$out" --task-set dir=data/speech_frames --task-set part=test -n 4000 > "$out/eval_4000.txt.tmp"
        mv "$out/eval_4000.txt.tmp" "$out/eval_4000.txt"
      fi
      test_per=$(grep -o "^phoneme error rate [0-9.]*" "$out/eval.txt" | grep -o "[0-9.]*$")
      dev_per=$(grep "^valid part" "$out/eval.txt" | grep -o "phoneme error rate [0-9.]*" | grep -o "[0-9.]*$")
      big_per=$(grep -o "^phoneme error rate [0-9.]*" "$out/eval_4000.txt" 2>/dev/null | grep -o "[0-9.]*$" || true)
      echo "$name seed $seed: dev PER $dev_per, test PER $test_per, 4000-utterance test PER ${big_per:-n/a}"
      continue
    fi
    train_lane "$out" "${common[@]}" "${reg[@]}" --seed "$seed"
  done
done
if [ "${EVAL:-0}" = 1 ]; then  # dev PER against CPU time, every setting's first seed that has trained (all settings)
  runs=()
  first=${SEEDS%% *}
  for name in $ALL; do [ -f "$ROOT/${name}_s$first/metrics.jsonl" ] && runs+=(--run "$ROOT/${name}_s$first"); done
  if [ ${#runs[@]} -gt 0 ]; then
    "$TG" plot "${runs[@]}" --metric valid_error --x cpu_seconds --log-y -o docs/results/speech_dev_per.png
  fi
fi
