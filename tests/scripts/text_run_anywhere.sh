#!/usr/bin/env bash
# A text run works from any directory: train stores its data files as absolute paths and writes the
# run's vocabulary (vocab.json), so eval, eval --data (another text, scored with the run's vocabulary)
# and sample succeed from another working directory.
# Usage: text_run_anywhere.sh path/to/tapegrad path/to/tests/data/tiny.txt
set -uo pipefail
TG=$(realpath "$1")
TEXT=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/project" "$work/elsewhere"
cp "$TEXT" "$work/project/corpus.txt"
head -c 2000 "$TEXT" >"$work/other.txt"
fail=0
(cd "$work/project" && "$TG" train --model lstm --data corpus.txt --optimizer adam --set model_options.hidden=8 \
   --set task_options.T=20 --set batch=4 --steps 3 --quiet --out run >/dev/null 2>"$work/err") ||
  { echo "FAIL: train: $(cat "$work/err")"; exit 1; }
[ -s "$work/project/run/vocab.json" ] || { echo "FAIL: train wrote no vocab.json"; fail=1; }
cd "$work/elsewhere"
for cmd in "eval --run $work/project/run -n 5" "eval --run $work/project/run --data $work/other.txt" \
           "sample --run $work/project/run --prompt In --length 20 --seed 1"; do
  # shellcheck disable=SC2086
  if "$TG" $cmd >"$work/out" 2>"$work/err"; then
    echo "ok: tapegrad $cmd"
  else
    echo "FAIL: tapegrad $cmd: $(cat "$work/err")"
    fail=1
  fi
done
[ "$fail" -eq 0 ] && echo "PASS: eval, eval --data and sample of a text run from another directory"
exit "$fail"
