#!/usr/bin/env bash
# One writer per run directory: while a run trains, a second train on its --out (fresh or --resume)
# fails with exit 2 naming the holder, and leaves the run's files alone; after the holder is killed
# with SIGKILL, --resume works (the stale lock does not block it).
# Usage: run_lock.sh path/to/tapegrad
set -uo pipefail
TG=$1
work=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; rm -rf "$work"' EXIT
run=$work/run
args=(train --model rnn --task addition --optimizer adam --set task_options.T=20 --set model_options.hidden=8
      --set batch=20 --set eval_every=0 --quiet)
"$TG" "${args[@]}" --steps 1000000 --out "$run" >/dev/null 2>"$work/a_err" &
pid=$!
for _ in $(seq 200); do [ -s "$run/metrics.jsonl" ] && break; sleep 0.05; done
[ -s "$run/metrics.jsonl" ] || { echo "FAIL: the first run wrote no metrics: $(cat "$work/a_err")"; exit 1; }
fail=0
for mode in fresh resume; do
  extra=()
  [ "$mode" = resume ] && extra=(--resume)
  "$TG" "${args[@]}" --steps 1000000 --out "$run" "${extra[@]}" >/dev/null 2>"$work/b_err"
  code=$?
  if [ "$code" -ne 2 ] || ! grep -q "is in use by process $pid" "$work/b_err" || [ "$(wc -l <"$work/b_err")" -ne 1 ]; then
    echo "FAIL ($mode): exit $code, stderr: $(cat "$work/b_err")"
    fail=1
  else
    echo "ok ($mode): $(cat "$work/b_err")"
  fi
done
kill -0 "$pid" 2>/dev/null || { echo "FAIL: the first run died: $(cat "$work/a_err")"; exit 1; }
kill -9 "$pid"
wait "$pid" 2>/dev/null
pid=
"$TG" "${args[@]}" --out "$run" --resume --steps 1 >/dev/null 2>"$work/c_err"
code=$?
# --steps 1 is below the iterations already taken: the resumed run ends at once, exit 0
[ "$code" -eq 0 ] || { echo "FAIL: --resume after SIGKILL: exit $code: $(cat "$work/c_err")"; fail=1; }
# an ended run leaves the lock empty, and a refused train (a fresh run on a run's directory) leaves it so
[ -s "$run/.lock" ] && { echo "FAIL: .lock holds '$(cat "$run/.lock")' after the run ended"; fail=1; }
"$TG" "${args[@]}" --out "$run" --steps 1 >/dev/null 2>"$work/d_err"
[ $? -eq 2 ] || { echo "FAIL: a fresh train on a run's directory was not refused: $(cat "$work/d_err")"; fail=1; }
[ -s "$run/.lock" ] && { echo "FAIL: a refused train left '$(cat "$run/.lock")' in .lock"; fail=1; }
[ "$fail" -eq 0 ] && echo "PASS: a second writer is refused while the run trains; a stale lock does not block --resume"
exit "$fail"
