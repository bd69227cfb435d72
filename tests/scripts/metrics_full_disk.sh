#!/usr/bin/env bash
# A run whose metrics cannot be written (the disk is full: here a file-size limit) stops with one
# error line naming metrics.jsonl and exit 2, instead of training on while its log is lost; --resume
# then continues from the last checkpoint, and the log holds every iteration exactly once.
# Usage: metrics_full_disk.sh path/to/tapegrad
set -uo pipefail
TG=$1
PY=/usr/bin/python3
$PY -c 'import numpy' 2>/dev/null || { echo "SKIP: needs python3-numpy"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
run=$work/run
args=(train --model rnn --task addition --optimizer adam --set task_options.T=10 --set model_options.hidden=4
      --set batch=10 --set eval_every=0 --set checkpoint_every=50 --quiet --out "$run")
# SIGXFSZ ignored: a write past the limit fails with EFBIG instead of killing the process.
(trap '' XFSZ; ulimit -f 48; exec "$TG" "${args[@]}" --steps 100000) >/dev/null 2>"$work/err"
code=$?
fail=0
if [ "$code" -ne 2 ] || [ "$(wc -l <"$work/err")" -ne 1 ] || ! grep -q "cannot write .*metrics.jsonl" "$work/err"; then
  echo "FAIL: exit $code, stderr: $(cat "$work/err")"
  fail=1
else
  echo "ok: $(cat "$work/err")"
fi
"$TG" "${args[@]}" --steps 400 --resume >/dev/null 2>"$work/err2" || { echo "FAIL: --resume: $(cat "$work/err2")"; fail=1; }
$PY - "$run/metrics.jsonl" <<'PYEOF' || fail=1
import json, sys
its = [json.loads(l)["iteration"] for l in open(sys.argv[1])]
if its != list(range(1, len(its) + 1)) or len(its) != 400:
    print(f"FAIL: the log's iterations are not 1..400 once each ({len(its)} lines)"); sys.exit(1)
print(f"ok: after --resume the log holds iterations 1..{len(its)} once each")
PYEOF
[ "$fail" -eq 0 ] && echo "PASS"
exit "$fail"
