#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test (unit, gradient checks, CLI checks).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1}
ctest --test-dir build --output-on-failure -j 2
