#!/usr/bin/env bash
# Peak memory and time of rematerialisation (objective option remat_segments): the gradient and
# Gauss-Newton products of a character LSTM (vocab 96, hidden 256, batch 32, float32) over T steps,
# with the full tape and with round(√T) segments, each run under /usr/bin/time -v.
#   bash scripts/remat_memory.sh [T=1000] [build dir=build]
# Prints each run's JSON line and "Maximum resident set size", then the ratios. One BLAS thread.
set -euo pipefail
T=${1:-1000}
BUILD=${2:-build}
BIN=$BUILD/bench/tapegrad_remat_memory
[[ -x $BIN ]] || { echo "remat_memory.sh: $BIN not built (cmake --build $BUILD --target tapegrad_remat_memory)" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "remat_memory.sh: /usr/bin/time is missing (apt-get install time)" >&2; exit 2; }
export OPENBLAS_NUM_THREADS=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
declare -A rss json
for remat in 0 -1; do
  /usr/bin/time -v "$BIN" --steps "$T" --remat "$remat" >"$tmp/out" 2>"$tmp/time"
  json[$remat]=$(cat "$tmp/out")
  rss[$remat]=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$tmp/time")
  echo "remat_segments=$remat: ${json[$remat]}"
  echo "remat_segments=$remat: Maximum resident set size (kbytes): ${rss[$remat]}"
done
/usr/bin/python3 - "${rss[0]}" "${rss[-1]}" "${json[0]}" "${json[-1]}" <<'PY'
import json, sys
full_rss, remat_rss = int(sys.argv[1]), int(sys.argv[2])
full, remat = json.loads(sys.argv[3]), json.loads(sys.argv[4])
print(f"peak RSS: remat / full = {remat_rss} / {full_rss} kB = {100 * remat_rss / full_rss:.1f}%")
print(f"tape value bytes: remat (largest segment graph) / full = {remat['tape_bytes']} / {full['tape_bytes']}"
      f" = {100 * remat['tape_bytes'] / full['tape_bytes']:.1f}%  ({remat['segments']} segments)")
for k in ("forward_s", "grad_s", "gn_first_s", "gn_later_s_each"):
    print(f"time {k}: remat / full = {remat[k]:.3f} / {full[k]:.3f} s = {remat[k] / full[k]:.2f}x")
tf = full["forward_s"] + full["grad_s"]
tr = remat["forward_s"] + remat["grad_s"]
print(f"time forward + gradient: remat / full = {tr:.3f} / {tf:.3f} s = {tr / tf:.2f}x")
print(f"gradient agreement: |grad| {remat['grad_norm']:.9g} vs {full['grad_norm']:.9g}; "
      f"|Gv| {remat['gn_norm']:.9g} vs {full['gn_norm']:.9g}; loss {remat['loss']:.9g} vs {full['loss']:.9g}")
PY
