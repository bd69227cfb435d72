#!/usr/bin/env bash
# Every float32 gemm library on tapegrad's own matrix-product lists (issue: fastest CPU training), one
# thread each, alternating rounds in one process (build/bench/tapegrad_gemm_backends): a training step's
# products (T = 100) of each CONFIGS entry "model H B V" — by default the LSTM character model (V = 96) at
# H = 256, B = 32 and H = 512, B = 128 — on the machine's own instruction set and restricted to AVX2
# (OPENBLAS_CORETYPE=Haswell, DNNL_MAX_CPU_ISA=AVX2, BLIS_ARCH_TYPE=haswell, LIBXSMM_TARGET=hsw: what an
# AVX2-only CPU gets). Results: docs/results/gemm_backends.md.
#   bash scripts/gemm_backends.sh [ROUNDS]      (default 7; needs libdnnl2, libblis4 and libxsmm-dev for all four)
#   CONFIGS="rnn 8 16 10;lstm 64 32 96" bash scripts/gemm_backends.sh 50      (small steps: tiny products)
set -euo pipefail
cd "$(dirname "$0")/.."
TG=${TG:-./build/tools/tapegrad}
PROBE=${PROBE:-./build/bench/tapegrad_gemm_backends}
ROUNDS=${1:-7}
[ -x "$PROBE" ] || { echo "gemm_backends.sh: $PROBE is not built (cmake --build build)" >&2; exit 2; }
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(grep -o -m1 -w avx512f /proc/cpuinfo || echo no AVX-512)"
CONFIGS=${CONFIGS:-"lstm 256 32 96;lstm 512 128 96"}
IFS=';' read -r -a configs <<< "$CONFIGS"
for config in "${configs[@]}"; do
  read -r model H B V <<< "$config"
  shapes=$(mktemp)
  "$TG" bench --model "$model" --vocab "$V" --hidden "$H" --batch "$B" --steps 100 --reps 1 --gemm openblas --json > "$shapes"
  echo "== $model step H=$H B=$B V=$V, native instruction set"
  "$PROBE" "$ROUNDS" < "$shapes"
  echo "== $model step H=$H B=$B V=$V, AVX2 only"
  OPENBLAS_CORETYPE=Haswell DNNL_MAX_CPU_ISA=AVX2 BLIS_ARCH_TYPE=haswell LIBXSMM_TARGET=hsw "$PROBE" "$ROUNDS" < "$shapes"
  rm -f "$shapes"
done
