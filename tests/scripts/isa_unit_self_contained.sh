#!/usr/bin/env bash
# The AVX-512 build of the LSTM cell's kernels (ops/lstm_cell_avx512.cc) must not define any inline
# function or template instance that another unit of the engine also defines: the linker keeps one copy
# of each, and an AVX-512 copy would then run on CPUs without AVX-512 (an illegal instruction). Every weak
# symbol of that object must therefore be specific to the AVX-512 instruction set (name an avx512 type).
# Usage: isa_unit_self_contained.sh LIBTAPEGRAD_ENGINE.a
set -euo pipefail
lib=$1
members=$(ar t "$lib" | grep -c '^lstm_cell_avx512\.cc\.o$' || true)
if [ "$members" = 0 ]; then echo "no AVX-512 unit in $lib (compiler without the flags): nothing to check"; exit 0; fi
weak=$(nm -C -A --defined-only "$lib" 2>/dev/null | grep 'lstm_cell_avx512\.cc\.o:' | awk '$2 == "W" || $2 == "V" || $3 == "W" || $3 == "V"' || true)
[ -n "$weak" ] || { echo "no weak symbols read from the AVX-512 unit: the check would prove nothing" >&2; exit 1; }
shared=$(echo "$weak" | grep -v 'avx512' | grep -v 'DW.ref.__gxx_personality_v0' || true)
if [ -n "$shared" ]; then
  echo "the AVX-512 unit defines symbols another unit may define too:" >&2
  echo "$shared" >&2
  exit 1
fi
echo "AVX-512 unit: $(echo "$weak" | wc -l) weak symbols, all specific to AVX-512"
