# Sourced by the command-line error tests. `expect NAME PATTERN -- ARGS...` runs "$TG" ARGS in the
# current directory and passes when the command exits with code 2, prints exactly one stderr line
# matching PATTERN (an ERE), and leaves the directory's files as they were (no run directory, no
# partial file). What a failing case created is removed, so the cases stay independent.
# EXPECT_MEMORY_KB and EXPECT_SECONDS (optional) bound each case, so that a regression fails here
# instead of hanging or swapping. `expect_done` ends the script: exit 1 if any case failed.
failures=0
expect() {
  local name=$1 pattern=$2
  shift 3
  local before after rc lines note=""
  before=$(find . | sort | grep -v -E '^\./(stdout|stderr)\.txt$')
  (
    [ -n "${EXPECT_MEMORY_KB:-}" ] && ulimit -v "$EXPECT_MEMORY_KB"
    if [ -n "${EXPECT_SECONDS:-}" ]; then exec timeout -s KILL "$EXPECT_SECONDS" "$TG" "$@"; fi
    exec "$TG" "$@"
  ) </dev/null >stdout.txt 2>stderr.txt
  rc=$?
  [ -n "${EXPECT_SECONDS:-}" ] && [ "$rc" -eq 137 ] && note=" (killed after $EXPECT_SECONDS s)"
  after=$(find . | sort | grep -v -E '^\./(stdout|stderr)\.txt$')
  lines=$(wc -l <stderr.txt)
  if [ "$rc" -ne 2 ] || [ "$lines" -ne 1 ] || ! grep -q -E -e "$pattern" stderr.txt || [ "$before" != "$after" ]; then
    echo "FAIL $name: exit $rc$note, $lines stderr lines, files changed: $([ "$before" != "$after" ] && echo yes || echo no)"
    sed 's/^/    /' stderr.txt
    comm -13 <(echo "$before") <(echo "$after") | xargs -r rm -rf
    failures=$((failures + 1))
  else
    echo "ok   $name: $(cat stderr.txt)"
  fi
  rm -f stdout.txt stderr.txt
}
expect_done() {
  if [ "$failures" -ne 0 ]; then echo "$failures case(s) failed"; exit 1; fi
}
