#!/usr/bin/env bash
# tapegrad ollivier --checkpoint / --resume: a line-batched distant-XOR run killed with SIGKILL at
# random moments (after its first checkpoint) and each time continued with --resume prints the same
# scorings and the same result as the uninterrupted run (CPU seconds aside). Also: --checkpoint
# refuses to overwrite an existing state, and --resume refuses a state from another configuration.
# Usage: ollivier_resume.sh TAPEGRAD
set -euo pipefail
TG=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OPENBLAS_NUM_THREADS=1
args=(ollivier --task distant_xor --options '{"T":10,"lines":400}' --units 6 --graph full --max-passes 80
      --budget-seconds 1000 --line-batch 64)
# Scoring rows and the result line without the CPU seconds.
strip() { awk '/^ *[0-9]+ /{ $2 = ""; print } /^best:/{ sub(/cpu [0-9.]+s/, ""); print }' "$@"; }

"$TG" "${args[@]}" > "$work/whole.txt"
ck="$work/state.npz"
RANDOM=4242
i=0
"$TG" "${args[@]}" --checkpoint "$ck" --checkpoint-every 1 > "$work/part.$i" &
pid=$!
while :; do
  while [ ! -e "$ck" ] && kill -0 $pid 2>/dev/null; do sleep 0.02; done
  sleep "0.$((RANDOM % 40 + 5))"
  kill -9 $pid 2>/dev/null || true
  wait $pid 2>/dev/null || true
  grep -q '^best:' "$work/part.$i" && break  # it finished before the kill
  i=$((i + 1))
  "$TG" "${args[@]}" --checkpoint "$ck" --resume > "$work/part.$i" &
  pid=$!
  if [ $i -ge 6 ]; then wait $pid; break; fi
done
kills=$i
# Rows printed twice (after the last checkpoint, before a kill) are the same rows: keep one of each.
got=$(for k in $(seq 0 $kills); do strip "$work/part.$k"; done | awk '!seen[$1]++ || /^best:/' | grep -v '^best:' ; strip "$work/part.$kills" | grep '^best:')
want=$(strip "$work/whole.txt")
if [ "$got" != "$want" ]; then
  echo "resumed run differs from the uninterrupted one ($kills kills)"; diff <(echo "$want") <(echo "$got") | head -20; exit 1
fi
echo "resumed after $kills kills: identical ($(echo "$want" | wc -l) lines)"

# Refusals: an existing state without --resume, a state of another configuration.
if "$TG" "${args[@]}" --checkpoint "$ck" > /dev/null 2> "$work/err"; then echo "overwrote a state"; exit 1; fi
grep -q "exists" "$work/err" || { cat "$work/err"; exit 1; }
if "$TG" "${args[@]}" --seed 9 --checkpoint "$ck" --resume > /dev/null 2> "$work/err"; then
  echo "resumed another configuration"; exit 1
fi
grep -q "another run configuration" "$work/err" || { cat "$work/err"; exit 1; }
echo ok
