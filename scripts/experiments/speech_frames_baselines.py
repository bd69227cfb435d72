#!/usr/bin/python3
"""Two reference predictors on the test windows of task speech_frames (docs/results/speech.md): the training
mean (every standardised dimension 0) and a copy of the input frame, squared error per predicted frame."""
import numpy as np
tr = np.load("data/speech_frames/train.npz")["mfcc"].astype(np.float64)
mean, std = tr.mean(0), tr.std(0)
d = np.load("data/speech_frames/test.npz")
x = (d["mfcc"].astype(np.float64) - mean) / std
off = d["frame_offsets"]
steps = 100
se_mean, se_copy, n = 0.0, 0.0, 0
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
        per_window_copy.append(c / steps)
        n += 1
        k += 1
print(f"windows {n}; SE/frame: predict the training mean {se_mean / (n * steps):.3f}; copy the input frame {se_copy / (n * steps):.3f} (sd over windows {np.std(per_window_copy):.2f})")
