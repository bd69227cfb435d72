#!/usr/bin/env bash
# Makes the phoneme-recognition corpus (scripts/speech/make_corpus.py; docs/speech.md) in data/speech:
# KJV sentences spoken by espeak-ng, 39 folded phones, 10 ms frames of log-mel energies and MFCC + Δ + ΔΔ.
# Idempotent: an existing corpus made with the same options is kept. Then draws the first test
# utterance's features (data/speech/utterance.png) and prints the sizes. Extra arguments go to the maker
# (--utterances TRAIN DEV TEST, --noise-snr DB, --seed S, --out DIR).
# Usage: bash scripts/speech_corpus.sh [--utterances 3000 400 400]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
bash scripts/corpus.sh >/dev/null  # data/kjv.txt, the sentences
out=data/speech
for ((i = 1; i <= $#; i++)); do [ "${!i}" = --out ] && { j=$((i + 1)); out=${!j}; }; done
stamp="$out/made_with.txt"
if [ -f "$out/corpus.json" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$*" ]; then
  echo "speech corpus: $out already made with options '$*'"
else
  /usr/bin/python3 scripts/speech/make_corpus.py "$@"
  printf '%s' "$*" >"$stamp"
fi
/usr/bin/python3 - "$out" <<'PYEOF'
import json, sys, numpy as np
out = sys.argv[1]
d = np.load(f"{out}/test.npz")
phones = json.load(open(f"{out}/phones.json"))["phones"]
f0, f1 = d["frame_offsets"][:2]
l0, l1 = d["label_offsets"][:2]
np.savetxt(f"{out}/utterance_fbank.txt", d["fbank"][f0:f1].T, fmt="%.3f")
m = d["mfcc"][f0:f1].T  # each coefficient standardised over the utterance, so that c0 does not swamp the rest
np.savetxt(f"{out}/utterance_mfcc.txt", (m - m.mean(1, keepdims=True)) / (m.std(1, keepdims=True) + 1e-8), fmt="%.3f")
open(f"{out}/utterance_phones.txt", "w").write(" ".join(phones[i] for i in d["labels"][l0:l1]))
print(json.dumps({k: {x: v[x] for x in ("utterances", "frames", "hours", "labels")}
                  for k, v in json.load(open(f"{out}/corpus.json"))["splits"].items()}))
PYEOF
phones=$(cat "$out/utterance_phones.txt")
gnuplot <<GPEOF
set terminal pngcairo size 1400,700
set output "$out/utterance.png"
set multiplot layout 2,1 title "test utterance 0: ${phones//\"/}" font ",10"
set xlabel "frame (10 ms)"
frames = system("awk 'NR==1{print NF}' $out/utterance_fbank.txt")
set xrange [-0.5:frames-0.5]
set ylabel "mel band"
set title "log-mel filterbank energies (40)"
set yrange [-0.5:39.5]
plot "$out/utterance_fbank.txt" matrix with image notitle
set ylabel "coefficient"
set title "MFCC (13), deltas (13), delta-deltas (13), each standardised over the utterance"
set yrange [-0.5:38.5]
set cbrange [-3:3]
plot "$out/utterance_mfcc.txt" matrix with image notitle
unset multiplot
GPEOF
echo "speech corpus: $out ($(du -sh "$out" | cut -f1)); features of one utterance drawn in $out/utterance.png"
