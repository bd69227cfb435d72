#!/usr/bin/env python3
"""The adding-task comparison of scripts/experiments/krueger_adding.sh (after EVAL=1) beside the thesis (seed 004
§5.4.3): per β, how many runs beat the short-sighted baseline (test MSE < 1/12; in parentheses, those whose
whole 95% interval is below it), how many did no better than the
constant predictor (the 95% interval of the test MSE reaches 1/6), the mean test MSE, and every run's test MSE
with its 95% interval, iterations, CPU seconds and when validation first went below 1/12 (the plateau's end).
The test MSE is that of the best validation's parameters (eval.txt). Runs scored with EVAL_LAST=1 also have the
last checkpoint's (eval_last.txt, the parameters at the end of the budget): a second table counts those, over the
runs that have them (the thesis does not say which of the two it reports). For each, the counts are set against
chance (Fisher's exact test, two-sided) and against the thesis's success rates (binomial).
Usage: /usr/bin/python3 scripts/experiments/krueger_adding_table.py [ROOT]   (ROOT default runs/krueger_adding_nanrule,
the script's default; the runs without the NaN rule: runs/krueger_adding, runs/krueger_adding_T100, ..._T200)"""
import json
import math
import os
import re
import sys

from runs import archived_path, interval, live_or_archived, progress, records, state

ROOT = sys.argv[1] if len(sys.argv) > 1 else "runs/krueger_adding_nanrule"
GROUP = os.path.basename(os.path.normpath(ROOT))  # runs/<group> is archived as docs/results/runs/<group>
THESIS = {0: "4 of 9 below 1/12, 4 of 9 no better than a constant, mean 0.105",
          1: "8 of 9 below 1/12, mean 0.059"}

runs = {}
T = None
rule = None  # nan_rule: a root holds runs of one rule
kept = os.path.dirname(archived_path(os.path.join(ROOT, "x"), GROUP) or "")  # runs of earlier sessions
names = set(os.listdir(ROOT) if os.path.isdir(ROOT) else []) | set(os.listdir(kept) if kept and os.path.isdir(kept) else [])
for name in sorted(names):
    m = re.fullmatch(r"b([0-9.]+)_s(\d+)", name)
    out = live_or_archived(os.path.join(ROOT, name), GROUP)
    if not m or not os.path.isdir(out):
        continue
    beta, seed = float(m.group(1)), int(m.group(2))
    rs = records(out)
    it, cpu = progress(out, rs)
    mse = interval(out, "error_rate") if state(out) is None else None
    last = interval(out, "error_rate", "eval_last.txt") if state(out) is None else None
    below = next((r for r in rs if isinstance(r.get("valid_error"), (int, float)) and r["valid_error"] < 1 / 12),
                 None)
    first = f"{below['iteration']:,} ({below['cpu_seconds']:.0f} s)" if below else "never"
    runs.setdefault(beta, []).append((seed, mse, it, cpu, os.path.exists(os.path.join(out, "done")), first, last))
    config = json.load(open(os.path.join(out, "config.json")))
    run_T, run_rule = config["task_options"]["T"], config.get("nan_rule", False)
    if T is not None and run_T != T:
        sys.exit(f"krueger_adding_table.py: {ROOT} mixes sequence lengths (T = {T} and {run_T} at {out}): one T per root")
    if rule is not None and run_rule != rule:
        sys.exit(f"krueger_adding_table.py: {ROOT} mixes runs with and without nan_rule (at {out}): one rule per root")
    T, rule = run_T, run_rule

print(f"T = {T}, NaN rule {'on' if rule else 'off'}\n" if T else "no runs under " + ROOT)
print("| β | scored runs | test MSE < 1/12 (whole 95% interval below) | interval reaches 1/6 (a constant does as well) | mean test MSE | thesis |")
print("|---|---|---|---|---|---|")


def counts(rows):
    """(scored, below 1/12, whole interval below 1/12, interval reaching 1/6, mean) over (value, low, high) rows."""
    scored = [v for v in rows if v]
    mean = f"{sum(v[0] for v in scored) / len(scored):.4f}" if scored else "-"
    # a point estimate just under 1/12 is not a model that beats the baseline (β = 1 seed 5: 0.0829 [0.0806, 0.0851])
    return (len(scored), sum(v[0] < 1 / 12 for v in scored), sum(v[2] < 1 / 12 for v in scored),
            sum(v[2] >= 1 / 6 for v in scored), mean)


