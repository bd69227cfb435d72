#!/usr/bin/python3
"""What an adding-task IRNN checkpoint has learned (krueger_adding.md, "Why the stabilized runs stay on the
plateau"): the network of tapegrad's `irnn` (u_t = x_t W_hx + h_{t-1} W_hh + b_h, h_t = relu(u_t), h_0 = 0; the
output h_T W_oh + b_o) run in numpy on fresh sequences of the `adding` task (T = 400, one marker in each half),
and per checkpoint:
  - the test MSE (1/6: a constant; 1/12: the short-sighted baseline);
  - the least-squares fit of the output on the two marked numbers (a solved net: both slopes near 1; the
    constant predictor: both 0) and the share of the output's variance the fit explains;
  - the hidden norm ||h_t|| (mean over sequences) at a few steps, and the stabilizer's penalty
    (1/T) sum_t (||h_t|| - ||h_{t-1}||)^2 (t from 2: skip_first) per sequence, mean;
  - the weights: the spectral radius of W_hh, |W_hh - I|, the norms of W_hx's rows (value, marker) and of W_oh;
  - how each term of the loss changes when one weight is scaled (W_hx's value row, its marker row, W_hh, W_oh):
    d/d log s of the task term (half the MSE) and of the penalty at beta = 1, on the first 500 sequences.
Usage: krueger_probe.py CHECKPOINT.npz [...] [--n 2000] [--seed 5]; reads the parameters the trainer saved."""
import argparse

import numpy as np


def adding_batch(rng, n, T):
    x = np.zeros((n, T, 2))
    x[:, :, 0] = rng.random((n, T))
    first = rng.integers(0, T // 2, n)
    second = rng.integers(T // 2, T, n)
    rows = np.arange(n)
    x[rows, first, 1] = 1
    x[rows, second, 1] = 1
    return x, x[rows, first, 0], x[rows, second, 0]


def forward(params, x):
    """The output at the last step and ||h_t|| for every step and sequence."""
    W_hx, W_hh, b_h, W_oh, b_o = params
    n, T, _ = x.shape
    h = np.zeros((n, W_hh.shape[0]))
    norms = np.zeros((n, T))
    for t in range(T):
        h = np.maximum(x[:, t] @ W_hx + h @ W_hh + b_h, 0)
        norms[:, t] = np.linalg.norm(h, axis=1)
    return (h @ W_oh + b_o)[:, 0], norms


def step_penalty(norms):
    """The stabilizer's penalty at beta = 1 with skip_first (models/regularizers.cc): norms[:, 0] is ||h_1|| (h_0 = 0
    is not a state), so the terms are t = 2..T; (1/T) times their sum, mean over sequences."""
    return (np.diff(norms, axis=1) ** 2).sum(axis=1).mean() / norms.shape[1]


def losses(params, x, target):
    """The trainer's two terms: half the squared error (mean over sequences) and the stabilizer's penalty at
    beta = 1, (1/T) sum_{t>=2} (||h_t|| - ||h_{t-1}||)^2 (mean over sequences)."""
    y, norms = forward(params, x)
    return 0.5 * np.mean((y - target) ** 2), step_penalty(norms)


def scaling_slopes(params, x, target, which, row=None, eps=1e-4):
    """d(task term)/d log s and d(penalty)/d log s for parameter WHICH (or its ROW) scaled by s, at s = 1: whether
    each term pulls that weight up (negative) or down (positive), by central differences."""
    def at(scale):
        p = [w.copy() for w in params]
        if row is None:
            p[which] *= scale
        else:
            p[which][row] *= scale
        return np.array(losses(p, x, target))
    return (at(np.exp(eps)) - at(np.exp(-eps))) / (2 * eps)


def probe(path, x, a, b):
    z = np.load(path)
    params = [z[f"param/irnn/{k}"].astype(np.float64) for k in ("W_hx", "W_hh", "b_h", "W_oh", "b_o")]
    W_hx, W_hh, b_h, W_oh, b_o = params
    target = a + b
    y, norms = forward(params, x)
    T = norms.shape[1]
    slopes = {name: scaling_slopes(params, x[:500], target[:500], which, row)
              for name, which, row in (("value", 0, 0), ("marker", 0, 1), ("W_hh", 1, None), ("W_oh", 3, None))}
    design = np.stack([a, b, np.ones_like(a)], axis=1)
    coef, *_ = np.linalg.lstsq(design, y, rcond=None)
    explained = 1 - np.var(y - design @ coef) / max(np.var(y), 1e-300)
    penalty = step_penalty(norms)
    return {
        "iteration": int(z["iteration"][0]),
        "mse": float(np.mean((y - target) ** 2)),
        "slope_first": coef[0], "slope_second": coef[1], "fit_r2": explained, "y_std": float(np.std(y)),
        "norm_t1": norms[:, 0].mean(), f"norm_t{T // 2}": norms[:, T // 2 - 1].mean(), f"norm_t{T}": norms[:, -1].mean(),
        "penalty": penalty,
        "rho_W_hh": float(np.max(np.abs(np.linalg.eigvals(W_hh)))),
        "W_hh_minus_I": float(np.linalg.norm(W_hh - np.eye(len(W_hh)))),
        "W_hx_value": float(np.linalg.norm(W_hx[0])), "W_hx_marker": float(np.linalg.norm(W_hx[1])),
        "b_h": float(np.linalg.norm(b_h)), "W_oh": float(np.linalg.norm(W_oh)),
        **{f"d{term}/dlog {name}": float(v[i]) for name, v in slopes.items() for i, term in enumerate(("task", "pen"))},
    }


def main():
    p = argparse.ArgumentParser()
    p.add_argument("checkpoints", nargs="+")
    p.add_argument("--n", type=int, default=2000)
    p.add_argument("--seed", type=int, default=5)
    p.add_argument("--T", type=int, default=400)
    args = p.parse_args()
    x, a, b = adding_batch(np.random.default_rng(args.seed), args.n, args.T)
    rows = [(c, probe(c, x, a, b)) for c in args.checkpoints]
    keys = list(rows[0][1])
    print("| checkpoint | " + " | ".join(keys) + " |")
    print("|---" * (len(keys) + 1) + "|")
    for c, r in rows:
        print(f"| {c} | " + " | ".join(f"{r[k]:.4g}" if isinstance(r[k], float) else str(r[k]) for k in keys) + " |")


if __name__ == "__main__":
    main()
