#!/usr/bin/env bash
# tapegrad params for the feedforward networks: the totals against counts worked out by hand from the layer
# sizes (weights in·out plus a bias per unit, the decoder mirroring the encoder).
# Usage: params_networks.sh TAPEGRAD
set -euo pipefail
TG=$1
check() {  # want, args...
  local want=$1 got
  shift
  got=$("$TG" params "$@" | tail -n 1)
  [ "$got" = "$want" ] || { echo "FAIL: params $* gave $got, want $want"; exit 1; }
}
# 784-400-200-100-50-25-6 and back: 2 x 420,000 weights, 781 + 1,559 biases
check 842340 --model autoencoder --set in=784
# three more layers of 200 on each side: + 2 x 3 x 40,000 weights + 2 x 600 biases
check 1083540 --model autoencoder --set in=784 --set encoder=784-400-200-200-200-200-100-50-25-6
# 784-500-500-10: 392,000 + 250,000 + 5,000 weights, 1,010 biases
check 648010 --model mlp --set in=784 --set out=10 --set "hidden=[500,500]"
echo "PASS: network parameter counts"
