#!/usr/bin/env bash
# Every float32 gemm library on tapegrad's own matrix-product lists (issue: fastest CPU training), one
# thread each, alternating rounds in one process (build/bench/tapegrad_gemm_backends): the LSTM
# character model's training step (V = 96, T = 100) at H = 256, B = 32 and H = 512, B = 128, on the
# machine's own instruction set and restricted to AVX2 (OPENBLAS_CORETYPE=Haswell, DNNL_MAX_CPU_ISA=AVX2,
# BLIS_ARCH_TYPE=haswell: what an AVX2-only CPU gets). Results: docs/results/gemm_backends.md.
#   bash scripts/gemm_backends.sh [ROUNDS]      (default 7; needs libdnnl2 and libblis4 for all three)
set -euo pipefail
cd "$(dirname "$0")/.."
TG=${TG:-./build/tools/tapegrad}
PROBE=${PROBE:-./build/bench/tapegrad_gemm_backends}
ROUNDS=${1:-7}
[ -x "$PROBE" ] || { echo "gemm_backends.sh: $PROBE is not built (cmake --build build)" >&2; exit 2; }
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(grep -o -m1 -w avx512f /proc/cpuinfo || echo no AVX-512)"
for shape in "256 32" "512 128"; do
  read -r H B <<< "$shape"
  shapes=$(mktemp)
  "$TG" bench --model lstm --vocab 96 --hidden "$H" --batch "$B" --steps 100 --reps 1 --gemm openblas --json > "$shapes"
  echo "== LSTM step H=$H B=$B, native instruction set"
  "$PROBE" "$ROUNDS" < "$shapes"
  echo "== LSTM step H=$H B=$B, AVX2 only"
  OPENBLAS_CORETYPE=Haswell DNNL_MAX_CPU_ISA=AVX2 BLIS_ARCH_TYPE=haswell "$PROBE" "$ROUNDS" < "$shapes"
  rm -f "$shapes"
done