for beta, rs in sorted(runs.items()):
    n, below, surely, const, mean = counts([r[1] for r in rs])
    print(f"| {beta:g} | {n} | {below} ({surely}) | {const} | {mean} | {THESIS.get(int(beta), '') if T == 400 else '(the thesis: T = 400 only)'} |")
if any(r[6] for rs in runs.values() for r in rs):
    print("\nThe last checkpoint's parameters (eval_last.txt; runs without it are not counted):\n")
    print("| β | scored runs | test MSE < 1/12 (whole 95% interval below) | interval reaches 1/6 | mean test MSE |")
    print("|---|---|---|---|---|")
    for beta, rs in sorted(runs.items()):
        n, below, surely, const, mean = counts([r[6] for r in rs])
        print(f"| {beta:g} | {n} | {below} ({surely}) | {const} | {mean} |")


def prob_text(p):
    """A probability to four places, or "< 0.0001" where four places would print zero."""
    return "< 0.0001" if p < 5e-5 else f"{p:.4f}"


def p_value_text(p):
    """"p = 0.0014", or "p < 0.0001"."""
    text = prob_text(p)
    return "p " + text if text.startswith("<") else "p = " + text


def fisher_two_sided(a, n0, b, n1):
    """Two-sided Fisher exact p for a of n0 successes against b of n1: the probability, with the margins fixed, of a
    table no more likely than this one (the direction is not chosen after seeing the data)."""
    k, n = a + b, n0 + n1
    pmf = {x: math.comb(k, x) * math.comb(n - k, n0 - x) / math.comb(n, n0) for x in range(max(0, k - n1), min(k, n0) + 1)}
    return min(1.0, sum(p for p in pmf.values() if p <= pmf[a] * (1 + 1e-9)))


def at_most(k, n, p):
    """P(at most k successes in n runs of success rate p)."""
    return sum(math.comb(n, x) * p ** x * (1 - p) ** (n - x) for x in range(k + 1))


def statistics(column, what):
    """How far the counts of `column` (1: the best validation's parameters, 6: the last) are from chance and from
    the thesis's rates (β = 0 below 1/12 in 4 of 9 runs, β = 1 in 8 of 9), for β = 0 against β = 1."""
    if T != 400 or 0.0 not in runs or 1.0 not in runs:
        return
    plain, stab = counts([r[column] for r in runs[0.0]]), counts([r[column] for r in runs[1.0]])
    if not plain[0] or not stab[0]:
        return
    print(f"\n{what}:")
    for name, i in (("point estimate", 1), ("whole interval", 2)):
        a, b = plain[i], stab[i]
        line = f"- below 1/12 by the {name}: β = 0 {a} of {plain[0]}, β = 1 {b} of {stab[0]}"
        if a / plain[0] == b / stab[0]:
            print(line + " (the same rate: nothing to test)")
        else:
            print(line + f"; Fisher's exact test, two-sided: {p_value_text(fisher_two_sided(a, plain[0], b, stab[0]))}")
    print(f"- at the thesis's rates: β = 1 at 8/9 gives at most {stab[1]} of {stab[0]} with probability "
          f"{prob_text(at_most(stab[1], stab[0], 8 / 9))}; β = 0 at 4/9 gives at least {plain[1]} of {plain[0]} with "
          f"probability {prob_text(1 - at_most(plain[1] - 1, plain[0], 4 / 9) if plain[1] else 1)} (point estimates)")


statistics(1, "The best validation's parameters")
if any(r[6] for rs in runs.values() for r in rs):
    statistics(6, "The last checkpoint's parameters (the runs that have them)")
print("\n| β | seed | test MSE [95%] (10,000 fresh sequences) | last checkpoint's test MSE [95%] | iterations | CPU s | validation first below 1/12 |")
print("|---|---|---|---|---|---|---|")
for beta, rs in sorted(runs.items()):
    for seed, mse, it, cpu, done, first, last in sorted(rs):
        cell = f"{mse[0]:.4f} [{mse[1]:.4f}, {mse[2]:.4f}]" if mse else ("not scored" if done else "unfinished")
        last_cell = f"{last[0]:.4f} [{last[1]:.4f}, {last[2]:.4f}]" if last else "-"
        print(f"| {beta:g} | {seed} | {cell} | {last_cell} | {it:,} | {cpu:.0f} | {first} |")
