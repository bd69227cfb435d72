#!/usr/bin/env bash
# --resume names what differs: another optimizer (not "adam: unknown option 'armijo'"), a changed model
# option with both values; checkpoint_every may change; a run whose config.json is gone resumes from the
# checkpoint's config; a text run whose file changed since it began is refused, not continued on other
# text. Usage: resume_mismatch.sh TAPEGRAD
set -euo pipefail
TG=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OPENBLAS_NUM_THREADS=1
fail=0
"$TG" train --model rnn --task addition --optimizer hf --steps 3 --set task_options.T=10 --set model_options.hidden=8 \
  --quiet --out "$work/run" > /dev/null
expect() {  # name, pattern, args...
  local name=$1 pattern=$2; shift 2
  local code=0
  "$TG" train --out "${RUN:-$work/run}" --resume "$@" > /dev/null 2> "$work/err" || code=$?
  if [ $code -ne 2 ] || [ "$(wc -l < "$work/err")" -ne 1 ] || ! grep -q -- "$pattern" "$work/err"; then
    echo "FAIL $name: exit $code"; sed 's/^/    /' "$work/err"; fail=1
  else
    echo "ok $name: $(cat "$work/err")"
  fi
}
expect other_optimizer "option 'optimizer' is \"adam\" here but \"hf\" in the run" --optimizer adam
expect other_model_option "model_options.hidden: 8 in the run, 9 here" --set model_options.hidden=9
expect other_hf_option "optimizer_options.max_cg: 300 in the run, 7 here" --set optimizer_options.max_cg=7
"$TG" train --out "$work/run" --resume --steps 5 --set checkpoint_every=1 --quiet > /dev/null \
  || { echo "FAIL: checkpoint_every may change on --resume"; fail=1; }
# --config on --resume lies over the run's own options (it lay over the defaults: {"steps": 5} was refused
# as 'optimizer is "hf" here but ...', a default the user never gave)
echo '{"steps": 4}' > "$work/steps.json"
"$TG" train --out "$work/run" --resume --config "$work/steps.json" --quiet > /dev/null 2> "$work/err" \
  || { echo "FAIL: --config {\"steps\": 4} on --resume: $(cat "$work/err")"; fail=1; }
# ... a schedule given as a preset there replaces the stored expanded one whole (merged, it was refused)
cat > "$work/nag.json" <<'EOF'
{"model": "rnn", "task": "addition", "optimizer": "nag", "model_options": {"hidden": 4}, "task_options": {"T": 10},
 "optimizer_options": {"lr": {"kind": "preset", "name": "sutskever_add", "of": "lr"},
                       "momentum": {"kind": "preset", "name": "sutskever_add", "of": "momentum"}},
 "batch": 4, "eval_batch": 4, "steps": 2}
EOF
"$TG" train --config "$work/nag.json" --out "$work/nag" --quiet > /dev/null
"$TG" train --config "$work/nag.json" --out "$work/nag" --resume --steps 3 --quiet > /dev/null 2> "$work/err" \
  || { echo "FAIL: a config with preset schedules did not resume: $(cat "$work/err")"; fail=1; }
echo '{"optimizer": "adam"}' > "$work/adam.json"
expect config_other_optimizer "option 'optimizer' is \"adam\" here but \"hf\" in the run" --config "$work/adam.json"
rm "$work/run/config.json"
if "$TG" train --out "$work/run" --resume --steps 6 --quiet > /dev/null 2> "$work/err" && grep -q "missing" "$work/err"; then
  echo "ok: resumed without config.json: $(cat "$work/err")"
else
  echo "FAIL: a run without config.json did not resume"; cat "$work/err"; fail=1
fi
# the text changed at the same path (a CLI audit: resume went on silently)
text=$work/text.txt
for _ in $(seq 40); do echo "In the beginning God created the heaven and the earth. And the earth was without form."; done > "$text"
"$TG" train --model lstm --task text --data "$text" --optimizer adam --steps 2 --set model_options.hidden=8 \
  --set task_options.T=10 --set batch=4 --set eval_batch=4 --quiet --out "$work/text_run" > /dev/null
cp "$text" "$work/text.orig"
sed -i '3s/heaven/haeven/' "$text"
RUN=$work/text_run expect text_changed "the train part's text differs" --steps 3
sed -i '3s/haeven/HEAVEN/' "$text"
RUN=$work/text_run expect text_new_symbols "has the text file changed since the run began" --steps 3
cp "$work/text.orig" "$text"
# a new run over a killed run's leftovers writes its own vocabulary (a stale vocab.json stayed)
mkdir "$work/leftover" && cp "$work/text_run/"{config.json,metrics.jsonl,vocab.json} "$work/leftover/"
echo "Other words, other letters: xyz XYZ qwv." > "$work/other.txt"
for _ in $(seq 6); do cat "$work/other.txt"; done > "$work/other6.txt"
"$TG" train --model lstm --task text --data "$work/other6.txt" --optimizer adam --steps 1 --set model_options.hidden=8 \
  --set task_options.T=10 --set batch=4 --set eval_batch=4 --quiet --out "$work/leftover" > /dev/null 2> "$work/err"
if cmp -s "$work/leftover/vocab.json" "$work/text_run/vocab.json"; then
  echo "FAIL: the new run kept the leftover vocab.json $(cat "$work/err")"; fail=1
fi
"$TG" train --out "$work/text_run" --resume --steps 3 --quiet > /dev/null 2> "$work/err" \
  || { echo "FAIL: the text run did not resume on its own text: $(cat "$work/err")"; fail=1; }
exit $fail
