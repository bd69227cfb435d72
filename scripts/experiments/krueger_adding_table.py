#!/usr/bin/env python3
"""The adding-task comparison of scripts/experiments/krueger_adding.sh (after EVAL=1) beside the thesis (seed 004
§5.4.3): per β, how many runs beat the short-sighted baseline (test MSE < 1/12), how many did no better than the
constant predictor (MSE >= 1/6), the mean test MSE, and every run's test MSE with its 95% interval, iterations and
CPU seconds.
Usage: /usr/bin/python3 scripts/experiments/krueger_adding_table.py [ROOT]   (ROOT default runs/krueger_adding)"""
import os
import re
import sys

from runs import archived_path, interval, live_or_archived, progress, state

ROOT = sys.argv[1] if len(sys.argv) > 1 else "runs/krueger_adding"
THESIS = {0: "4 of 9 below 1/12, 4 of 9 no better than a constant, mean 0.105",
          1: "8 of 9 below 1/12, mean 0.059"}

runs = {}
kept = os.path.dirname(archived_path(os.path.join(ROOT, "x"), "krueger_adding") or "")  # runs of earlier sessions
names = set(os.listdir(ROOT) if os.path.isdir(ROOT) else []) | set(os.listdir(kept) if kept and os.path.isdir(kept) else [])
for name in sorted(names):
    m = re.fullmatch(r"b([0-9.]+)_s(\d+)", name)
    out = live_or_archived(os.path.join(ROOT, name), "krueger_adding")
    if not m or not os.path.isdir(out):
        continue
    beta, seed = float(m.group(1)), int(m.group(2))
    it, cpu = progress(out)
    mse = interval(out, "error_rate") if state(out) is None else None
    runs.setdefault(beta, []).append((seed, mse, it, cpu, os.path.exists(os.path.join(out, "done"))))

print("| β | scored runs | test MSE < 1/12 | MSE >= 1/6 (a constant does as well) | mean test MSE | thesis |")
print("|---|---|---|---|---|---|")
for beta, rs in sorted(runs.items()):
    scored = [r[1][0] for r in rs if r[1]]
    below = sum(m < 1 / 12 for m in scored)
    const = sum(m >= 1 / 6 for m in scored)
    mean = f"{sum(scored) / len(scored):.3f}" if scored else "-"
    print(f"| {beta:g} | {len(scored)} | {below} | {const} | {mean} | {THESIS.get(int(beta), '')} |")
print("\n| β | seed | test MSE [95%] (10,000 fresh sequences) | iterations | CPU s |\n|---|---|---|---|---|")
for beta, rs in sorted(runs.items()):
    for seed, mse, it, cpu, done in sorted(rs):
        cell = f"{mse[0]:.4f} [{mse[1]:.4f}, {mse[2]:.4f}]" if mse else ("not scored" if done else "unfinished")
        print(f"| {beta:g} | {seed} | {cell} | {it:,} | {cpu:.0f} |")
