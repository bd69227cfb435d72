#!/usr/bin/env python3
"""Krause's Tables 4.1-4.5 (seed 001 digest §4.2) beside ours, from the runs of scripts/experiments/krause.sh
(after EVAL=1): per run our validation and test bits per character (the best validation's parameters, every
validation and test sequence) with the test's 95% interval, iterations and CPU seconds, then Krause's Penn
Treebank row (train, validation, test, his parameter count) and the Adam run of the same model at the same
CPU budget. A run with no directory is "not run", one without OUT/done "unfinished", one without eval.txt
"not scored".
Usage: /usr/bin/python3 scripts/experiments/krause_table.py [ROOT]   (ROOT default runs/krause)"""
import os
import re
import sys

from runs import NUM, REPO, bold_interval, live_or_archived, progress, script_commands, state

ROOT = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.join(REPO, "runs", "krause")
VALID = re.compile(rf"^valid part: .* bits per character {NUM}", re.M)

# (run, label, Krause's train / valid / test bpc and parameter count, the model's Adam run), Table 4.5's order
ROWS = [("rnn_structural", "RNN / structural (μ-alone, adapted in CG)", (1.80, 2.04, 1.99, 216400), "rnn_adam"),
        ("rnn_linesearch", "RNN / line-search damping", (1.78, 2.03, 1.97, 216400), "rnn_adam"),
        ("mrnn_structural", "mRNN / structural", (1.69, 1.90, 1.87, 215880), "mrnn_adam"),
        ("mrnn_linesearch", "mRNN / line-search damping", (1.72, 1.88, 1.85, 215880), "mrnn_adam"),
        ("lstm_online", "LSTM online (truncated gradient; here with Adam)", (1.81, 2.03, 1.98, 220350), "lstm_adam"),
        ("lstm_hf", "LSTM Hessian-free", (1.75, 1.93, 1.88, 220350), "lstm_adam"),
        ("stacked_mrnn_hf", "stacked mRNN (HF)", (1.74, 1.90, 1.87, 219090), "stacked_mrnn_adam"),
        ("mlstm_hf", "mLSTM (HF)", (1.69, 1.86, 1.82, 215900), "mlstm_adam")]


def commands():
    return script_commands("krause.sh", ROOT, ("RUNS", "EVERY", "BUDGET", "EVAL"), SEEDS="1")


def facts(name):
    """(valid, test text, iterations, CPU s) of ROOT/<name>_s1, or its state in place of the scores."""
    out = live_or_archived(os.path.join(ROOT, name + "_s1"), "krause")
    s = state(out)
    if s == "not run":
        return s, s, 0, 0.0
    iterations, cpu = progress(out)
    if s:
        return s, s, iterations, cpu
    v = VALID.search(open(os.path.join(out, "eval.txt")).read())
    return (f"{float(v.group(1)):.3f}" if v else "?"), bold_interval(out, "bpc"), iterations, cpu


def main():
    cmds = commands()
    print("| model / damping | ours: valid bpc | ours: test bpc [95%] | iterations | CPU s | Krause (PTB): train / valid / test | "
          "his parameters | Adam, same model and budget: valid / test bpc (iterations) |")
    print("|---|---|---|---|---|---|---|---|")
    for run, label, (tr, va, te, n), adam in ROWS:
        v, t, it, cpu = facts(run)
        av, at, ait, _ = facts(adam)
        print(f"| {label} | {v} | {t} | {it:,} | {cpu:.0f} | {tr:.2f} / {va:.2f} / {te:.2f} | {n:,} | "
              f"{av} / {at} ({ait:,}) |")
    print("\nCommands:\n\n```sh")
    for line in cmds.values():
        print(line)
    print("```")


if __name__ == "__main__":
    main()
