#!/usr/bin/env python3
"""The table of scripts/experiments/hf_grid.sh: per problem, T and damping, the confirmed success rate
and the median CPU seconds of the successful runs; cells not yet run are '-'. Finished runs are archived
under docs/results/runs/hf_grid/ and read from there when runs/hf_grid no longer has them.
Usage: python3 scripts/experiments/hf_grid_table.py [runs/hf_grid]"""
import json, os, re, statistics, sys

from runs import ARCHIVE, archive, live_or_archived

root = sys.argv[1] if len(sys.argv) > 1 else "runs/hf_grid"
kept = os.path.join(ARCHIVE, "hf_grid")
cells = {}
names = set(os.listdir(root) if os.path.isdir(root) else []) | set(os.listdir(kept) if os.path.isdir(kept) else [])
for name in sorted(names):
    m = re.fullmatch(r"(\w+?)_T(\d+)_(structural|tikhonov|adam)_s(\d+)", name)
    run = live_or_archived(os.path.join(root, name), "hf_grid")
    if not m or not os.path.exists(os.path.join(run, "done")):
        continue
    if not run.startswith(ARCHIVE):
        archive(run, "hf_grid")  # a finished run, kept for a later session's table (scripts/experiments/runs.py)
    line = open(os.path.join(run, "summary.txt")).read().strip()
    s = json.loads(line.split(" ", 1)[1])
    key = (m.group(1), int(m.group(2)), m.group(3))
    cells.setdefault(key, []).append((bool(s.get("success")), s["cpu_seconds"], s["iterations"]))
problems = sorted({k[0] for k in cells})
Ts = sorted({k[1] for k in cells})
print("| problem | method | " + " | ".join(f"T = {T}" for T in Ts) + " |")
print("|---|---|" + "---|" * len(Ts))
for p in problems:
    for d in ("structural", "tikhonov", "adam"):
        row = []
        for T in Ts:
            runs = cells.get((p, T, d))
            if not runs:
                row.append("-")
                continue
            ok = [r for r in runs if r[0]]
            med = f", {statistics.median(r[1] for r in ok):.0f} s" if ok else ""
            row.append(f"{len(ok)}/{len(runs)}{med}")
        print(f"| {p} | {d} | " + " | ".join(row) + " |")
