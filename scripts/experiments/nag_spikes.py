#!/usr/bin/env python3
"""Gradient spikes and escapes in the per-iteration logs of NAG addition T = 80 runs.

docs/results/nag_addition_T80.md's hypothesis: single large gradients, amplified by the momentum, undo what a
run has learnt, so some seeds never leave the chance level (validation error ~0.84). This reads each run's
metrics.jsonl (one JSON object per iteration: iteration, loss, grad_norm, update_norm, clipped, lr, momentum;
every 2,500 iterations also valid_error, valid_loss) and prints, per run, one Markdown table row:

- outcome: the last validation error in the log (and its iteration; a run still being written is read up to
  its last complete line);
- escape: the first evaluation with validation error < 0.8 (the escape happened after the evaluation before);
- per phase of the schedule, `median/p99/max/spikes` of grad_norm (grad_norm is the norm before any clipping),
  plus `c%` the share of clipped steps when the run clipped. Phases are derived from the lr and momentum
  columns: a new phase starts wherever lr changes, and where momentum changes between two constant stretches
  of >= 500 iterations each (so the ICML 2013 ramp, a new momentum every 250 iterations, is one phase per
  learning rate, labelled with its momentum range);
- spike: a step whose grad_norm exceeds 10x the median grad_norm of the preceding 500 steps (of the preceding
  50..499 steps in the first 500 iterations; none before iteration 51). Spikes within 200 iterations of each
  other form one event;
- loss after spikes: per event (anchored at its first spike step i), mean loss over iterations i+1..i+200
  relative to i-200..i-1 (the loss logged at i is the batch loss before step i's update), averaged over the
  events with both windows in the log; `base` is the median of the same quantity over every step of the run
  (the typical drift, with or without a spike);
- train loss / chance: the lowest mean training loss over 500 consecutive iterations, and the mean over the
  last 2,000, as multiples of the chance loss 1/48 (predicting the mean 0.5 of the target (a + b) / 2);
- escape context: spike events in the 5,000 iterations before the last chance-level evaluation, between it
  and the escape evaluation, and in the 5,000 after;
- late regime (the runs that never escape): the last phase's median grad_norm against the run's own median in
  its first phase with momentum at its final value, the spike events after that phase begins, and the training
  loss over the last 2,000 iterations against the chance loss; `quiet` when no spike event comes after that.

Under the table, per run, the largest setbacks of the training loss: the steps i where the mean loss of the
200 iterations after i exceeds the mean of the 200 before by >= 15% (the largest, at least 1,000 apart), with
the largest grad_norm / (preceding-500 median) within 20 iterations of i, lr and momentum there, and the
update_norm at that gradient relative to the preceding-500 median update_norm. With --blocks N, also per run
a line per N iterations: mean loss, median and max grad_norm, spike steps.

Usage: /usr/bin/python3 scripts/experiments/nag_spikes.py [--blocks N] RUN_DIR...
"""
import json
import math
import sys

import numpy as np

SPIKE_FACTOR, REF_WINDOW, REF_MIN = 10.0, 500, 50
LOSS_WINDOW, EVENT_GAP, ESCAPE_ERROR, CONTEXT = 200, 200, 0.8, 5000
MIN_MOMENTUM_STRETCH = 500
SETBACK_RISE, SETBACK_SEP, SETBACK_TOP, SETBACK_NEAR = 0.15, 1000, 3, 20
CHANCE_LOSS = 1.0 / 48


def load(run):
    rows, evals = {}, {}
    with open(f"{run}/metrics.jsonl") as f:
        for line in f:
            try:
                r = json.loads(line)
                it = int(r["iteration"])
                rows[it] = (float(r["loss"]), float(r["grad_norm"]), float(r["update_norm"]),
                            bool(r["clipped"]), float(r["lr"]), float(r["momentum"]))
            except (ValueError, KeyError, TypeError):
                continue  # a partial last line of a run still being written
            if "valid_error" in r:
                evals[it] = float(r["valid_error"])
    its = np.array(sorted(rows))
    cols = np.array([rows[i] for i in its], dtype=np.float64).T
    names = ("loss", "grad", "update", "clipped", "lr", "momentum")
    d = dict(zip(names, cols))
    d["clipped"] = d["clipped"] > 0.5
    d["it"] = its
    d["evals"] = sorted(evals.items())
    return d


def preceding_median(x, window=REF_WINDOW, chunk=4000):
    """ref[i] = median(x[i-window:i]); over the available 50.. steps before `window`; NaN before that."""
    n = len(x)
    ref = np.full(n, np.nan)
    for i in range(REF_MIN, min(window, n)):
        ref[i] = np.median(x[:i])
    if n > window:
        views = np.lib.stride_tricks.sliding_window_view(x[:-1], window)  # views[j] = x[j:j+window] -> ref[j+window]
        for a in range(0, len(views), chunk):
            ref[window + a:window + a + chunk] = np.median(views[a:a + chunk], axis=1)
    return ref


