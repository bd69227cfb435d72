#!/usr/bin/env python3
"""The tables of docs/results/gated_pyramids.md from the runs of scripts/experiments/gated.sh (after
EVAL=1): each lane's squared error on 10,000 fresh sequences with its 95% interval, its CPU seconds and
updates. Usage: python3 scripts/experiments/gated_table.py [ROOT]   (ROOT default runs/gated)"""
import json
import os
import re
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else "runs/gated"
MSE = re.compile(r"mean squared error ([0-9.e+-]+)\s+95% interval \[([0-9.e+-]+), ([0-9.e+-]+)\]")


def score(lane, name="eval.txt"):
    path = os.path.join(ROOT, lane, name)
    if not os.path.exists(path):
        return "—"
    m = MSE.search(open(path).read())
    return f"{float(m.group(1)):.4g} [{float(m.group(2)):.4g}, {float(m.group(3)):.4g}]" if m else "?"


def run(lane):
    path = os.path.join(ROOT, lane, "summary.txt")
    if not os.path.exists(path):
        return "not run", ""
    s = json.loads(open(path).read().split(" ", 1)[1])
    return f"{s['cpu_seconds']:.0f}", f"{s['iterations']:,}"


def params(lane):
    import numpy as np  # /usr/bin/python3 has numpy (scripts/setup.sh)
    path = os.path.join(ROOT, lane, "checkpoint.npz")
    return f"{np.load(path)['theta'].size:,}" if os.path.exists(path) else "—"


print("FGAE against the same-size autoencoder (image_pairs: reconstruct y from x and the pair's code; "
      "squared error per pixel on 10,000 fresh pairs, standardised pixels)\n")
print("| images | transform | corruption | model | parameters | error [95% interval] | CPU s | updates |")
print("|---|---|---|---|---|---|---|---|")
for source, tag in (("blobs 13x13", ""), ("Fashion-MNIST 28x28", "_fashion")):
    for transform in ("rotation", "shift"):
        for suffix, corruption in (("", "0"), ("_denoising", "0.3")):
            for model in ("fgae", "pair_ae"):
                lane = f"{model}{tag}_{transform}{suffix}"
                cpu, it = run(lane)
                if cpu == "not run":
                    continue
                print(f"| {source} | {transform} | {corruption} | {model} | {params(lane)} | {score(lane)} | {cpu} | {it} |")

print("\nPGP: closed-loop prediction of frames 5-10 from 4 seed frames (transformed_video, rotations; squared "
      "error per pixel on 10,000 fresh sequences; predicting zeros scores 1)\n")
print("| layers | constant velocity (order 1) | constant acceleration (order 2) | CPU s (each) |")
print("|---|---|---|---|")
for layers in (1, 2, 3):
    a, b = f"pgp{layers}_order1", f"pgp{layers}_order2"
    print(f"| {layers} | {score(a)} | {score(b)} | {run(a)[0]} / {run(b)[0]} |")

print("\nThe 2-layer PGP on constant acceleration: Adam, Adam after layer-wise pre-training, Hessian-free, at "
      "equal CPU budget\n")
print("| run | error [95% interval] | CPU s | updates |")
print("|---|---|---|---|")
for lane, what in (("pgp2_order2", "Adam (lr 0.001, batch 100)"),
                   ("pgp2_order2_pretrain", "Adam, 500 updates of pre-training per layer first"),
                   ("pgp2_order2_hf", "Hessian-free (batch 1000, curvature batch 200)")):
    cpu, it = run(lane)
    print(f"| {what} | {score(lane)} | {cpu} | {it} |")

print("\nCPGP on the sine walk (3 layers; trained on 20 frames, 4 seed frames; squared error per sample on "
      "10,000 fresh sequences; predicting zeros scores 0.5)\n")
print("| model | training bands, 20 frames | training bands, 40 frames | held-out band, 20 frames | "
      "held-out band, 40 frames | CPU s |")
print("|---|---|---|---|---|---|")
for lane, what in (("cpgp_add", "CPGP, inputs added to the top units"),
                   ("cpgp_preact", "CPGP, inputs inside their pre-activation"),
                   ("pgp3_sine_nocode", "PGP without the frequency code")):
    print(f"| {what} | {score(lane, 'eval_train_bands.txt')} | {score(lane, 'eval_train_bands_2x.txt')} | "
          f"{score(lane)} | {score(lane, 'eval_gap_2x.txt')} | {run(lane)[0]} |")
