#!/usr/bin/env python3
"""The table of scripts/experiments/hf_grid.sh: per problem (in the thesis's order), T in {30, 50, 100, 200}
and method, the confirmed success rate over the finished runs (solved/runs) and the median CPU seconds of the
solved ones; "+k unfinished" counts runs with a checkpoint and no `done` (running, or cut short and waiting to resume); cells not yet run are '-'. The last
column is what the thesis's Fig. 4.1 shows for the row (the figure has no numbers; seed 000 digest §2.3).
Finished runs are archived under docs/results/runs/hf_grid/ and read from there when runs/hf_grid no longer
has them. With --png FILE it also draws the grid: one panel per problem, CPU seconds to a confirmed solution
against T for each method (one marker per run), runs not solved drawn as crosses above the budget line.
Usage: python3 scripts/experiments/hf_grid_table.py [runs/hf_grid] [--png FILE]"""
import json, math, os, re, shutil, statistics, subprocess, sys, tempfile

from runs import ARCHIVE, archive, live_or_archived

args = sys.argv[1:]
png = None
for i, a in enumerate(args):
    if a == "--png" or a.startswith("--png="):
        png = a[len("--png="):] if "=" in a else (args[i + 1] if i + 1 < len(args) else "")
        del args[i:i + (1 if "=" in a else 2)]
        if not png.endswith(".png"):
            sys.exit("hf_grid_table.py: --png needs a FILE.png")
        if not os.path.isdir(os.path.dirname(os.path.abspath(png))):
            sys.exit(f"hf_grid_table.py: --png {png}: its directory does not exist")
        break
if len(args) > 1 or (args and args[0].startswith("-")):
    sys.exit("usage: python3 scripts/experiments/hf_grid_table.py [runs/hf_grid] [--png FILE.png]")
root = args[0] if args else "runs/hf_grid"
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
        archive(run, "hf_grid")  # a finished run, kept for a later session's table; drops its stale park (runs.py)
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
for T in sorted(({k[1] for k in cells} | {k[1] for k in running}) - set(Ts)):
    print(f"hf_grid_table.py: runs at T = {T} are not in the grid's T = {Ts}: left out", file=sys.stderr)


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


METHODS = (("structural", "HF, structural damping", 7, "#1f77b4"), ("tikhonov", "HF, Tikhonov damping", 5, "#ff7f0e"),
           ("adam", "Adam at HF's CPU time", 9, "#2ca02c"))
BUDGET, NOT_SOLVED = 900, 2500  # failed runs are drawn in a band above the budget line


def draw(path):
    """The grid as a PNG: 2 x 4 panels (problems), x = T, y = CPU seconds of each confirmed solution (log
    scale), a cross in the band above the budget for each run that was not solved (in its budget: 900 CPU s for
    HF, the structural-damping run's time for Adam)."""
    if shutil.which("gnuplot") is None:
        sys.exit("hf_grid_table.py: --png needs gnuplot (scripts/setup.sh installs it)")
    if not problems:
        sys.exit("hf_grid_table.py: no finished runs to draw")
    data, blocks, script = [], {}, []
    for p in problems:
        for k, (m, *_) in enumerate(METHODS):
            for solved in (True, False):
                rows = [(Ts.index(T) + (k - 1) * 0.18, r[1] if solved else NOT_SOLVED)  # methods side by side
                        for T in Ts for r in cells.get((p, T, m), []) if r[0] == solved]
                blocks[(p, m, solved)] = len(data)
                data.append("".join(f"{x} {y}\n" for x, y in rows) or "nan nan\n")
    with tempfile.TemporaryDirectory() as tmp:
        dat = os.path.join(tmp, "grid.dat")
        with open(dat, "w") as f:
            f.write("\n\n".join(data))
        out = os.path.join(tmp, "grid.png")
        rows = math.ceil(len(problems) / 4)
        size = f"1400,{60 + 350 * rows}"
        script.append(f"if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {{ set terminal pngcairo noenhanced size {size} "
                      f"font 'sans,10' }} else {{ set terminal png noenhanced size {size} }}")
        script.append(f"set output '{out}'")
        script.append(f'set multiplot layout {rows},4 title "Fig. 4.1 grid: CPU seconds to a solution confirmed on 10,000 '
                      'fresh sequences; crosses: not solved in the run\'s budget (HF 900 CPU s, Adam the structural HF '
                      'run\'s time)" font ",12"')
        script.append("set logscale y; set yrange [0.5:6000]; set xrange [-0.6:3.6]; set grid ytics")
        script.append("set xtics (" + ", ".join(f"'{T}' {i}" for i, T in enumerate(Ts)) + ")")
        script.append("set ytics ('1' 1, '10' 10, '100' 100, '900' 900, 'not solved' 2500)")
        script.append("set xlabel 'T'; set ylabel 'CPU s'; set key off")
        for k, p in enumerate(problems):
            script.append(f"set title '{p}'")
            if k == len(problems) - 1:  # one key, in the last panel
                script.append("set key bottom right font ',8' samplen 1")
            plots = [f"{BUDGET} with lines dt 2 lc rgb 'gray50' notitle"]
            for m, label, pt, colour in METHODS:
                plots.append(f"'{dat}' index {blocks[(p, m, True)]} using 1:2 with points pt {pt} ps 1.3 "
                             f'lc rgb "{colour}" title "{label}"')
                plots.append(f"'{dat}' index {blocks[(p, m, False)]} using 1:2 with points pt 2 ps 1.3 lw 2 "
                             f"lc rgb '{colour}' notitle")
            script.append("plot " + ", ".join(plots))
        script.append("unset multiplot")
        done = subprocess.run(["gnuplot"], input="\n".join(script) + "\n", text=True, capture_output=True)
        if done.returncode != 0 or not os.path.exists(out):
            sys.exit(f"hf_grid_table.py: gnuplot failed: {done.stderr.strip()[-300:]}")
        shutil.move(out, path + ".tmp")
        os.replace(path + ".tmp", path)  # whole or not at all
    print(f"\n{path}")


if png:
    draw(png)
