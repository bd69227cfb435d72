#!/usr/bin/env bash
# When the trainer validates. A method that scores the validation data itself (Ollivier's Riemannian
# methods, whose one validation sequence is far too long for the trainer's unroll) gets no validation
# from the trainer: not every eval_every iterations, not at the --steps limit, not in the summary of a
# resumed run with nothing left to do; and patience (which counts those validations) is refused for it. Any
# other method with eval_every 0 is validated once, at the end.
# Usage: trainer_validation.sh TAPEGRAD
set -euo pipefail
TG=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OPENBLAS_NUM_THREADS=1
fail=0
# rows of DIR/metrics.jsonl with a trainer validation
validated_rows() { grep -c '"valid_loss"' "$1/metrics.jsonl" || true; }

riemannian=(train --model glnn --task distant_xor --optimizer riemannian --set dtype=float64 --set task_options.T=10
            --set task_options.lines=400 --set model_options.units=6 --set eval_batch=1 --quiet)
for every in 0 1; do
  run="$work/glnn_every$every"
  "$TG" "${riemannian[@]}" --set eval_every=$every --steps 3 --out "$run" > "$run.out"
  rows=$(validated_rows "$run")
  if [ "$rows" -ne 0 ] || grep -q '"valid_loss"' "$run.out"; then
    echo "FAIL riemannian eval_every=$every: the trainer validated ($rows metric rows)"; fail=1
  else
    echo "ok   riemannian eval_every=$every: 3 rounds, no trainer validation"
  fi
done
# resumed with nothing left to do: the summary reports the saved state without validating it
"$TG" "${riemannian[@]}" --set eval_every=0 --steps 3 --out "$work/glnn_every0" --resume > "$work/again.out"
if grep -q '"valid_loss"' "$work/again.out"; then echo "FAIL riemannian resume: the summary validated"; fail=1
else echo "ok   riemannian resume with nothing to do: no validation"; fi

# patience counts the trainer's validations: with a method that validates itself it is refused, one line, exit 2
set +e
"$TG" "${riemannian[@]}" --set eval_every=5 --set patience=3 --steps 3 --out "$work/glnn_patience" 2> "$work/err"
rc=$?
set -e
if [ $rc -ne 2 ] || [ "$(wc -l < "$work/err")" -ne 1 ] || ! grep -q "set optimizer_options.patience" "$work/err" ||
   [ -e "$work/glnn_patience" ]; then
  echo "FAIL riemannian with patience: exit $rc (want 2), stderr:"; sed 's/^/    /' "$work/err"; fail=1
else
  echo "ok   riemannian with patience: $(cat "$work/err")"
fi

plain=(train --model irnn --task adding --set task_options.T=10 --set model_options.hidden=4 --set batch=8
       --optimizer sgd --set eval_every=0 --quiet)
run="$work/irnn"
"$TG" "${plain[@]}" --steps 3 --out "$run" > "$run.out"
rows=$(validated_rows "$run")
last_has=$(tail -1 "$run/metrics.jsonl" | grep -c '"valid_loss"' || true)
if [ "$rows" -ne 1 ] || [ "$last_has" -ne 1 ] || ! grep -q '"valid_loss"' "$run.out"; then
  echo "FAIL sgd eval_every=0: want one validation, at the last step (got $rows rows, last $last_has)"; fail=1
else
  echo "ok   sgd eval_every=0: validated once, at step 3"
fi
"$TG" "${plain[@]}" --steps 3 --out "$run" --resume > "$work/plain_again.out"
if grep -q '"valid_loss"' "$work/plain_again.out"; then echo "ok   sgd resume with nothing to do: summary validated"
else echo "FAIL sgd resume: the summary has no validation"; fail=1; fi
exit $fail
