#!/usr/bin/env bash
# Configures and builds tapegrad into ./build (Release). Used by demo.sh and test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
launcher=()
# ccache (when installed) makes rebuilds in other clones and worktrees of the repo nearly free.
# CCACHE_BASEDIR makes the cached paths relative to the repo root, so the cache is shared across them.
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}"
fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" >/dev/null
cmake --build build -j "$jobs"
