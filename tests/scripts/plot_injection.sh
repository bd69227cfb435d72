#!/usr/bin/env bash
# Plotting someone else's run is safe: metric keys, run directory names, -o values, config.json's
# model, task and optimizer names, and --label and --hline text with newlines,
# '!' (gnuplot's shell escape), backquotes and quotes never run a command. Each case either draws its
# PNG or fails with one error line; no marker file appears.
# Usage: plot_injection.sh path/to/tapegrad
set -uo pipefail
TG=$(realpath "$1")
command -v gnuplot >/dev/null || { echo "SKIP: needs gnuplot"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
"$TG" train --model rnn --task addition --optimizer adam --set task_options.T=10 --set model_options.hidden=4 \
  --set batch=10 --set eval_every=2 --steps 6 --quiet --out base >/dev/null 2>&1 || { echo "FAIL: no run to plot"; exit 1; }
fail=0
marker() { echo "$work/PWNED_$1"; }
check() {  # name, then the command
  local name=$1
  shift
  "$@" >/dev/null 2>"$work/err"
  local code=$?
  if ls "$work"/PWNED_* >/dev/null 2>&1; then
    echo "FAIL ($name): a command ran: $(ls "$work"/PWNED_*)"
    rm -f "$work"/PWNED_*
    fail=1
  elif [ "$code" -ne 0 ] && { [ "$code" -ne 2 ] || [ "$(wc -l <"$work/err")" -ne 1 ]; }; then
    echo "FAIL ($name): exit $code with: $(cat "$work/err")"
    fail=1
  else
    echo "ok ($name): exit $code"
  fi
}
# 1. hostile metric keys in metrics.jsonl
cp -r base keys
/usr/bin/python3 - keys/metrics.jsonl "$(marker key)" <<'PYEOF'
import json, sys
path, m = sys.argv[1], sys.argv[2]
lines = [json.loads(l) for l in open(path)]
for l in lines:
    l["x\n!touch " + m + "\n"] = 1.0
    l["q'\n!touch " + m + "\n'"] = 2.0
    l["b`touch " + m + "`"] = 3.0
open(path, "w").write("".join(json.dumps(l) + "\n" for l in lines))
PYEOF
check metric_keys "$TG" plot --run keys
# 2. hostile run directory names (plot and compare)
for name in $'dir\n!touch '"$(marker dir)"$'\n' "dir'"$'\n!touch '"$(marker dirq)"$'\n\'' 'dir`touch '"$(marker dirbq)"'`' 'DATA'; do
  d="$work/$name"
  mkdir -p "$d" && cp base/metrics.jsonl base/config.json "$d/"
  check "dir $(printf %q "$name" | cut -c1-30)" "$TG" plot --run "$d"
  check "compare $(printf %q "$name" | cut -c1-30)" "$TG" plot --run "$d" --run base --metric loss -o "$work/cmp.png"
done
# 3. hostile -o values
for out in $'o\n!touch '"$(marker out)"$'\n.png' "o'"$'\n!touch '"$(marker outq)"$'\n\'.png' 'o`touch '"$(marker outbq)"'`.png'; do
  check "-o $(printf %q "$out" | cut -c1-30)" "$TG" plot --run base -o "$work/$out"
done
# 4. hostile model, task and optimizer names in config.json (the title and legends name them)
cp -r base cfg
/usr/bin/python3 - cfg/config.json "$(marker cfg)" <<'PYEOF'
import json, sys
path, m = sys.argv[1], sys.argv[2]
c = json.load(open(path))
c["model"] = "m\n!touch " + m + "\n"
c["task"] = "t'\n!touch " + m + "\n'"
c["optimizer"] = "o`touch " + m + "`"
json.dump(c, open(path, "w"))
PYEOF
check config_names "$TG" plot --run cfg
check "compare config_names" "$TG" plot --run cfg --run base --metric valid_error -o "$work/cmp.png"
# 5. hostile --label and --hline text (named in the key)
check labels "$TG" plot --run base --run base --metric loss -o "$work/lab.png" \
  --label $'a\n!touch '"$(marker lab)"$'\n' --label "b'\"\\\`touch $(marker labbq)\`" \
  --hline "0.1=h'"$'\n!touch '"$(marker hl)"$'\n\'' --hline '0.2=`touch '"$(marker hlbq)"'`'
[ "$fail" -eq 0 ] && echo "PASS: no command ran from hostile keys, directory names or output paths"
exit "$fail"
