#!/usr/bin/env bash
# The AVX-512 build of the LSTM cell's kernels (ops/lstm_cell_avx512.cc) must not define any inline
# function or template instance that another unit of the engine also defines: the linker keeps one copy
# of each, and an AVX-512 copy would then run on CPUs without AVX-512 (an illegal instruction). Every weak
# or unique symbol of that object must therefore be specific to the AVX-512 instruction set (its name
# mentions an avx512 type).
# Usage: isa_unit_self_contained.sh LIBTAPEGRAD_ENGINE.a [MEMBER]   (MEMBER default lstm_cell_avx512.cc.o;
# CTest also runs it on lstm_cell.cc.o, which shares symbols, and expects it to fail)
set -euo pipefail
lib=$1
member=${2:-lstm_cell_avx512.cc.o}
if ! ar t "$lib" | grep -qx "$member"; then
  [ $# -ge 2 ] && { echo "no member $member in $lib" >&2; exit 1; }
  echo "no AVX-512 unit in $lib (not built here): nothing to check"
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ar p "$lib" "$member" > "$tmp/unit.o"
# the object alone (no archive prefix in the lines): type letter, then the demangled name
weak=$(nm -C --defined-only "$tmp/unit.o" | awk '$2 ~ /^[WVui]$/ { $1 = ""; print }')
[ -n "$weak" ] || { echo "no weak symbols read from $member: the check would prove nothing" >&2; exit 1; }
shared=$(echo "$weak" | grep -v 'avx512' | grep -v 'DW\.ref\.__gxx_personality_v0' || true)
if [ -n "$shared" ]; then
  echo "$member defines symbols another unit may define too:" >&2
  echo "$shared" | head -20 >&2
  exit 1
fi
echo "$member: $(echo "$weak" | wc -l) weak symbols, all specific to AVX-512"
