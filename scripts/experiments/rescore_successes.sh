#!/usr/bin/env bash
# Reruns every Hessian-free "success" of docs/results/hf_pathological.md under the confirmation rule
# (stop_on_success stops only when 10,000 fresh sequences meet the criterion too, confirm_sequences),
# then scores each final model on 10,000 further fresh sequences (seed 2026) with a 95% interval.
# Resumable: rerunning continues each unfinished run from its checkpoint; finished runs are skipped.
# Usage: bash scripts/experiments/rescore_successes.sh [config:seed ...]   (default: the doc's runs)
# Output: runs/rescore/<config>_s<seed>/{summary.txt,eval.txt}; a table on stdout.
set -euo pipefail
cd "$(dirname "$0")/../.."
TG=${TG:-./build/tools/tapegrad}
export OPENBLAS_NUM_THREADS=1
default=(hf_addition_T50_fast:{1..10} hf_addition_T100_small:{1..3} hf_temporal_order_T100_small:1
         hf_addition_T50_structural:{1..3} hf_addition_T50_tikhonov:{1..3})
specs=("$@")
[ ${#specs[@]} -eq 0 ] && specs=($(eval echo "${default[*]}"))
for spec in "${specs[@]}"; do
  config=${spec%%:*} seed=${spec##*:}
  out=runs/rescore/${config}_s$seed
  if [ ! -f "$out/eval.txt" ]; then
    args=(--config "docs/results/configs/$config.json" --seed "$seed" --out "$out" --quiet)
    [ -f "$out/checkpoint.npz" ] && args+=(--resume)
    $TG train "${args[@]}" --threads "${THREADS:-1}" > "$out.summary.tmp" || true
    mkdir -p "$out" && mv "$out.summary.tmp" "$out/summary.txt"
    $TG eval --run "$out" --seed 2026 -n 10000 > "$out/eval.tmp" && mv "$out/eval.tmp" "$out/eval.txt"
  fi
  /usr/bin/python3 - "$config" "$seed" "$out" <<'PYEOF'
import json, sys, re
config, seed, out = sys.argv[1:]
s = json.loads(open(out + "/summary.txt").read().split(" ", 1)[1])
rows = [json.loads(l) for l in open(out + "/metrics.jsonl")]
refused = sum(1 for r in rows if "confirm_error" in r and r["confirm_error"] >= 0.01)
ev = open(out + "/eval.txt").read()
m = re.search(r"error_rate ([0-9.]+)  95% interval \[([0-9.]+), ([0-9.]+)\]", ev)
print(f"| {config} | {seed} | {s['iterations']} | {s.get('valid_error', float('nan')):.4f} | "
      f"{s.get('confirm_error', float('nan')):.4f} | {refused} | {'yes' if s.get('success') else 'no'} | "
      f"{float(m.group(1)):.4f} [{float(m.group(2)):.4f}, {float(m.group(3)):.4f}] | {s['cpu_seconds']:.1f} |")
PYEOF
done
