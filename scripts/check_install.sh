#!/usr/bin/env bash
# Builds the library alone (no command, tests or benchmarks: their packages are not looked for) into
# ./build-lib, installs it into a fresh prefix, builds examples/ against the installed package (not
# the source tree: the examples project sees only the prefix) and runs them.
# Usage: scripts/check_install.sh [PREFIX]   (default: a temporary directory, removed afterwards)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=${1:-$work/prefix}
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S . -B build-lib -G Ninja -DCMAKE_BUILD_TYPE=Release -DTAPEGRAD_TESTS=OFF -DTAPEGRAD_CLI=OFF -DTAPEGRAD_BENCH=OFF \
  "${launcher[@]}" >/dev/null
cmake --build build-lib -j "$(nproc 2>/dev/null || echo 2)" >/dev/null
cmake --install build-lib --prefix "$prefix" >/dev/null
echo "check_install: installed $(find "$prefix" -type f | wc -l) files into $prefix"
# Configure from a copy of examples/ so nothing of the source tree is on its include path.
cp -r examples "$work/examples"
cmake -S "$work/examples" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" "${launcher[@]}" >/dev/null
cmake --build "$work/build"
if grep -q -- "$root" "$work/build/compile_commands.json" 2>/dev/null || grep -rq -- "-I$root" "$work/build/build.ninja"; then
  echo "check_install: FAIL: the examples build reads the source tree"
  exit 1
fi
(cd "$work" && OPENBLAS_NUM_THREADS=1 "$work/build/leaky_rnn")
