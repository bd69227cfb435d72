#!/usr/bin/env bash
# tapegrad ollivier runs through the common trainer: a line-batched distant-XOR run killed with SIGKILL
# at random moments (after its first checkpoint) and each time continued with --resume prints the same
# scorings and the same result as the uninterrupted run (CPU seconds aside). Also: --out refuses a
# directory that holds a run unless --resume, and --resume refuses another configuration.
# Usage: ollivier_resume.sh TAPEGRAD
set -euo pipefail
TG=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OPENBLAS_NUM_THREADS=1
args=(ollivier --task distant_xor --options '{"T":10,"lines":400}' --units 6 --graph full --max-passes 80
      --budget-seconds 1000 --line-batch 64)
# Scoring rows and the result line without the CPU seconds.
strip() { awk '/^ *[0-9]+ /{ $2 = ""; print } /^best:/{ sub(/; [0-9.]+ CPU s/, ""); print }' "$@"; }

"$TG" "${args[@]}" --out "$work/whole" > "$work/whole.txt" 2>/dev/null
run="$work/run"
RANDOM=4242
i=0
"$TG" "${args[@]}" --out "$run" --checkpoint-every 1 > "$work/part.$i" 2>/dev/null &
pid=$!
while :; do
  while [ ! -e "$run/checkpoint.npz" ] && kill -0 $pid 2>/dev/null; do sleep 0.02; done
  sleep "0.$((RANDOM % 40 + 5))"
  kill -9 $pid 2>/dev/null || true
  wait $pid 2>/dev/null || true
  grep -q '^best:' "$work/part.$i" && break  # it finished before the kill
  i=$((i + 1))
  "$TG" "${args[@]}" --out "$run" --resume > "$work/part.$i" 2>/dev/null &
  pid=$!
  if [ $i -ge 6 ]; then wait $pid; break; fi
done
got=$(strip "$work/part.$i")
want=$(strip "$work/whole.txt")
if [ -z "$want" ] || [ "$got" != "$want" ]; then
  echo "resumed run differs from the uninterrupted one ($i kills)"; diff <(echo "$want") <(echo "$got") | head -20; exit 1
fi
echo "resumed after $i kills: identical ($(echo "$want" | wc -l) lines)"

# Refusals: a directory holding a run without --resume, a run of another configuration.
if "$TG" "${args[@]}" --out "$run" > /dev/null 2> "$work/err"; then echo "overwrote a run"; exit 1; fi
grep -q "already holds a run" "$work/err" || { cat "$work/err"; exit 1; }
if "$TG" "${args[@]}" --seed 9 --out "$run" --resume > /dev/null 2> "$work/err"; then
  echo "resumed another configuration"; exit 1
fi
grep -q "options differ" "$work/err" || { cat "$work/err"; exit 1; }
echo ok
