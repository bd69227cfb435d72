#!/usr/bin/env python3
"""Krueger's Tables 5.I-5.III (seed 004 digest §3.1) beside ours, from the runs of scripts/experiments/krueger.sh
(after EVAL=1): each cell is our test bits per character (best validation's parameters, the whole test part)
with its 95% interval, and the thesis's PTB figure in parentheses; then every run's iterations, CPU seconds,
best validation bpc, NaN-rule roll-backs and its command. A run with no directory is "not run", one without
OUT/done "unfinished", a finished one without eval.txt "not scored".
Usage: /usr/bin/python3 scripts/experiments/krueger_table.py [ROOT]   (ROOT default runs/krueger)"""
import os
import sys

from runs import REPO, best_valid, bold_interval, live_or_archived, progress, records, script_commands, state

ROOT = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.join(REPO, "runs", "krueger")

# The thesis's figures (digest 004 §3.1), PTB bits per character
T51 = {("hidden", 0): 1.47, ("hidden", 50): 1.41, ("hidden", 500): 1.39,
       ("cell", 0): 1.49, ("cell", 50): 1.42, ("cell", 500): 1.40}
T52_COLUMNS = [("0.002", "1"), ("0.002", "1e6"), ("0.0002", "1"), ("0.0002", "1e6")]
T52 = {("tanh", 0): [1.71, 1.55, 2.15, 2.15], ("tanh", 500): [1.57, 2.70, 1.79, 1.80],
       ("relu", 0): [1.78, 1.69, 1.93, 1.93], ("relu", 500): [1.74, 1.73, 1.65, 2.04],
       ("trec", 0): [1.62, 1.63, 1.95, 1.88], ("trec", 500): [1.48, 1.49, 1.56, 1.56]}
T53_KINDS = ["state_diff", "norm", "relative", "l1_norm", "target_norm", "initial_final"]
T53_HEADS = ["(Δh_t)²", "(Δ‖h_t‖₂)² (norm-stabilizer)", "(Δ‖h_t‖₂/‖h_t‖₂)²", "(Δ‖h_t‖₁)²", "(‖h‖₂ − 5)²",
             "(‖h_0‖₂ − ‖h_T‖₂)²"]
T53 = {50: [1.84, None, 1.60, 2.96, 1.49, 3.81], 500: [2.19, 1.48, 1.50, 3.18, 1.50, 1.54]}


def commands():
    """{run name: command} from krueger.sh's PRINT=1 list (its defaults, not a caller's)."""
    return script_commands("krueger.sh", ROOT, ("TABLES", "EVERY", "BUDGET_LSTM", "BUDGET_SRNN", "EVAL"), SEEDS="1")


def run_facts(name):
    """(cell text, details row or None) for run ROOT/name; the details count the NaN rule's roll-backs."""
    out = live_or_archived(os.path.join(ROOT, name), "krueger")
    if state(out) == "not run":
        return "not run", None
    rs = records(out)
    rollbacks = sum("nan_rule" in r for r in rs)
    return bold_interval(out, "bpc"), (*progress(out, rs), best_valid(out, rs), rollbacks)


def cell(name, thesis):
    text, _ = run_facts(name)
    return f"{text} ({thesis:.2f})" if thesis is not None else f"{text} (blank)"


def main():
    cmds = commands()
    print("Table 5.I: LSTM, ours [95%] (thesis, PTB)\n")
    print("| penalty on | β = 0 | β = 50 | β = 500 |\n|---|---|---|---|")
    for on, label in (("hidden", "hidden state (`lstm_no_output_tanh`)"), ("cell", "memory cell (`lstm`)")):
        print(f"| {label} | " + " | ".join(cell(f"t51_{on}_b{b}_s1", T51[(on, b)]) for b in (0, 50, 500)) + " |")
    print("\nTable 5.II: SRNN, ours [95%] (thesis, PTB)\n")
    print("| | " + " | ".join(f"lr {lr}, clip {gc}" for lr, gc in T52_COLUMNS) + " |\n|---|---|---|---|---|")
    for act in ("tanh", "relu", "trec"):
        for b in (0, 500):
            row = [cell(f"t52_{act}_b{b}_lr{lr}_gc{gc}_s1", T52[(act, b)][i]) for i, (lr, gc) in enumerate(T52_COLUMNS)]
            print(f"| {act}, β = {b} | " + " | ".join(row) + " |")
    print("\nTable 5.III: zero-bias IRNN (lr 0.002, clip 1), ours [95%] (thesis, PTB)\n")
    print("| | " + " | ".join(T53_HEADS) + " |\n|---|" + "---|" * len(T53_HEADS))
    for b in (50, 500):
        row = []
        for i, kind in enumerate(T53_KINDS):
            name = "t52_trec_b500_lr0.002_gc1_s1" if (kind, b) == ("norm", 500) else f"t53_{kind}_b{b}_s1"
            row.append(cell(name, T53[b][i]))
        print(f"| β = {b} | " + " | ".join(row) + " |")
    print("\nEvery run: iterations, CPU seconds, best validation bpc (500 sequences), NaN-rule roll-backs\n")
    print("| run | iterations | CPU s | best valid bpc | roll-backs |\n|---|---|---|---|---|")
    for name in cmds:
        _, facts = run_facts(name)
        if facts:
            it, cpu, best, rb = facts
            print(f"| {name} | {it:,} | {cpu:.0f} | {best:.3f} | {rb} |" if best is not None else
                  f"| {name} | {it:,} | {cpu:.0f} | - | {rb} |")
    print("\nCommands:\n\n```sh")
    for line in cmds.values():
        print(line)
    print("```")


if __name__ == "__main__":
    main()
