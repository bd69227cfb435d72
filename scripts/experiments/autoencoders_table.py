#!/usr/bin/env python3
"""The table of scripts/experiments/autoencoders.sh beside the thesis's Table 7.2, and one learning-curve
PNG per data set (training error on the first 2,000 training images against CPU seconds, every method).
For each finished run it calls `tapegrad eval`, which scores every training and test image: the squared
reconstruction error per image (sum over the 784 pixels, averaged over images) and the cross-entropy per
pixel. Runs not finished yet are marked with their progress.
Usage: python3 scripts/experiments/autoencoders_table.py [runs/autoencoders] [docs/results]"""
import json, os, re, subprocess, sys

root = sys.argv[1] if len(sys.argv) > 1 else "runs/autoencoders"
figures = sys.argv[2] if len(sys.argv) > 2 else "docs/results"
TG = os.environ.get("TG", "./build/tools/tapegrad")
METHODS = [("nag", "NAG"), ("m099", "M (0.99)"), ("m09", "M (0.9)"), ("sgd", "SGD"), ("hf", "HF"),
           ("nag17", "NAG, 17 hidden layers"), ("nag_tanh_si", "NAG, tanh + SI"), ("nag_tanh_vp", "NAG, tanh + VP")]
THESIS = {"curves": {"nag": 0.078, "m099": 0.110, "m09": 0.220, "sgd": 0.250, "hf": 0.110,
                     "nag17": 0.067, "nag_tanh_si": 0.086, "nag_tanh_vp": 0.098},
          "fashion_mnist": {"nag": 0.730, "m099": 0.770, "m09": 0.990, "sgd": 1.100, "hf": 0.780}}  # MNIST's row

def last_metrics(run):
    last = None
    for line in open(os.path.join(run, "metrics.jsonl")):
        try:
            last = json.loads(line)
        except json.JSONDecodeError:
            pass
    return last or {}

def evaluate(run):
    out = subprocess.run([TG, "eval", "--run", run], capture_output=True, text=True, check=True).stdout
    parts = {}
    for line in out.splitlines():
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
        run = os.path.join(root, f"{data}_{key}")
        if not os.path.exists(os.path.join(run, "metrics.jsonl")):
            continue
        m = last_metrics(run)
        done = os.path.exists(os.path.join(run, "done"))
        cfg = json.load(open(os.path.join(run, "config.json")))
        progress = (f"{m.get('cpu_seconds', 0):.0f} of {cfg.get('cpu_budget', 0):.0f} CPU s" if cfg["steps"] >= 10**7
                    else f"{m.get('iteration', 0)} of {cfg['steps']} iterations")  # SGD and HF run to the budget
        status = "" if done else f" (running: {progress})"
        ev = evaluate(run)
        tr, te = ev.get("training", {}), ev.get("test", {})
        rows.append(f"| {label}{status} | {m.get('iteration', 0)} | {m.get('cpu_seconds', 0):.0f} | "
                    f"{tr.get('sqerr', float('nan')):.3f} [{tr.get('low', float('nan')):.3f}, {tr.get('high', float('nan')):.3f}] | "
                    f"{tr.get('xent', float('nan')):.4f} | {te.get('sqerr', float('nan')):.3f} | {THESIS[data][key]:.3f} |")
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
    subprocess.run(args + ["--metric", "valid_error", "--x", "cpu_seconds", "-o", png], check=True, capture_output=True)
    print(f"\nlearning curves: {png}")
