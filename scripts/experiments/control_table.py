#!/usr/bin/env python3
"""The tables and figures of docs/results/control.md from the runs of scripts/experiments/control.sh.

For every run under runs/control/<task>_<method>: `tapegrad eval` of its last checkpoint (the task's cost
per reach and the hand's distance in cm; center-out and postural on their fixed reaches, DDN on its
held-out test part, with the last logged cost on its training pool beside it), its CPU seconds, iterations and
passes over the batch (forward-equivalents: a gradient counts 2, each G v product and each evaluation of
f 1), next to the thesis's figures and iLQR's per-reach optimum. Writes the learning curves (cost on the
task's validation reaches against CPU seconds, one PNG per task) and each run's hand paths.
Usage: python3 scripts/experiments/control_table.py [--tapegrad build/tools/tapegrad]
"""
import argparse
import json
import os
import re
import subprocess
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
RUNS = os.path.join(ROOT, "runs", "control")
OUT = os.path.join(ROOT, "docs", "results")
METHODS = {"gd": "GD", "lbfgs": "L-BFGS (L = 100)", "hf": "HF (structural damping)", "ahf": "AHF",
           "ahf_fresh": "AHF, fresh reaches every iteration"}
THESIS = {("postural", "ahf"): "2.2e-2 (75,000 evaluations)", ("postural", "lbfgs"): "2.3e-2 (15,000)",
          ("ddn", "ahf"): "9e-3 (100,000 function calls)", ("ddn", "lbfgs"): "2e-2 (25,000, then no progress)",
          ("center_out", "ahf"): "near-identical to iLQR", ("center_out", "lbfgs"): "close to iLQR, plateaus",
          ("center_out", "hf"): "not close to iLQR", ("center_out", "gd"): "not close to iLQR"}
BATCH = {"center_out": 64, "postural": 72, "ddn": 400}


def last_metrics(run):
    last = {}
    with open(os.path.join(run, "metrics.jsonl")) as f:
        for line in f:
            if line.strip():
                last.update({k: v for k, v in json.loads(line).items() if v is not None})
    return last


def evaluate(tg, run, extra=()):
    out = subprocess.run([tg, "eval", "--run", run, *extra], capture_output=True, text=True, check=True).stdout
    loss = float(re.search(r"^loss (\S+)", out, re.M).group(1))
    cm = re.search(r"\(cm\) (\S+)(  95% interval \[(\S+), (\S+)\])?", out)
    interval = f" [{float(cm.group(3)):.2f}, {float(cm.group(4)):.2f}]" if cm.group(2) else ""
    return loss, f"{float(cm.group(1)):.2f}{interval}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tapegrad", default=os.path.join(ROOT, "build", "tools", "tapegrad"))
    tg = ap.parse_args().tapegrad
    ilqr = json.load(open(os.path.join(RUNS, "ilqr_center_out.json")))
    for task in ("center_out", "postural", "ddn"):
        runs = [(m, os.path.join(RUNS, f"{task}_{m}")) for m in METHODS if os.path.isdir(os.path.join(RUNS, f"{task}_{m}"))]
        if not runs:
            continue
        print(f"\n### {task}\n")
        test_col = " test cost (hand distance) |" if task == "ddn" else ""
        print(f"| method | cost per reach | hand distance (cm) |{test_col} CPU s | iterations | passes over the batch | finished | thesis |")
        print("|---|---|---|" + ("---|" if task == "ddn" else "") + "---|---|---|---|---|")
        for method, run in runs:
            m = last_metrics(run)
            if task == "ddn":  # the last logged cost on the training pool, then the held-out test part
                loss, cm = m.get("new_loss", m.get("loss")), "not scored"
                test_loss, test_cm = evaluate(tg, run)
                test = f" {test_loss:.4g} ({test_cm} cm) |"
            else:
                loss, cm = evaluate(tg, run)
                test = ""
            passes = m.get("minibatches", 0) * 1000 / BATCH[task]
            done = "yes" if os.path.exists(os.path.join(run, "done")) else "running"
            print(f"| {METHODS[method]} | {loss:.4g} | {cm} |{test} {m.get('cpu_seconds', 0):.0f} | {m.get('iteration', 0)} "
                  f"| {passes:,.0f} | {done} | {THESIS.get((task, method), '')} |")
        if task == "center_out":
            s = ilqr["summary"] if "summary" in ilqr else ilqr
            print(f"| iLQR, per reach (open-loop optimum) | {s.get('mean_loss', float('nan')):.4g} "
                  f"(worst {s.get('worst_loss', float('nan')):.4g}) | | | | | | the gold standard |")
        subprocess.run([tg, "plot", *sum((["--run", r] for _, r in runs), []), "--metric", "valid_loss", "--log-y",
                        "--x", "cpu_seconds", "-o", os.path.join(OUT, f"control_{task}_curves.png")], check=True,
                       capture_output=True)
        for method, run in runs:
            subprocess.run([tg, "plot", "--run", run, "--trajectories", "-o",
                            os.path.join(OUT, f"control_{task}_{method}_trajectories.png")], check=True, capture_output=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