def phases(lr, mom):
    """[(start index, end index exclusive)] from the lr and momentum columns."""
    n = len(lr)
    change = np.flatnonzero((lr[1:] != lr[:-1]) | (mom[1:] != mom[:-1])) + 1
    seg = np.concatenate(([0], change, [n]))  # constant (lr, momentum) stretches
    cuts = [0]
    for k in range(1, len(seg) - 1):
        b = seg[k]
        if lr[b] != lr[b - 1]:
            cuts.append(b)
        elif seg[k] - seg[k - 1] >= MIN_MOMENTUM_STRETCH and seg[k + 1] - seg[k] >= MIN_MOMENTUM_STRETCH:
            cuts.append(b)
    cuts.append(n)
    return list(zip(cuts[:-1], cuts[1:]))


def events(spike_idx):
    """Group spike indices closer than EVENT_GAP: [(first, last)]."""
    out = []
    for i in spike_idx:
        if out and i - out[-1][1] <= EVENT_GAP:
            out[-1] = (out[-1][0], i)
        else:
            out.append((i, i))
    return out


def loss_change(loss, i):
    """Mean loss of the LOSS_WINDOW steps after step i relative to the LOSS_WINDOW before; None at the edges."""
    if i - LOSS_WINDOW < 0 or i + 1 + LOSS_WINDOW > len(loss):
        return None
    before = loss[i - LOSS_WINDOW:i].mean()
    return loss[i + 1:i + 1 + LOSS_WINDOW].mean() / before - 1


def fmt_g(x):
    if not math.isfinite(x):
        return "nan"
    return f"{x:.2g}" if x < 10 else f"{x:.0f}"


def analyse(run):
    d = load(run)
    it, loss, g, u = d["it"], d["loss"], d["grad"], d["update"]
    n = len(it)
    ref = preceding_median(g)
    with np.errstate(invalid="ignore"):
        ratio = g / ref
        spike = ratio > SPIKE_FACTOR
    spike_idx = np.flatnonzero(spike)
    ev = events(spike_idx)
    ph = phases(d["lr"], d["momentum"])
    any_clip = d["clipped"].any()

    # per phase
    cells = []
    for a, b in ph:
        gg = g[a:b]
        lrs = d["lr"][a]
        m0, m1 = d["momentum"][a:b].min(), d["momentum"][a:b].max()
        mu = f"{m0:g}" if m0 == m1 else f"{m0:.2f}-{m1:.2f}"
        label = f"{it[a]}-{it[b - 1]} (lr {lrs:g}, mu {mu})"
        stats = (f"{np.median(gg):.2g}/{fmt_g(np.percentile(gg, 99))}/{fmt_g(gg.max())}/"
                 f"{int(spike[a:b].sum())}")
        if any_clip:
            stats += f" c{100 * d['clipped'][a:b].mean():.0f}%"
        cells.append((label, stats))

    # loss change after spike events, and the drift baseline over every step
    ch = [c for c in (loss_change(loss, a) for a, _ in ev) if c is not None]
    csum = np.concatenate(([0.0], np.cumsum(loss)))
    idx = np.arange(LOSS_WINDOW, n - LOSS_WINDOW)
    before = (csum[idx] - csum[idx - LOSS_WINDOW]) / LOSS_WINDOW
    after = (csum[idx + 1 + LOSS_WINDOW] - csum[idx + 1]) / LOSS_WINDOW
    rise = after / before - 1  # rise[k] belongs to step idx[k]
    base = np.median(rise)
    if ch:
        spike_loss = f"{100 * np.mean(ch):+.0f}% ({len(ch)} ev., {sum(c > 0.15 for c in ch)} > +15%); base {100 * base:+.1f}%"
    else:
        spike_loss = f"- (0 ev.); base {100 * base:+.1f}%"

    # training loss against chance: the lowest 500-iteration mean (from iteration 501) and the last 2,000
    run_mean = np.convolve(loss, np.ones(500) / 500, "valid") / CHANCE_LOSS  # run_mean[k]: iterations k+1..k+500
    kmin = int(np.argmin(run_mean)) if len(run_mean) else 0
    train = (f"min {run_mean[kmin]:.2f} (its {it[kmin]}-{it[kmin + 499]}); last 2,000 {loss[-2000:].mean() / CHANCE_LOSS:.2f}"
             if len(run_mean) else "n/a")

    # outcome and escape
    evals = d["evals"]
    outcome = f"{evals[-1][1]:.3f} @{evals[-1][0]}" if evals else "n/a"
    if it[-1] != 50000:
        outcome += f" (log ends at {it[-1]})"
    esc = next((k for k, (_, e) in enumerate(evals) if e < ESCAPE_ERROR), None)
    ev_start_it = np.array([it[a] for a, _ in ev])

    def count(lo, hi):  # spike events with lo < iteration <= hi
        return int(((ev_start_it > lo) & (ev_start_it <= hi)).sum())

    if esc is not None:
        e_it = evals[esc][0]
        p_it = evals[esc - 1][0] if esc > 0 else 0
        escape = f"{e_it} (after {p_it})"
        context = (f"before {count(p_it - CONTEXT, p_it)} / between {count(p_it, e_it)} / "
                   f"after {count(e_it, e_it + CONTEXT)}")
    else:
        escape = "never"
        # late regime: from the first phase at the final momentum to the end
        final_mu = d["momentum"][-1]
        k0 = next(k for k, (a, b) in enumerate(ph) if d["momentum"][a] == final_mu)
        a0 = ph[k0][0]
        med_first = np.median(g[ph[k0][0]:ph[k0][1]])
        med_last = np.median(g[ph[-1][0]:ph[-1][1]])
        late_ev = count(it[a0] - 1, it[-1])
        last_ev = it[ev[-1][0]] if ev else None
        tail = loss[-2000:].mean() / CHANCE_LOSS
        kind = "spiky" if late_ev > 0 else "quiet"
        context = (f"{kind}: {late_ev} ev. from {it[a0]} (last spike event @{last_ev}); median g {med_first:.2g} "
                   f"-> {med_last:.2g} in the last phase; loss {tail:.2f}x chance (last 2,000)")

    # setbacks: largest loss rises, >= SETBACK_SEP apart
    setbacks = []
    order = np.argsort(-rise)
    taken = []
    for k in order:
        if rise[k] < SETBACK_RISE or len(taken) >= SETBACK_TOP:
            break
        i = idx[k]
        if any(abs(i - j) < SETBACK_SEP for j in taken):
            continue
        taken.append(i)
        lo, hi = max(0, i - SETBACK_NEAR), min(n, i + SETBACK_NEAR + 1)
        w = ratio[lo:hi]
        if np.all(np.isnan(w)):
            setbacks.append(f"@{it[i]} loss {before[k]:.4f} -> {after[k]:.4f} ({100 * rise[k]:+.0f}%); no reference")
            continue
        j = lo + int(np.nanargmax(w))
        uref = np.median(u[max(0, j - REF_WINDOW):j]) if j > 0 else np.nan
        setbacks.append(
            f"@{it[i]} loss {before[k]:.4f} -> {after[k]:.4f} ({100 * rise[k]:+.0f}%); largest g/ref within "
            f"{SETBACK_NEAR}: {ratio[j]:.1f}x (g {g[j]:.3g} @{it[j]}, lr {d['lr'][j]:g}, mu {d['momentum'][j]:g}, "
            f"update {u[j] / uref:.0f}x median{', clipped' if d['clipped'][j] else ''})")
    return dict(run=run, train=train, outcome=outcome, escape=escape, cells=cells, spikes=len(spike_idx), events=len(ev),
                spike_loss=spike_loss, context=context, setbacks=setbacks, d=d, spike=spike)


