#!/usr/bin/env python3
"""Table 7.3 of scripts/experiments/table73.sh (after EVAL=1) beside the thesis (seed 000 §7.4): per problem, method
and clipping, each seed's test error ("unfinished", "not scored", or "-" when not run), their mean (the thesis's figure: the
average over its 10 seeds), how many runs are below 0.01 (the task's success threshold) and below 0.05, and every
run's test error with its 95% interval.
Usage: /usr/bin/python3 scripts/experiments/table73_table.py [ROOT]   (ROOT default runs/table73)"""
import os
import re
import sys

from runs import archived_path, interval, live_or_archived, progress, state

ROOT = sys.argv[1] if len(sys.argv) > 1 else "runs/table73"
PROBLEMS = {"add": "addition, T = 80", "mul": "multiplication, T = 80", "mem5": "5-bit memorization, T = 200",
            "mem20": "20-bit memorization, T = 50"}
THESIS = {("add", "nag"): 0.011, ("add", "momentum"): 0.250, ("mul", "nag"): 0.270, ("mul", "momentum"): 0.340,
          ("mem5", "nag"): 0.025, ("mem5", "momentum"): 0.180, ("mem20", "nag"): 0.032, ("mem20", "momentum"): 0.00006}
METHODS = {"nag": "NAG", "momentum": "momentum"}
CLIPS = {"none": "none (thesis)", "clip1": "norm 1"}

kept = os.path.dirname(archived_path(os.path.join(ROOT, "x"), "table73") or "")  # runs of earlier sessions
names = set(os.listdir(ROOT) if os.path.isdir(ROOT) else []) | set(os.listdir(kept) if kept and os.path.isdir(kept) else [])
cells = {}
for name in sorted(names):
    m = re.fullmatch(r"(add|mul|mem5|mem20)_(nag|momentum)_(none|clip1)_s(\d+)", name)
    out = live_or_archived(os.path.join(ROOT, name), "table73")
    if not m or not os.path.isdir(out):
        continue
    it, cpu = progress(out)
    err = interval(out, "error_rate") if state(out) is None else None
    label = state(out) or "no error_rate in eval.txt"  # what a run without a test error shows
    cells.setdefault(m.groups()[:3], []).append((int(m.group(4)), err, label, it, cpu))

seeds = sorted({seed for rs in cells.values() for seed, *_ in rs})
print("| problem | method | clipping | test error, seed " + ", ".join(map(str, seeds)) +
      " | mean | below 0.01 | below 0.05 | thesis (mean of 10 seeds, no clipping) |")
print("|---|---|---|---|---|---|---|---|")
for p in PROBLEMS:
    for meth in METHODS:
        for clip in CLIPS:
            rs = cells.get((p, meth, clip), [])
            scored = [err[0] for _, err, _, _, _ in rs if err]
            mean = f"{sum(scored) / len(scored):.4f}" if scored else "-"
            by_seed = {seed: f"{err[0]:.4f}" if err else label for seed, err, label, _, _ in rs}
            errors = ", ".join(by_seed.get(seed, "-") for seed in seeds)  # "-": not run
            print(f"| {PROBLEMS[p]} | {METHODS[meth]} | {CLIPS[clip]} | {errors} | {mean} | "
                  f"{sum(e < 0.01 for e in scored)} | {sum(e < 0.05 for e in scored)} | {THESIS[(p, meth)]:g} |")
print("\n| run | test error [95%] (10,000 fresh sequences, seed 2026) | iterations | CPU s |\n|---|---|---|---|")
for key in sorted(cells):
    for seed, err, label, it, cpu in sorted(cells[key]):
        shown = f"{err[0]:.4f} [{err[1]:.4f}, {err[2]:.4f}]" if err else label
        print(f"| {'_'.join(key)}_s{seed} | {shown} | {it} | {cpu:.0f} |")
