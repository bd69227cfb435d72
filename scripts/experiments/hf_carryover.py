#!/usr/bin/env python3
"""Does an HF run's step carry over to fresh data? (docs/results/hf_grid.md, "Probe: the thesis's batch sizes")

Each HF record in metrics.jsonl has `loss` (the gradient batch's loss before the step) and `new_loss` (the same
batch after it); the next record's `loss` is a fresh batch at the new parameters. Over iterations FIRST..LAST this
prints the mean change on the step's own batch (new_loss - loss) and on the next batch (next loss - loss). A step
that fits its own batch and not the problem shows a large first figure and a second near zero.

Needs the per-iteration records of a live run (runs/...): archives under docs/results/runs/ keep only the
validation records.
Usage: hf_carryover.py [--first N] [--last M] RUN...   (default iterations 1..20, or as many as the run has)"""
import argparse
import json
import os
import sys


def hf_records(run):
    path = os.path.join(run, "metrics.jsonl")
    if not os.path.exists(path):
        print(f"hf_carryover.py: {path} does not exist", file=sys.stderr)
        sys.exit(2)
    rows = [json.loads(line) for line in open(path) if line.strip()]
    return [r for r in rows if "lambda" in r and r.get("new_loss") is not None and r.get("loss") is not None]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--first", type=int, default=1)
    ap.add_argument("--last", type=int, default=20)
    ap.add_argument("runs", nargs="+")
    a = ap.parse_args()
    records = {run: hf_records(run) for run in a.runs}  # every run read before the table starts
    print("| run | iterations | own batch | next batch | loss at the first, after the last |")
    print("|---|---|---|---|---|")
    for run in a.runs:
        h = {r["iteration"]: r for r in records[run]}
        its = [i for i in sorted(h) if a.first <= i <= a.last and i + 1 in h]
        if not its:
            print(f"| {os.path.basename(run.rstrip('/'))} | none | - | - | - |")
            continue
        own = sum(h[i]["new_loss"] - h[i]["loss"] for i in its) / len(its)
        nxt = sum(h[i + 1]["loss"] - h[i]["loss"] for i in its) / len(its)
        print(f"| {os.path.basename(run.rstrip('/'))} | {its[0]}-{its[-1]} | {own:+.4f} | {nxt:+.4f} | "
              f"{h[its[0]]['loss']:.4f}, {h[its[-1] + 1]['loss']:.4f} |")


if __name__ == "__main__":
    main()
