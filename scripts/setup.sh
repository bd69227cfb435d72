#!/usr/bin/env bash
# Installs every Debian 12 package tapegrad needs. Idempotent; run as root (or via sudo).
set -euo pipefail
PKGS=(cmake ninja-build g++ pkg-config
      xtensor-dev libxtensor-blas-dev libxsimd-dev libopenblas-dev liblapack-dev
      libdnnl2 libdnnl-dev         # oneDNN: sgemm for large float32 products (ops/blas.h); its LSTM primitive (bench/onednn_lstm.cc)
      libgtest-dev libgmock-dev libfmt-dev libcli11-dev nlohmann-json3-dev zlib1g-dev libpng-dev libbenchmark-dev libtcmalloc-minimal4 ccache
      openmpi-bin libopenmpi-dev python3-numpy gnuplot-nox bible-kjv dataset-fashion-mnist
      clang-14 libclang-rt-14-dev  # clang: the sanitizer and fuzz builds (scripts/sanitize.sh, scripts/fuzz.sh)
      espeak-ng python3-aubio)     # the speech corpus (scripts/speech_corpus.sh)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PKGS[@]} packages already installed"
  exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
echo "setup: installing ${missing[*]}"
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
