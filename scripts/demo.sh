#!/usr/bin/env bash
# Installs what is missing, builds, and runs the main job: a short demo on built-in data.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
./build/tools/tapegrad demo "$@"