def blocks(res, size):
    d, spike = res["d"], res["spike"]
    it, loss, g = d["it"], d["loss"], d["grad"]
    print(f"\n{res['run']}: per {size} iterations (mean loss / chance, median g, max g, spike steps)")
    for a in range(0, len(it), size):
        s = slice(a, a + size)
        print(f"  {it[a]:>6}-{it[min(a + size, len(it)) - 1]:<6} loss {loss[s].mean() / CHANCE_LOSS:5.2f}x  "
              f"g {np.median(g[s]):.3g} / {g[s].max():.3g}  spikes {int(spike[s].sum())}")


def main():
    args = sys.argv[1:]
    block = 0
    if args[:1] == ["--blocks"]:
        block, args = int(args[1]), args[2:]
    if not args:
        sys.exit(__doc__)
    results = [analyse(r) for r in args]
    print(f"Spike: grad_norm > {SPIKE_FACTOR:g}x the median of the preceding {REF_WINDOW} steps. "
          f"Phase cells: median/p99/max grad_norm/spike steps (c = clipped share).\n")
    print("| run | outcome (valid err) | escape (valid < 0.8) | phases: med/p99/max/spikes | spike steps (events) "
          "| train loss / chance (500-it mean) | loss after spike events vs before (200 its) | escape context (spike events) or late regime |")
    print("|---|---|---|---|---|---|---|---|")
    for r in results:
        ph = "<br>".join(f"{lab}: {st}" for lab, st in r["cells"])
        print(f"| {r['run']} | {r['outcome']} | {r['escape']} | {ph} | {r['spikes']} ({r['events']}) | {r['train']} | "
              f"{r['spike_loss']} | {r['context']} |")
    print(f"\nLargest training-loss setbacks (mean of {LOSS_WINDOW} its after vs before, >= "
          f"{100 * SETBACK_RISE:.0f}%, >= {SETBACK_SEP} apart):")
    for r in results:
        print(f"- {r['run']}: " + ("; ".join(r["setbacks"]) if r["setbacks"] else "none"))
    if block:
        for r in results:
            blocks(r, block)


if __name__ == "__main__":
    main()
