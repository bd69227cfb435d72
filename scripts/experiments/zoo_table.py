#!/usr/bin/env python3
"""The zoo tables of docs/results/zoo.md from the runs of scripts/experiments/zoo.sh (after EVAL=1): for
every run the script makes (its PRINT=1 list, for the seeds found under ROOT, else seed 1) the model options,
trained parameters, iterations, CPU seconds, the best validation measure, the test measure of eval.txt
with its 95% interval, and for the addition problem whether the run met the success criterion (confirmed
on 10,000 fresh sequences); a run with no directory is "not run", one without OUT/done "unfinished".
Then the exact command of every run.
Usage: /usr/bin/python3 scripts/experiments/zoo_table.py [ROOT]   (ROOT default runs/zoo)"""
import glob
import json
import os
import re
import subprocess
import sys

from runs import ARCHIVE, REPO, archive, archived_path, live_or_archived, records, shown, state

ROOT = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.join(REPO, "runs", "zoo")
TEST = re.compile(r"^(bpc|error_rate) ([0-9.e+-]+|nan|inf)(?:\s+95% interval \[([0-9.e+-]+), ([0-9.e+-]+)\])?", re.M)
SHOWN_ROOT = shown(ROOT)
TASKS = {"char": ("character-level language model (text, data/kjv.txt, T = 100, V = 64)", "bpc"),
         "addition": ("addition problem (T = 50)", "error rate")}


def planned_runs():
    """(model, task, seed, out, command) for each run zoo.sh makes, in its order: every seed found under ROOT
    for the pair, or the first seed (a "not run" row) when the pair has none."""
    kept = glob.glob(os.path.join(ARCHIVE, "zoo", "*_s*")) if archived_path(os.path.join(ROOT, "x"), "zoo") else []
    seeds = sorted({int(m.group(1)) for d in glob.glob(os.path.join(ROOT, "*_s*")) + kept
                    if (m := re.search(r"_s(\d+)$", d)) and os.path.isdir(d)}) or [1]
    env = dict(os.environ, PRINT="1", ROOT=ROOT, SEEDS=" ".join(map(str, seeds)))
    for key in ("MODELS", "TASKS", "EVERY", "BUDGET"):  # the script's defaults, not a caller's
        env.pop(key, None)
    lines = subprocess.run(["bash", os.path.join(REPO, "scripts", "experiments", "zoo.sh")], env=env, check=True,
                           capture_output=True, text=True).stdout.splitlines()
    runs = []
    for line in lines:
        out = line.rsplit(" --out ", 1)[1]
        model, task, seed = re.fullmatch(r"(.+)_(char|addition)_s(\d+)", os.path.basename(out)).groups()
        runs.append((model, task, int(seed), live_or_archived(out, "zoo"), line.replace(ROOT, SHOWN_ROOT)))
    found = {(r[0], r[1]) for r in runs if os.path.isdir(r[3])}
    return [r for r in runs if os.path.isdir(r[3]) or ((r[0], r[1]) not in found and r[2] == seeds[0])]


def model_options(command):
    return " ".join(re.findall(r"model_options\.(\S+?)'?(?= |$)", command))


def parameters(out):
    import numpy as np  # /usr/bin/python3 has numpy (scripts/setup.sh)
    path, kept = os.path.join(out, "checkpoint.npz"), os.path.join(out, "parameters.txt")
    if os.path.exists(path):
        return f"{np.load(path)['theta'].size:,}"
    return open(kept).read().strip() if os.path.exists(kept) else "—"


def row(model, task, seed, out, command):
    opts = f"`{model_options(command)}`"
    if not os.path.isdir(out):
        return "| " + " | ".join([model, str(seed), opts, "not run", "", "", "", ""] +
                                 ([""] if task == "addition" else [])) + " |"
    metrics = records(out)
    summary = {}
    if os.path.exists(os.path.join(out, "summary.txt")):
        text = open(os.path.join(out, "summary.txt")).read()
        summary = json.loads(text.split(" ", 1)[1].splitlines()[0])
    last = metrics[-1] if metrics else {}
    cpu = summary.get("cpu_seconds", last.get("cpu_seconds"))
    iterations = summary.get("iterations", last.get("iteration"))
    status = "" if os.path.exists(os.path.join(out, "done")) else " (unfinished)"
    valid = [m["valid_error"] for m in metrics if "valid_error" in m]
    best = f"{min(valid):.4g}" if valid else "—"
    test = "—"
    if os.path.exists(os.path.join(out, "eval.txt")):
        text = open(os.path.join(out, "eval.txt")).read()
        m = TEST.search(text)
        n = re.search(r": (\d+) sequences", text)
        if m:
            test = f"{float(m.group(2)):.4g}" + (f" [{float(m.group(3)):.4g}, {float(m.group(4)):.4g}]" if m.group(3) else "")
            test += f" ({int(n.group(1)):,})" if n else ""
        else:
            test = "?"
    cells = [model, str(seed), opts, parameters(out), f"{iterations:,}{status}" if iterations is not None else "—",
             f"{cpu:.0f}" if cpu is not None else "—", best, test]
    if task == "addition":
        solved = "—"
        if "success" in summary:
            solved = "**yes**" if summary["success"] else "no"
            if summary.get("success") and "confirm_error" in summary:
                solved += f" (confirmed: {summary['confirm_error']:.4g} on {summary['confirm_sequences']:,})"
        cells.append(solved)
    return "| " + " | ".join(cells) + " |"


def main():
    runs = planned_runs()
    for r in runs:  # finished and scored runs are kept (a few kB each) for a later session's table
        if state(r[3]) is None and not r[3].startswith(ARCHIVE):
            archive(r[3], "zoo", {"parameters.txt": parameters(r[3]) + "\n"})
    for task, (title, measure) in TASKS.items():
        chosen = [r for r in runs if r[1] == task]
        if not chosen:
            continue
        print(f"\n{title}: best validation and test {measure}" +
              (" (test: the whole test part; sequences scored in parentheses)" if task == "char" else
               " (test: 10,000 fresh sequences, seed 777, in parentheses; chance level 0.8464, success < 0.01)") + "\n")
        head = ["model", "seed", "model options", "parameters", "iterations", "CPU s", f"best valid {measure}",
                f"test {measure} [95%]"] + (["solved"] if task == "addition" else [])
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for r in chosen:
            print(row(*r))
    print("\nCommands (OPENBLAS_NUM_THREADS=1; `train_lane` adds --resume when a run continues):\n")
    print("```sh")
    for r in runs:
        print(r[4])
    print("```")


if __name__ == "__main__":
    main()
