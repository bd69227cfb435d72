#!/usr/bin/env bash
# Time to the success criterion, HF on addition T = 50 (100 tanh units, one thread; issue: speed),
# config docs/results/configs/hf_addition_T50_fast.json, seeds given as arguments (default 1..10).
# Each run stops at the criterion on 2,000 validation sequences (checked every 4 iterations, its cost
# included) or at 400 iterations (a failure); 10,000 fresh test sequences confirm it afterwards.
# Prints one line per seed and the median training wall time over all seeds, a failure counting as
# slower than any success. Run it on a quiet machine: wall time is what it reports.
#   bash scripts/experiments/hf_addition_T50_speed.sh [seeds...]
set -euo pipefail
cd "$(dirname "$0")/../.."
TG=${TG:-./build/tools/tapegrad}
export OPENBLAS_NUM_THREADS=1
seeds=("${@:-1 2 3 4 5 6 7 8 9 10}")
seeds=(${seeds[*]})
root=runs/hf_T50_speed
mkdir -p "$root"
results=()
for s in "${seeds[@]}"; do
  out=$root/s$s
  rm -rf "$out"
  $TG train --threads "${THREADS:-1}" --config docs/results/configs/hf_addition_T50_fast.json --seed "$s" --out "$out" --quiet >/dev/null
  $TG eval --run "$out" --seed 2026 -n 10000 >"$out/eval.txt"
  line=$(tail -n 1 "$out/metrics.jsonl" | /usr/bin/python3 -c "
import json,sys
d=json.load(sys.stdin); e=open('$out/eval.txt').read().split()
test=float(e[e.index('error_rate')+1])
ok=d.get('valid_error',1)<0.01 and test<0.01
print(f\"{'ok' if ok else 'FAIL'} {d['seconds']:.2f} {d['cpu_seconds']:.2f} {d['iteration']} {d.get('valid_error')} {test}\")")
  read -r status wall cpu its valid test <<<"$line"
  printf 'seed %-3s %-4s wall %6s s  CPU %6s s  iterations %4s  validation error %-7s test error (10,000) %s\n' \
    "$s" "$status" "$wall" "$cpu" "$its" "$valid" "$test"
  [ "$status" = ok ] && results+=("$wall") || results+=("inf")
done
/usr/bin/python3 -c "
import statistics,sys
v=[float(x) for x in sys.argv[1:]]
ok=sum(1 for x in v if x!=float('inf'))
m=statistics.median(v)
print(f'{ok} of {len(v)} seeds reached the criterion; median wall {m:.2f} s' + (f' = {107/m:.1f}x sooner than 107 s' if m!=float('inf') else ''))
" "${results[@]}"
