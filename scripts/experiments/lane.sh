# A finished and scored run of the repository's runs/GROUP/NAME is archived (scripts/experiments/runs.py) under
# docs/results/runs/GROUP/NAME: a later session, whose runs/ is gone, does not train it again. Runs under any
# other ROOT are never archived nor stood in for. (The scripts run from the repository's root.)
archive_of() { echo "docs/results/runs/$(basename "$(dirname "$1")")/$(basename "$1")"; }
archived() {
  [ "$(realpath -m "$(dirname "$1")")" = "$(realpath -m "runs/$(basename "$(dirname "$1")")")" ] &&
    [ -f "$(archive_of "$1")/done" ]
}

# An unfinished run is parked by `runs.py park runs/GROUP` (a session's last step: its checkpoint and best
# parameters, under docs/results/parked/GROUP/NAME, committed) and restored by train_lane in the next session.

# Sourced by the experiment scripts: train_lane OUT ARGS... trains one run into OUT with `tapegrad train
# ARGS`, resuming from OUT's checkpoint when there is one, and marks it OUT/done when the run ends by its
# own budget (exit 0) or diverges (exit 3, kept as a result); a run cut short (killed, a session's end)
# resumes at the next invocation. Progress goes to OUT.log, the summary line to OUT/summary.txt.
# Runs take THREADS threads (default 1: the scripts run lanes side by side, and their runs keep the
# thread count of the results already recorded).
train_lane() {
  local out=$1
  shift
  [ -f "$out/done" ] && return 0
  archived "$out" && return 0
  local args=("$@" --threads "${THREADS:-1}")
  # a run parked at an earlier session's end (runs.py park) goes on from its checkpoint
  /usr/bin/python3 scripts/experiments/runs.py unpark "$out"
  [ -f "$out/checkpoint.npz" ] && args+=(--resume)
  mkdir -p "$(dirname "$out")"
  echo "$(date +%T) $out" >&2
  local code=0
  "$TG" train "${args[@]}" --out "$out" > "$out.summary" 2> "$out.log" || code=$?
  if [ $code -ne 0 ] && [ $code -ne 3 ]; then
    echo "run $out stopped with exit $code (see $out.log)" >&2
    return $code
  fi
  mv "$out.summary" "$out/summary.txt"
  touch "$out/done"
}

# score_once FILE ARGS... writes `tapegrad eval ARGS` into FILE unless it is there, whole or not at all.
score_once() {
  local file=$1
  shift
  [ -f "$file" ] && return 0
  "$TG" eval "$@" < /dev/null > "$file.tmp"
  mv "$file.tmp" "$file"
}

# eval_lane OUT MEASURE ARGS... scores a finished run once, `tapegrad eval --run OUT ARGS` into OUT/eval.txt (and
# with EVAL_LAST=1 the last checkpoint's parameters into OUT/eval_last.txt)
# (whole or not at all: a failed eval leaves no file to trust), and prints OUT with the eval's first line
# that starts with MEASURE (a regex: bpc, error_rate, ...). A run without OUT/done is skipped.
eval_lane() {
  local out=$1 measure=$2
  shift 2
  if [ ! -d "$out" ] && archived "$out"; then  # scored in an earlier session: its archive keeps eval.txt
    echo "$out: $(grep -E "^$measure " "$(archive_of "$out")/eval.txt" | head -n 1) (archived)"
    return 0
  fi
  [ -f "$out/done" ] || return 0
  score_once "$out/eval.txt" --run "$out" "$@"
  # EVAL_LAST=1: the last checkpoint's parameters too (eval.txt scores the best validation's when the run kept
  # them; a run can have learnt more after its last validation)
  if [ "${EVAL_LAST:-0}" = 1 ] && [ -f "$out/checkpoint.npz" ]; then
    score_once "$out/eval_last.txt" --run "$out" --last "$@"
  fi
  /usr/bin/python3 scripts/experiments/runs.py archive "$out"  # runs/GROUP only: kept for later sessions
  echo "$out: $(grep -E "^$measure " "$out/eval.txt" | head -n 1)"
}

# train_or_print OUT ARGS... trains OUT by train_lane, or with PRINT=1 prints the command instead, one line a
# shell can run again: an argument holding a space, a quote, brackets, braces or another shell character is
# single-quoted (the experiment scripts' PRINT=1 lists; krueger_table.py and krause_table.py read theirs).
train_or_print() {
  local out=$1
  shift
  if [ "${PRINT:-0}" = 1 ]; then
    local line="tapegrad train" a
    for a in "$@"; do
      if [[ $a == *[[:space:]\"\'\[\]{}*?\$\;\&\|\<\>\(\)]* ]]; then line+=" '$a'"; else line+=" $a"; fi
    done
    echo "$line --out $out"
    return 0
  fi
  train_lane "$out" "$@" < /dev/null
}
