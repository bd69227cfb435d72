#!/usr/bin/env python3
"""The table of scripts/experiments/autoencoders.sh beside the thesis's Table 7.2, and one learning-curve
PNG per data set (training error on the first 2,000 training images against CPU seconds, every method).
A finished run is scored once by `tapegrad eval` (RUN/eval.txt), which scores every training and test image:
the squared reconstruction error per image (sum over the 784 pixels, averaged over images) and the
cross-entropy per pixel; it is then archived under docs/results/runs/autoencoders/ (its config, summary,
eval and validation records: scripts/experiments/runs.py), and a later session's table reads the archive
when the run directory is gone. Runs not finished yet are scored from their checkpoint and marked with
their progress.
Usage: python3 scripts/experiments/autoencoders_table.py [runs/autoencoders] [docs/results]"""
import json, os, re, subprocess, sys

from runs import ARCHIVE, archive, live_or_archived, progress, write_atomic

root = sys.argv[1] if len(sys.argv) > 1 else "runs/autoencoders"
figures = sys.argv[2] if len(sys.argv) > 2 else "docs/results"
TG = os.environ.get("TG", "./build/tools/tapegrad")
METHODS = [("nag", "NAG"), ("m099", "M (0.99)"), ("m09", "M (0.9)"), ("sgd", "SGD"), ("hf", "HF"),
           ("nag17", "NAG, 17 hidden layers"), ("nag_tanh_si", "NAG, tanh + SI"), ("nag_tanh_vp", "NAG, tanh + VP"),
           ("nag_mu997", "NAG, μ capped at 0.997")]
THESIS = {"curves": {"nag": 0.078, "m099": 0.110, "m09": 0.220, "sgd": 0.250, "hf": 0.110,
                     "nag17": 0.067, "nag_tanh_si": 0.086, "nag_tanh_vp": 0.098},
          "fashion_mnist": {"nag": 0.730, "m099": 0.770, "m09": 0.990, "sgd": 1.100, "hf": 0.780}}  # MNIST's row

def thesis_figure(data, key):
    figure = THESIS[data].get(key)
    return "—" if figure is None else f"{figure:.3f}"

def eval_text(run):
    """`tapegrad eval` of RUN: kept in RUN/eval.txt once the run has finished, computed afresh before that."""
    kept = os.path.join(run, "eval.txt")
    if os.path.exists(kept):
        return open(kept).read()
    out = subprocess.run([TG, "eval", "--run", run], capture_output=True, text=True, check=True).stdout
    if os.path.exists(os.path.join(run, "done")):
        write_atomic(kept, out)
    return out

def evaluate(run):
    parts = {}
    for line in eval_text(run).splitlines():
        m = re.match(r".*\((training|test) part\): (\d+) images\s+sq\.err ([\d.]+)\s+(.*?)\s+loss ([\d.]+)", line)
        if m:
            iv = re.match(r"95% interval \[([\d.]+), ([\d.]+)\]", m.group(4))
            parts[m.group(1)] = {"images": int(m.group(2)), "sqerr": float(m.group(3)),
                                 "low": float(iv.group(1)) if iv else float("nan"),
                                 "high": float(iv.group(2)) if iv else float("nan"), "xent": float(m.group(5))}
    return parts

for data in ("curves", "fashion_mnist"):
    rows, runs = [], []
    for key, label in METHODS:
        run = live_or_archived(os.path.join(root, f"{data}_{key}"), "autoencoders")
        if not os.path.exists(os.path.join(run, "metrics.jsonl")):
            continue
        iteration, cpu = progress(run)
        done = os.path.exists(os.path.join(run, "done"))
        cfg = json.load(open(os.path.join(run, "config.json")))
        where = (f"{cpu:.0f} of {cfg.get('cpu_budget', 0):.0f} CPU s" if cfg["steps"] >= 10**7
                 else f"{iteration} of {cfg['steps']} iterations")  # SGD and HF run to the budget
        status = "" if done else f" (running: {where})"
        ev = evaluate(run)
        if done and not run.startswith(ARCHIVE):
            archive(run, "autoencoders")
        tr, te = ev.get("training", {}), ev.get("test", {})
        rows.append(f"| {label}{status} | {iteration} | {cpu:.0f} | "
                    f"{tr.get('sqerr', float('nan')):.3f} [{tr.get('low', float('nan')):.3f}, {tr.get('high', float('nan')):.3f}] | "
                    f"{tr.get('xent', float('nan')):.4f} | {te.get('sqerr', float('nan')):.3f} | {thesis_figure(data, key)} |")
        runs.append(run)
    if not rows:
        continue
    print(f"\n### {data}\n")
    print("| method | iterations | CPU s | training sq. error per image [95%] | training cross-entropy per pixel | test sq. error per image | thesis Table 7.2 |")
    print("|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    png = os.path.join(figures, f"autoencoders_{data}.png")
    args = [TG, "plot"]
    for r in runs:
        args += ["--run", r]
    # A log scale: the methods' final errors (0.4-8) differ less than a collapse or a plateau (~28) from them.
    plot = subprocess.run(args + ["--metric", "valid_error", "--x", "cpu_seconds", "--log-y", "-o", png], capture_output=True, text=True)
    if plot.returncode != 0:
        sys.exit(f"autoencoders_table.py: the plot failed: {plot.stderr.strip()}")
    print(f"\nlearning curves: {png}")
