#!/usr/bin/env bash
# Steps per CPU second of a run's last parameters with subnormal floats kept and flushed
# (docs/results/denormals.md): the run is copied twice into a scratch directory; one copy is set to
# "denormals": "keep", the other to "flush" (config.json and the checkpoint's copy of it); each then
# resumes for SECONDS more CPU seconds, alternating, ROUNDS times. The run itself is not touched.
# Usage: scripts/denormals_probe.sh RUN_DIR [SECONDS (default 15)] [ROUNDS (default 2)]
set -euo pipefail
cd "$(dirname "$0")/.."
TG=${TG:-./build/tools/tapegrad}
run=${1:?usage: scripts/denormals_probe.sh RUN_DIR [SECONDS] [ROUNDS]}
seconds=${2:-15}
rounds=${3:-2}
[ -f "$run/checkpoint.npz" ] || { echo "denormals_probe.sh: no checkpoint in $run" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
set_mode() {  # DIR MODE
  /usr/bin/python3 - "$1" "$2" <<'PY'
import json, sys, numpy as np
d, mode = sys.argv[1], sys.argv[2]
c = json.load(open(f"{d}/config.json")); c["denormals"] = mode
json.dump(c, open(f"{d}/config.json", "w"), indent=2)
z = dict(np.load(f"{d}/checkpoint.npz"))
cc = json.loads(bytes(z["config"]).decode()); cc["denormals"] = mode
z["config"] = np.frombuffer(json.dumps(cc).encode(), dtype=np.uint8)
np.savez(f"{d}/checkpoint.npz", **z)
PY
}
state() {  # DIR -> "iteration cpu_seconds" of its checkpoint
  /usr/bin/python3 -c "import numpy as np, sys; z = np.load(sys.argv[1]); print(int(z['iteration']), float(z['cpu_seconds']))" "$1/checkpoint.npz"
}
for mode in keep flush; do
  mkdir -p "$work/$mode"
  cp "$run/config.json" "$run/checkpoint.npz" "$work/$mode/"
  set_mode "$work/$mode" "$mode"
done
read -r it0 cpu0 < <(state "$work/keep")
echo "$run: iteration $it0, $cpu0 CPU s; $rounds rounds of $seconds CPU s per mode"
for r in $(seq "$rounds"); do
  for mode in keep flush; do
    read -r a ca < <(state "$work/$mode")
    "$TG" train --out "$work/$mode" --resume --cpu-budget "$(/usr/bin/python3 -c "print($ca + $seconds)")" --quiet \
      > /dev/null 2> "$work/err" || { cat "$work/err" >&2; exit 1; }
    read -r b cb < <(state "$work/$mode")
    /usr/bin/python3 -c "print(f'round $r  $mode: {($b - $a) / ($cb - $ca):.2f} iterations per CPU second ({$b - $a} in {$cb - $ca:.1f} s)')"
  done
done
