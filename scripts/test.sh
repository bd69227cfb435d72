#!/usr/bin/env bash
# Installs what is missing, builds, checks the installed library with examples/, and runs every
# test (unit, gradient checks, CLI checks).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
bash scripts/check_install.sh   # the library alone, installed, and examples/ built against it
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1}
ctest --test-dir build --output-on-failure -j 2
