#!/usr/bin/env python3
"""The table of scripts/experiments/hf_grid.sh: per problem (in the thesis's order), T in {30, 50, 100, 200}
and method, the confirmed success rate over the finished runs (solved/runs) and the median CPU seconds of the
solved ones; "+k unfinished" counts runs with a checkpoint and no `done` (running, or cut short and waiting to resume); cells not yet run are '-'. The last
column is what the thesis's Fig. 4.1 shows for the row (the figure has no numbers; seed 000 digest §2.3).
Finished runs are archived under docs/results/runs/hf_grid/ and read from there when runs/hf_grid no longer
has them. Usage: python3 scripts/experiments/hf_grid_table.py [runs/hf_grid]"""
import json, os, re, statistics, sys

from runs import ARCHIVE, archive, live_or_archived

root = sys.argv[1] if len(sys.argv) > 1 else "runs/hf_grid"
kept = os.path.join(ARCHIVE, "hf_grid")
cells = {}
names = set(os.listdir(root) if os.path.isdir(root) else []) | set(os.listdir(kept) if os.path.isdir(kept) else [])
running = {}
for name in sorted(names):
    m = re.fullmatch(r"(\w+?)_T(\d+)_(structural|tikhonov|adam)_s(\d+)", name)
    if not m:
        continue
    run = live_or_archived(os.path.join(root, name), "hf_grid")
    if not os.path.exists(os.path.join(run, "done")):
        if os.path.exists(os.path.join(run, "checkpoint.npz")):
            key = (m.group(1), int(m.group(2)), m.group(3))
            running[key] = running.get(key, 0) + 1
        continue
    if not run.startswith(ARCHIVE):
        archive(run, "hf_grid")  # a finished run, kept for a later session's table (scripts/experiments/runs.py)
    line = open(os.path.join(run, "summary.txt")).read().strip()
    s = json.loads(line.split(" ", 1)[1])
    key = (m.group(1), int(m.group(2)), m.group(3))
    cells.setdefault(key, []).append((bool(s.get("success")), s["cpu_seconds"], s["iterations"]))
ORDER = ["addition", "multiplication", "xor", "temporal_order2", "temporal_order3", "random_permutation",
         "memorization5", "memorization20"]
MEMORIZATION = {"memorization5", "memorization20"}
found = {k[0] for k in cells} | {k[0] for k in running}
problems = [p for p in ORDER if p in found] + sorted(found - set(ORDER))
Ts = [30, 50, 100, 200]


def thesis(problem, method):
    """Fig. 4.1's reading for the row: HF solves every problem up to T = 200 (some seeds fail); structural
    damping is slightly beneficial on problems 1-6 and essential for memorization once the lag exceeds 50."""
    if method == "structural":
        return "solved at every T (some seeds fail)"
    if method == "tikhonov":
        return "needed structural damping for lags > 50" if problem in MEMORIZATION else "solved; structural slightly better"
    return "(not in the thesis)"


print("| problem | method | " + " | ".join(f"T = {T}" for T in Ts) + " | thesis, Fig. 4.1 |")
print("|---|---|" + "---|" * (len(Ts) + 1))
for p in problems:
    for d in ("structural", "tikhonov", "adam"):
        row = []
        for T in Ts:
            runs = cells.get((p, T, d), [])
            going = running.get((p, T, d), 0)
            if not runs and not going:
                row.append("-")
                continue
            ok = [r for r in runs if r[0]]
            med = f", {statistics.median(r[1] for r in ok):.0f} s" if ok else ""
            cell = f"{len(ok)}/{len(runs)}{med}" if runs else ""
            if going:
                cell = (cell + " " if cell else "") + f"+{going} unfinished"
            row.append(cell)
        print(f"| {p} | {d} | " + " | ".join(row) + f" | {thesis(p, d)} |")
