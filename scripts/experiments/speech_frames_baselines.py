#!/usr/bin/python3
"""Three reference predictors on the test windows of task speech_frames (docs/results/speech.md): the training
mean (every standardised dimension 0), a copy of the input frame, and the least-squares affine map from one
frame to the next fitted on the training part; squared error per predicted frame.
Usage: speech_frames_baselines.py [mfcc | mfcc_static]   (mfcc_static: the 13 static coefficients alone)"""
import sys

import numpy as np

features = sys.argv[1] if len(sys.argv) > 1 else "mfcc"
if features not in ("mfcc", "mfcc_static"):
    sys.exit(f"speech_frames_baselines.py: features '{features}' is neither mfcc nor mfcc_static")


def frames(part):
    m = np.load(f"data/speech_frames/{part}.npz")["mfcc"].astype(np.float64)
    return m[:, : m.shape[1] // 3] if features == "mfcc_static" else m


tr = frames("train")
mean, std = tr.mean(0), tr.std(0)
z = (tr - mean) / std
# affine next-frame map, fitted on every consecutive pair of frames inside a training utterance
toff = np.load("data/speech_frames/train.npz")["frame_offsets"]
inside = np.ones(len(z) - 1, dtype=bool)
inside[toff[1:-1] - 1] = False  # the last frame of an utterance has no successor in it
src = np.hstack([z[:-1][inside], np.ones((inside.sum(), 1))])
A = np.linalg.lstsq(src, z[1:][inside], rcond=None)[0]
x = (frames("test") - mean) / std
off = np.load("data/speech_frames/test.npz")["frame_offsets"]
steps = 100
se_mean, se_copy, se_affine, n = 0.0, 0.0, 0.0, 0
per_window_copy = []
for u in range(len(off) - 1):
    a, L = off[u], off[u + 1] - off[u]
    k = 0
    while (k + 1) * steps + 1 <= L:
        w = x[a + k * steps: a + k * steps + steps + 1]
        tgt, inp = w[1:], w[:-1]
        se_mean += (tgt ** 2).sum()
        c = ((tgt - inp) ** 2).sum()
        se_copy += c
        se_affine += ((tgt - np.hstack([inp, np.ones((steps, 1))]) @ A) ** 2).sum()
        per_window_copy.append(c / steps)
        n += 1
        k += 1
print(f"{features}: windows {n}; SE/frame: predict the training mean {se_mean / (n * steps):.3f}; copy the input frame "
      f"{se_copy / (n * steps):.3f} (sd over windows {np.std(per_window_copy):.2f}); affine map of the input frame "
      f"{se_affine / (n * steps):.3f}")
