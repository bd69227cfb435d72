#!/usr/bin/env bash
# eval of a text run reports the target characters outside the run's vocabulary (they all map to one
# symbol that is never trained, ~20 bits each once trained), their count and rate, and bpc without
# them; "with them" must be the bpc line's value. Usage: text_unknowns.sh TAPEGRAD TINY_TEXT
set -uo pipefail
TG=$1
TEXT=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail=0
"$TG" train --data "$TEXT" --set task_options.T=20 --set model_options.hidden=16 --set batch=10 --set eval_every=0 \
  --steps 5 --quiet --out run >/dev/null 2>&1 || { echo "FAIL: training"; exit 1; }
# curly quotes and digits, not in tiny.txt's vocabulary: 30 lines of 40 characters, 59 sequences of 20
printf '\xe2\x80\x9cFour score and seven years ago\xe2\x80\x9d, 1863.\n%.0s' $(seq 30) >curly.txt
"$TG" eval --run run --data curly.txt >out.txt 2>err.txt || { echo "FAIL: eval: $(cat err.txt)"; exit 1; }
cat out.txt
grep -q -E '^unknown characters: 87 of 1180 target characters \(7\.373%\), outside the run.s vocabulary \(run/vocab\.json\), [0-9.]+ bits each$' out.txt ||
  { echo "FAIL: no count and rate of the unknown characters"; fail=1; }
grep -q -E '^bpc without them [0-9.]+ \(the 1093 known characters; with them [0-9.]+\)$' out.txt ||
  { echo "FAIL: no bpc without the unknown characters"; fail=1; }
bpc=$(sed -n 's/^bpc \([0-9.]*\) .*/\1/p' out.txt)
with=$(sed -n 's/.*with them \([0-9.]*\))$/\1/p' out.txt)
[ -n "$bpc" ] && [ "$bpc" = "$with" ] || { echo "FAIL: bpc $bpc but 'with them' $with"; fail=1; }
# only characters of the vocabulary: says 0
head -c 2000 "$TEXT" | LC_ALL=C tr -cd 'a-zA-Z .,\n' >plain.txt
"$TG" eval --run run --data plain.txt >out.txt 2>err.txt || { echo "FAIL: eval plain: $(cat err.txt)"; exit 1; }
grep -q -E '^unknown characters: 0 of [0-9]+ target characters$' out.txt || { echo "FAIL: plain text"; cat out.txt; fail=1; }
[ "$fail" -eq 0 ] && echo "text_unknowns: counted and separated"
exit "$fail"
