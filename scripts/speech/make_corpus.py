#!/usr/bin/env python3
"""A phoneme-recognition corpus made on this machine (issue 21; TIMIT is licensed and not available): KJV
sentences (data/kjv.txt, scripts/corpus.sh) spoken by espeak-ng in 7 English accents x 13 voice variants at
several rates and pitches, labelled with espeak-ng's own phoneme transcription for that accent, folded to 39
phones (below), with 10 ms frames of 40 log-mel filterbank energies and 13 MFCCs + deltas + delta-deltas
(39), computed with aubio (python3-aubio: the maintained library here with both the mel filterbank and the
MFCC of one spectrum, so the two features agree; see docs/speech.md).

Speakers are (accent, variant, rate, pitch); the split is by voice variant, so test speakers are unseen:
train m1-m5, f1-f3; dev m6, f4; test m7, m8, f5 (every accent in every split, as TIMIT's dialects).

Writes OUT/{train,dev,test}.npz (numpy savez) with
  mfcc [frames, 39] float32, fbank [frames, 40] float32,
  frame_offsets [U+1] int64  (utterance u is frames frame_offsets[u] .. frame_offsets[u+1]),
  labels [L] int64 (indices into phones.json), label_offsets [U+1] int64,
  speaker [U] int64 (index into the split's speakers list in corpus.json)
and OUT/phones.json (the 39 phones and the folding of every espeak-ng symbol) and OUT/corpus.json (sizes,
speakers, options). Deterministic given --seed.
"""
import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

# espeak-ng's English phoneme mnemonics (ph_english*) folded to 39 phones, TIMIT's reduced set without its
# closures and silences: 15 vowels, 24 consonants. Stress and length marks are dropped before the lookup;
# tokens that are not phonemes (pause, glottal, palatal and syllable markers) map to None and are dropped.
FOLD = {
    # vowels
    "i:": "iy", "i": "iy", "I": "ih", "I2": "ih", "I#": "ih", "IR": "ih", "i@": "ih", "i@3": "ih",
    "E": "eh", "e@": "eh", "a": "ae", "a#": "ae", "aa": "aa", "A:": "aa", "A@": "aa", "0": "aa",
    "O:": "ao", "O": "ao", "O2": "ao", "O@": "ao", "o@": "ao", "V": "ah", "@": "ah", "@2": "ah", "@5": "ah", "@-": "ah",
    "3": "er", "3:": "er", "VR": "er", "U": "uh", "U@": "uh", "u:": "uw", "eI": "ey", "aI": "ay", "aI2": "ay",
    "aI3": "ay", "aI@": "ay", "OI": "oy", "oU": "ow", "aU": "aw",
    # consonants
    "p": "p", "b": "b", "t": "t", "t2": "t", "t#": "t", "t[": "t", "d": "d", "k": "k", "g": "g",
    "f": "f", "v": "v", "T": "th", "D": "dh", "s": "s", "z": "z", "S": "sh", "Z": "zh", "h": "hh",
    "tS": "ch", "dZ": "jh", "m": "m", "n": "n", "n-": "n", "N": "ng", "l": "l", "@L": "l", "r": "r", "r-": "r",
    "w": "w", "w#": "w", "j": "y",
    # not phonemes
    "": None, ":": None, ";": None, "|": None, "?": None, "!": None, "!w": None, "!w#": None,
}
PHONES = ["iy", "ih", "eh", "ae", "aa", "ao", "ah", "er", "uh", "uw", "ey", "ay", "oy", "ow", "aw",
          "p", "b", "t", "d", "k", "g", "f", "v", "th", "dh", "s", "z", "sh", "zh", "hh", "ch", "jh",
          "m", "n", "ng", "l", "r", "w", "y"]
ACCENTS = ["en-us", "en-gb", "en-gb-scotland", "en-gb-x-gbclan", "en-gb-x-rp", "en-gb-x-gbcwmd", "en-029"]
SPLITS = {"train": ["m1", "m2", "m3", "m4", "m5", "f1", "f2", "f3"], "dev": ["m6", "f4"], "test": ["m7", "m8", "f5"]}
RATES = [140, 165, 190]  # words per minute
PITCHES = [35, 50, 65]   # espeak-ng's 0-99 scale


def sentences(path, low=4, high=16):
    """KJV sentences (split at . ; : ? !) of low..high words, letters and simple punctuation only."""
    out = []
    for line in open(path, encoding="utf-8"):
        for s in re.split(r"(?<=[.;:?!])\s+", line.strip()):
            words = s.split()
            if low <= len(words) <= high and re.fullmatch(r"[A-Za-z ,.;:?!'-]+", s):
                out.append(s)
    return out


def fold(symbols, voice):
    phones = []
    for raw in symbols:
        token = raw.replace("'", "").replace(",", "")
        if token not in FOLD:
            sys.exit(f"speech corpus: espeak-ng symbol '{raw}' (voice {voice}) has no folding: add it to FOLD")
        if FOLD[token] is not None:
            phones.append(PHONES.index(FOLD[token]))
    return phones


def transcribe(text, voice):
    r = subprocess.run(["espeak-ng", "-v", voice, "-q", "-x", "--sep=_", text], capture_output=True, text=True,
                       check=True)
    return [t for t in re.split(r"[\s_]+", r.stdout) if t]


