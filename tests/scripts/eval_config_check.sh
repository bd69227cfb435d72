#!/usr/bin/env bash
# eval and sample trust the config stored in the checkpoint (what the parameters were trained with):
# an edited config.json is refused naming the first differing option, a deleted one is replaced by
# the checkpoint's (said on stderr), and a config.json that only differs in the run's length (what
# --resume may change) is fine. Usage: eval_config_check.sh TAPEGRAD TINY_TEXT
set -uo pipefail
TG=$1
TEXT=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail=0
check() {  # check NAME WANT_RC PATTERN -- ARGS...: exit code and a stderr line matching PATTERN (- : none)
  local name=$1 want=$2 pattern=$3
  shift 4
  "$TG" "$@" >out.txt 2>err.txt
  local rc=$?
  if [ "$rc" -ne "$want" ] || { [ "$pattern" != - ] && ! grep -q -E -e "$pattern" err.txt; }; then
    echo "FAIL $name: exit $rc (want $want); stderr:"
    sed 's/^/    /' err.txt
    fail=1
  else
    echo "ok   $name: $(head -1 err.txt)"
  fi
}
small=(--set model_options.hidden=4 --set batch=20 --set eval_every=0 --steps 2 --quiet)
"$TG" train --task addition --set task_options.T=10 "${small[@]}" --out add >/dev/null 2>&1 || { echo "FAIL: training"; exit 1; }
"$TG" train --data "$TEXT" --set task_options.T=20 "${small[@]}" --out text >/dev/null 2>&1 || { echo "FAIL: training text"; exit 1; }
"$TG" eval --run add -n 50 >want.txt 2>/dev/null || { echo "FAIL: eval of the intact run"; exit 1; }
cp add/config.json config.keep

# an edited activation: the parameters would be scored as a different model
sed -i 's/"activation": "tanh"/"activation": "relu"/' add/config.json
check edited_activation 2 \
  'eval: add/config.json does not match the config the run was trained with \(add/checkpoint.npz\): model_options.activation: "tanh" in the checkpoint, "relu" in config.json' \
  -- eval --run add -n 50
[ "$(wc -l <err.txt)" -eq 1 ] || { echo "FAIL edited_activation: more than one line"; fail=1; }
cp config.keep add/config.json
# an option dropped from config.json that has its default anyway (an older build's file): no difference
python3 -c 'import json,sys; c=json.load(open(sys.argv[1])); del c["model_options"]["sparse_k"]; json.dump(c,open(sys.argv[1],"w"))' add/config.json
check default_dropped 0 - -- eval --run add -n 50
cmp -s out.txt want.txt || { echo "FAIL default_dropped: other numbers"; fail=1; }
# the run's length differs (a --resume with more --steps rewrites only the checkpoint): fine
cp config.keep add/config.json
sed -i 's/"steps": 2/"steps": 7/' add/config.json
check steps_differ 0 - -- eval --run add -n 50
cmp -s out.txt want.txt || { echo "FAIL steps_differ: other numbers"; fail=1; }
# config.json deleted: the checkpoint's config, said on stderr, same numbers
rm add/config.json
check config_missing 0 'eval: add/config.json is missing; using the config stored in add/checkpoint.npz' -- eval --run add -n 50
cmp -s out.txt want.txt || { echo "FAIL config_missing: other numbers"; diff out.txt want.txt; fail=1; }
# sample: the same rules
"$TG" sample --run text --length 20 --seed 3 >want_sample.txt 2>/dev/null || { echo "FAIL: sample of the intact run"; exit 1; }
sed -i 's/"hidden": 4/"hidden": 5/' text/config.json
check sample_edited 2 'sample: .*model_options.hidden: 4 in the checkpoint, 5 in config.json' -- sample --run text --length 20 --seed 3
rm text/config.json
check sample_missing 0 'sample: text/config.json is missing' -- sample --run text --length 20 --seed 3
cmp -s out.txt want_sample.txt || { echo "FAIL sample_missing: other text"; fail=1; }
[ "$fail" -eq 0 ] && echo "eval_config_check: all cases pass"
exit "$fail"
