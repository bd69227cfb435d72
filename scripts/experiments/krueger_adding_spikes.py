#!/usr/bin/env python3
"""Exploding minibatch losses in the Krueger adding runs (scripts/experiments/krueger_adding.sh), before and
after each run leaves the plateau. Reads the per-iteration metrics.jsonl of runs still in ROOT (the archives
keep only the validation records, too few for this). Per run: the update where validation MSE first goes
below 0.15 (the plateau's end: a constant prediction scores about 1/6 = 0.167), and on each side of it the
number of updates and of minibatch losses above 1e3 (the loss is half the MSE, about 0.04-0.09 on the plateau:
1e3 is a hidden state grown by orders of magnitude), per 10,000 updates, and the largest loss; and the first
update with such a loss.
Usage: /usr/bin/python3 scripts/experiments/krueger_adding_spikes.py [ROOT]   (default runs/krueger_adding_1e39910)"""
import json
import os
import re
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else "runs/krueger_adding_1e39910"
EXIT_MSE, BIG = 0.15, 1e3


def spikes(path):
    """(exit update or None, first update with a loss > BIG or None, [before the exit: updates, big losses, max],
    [after: ...]) from one metrics.jsonl."""
    exit_at = first_big = None
    sides = [[0, 0, 0.0], [0, 0, 0.0]]
    with open(path) as f:
        for line in f:
            try:  # a run still training may be writing its last line
                r = json.loads(line)
            except json.JSONDecodeError:
                continue
            if not isinstance(r.get("iteration"), int):
                continue
            v = r.get("valid_error")
            if exit_at is None and isinstance(v, (int, float)) and v < EXIT_MSE:
                exit_at = r["iteration"]
            loss = r.get("loss")
            if not isinstance(loss, (int, float)):
                continue
            if loss > BIG and first_big is None:
                first_big = r["iteration"]
            side = sides[exit_at is not None and r["iteration"] >= exit_at]
            side[0] += 1
            side[1] += loss > BIG
            side[2] = max(side[2], loss)
    return exit_at, first_big, sides


def cell(side):
    n, big, top = side
    return f"{n:,} | {big} ({10000 * big / n:.1f}) | {top:.3g}" if n else "0 | - | -"


print(f"| run | first loss > 1e3 | plateau left (validation MSE < {EXIT_MSE}) | updates before | losses > 1e3 before (per 10,000) | "
      "largest before | updates after | losses > 1e3 after (per 10,000) | largest after |")
print("|---|---|---|---|---|---|---|---|---|")
for name in sorted(os.listdir(ROOT) if os.path.isdir(ROOT) else []):
    path = os.path.join(ROOT, name, "metrics.jsonl")
    if not re.fullmatch(r"b[0-9.]+_s\d+", name) or not os.path.exists(path):
        continue
    exit_at, first_big, (before, after) = spikes(path)
    state = "" if os.path.exists(os.path.join(ROOT, name, "done")) else " (unfinished)"
    when = lambda it: f"{it:,}" if it is not None else "never"
    print(f"| {name}{state} | {when(first_big)} | {when(exit_at)} | {cell(before)} | {cell(after)} |")