def features(wav, noise_snr, rng):
    import aubio  # python3-aubio (scripts/setup.sh)
    hop, win, rate = 160, 512, 16000  # 10 ms frames of a 32 ms window at 16 kHz
    src = aubio.source(wav, rate, hop)
    samples = []
    while True:
        x, n = src()
        samples.append(x[:n].copy())
        if n < hop:
            break
    audio = np.concatenate(samples).astype(np.float32)
    if noise_snr is not None:  # additive white noise at the given signal-to-noise ratio (dB)
        power = float(np.mean(audio ** 2)) / (10 ** (noise_snr / 10))
        audio = audio + np.sqrt(power) * np.asarray(rng.standard_normal(audio.size), dtype=np.float32)
    pv, fb, mf = aubio.pvoc(win, hop), aubio.filterbank(40, win), aubio.mfcc(win, 40, 13, rate)
    fb.set_mel_coeffs_slaney(rate)
    fbank, mfcc = [], []
    for start in range(0, audio.size - hop + 1, hop):
        spec = pv(np.ascontiguousarray(audio[start:start + hop]))
        fbank.append(np.log(fb(spec) + 1e-10))
        mfcc.append(mf(spec).copy())
    mfcc = np.array(mfcc, dtype=np.float32)
    return np.array(fbank, dtype=np.float32), np.concatenate([mfcc, deltas(mfcc), deltas(deltas(mfcc))], axis=1)


def deltas(x, n=2):
    """HTK's regression deltas over ±n frames, edges repeated."""
    padded = np.concatenate([np.repeat(x[:1], n, 0), x, np.repeat(x[-1:], n, 0)])
    num = sum(k * (padded[n + k:len(x) + n + k] - padded[n - k:len(x) + n - k]) for k in range(1, n + 1))
    return (num / (2 * sum(k * k for k in range(1, n + 1)))).astype(np.float32)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--text", default="data/kjv.txt")
    ap.add_argument("--out", default="data/speech")
    ap.add_argument("--utterances", type=int, nargs=3, default=[3000, 400, 400], metavar=("TRAIN", "DEV", "TEST"))
    ap.add_argument("--noise-snr", type=float, default=None, help="add white noise at this SNR (dB)")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    noise_rng = np.random.default_rng(a.seed)
    pool = sentences(a.text)
    rng.shuffle(pool)
    os.makedirs(a.out, exist_ok=True)
    summary = {"options": vars(a), "phones": len(PHONES), "frame_ms": 10, "window_ms": 32, "rate_hz": 16000,
               "splits": {}}
    used = 0
    with tempfile.TemporaryDirectory() as tmp:
        wav = os.path.join(tmp, "u.wav")
        for split, count in zip(("train", "dev", "test"), a.utterances):
            speakers = [(acc, var, r, p) for acc in ACCENTS for var in SPLITS[split] for r in RATES for p in PITCHES]
            fbanks, mfccs, labels, f_off, l_off, spk = [], [], [], [0], [0], []
            start = time.time()
            for u in range(count):
                text = pool[used % len(pool)]  # each split its own sentences while the pool lasts
                used += 1
                s = rng.randrange(len(speakers))
                acc, var, r, p = speakers[s]
                voice = f"{acc}+{var}"
                phones = fold(transcribe(text, acc), acc)
                subprocess.run(["espeak-ng", "-v", voice, "-s", str(r), "-p", str(p), "-w", wav, text], check=True)
                fb, mf = features(wav, a.noise_snr, noise_rng)
                if len(phones) == 0 or len(mf) < 2 * len(phones) + 1:
                    continue  # nothing to recognise, or too short for CTC with repeats: skipped
                fbanks.append(fb), mfccs.append(mf), labels.extend(phones), spk.append(s)
                f_off.append(f_off[-1] + len(mf)), l_off.append(l_off[-1] + len(phones))
                if (u + 1) % 100 == 0 or u + 1 == count:
                    rate = (u + 1) / (time.time() - start)
                    print(f"\r{split}: {u + 1}/{count} utterances  {rate:.0f}/s  ETA {(count - u - 1) / rate:.0f} s",
                          end="", file=sys.stderr, flush=True)
            print(file=sys.stderr)
            path = os.path.join(a.out, f"{split}.npz")
            np.savez(path + ".tmp.npz", mfcc=np.concatenate(mfccs), fbank=np.concatenate(fbanks),
                     frame_offsets=np.array(f_off, dtype=np.int64), labels=np.array(labels, dtype=np.int64),
                     label_offsets=np.array(l_off, dtype=np.int64), speaker=np.array(spk, dtype=np.int64))
            os.replace(path + ".tmp.npz", path)  # whole or not at all
            summary["splits"][split] = {"utterances": len(spk), "frames": f_off[-1], "labels": l_off[-1],
                                        "hours": round(f_off[-1] / 100 / 3600, 3),
                                        "speakers": [f"{a_}+{v}/s{r}/p{p}" for a_, v, r, p in speakers]}
    with open(os.path.join(a.out, "phones.json"), "w") as f:
        json.dump({"phones": PHONES, "fold": FOLD}, f, indent=1)
    with open(os.path.join(a.out, "corpus.json"), "w") as f:
        json.dump(summary, f, indent=1)
    for split, s in summary["splits"].items():
        print(f"{split}: {s['utterances']} utterances, {s['frames']} frames ({s['hours']} h), {s['labels']} phones, "
              f"{len(s['speakers'])} speakers")


if __name__ == "__main__":
    main()
