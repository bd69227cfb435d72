#!/usr/bin/python3
"""tapegrad against PyTorch on the same character-level training step, side by side in one run.

For each config (model, H, B, T; vocab 96; float32) it runs `tapegrad bench --model ... --json`
and the same model written in PyTorch, alternating the two sides for several rounds so that the
shared machine's load hits both alike, and prints per-config medians and ratios. A config
`ae:ENCODER:B` (e.g. ae:784-1000-500-250-30:200) does the same for the deep autoencoder on B random
images in [0, 1] (`tapegrad bench --network autoencoder`; PyTorch: nn.Sequential of Linear layers,
Sigmoid units, a linear code layer, logits out, BCEWithLogitsLoss(reduction='sum') / B, which is
tapegrad's loss: summed over the pixels, mean over the images). A config `ctc:H:B:T` times the speech
step (`tapegrad bench --model deep_blstm --ctc`): a 3-layer deep bidirectional LSTM of H units per
direction on B random sequences of T frames of 39 features, 40 classes (the blank last), CTC against
random label sequences of T/10 labels, the loss summed over the sequences / B (PyTorch: nn.LSTM with
num_layers=3, bidirectional=True, nn.Linear, log_softmax and F.ctc_loss(reduction='sum') / B):

  step      forward + backward of the whole unrolled sequence (loss: mean next-symbol cross-entropy),
            or of the autoencoder on its batch: a first-order optimizer's step minus the update
  GN        one Gauss-Newton product G v = J^T H_L J v at the logits (tapegrad: cached linearization;
            PyTorch: forward-mode AD for J v, then a backward pass; and the double-backward trick)
  GFLOP/s   tapegrad's matrix-product work per second, against plain cblas_sgemm of exactly the
            step's shapes and counts, measured in the same `tapegrad bench` process

For `lstm` configs a third side runs when it is built (bench/onednn_lstm.cc, needs Debian's
libdnnl-dev): oneDNN's own LSTM primitive with the same output layer (forward training + backward,
one-hot inputs, weights reordered into its layouts every step), alternating with the other two; its
GFLOP/s is tapegrad's step work over its time, so the three columns compare like for like.

All sides use the same number of threads (OPENBLAS_NUM_THREADS, OMP_NUM_THREADS and
torch.set_num_threads are all pinned: torch's own setting does not control OpenBLAS).
PyTorch is optional (Debian's python3-torch); without it only the tapegrad side runs.

  /usr/bin/python3 scripts/bench_vs_torch.py                     # the default configs
  /usr/bin/python3 scripts/bench_vs_torch.py --configs lstm:512:128:100 --rounds 3 --threads 1
  /usr/bin/python3 scripts/bench_vs_torch.py --configs ae:784-1000-500-250-30:200 --rounds 5 --threads 1
  /usr/bin/python3 scripts/bench_vs_torch.py --configs ctc:64:16:300 ctc:250:16:300 --rounds 3 --threads 1
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

DEFAULT_CONFIGS = ["lstm:256:32:100", "lstm:512:128:100", "mlstm:256:32:100", "mrnn:256:32:100"]
VOCAB = 96


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--configs", nargs="+", default=DEFAULT_CONFIGS, help="model:H:B:T (model: lstm, mlstm, mrnn), or ae:ENCODER:B (the autoencoder, e.g. ae:784-1000-500-250-30:200)")
    ap.add_argument("--threads", type=int, default=1, help="BLAS threads on both sides")
    ap.add_argument("--rounds", type=int, default=2, help="alternating tapegrad / PyTorch rounds per config")
    ap.add_argument("--reps", type=int, default=5, help="timed repetitions per pass and round")
    ap.add_argument("--tapegrad", default=None, help="path to the tapegrad binary (default: build/tools/tapegrad)")
    ap.add_argument("--json", default=None, help="also write all results to this file")
    ap.add_argument("--no-torch", action="store_true", help="run the tapegrad side only")
    ap.add_argument("--onednn", default=None,
                    help="oneDNN LSTM harness (default: build/bench/tapegrad_onednn_lstm when built); 'none' skips it")
    return ap.parse_args()


def machine_line():
    """CPU model, cores and the widest vector instruction set, as tapegrad's own machine line says them."""
    model, flags = "unknown CPU", set()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name") and model == "unknown CPU":
                    model = line.split(":", 1)[1].strip()
                elif line.startswith("flags") and not flags:
                    flags = set(line.split(":", 1)[1].split())
    except OSError:
        pass
    isa = "AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags else "no AVX2"
    return f"{model}, nproc {len(os.sched_getaffinity(0))}, {isa}"


# ---------------------------------------------------------------- PyTorch side (optional)

def load_torch(threads):
    try:
        import torch  # noqa: F401
    except ImportError:
        return None
    import torch
    torch.set_num_threads(threads)
    return torch


def torch_models(torch):
    """The zoo's lstm, mlstm and mrnn written in PyTorch, as cell loops over T steps (time-major
    symbols x[t] of B ids; zero initial state; logits per step). Weights are [from, to] as in tapegrad."""
    nn = torch.nn
    F = torch.nn.functional

    def p(*shape):
        return nn.Parameter(torch.randn(*shape) * 0.1)

    class Lstm(nn.Module):  # a = x W_gx + h W_gh + b; [i, f, o, g]; h = σ(o) tanh(c)
        def __init__(self, V, H):
            super().__init__()
            self.H = H
            self.W_gx, self.W_gh, self.b_g = p(V, 4 * H), p(H, 4 * H), p(4 * H)
            self.W_oh, self.b_o = p(H, V), p(V)

        def forward(self, x):
            T, B = x.shape
            h = torch.zeros(B, self.H)
            c = torch.zeros(B, self.H)
            xs = F.embedding(x, self.W_gx)  # [T, B, 4H]: a row lookup, as tapegrad's gather_rows
            out = []
            for t in range(T):
                a = torch.addmm(xs[t] + self.b_g, h, self.W_gh)
                i, f, o, g = a.chunk(4, 1)
                c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
                h = torch.sigmoid(o) * torch.tanh(c)
                out.append(h)
            return torch.addmm(self.b_o, torch.cat(out), self.W_oh)

    class FusedLstm(nn.Module):  # nn.LSTM over one-hot inputs: PyTorch's fused kernel
        def __init__(self, V, H):
            super().__init__()
            self.V = V
            self.lstm = nn.LSTM(V, H)
            self.out = nn.Linear(H, V)

        def forward(self, x):
            T, B = x.shape
            y, _ = self.lstm(F.one_hot(x, self.V).float())
            return self.out(y.reshape(T * B, -1))

    class CellLstm(nn.Module):  # nn.LSTMCell stepped over one-hot inputs
        def __init__(self, V, H):
            super().__init__()
            self.V, self.H = V, H
            self.cell = nn.LSTMCell(V, H)
            self.out = nn.Linear(H, V)

        def forward(self, x):
            T, B = x.shape
            xs = F.one_hot(x, self.V).float()
            h = torch.zeros(B, self.H)
            c = torch.zeros(B, self.H)
            out = []
            for t in range(T):
                h, c = self.cell(xs[t], (h, c))
                out.append(h)
            return self.out(torch.cat(out))

    class Mlstm(nn.Module):  # Krause: m = (h W_mh) ⊙ (x W_mx); a = x W_gx + m W_gm; c = σf c + σi a_g; h = tanh(c σo)
        def __init__(self, V, H):
            super().__init__()
            self.H = H
            self.W_mx, self.W_mh = p(V, H), p(H, H)
            self.W_gx, self.W_gm = p(V, 4 * H), p(H, 4 * H)
            self.W_oh = p(H, V)

        def forward(self, x):
            T, B = x.shape
            h = torch.zeros(B, self.H)
            c = torch.zeros(B, self.H)
            mx = F.embedding(x, self.W_mx)
            gx = F.embedding(x, self.W_gx)
            out = []
            for t in range(T):
                m = (h @ self.W_mh) * mx[t]
                a = torch.addmm(gx[t], m, self.W_gm)
                i, f, o, g = a.chunk(4, 1)
                c = torch.sigmoid(f) * c + torch.sigmoid(i) * g
                h = torch.tanh(c * torch.sigmoid(o))
                out.append(h)
            return torch.cat(out) @ self.W_oh

    class Mrnn(nn.Module):  # f = (x W_fx) ⊙ (h W_fh); u = f W_hf + x W_hx + b; h = tanh(u)
        def __init__(self, V, H):
            super().__init__()
            self.H = H
            self.W_fx, self.W_fh, self.W_hf = p(V, H), p(H, H), p(H, H)
            self.W_hx, self.b_h = p(V, H), p(H)
            self.W_oh, self.b_o = p(H, V), p(V)

        def forward(self, x):
            T, B = x.shape
            h = torch.zeros(B, self.H)
            fx = F.embedding(x, self.W_fx)
            hx = F.embedding(x, self.W_hx) + self.b_h
            out = []
            for t in range(T):
                f = fx[t] * (h @ self.W_fh)
                h = torch.tanh(torch.addmm(hx[t], f, self.W_hf))
                out.append(h)
            return torch.addmm(self.b_o, torch.cat(out), self.W_oh)

    return {"lstm": [("cell loop", Lstm), ("nn.LSTMCell loop", CellLstm), ("nn.LSTM fused", FusedLstm)],
            "mlstm": [("cell loop", Mlstm)],
            "mrnn": [("cell loop", Mrnn)]}


def torch_timings(torch, variants, H, B, T, reps):
    """Median ms of a training step (forward + backward) for each variant; GN products on the cell loop."""
    F = torch.nn.functional
    torch.manual_seed(1)
    x = torch.randint(0, VOCAB, (T, B))
    y = torch.randint(0, VOCAB, (T * B,))
    results = {}
    timed = timer(reps)
    loop_model = None
    for name, cls in variants:
        model = cls(VOCAB, H)
        params = list(model.parameters())

        def step():
            for q in params:
                q.grad = None
            F.cross_entropy(model(x), y).backward()

        results["step/" + name] = timed(step)
        if loop_model is None and name == "cell loop":
            loop_model = model

    if loop_model is not None:
        N = float(T * B)

        def loss_hessian_times(z, jv):  # H_L of mean softmax cross-entropy at logits z
            pr = torch.softmax(z.detach(), 1)
            return (pr * jv - pr * (pr * jv).sum(1, keepdim=True)) / N

        results.update(gn_timings(torch, loop_model, x, loss_hessian_times, timed))
    return results


def timer(reps):
    def timed(fn):
        fn()  # warm-up
        s = []
        for _ in range(reps):
            t0 = time.perf_counter()
            fn()
            s.append((time.perf_counter() - t0) * 1e3)
        return s
    return timed


def gn_timings(torch, model, x, loss_hessian_times, timed):
    """One Gauss-Newton product G v = J^T H_L J v at model(x)'s outputs for a random v, two ways: J v by
    forward-mode AD (parameters swapped for dual tensors), or by the double-backward trick (J v as the
    derivative of a vector-Jacobian product w.r.t. its cotangent); then one backward pass of H_L J v."""
    params = list(model.parameters())
    v = [torch.randn_like(q) for q in params]

    def gn_forward_ad():
        import torch.autograd.forward_ad as fwAD
        named = list(model.named_parameters())  # before the loop swaps attributes
        with fwAD.dual_level():
            saved = {}
            for (name, q), t in zip(named, v):
                saved[name] = q
                mod, attr = model, name
                if "." in name:
                    path, attr = name.rsplit(".", 1)
                    mod = model.get_submodule(path)
                delattr(mod, attr)
                setattr(mod, attr, fwAD.make_dual(q, t))
            try:
                z = model(x)
                zp, jv = fwAD.unpack_dual(z)
                torch.autograd.grad(zp, params, loss_hessian_times(zp, jv))
            finally:
                for name, q in saved.items():
                    mod, attr = model, name
                    if "." in name:
                        path, attr = name.rsplit(".", 1)
                        mod = model.get_submodule(path)
                    delattr(mod, attr)
                    setattr(mod, attr, q)

    def gn_double_backward():
        z = model(x)
        u = torch.zeros_like(z, requires_grad=True)
        g = torch.autograd.grad(z, params, u, create_graph=True)
        jv = torch.autograd.grad(g, u, v, retain_graph=True)[0]
        torch.autograd.grad(z, params, loss_hessian_times(z, jv))

    results = {}
    for name, fn in (("gn/forward-AD", gn_forward_ad), ("gn/double-backward", gn_double_backward)):
        try:
            results[name] = timed(fn)
        except Exception as e:  # report, do not hide: an unsupported op shows up in the table
            results[name] = f"failed: {type(e).__name__}: {e}"[:120]
    return results


def autoencoder_sizes(encoder):
    """784-1000-500-250-30 -> every layer's width, the mirrored decoder included."""
    enc = [int(n) for n in encoder.split("-")]
    return enc + enc[-2::-1]


def torch_autoencoder_timings(torch, encoder, B, reps):
    """Median ms of the autoencoder's training step and its GN products: Linear layers with Sigmoid
    units, the code layer (the encoder's last) linear, logits out; loss BCE-with-logits summed over the
    pixels and the images, divided by B (tapegrad's mean over images)."""
    nn = torch.nn
    F = torch.nn.functional
    torch.manual_seed(1)
    sizes = autoencoder_sizes(encoder)
    code = len(encoder.split("-")) - 2  # the layer that computes the code
    layers = []
    for l in range(len(sizes) - 1):
        layers.append(nn.Linear(sizes[l], sizes[l + 1]))
        if l != code and l + 2 < len(sizes):
            layers.append(nn.Sigmoid())
    model = nn.Sequential(*layers)
    x = torch.rand(B, sizes[0])
    params = list(model.parameters())
    timed = timer(reps)

    def step():
        for q in params:
            q.grad = None
        (F.binary_cross_entropy_with_logits(model(x), x, reduction="sum") / B).backward()

    def loss_hessian_times(z, jv):  # H_L of the summed BCE / B at logits z: σ(z)(1 - σ(z)) / B
        p = torch.sigmoid(z.detach())
        return p * (1 - p) * jv / B

    results = {"step/nn.Sequential": timed(step)}
    results.update(gn_timings(torch, model, x, loss_hessian_times, timed))
    return results


CTC_IN, CTC_CLASSES, CTC_LAYERS = 39, 40, 3


def torch_ctc_timings(torch, H, B, T, reps):
    """Median ms of the speech step: nn.LSTM(39, H, 3 layers, bidirectional), a linear layer to 40
    classes, log_softmax and CTC (blank 39) against T/10 random labels per sequence, summed / B."""
    nn = torch.nn
    F = torch.nn.functional
    torch.manual_seed(1)
    lstm = nn.LSTM(CTC_IN, H, num_layers=CTC_LAYERS, bidirectional=True)
    out = nn.Linear(2 * H, CTC_CLASSES)
    params = list(lstm.parameters()) + list(out.parameters())
    x = torch.randn(T, B, CTC_IN)
    L = max(1, T // 10)
    labels = torch.randint(0, CTC_CLASSES - 1, (B, L))
    input_lengths = torch.full((B,), T, dtype=torch.long)
    label_lengths = torch.full((B,), L, dtype=torch.long)
    timed = timer(reps)

    def step():
        for q in params:
            q.grad = None
        logp = F.log_softmax(out(lstm(x)[0]), 2)
        (F.ctc_loss(logp, labels, input_lengths, label_lengths, blank=CTC_CLASSES - 1, reduction="sum") / B).backward()

    return {"step/nn.LSTM bidirectional + CTC": timed(step)}


# ---------------------------------------------------------------- tapegrad side

def tapegrad_timings(binary, model, H, B, T, reps, threads):
    cmd = [binary, "bench", "--model", model, "--vocab", str(VOCAB), "--hidden", str(H), "--batch", str(B),
           "--steps", str(T), "--reps", str(reps), "--threads", str(threads), "--json"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def tapegrad_autoencoder_timings(binary, encoder, B, reps, threads):
    cmd = [binary, "bench", "--network", "autoencoder", "--encoder", encoder, "--batch", str(B),
           "--reps", str(reps), "--threads", str(threads), "--json"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def tapegrad_ctc_timings(binary, H, B, T, reps, threads):
    cmd = [binary, "bench", "--model", "deep_blstm", "--ctc", "--in", str(CTC_IN), "--vocab", str(CTC_CLASSES),
           "--depth", str(CTC_LAYERS), "--hidden", str(H), "--batch", str(B), "--steps", str(T), "--reps", str(reps),
           "--threads", str(threads), "--json"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def onednn_timing(harness, H, B, T, reps):
    cmd = [harness, "--vocab", str(VOCAB), "--hidden", str(H), "--batch", str(B), "--steps", str(T), "--reps", str(reps)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    return json.loads(out.stdout)["onednn_lstm_ms"]


def med(samples):
    return statistics.median(samples) if isinstance(samples, list) and samples else float("nan")


def main():
    a = parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    binary = a.tapegrad or os.path.join(root, "build", "tools", "tapegrad")
    harness = a.onednn or os.path.join(root, "build", "bench", "tapegrad_onednn_lstm")
    if a.onednn != "none" and not os.access(harness, os.X_OK):
        harness = None
    if not os.access(binary, os.X_OK):
        sys.exit(f"bench_vs_torch: no tapegrad binary at {binary}; run `bash scripts/build.sh` first")
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(a.threads)  # before torch is imported; inherited by tapegrad
    torch = None if a.no_torch else load_torch(a.threads)
    if torch is None and not a.no_torch:
        print("PyTorch not found (Debian: apt install python3-torch); running the tapegrad side only.\n")
    print(f"machine: {machine_line()}   threads: {a.threads} (OpenBLAS, OpenMP and torch alike)")
    if torch is not None:
        print(f"PyTorch {torch.__version__}, torch threads {torch.get_num_threads()}")
    print(f"rounds: {a.rounds} alternating, {a.reps} timed reps each; medians over all rounds\n")

    variants = torch_models(torch) if torch is not None else {}
    rows = []
    for cfg in a.configs:
        parts = cfg.split(":")
        if parts[0] == "ae":  # ae:ENCODER:B
            if len(parts) != 3:
                sys.exit(f"bench_vs_torch: config {cfg!r}: write ae:ENCODER:B, e.g. ae:784-1000-500-250-30:200")
            encoder, B = parts[1], int(parts[2])
            row = {"model": "autoencoder", "config": f"autoencoder {'-'.join(map(str, autoencoder_sizes(encoder)))} B={B}",
                   "encoder": encoder, "B": B}
            run_tapegrad = lambda: tapegrad_autoencoder_timings(binary, encoder, B, a.reps, a.threads)
            run_torch = lambda: torch_autoencoder_timings(torch, encoder, B, a.reps)
            loop_variant = "step/nn.Sequential"
        elif parts[0] == "ctc":  # ctc:H:B:T
            if len(parts) != 4:
                sys.exit(f"bench_vs_torch: config {cfg!r}: write ctc:H:B:T, e.g. ctc:64:16:300")
            H, B, T = int(parts[1]), int(parts[2]), int(parts[3])
            row = {"model": "ctc", "config": f"deep BLSTM {CTC_LAYERS}x{H} + CTC B={B} T={T}", "H": H, "B": B, "T": T}
            run_tapegrad = lambda: tapegrad_ctc_timings(binary, H, B, T, a.reps, a.threads)
            run_torch = lambda: torch_ctc_timings(torch, H, B, T, a.reps)
            loop_variant = "step/nn.LSTM bidirectional + CTC"
        else:
            model, H, B, T = parts
            H, B, T = int(H), int(B), int(T)
            row = {"model": model, "config": f"{model} H={H} B={B} T={T}", "H": H, "B": B, "T": T, "V": VOCAB}
            run_tapegrad = lambda: tapegrad_timings(binary, model, H, B, T, a.reps, a.threads)
            run_torch = lambda: torch_timings(torch, variants[model], H, B, T, a.reps)
            loop_variant = "step/cell loop"
        tg_step, tg_gn, tg_gemm, tg_json = [], [], [], None
        th, dnnl, roof = {}, [], []
        for _ in range(a.rounds):
            if harness and a.onednn != "none" and row["model"] == "lstm":
                dnnl.append(onednn_timing(harness, H, B, T, a.reps))
            tg_json = run_tapegrad()
            tg_step += tg_json["step_samples_ms"]
            tg_gn += tg_json["gnvp_samples_ms"]
            tg_gemm += tg_json["gemm_samples_ms"]
            if tg_json.get("fma_roof_gflops"):  # absent or null: the build measured no roof
                roof.append(tg_json["fma_roof_gflops"])
            if torch is not None:
                for k, s in run_torch().items():
                    if isinstance(s, list):
                        th.setdefault(k, []).extend(s)
                    else:
                        th[k] = s
        row.update({"threads": a.threads, "tapegrad_machine": tg_json["machine"],
                    "tapegrad_step_ms": med(tg_step), "tapegrad_gn_ms": med(tg_gn), "gemm_ms": med(tg_gemm),
                    "step_gflop": tg_json["step_gflop"], "params": tg_json["params"]})
        row["tapegrad_gflops"] = row["step_gflop"] / (row["tapegrad_step_ms"] * 1e-3)
        row["sgemm_gflops"] = row["step_gflop"] / (row["gemm_ms"] * 1e-3)
        row["fraction_of_sgemm"] = row["gemm_ms"] / row["tapegrad_step_ms"]
        row["tapegrad_gn_over_step"] = row["tapegrad_gn_ms"] / row["tapegrad_step_ms"]
        if roof:
            # One thread's float32 FMA throughput (the best round: a roof is approached from below). No step of
            # any library runs its products faster than step_gflop at the roof on every thread.
            row["fma_roof_gflops"] = max(roof)
            row["products_at_roof_ms"] = row["step_gflop"] / (max(roof) * a.threads) * 1e3
        if dnnl:
            row["onednn_step_ms"] = med(dnnl)  # the median of the rounds' medians
            row["onednn_gflops"] = row["step_gflop"] / (row["onednn_step_ms"] * 1e-3)
            row["onednn_over_tapegrad"] = row["onednn_step_ms"] / row["tapegrad_step_ms"]
        steps = {k: med(s) for k, s in th.items() if k.startswith("step/") and isinstance(s, list)}
        if steps:
            best = min(steps, key=steps.get)
            row["torch_step_ms"] = steps[best]
            row["torch_best_variant"] = best.split("/", 1)[1]
            row["torch_variants_ms"] = steps
            row["speedup"] = row["torch_step_ms"] / row["tapegrad_step_ms"]
            if "products_at_roof_ms" in row:  # the most any step could be ahead of PyTorch's on this machine
                row["speedup_bound"] = row["torch_step_ms"] / row["products_at_roof_ms"]
            row["torch_loop_variant"] = loop_variant.split("/", 1)[1]
            row["torch_loop_step_ms"] = steps.get(loop_variant)
            for k in ("gn/forward-AD", "gn/double-backward"):
                if k in th:
                    row[k] = med(th[k]) if isinstance(th[k], list) else th[k]
            gn = [row[k] for k in ("gn/forward-AD", "gn/double-backward") if isinstance(row.get(k), float)]
            if gn:
                row["torch_gn_ms"] = min(gn)
                row["gn_speedup"] = row["torch_gn_ms"] / row["tapegrad_gn_ms"]
        rows.append(row)
        print_row(row)

    print_table(rows)
    if a.json:
        os.makedirs(os.path.dirname(os.path.abspath(a.json)), exist_ok=True)
        with open(a.json + ".tmp", "w") as f:
            json.dump({"machine": machine_line(), "threads": a.threads, "rows": rows}, f, indent=2)
        os.replace(a.json + ".tmp", a.json)


def print_row(r):
    s = (f"{r['config']}: tapegrad step {r['tapegrad_step_ms']:.1f} ms, "
         f"GN {r['tapegrad_gn_ms']:.1f} ms ({r['tapegrad_gn_over_step']:.2f}x step), "
         f"{r['tapegrad_gflops']:.1f} GFLOP/s vs sgemm {r['sgemm_gflops']:.1f} ({100 * r['fraction_of_sgemm']:.0f}%)")
    if "fma_roof_gflops" in r:
        s += (f"\n    FMA roof {r['fma_roof_gflops']:.1f} GFLOP/s per thread: the step's products take >= "
              f"{r['products_at_roof_ms']:.1f} ms on {r['threads']} thread(s), whatever computes them")
    if "onednn_step_ms" in r:
        s += (f"\n    oneDNN LSTM primitive + output layer: {r['onednn_step_ms']:.1f} ms ({r['onednn_gflops']:.1f} GFLOP/s) "
              f"-> oneDNN / tapegrad {r['onednn_over_tapegrad']:.2f}x (> 1: tapegrad faster)")
    if "torch_step_ms" in r:
        variants = ", ".join(f"{k.split('/', 1)[1]} {v:.1f}" for k, v in r["torch_variants_ms"].items())
        s += f"\n    PyTorch step: {variants} ms -> PyTorch / tapegrad {r['speedup']:.2f}x (> 1: tapegrad faster)"
        if "speedup_bound" in r:
            s += f"; a step of products alone at the roof would be {r['speedup_bound']:.2f}x"
        loop = r["torch_loop_variant"]
        for k in ("gn/forward-AD", "gn/double-backward"):
            if k in r:
                v = r[k]
                s += f"\n    PyTorch {k} on the {loop}: " + (f"{v:.1f} ms ({v / r['torch_loop_step_ms']:.2f}x that {loop}'s step)"
                                                if isinstance(v, float) else v)
        if "gn_speedup" in r:
            s += f"\n    GN product: PyTorch best {r['torch_gn_ms']:.1f} ms -> PyTorch / tapegrad {r['gn_speedup']:.2f}x"
    print(s, flush=True)


def print_table(rows):
    sequences = [r for r in rows if r["model"] != "autoencoder"]
    networks = [r for r in rows if r["model"] == "autoencoder"]
    if sequences:
        print_sequence_table(sequences)
    if networks:
        print_network_table(networks)


def print_sequence_table(rows):
    print("\n| config | tapegrad step ms | oneDNN LSTM step ms | oneDNN / tapegrad | PyTorch step ms (best) | speedup | "
          "tapegrad GN/step | PyTorch GN/loop step (fwd-AD, dbl-bwd) | tapegrad GFLOP/s | oneDNN GFLOP/s | sgemm GFLOP/s | "
          "% of sgemm | products at the FMA roof ms | PyTorch / roof |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        if "torch_step_ms" in r:
            torch_cols = f"{r['torch_step_ms']:.1f} ({r['torch_best_variant']}) | {r['speedup']:.2f}x"
            gn = []
            for k in ("gn/forward-AD", "gn/double-backward"):
                v = r.get(k)
                gn.append(f"{v / r['torch_loop_step_ms']:.2f}" if isinstance(v, float) else "n/a")
            torch_gn = ", ".join(gn)
        else:
            torch_cols, torch_gn = "n/a | n/a", "n/a"
        dnnl = (f"{r['onednn_step_ms']:.1f} | {r['onednn_over_tapegrad']:.2f}x" if "onednn_step_ms" in r else "n/a | n/a")
        dnnl_gflops = f"{r['onednn_gflops']:.1f}" if "onednn_step_ms" in r else "n/a"
        print(f"| {r['config']} | {r['tapegrad_step_ms']:.1f} | {dnnl} | {torch_cols} | {r['tapegrad_gn_over_step']:.2f} | "
              f"{torch_gn} | {r['tapegrad_gflops']:.1f} | {dnnl_gflops} | {r['sgemm_gflops']:.1f} | "
              f"{100 * r['fraction_of_sgemm']:.0f}% | {roof_cols(r)} |")


def roof_cols(r):
    bound = f"{r['speedup_bound']:.2f}x" if "speedup_bound" in r else "n/a"
    return f"{r['products_at_roof_ms']:.1f} | {bound}" if "products_at_roof_ms" in r else "n/a | n/a"


def print_network_table(rows):
    """Step and GN product side by side; ratios are PyTorch time / tapegrad time (> 1: tapegrad faster)."""
    print("\n| config | tapegrad step ms | PyTorch step ms | step ratio | tapegrad GN ms | PyTorch GN ms "
          "(fwd-AD, dbl-bwd) | GN ratio (best PyTorch) | tapegrad GFLOP/s | sgemm GFLOP/s | % of sgemm |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        if "torch_step_ms" in r:
            step = f"{r['torch_step_ms']:.1f} | {r['speedup']:.2f}x"
            gn = ", ".join(f"{r[k]:.1f}" if isinstance(r.get(k), float) else "n/a"
                           for k in ("gn/forward-AD", "gn/double-backward"))
            gn += f" | {r['gn_speedup']:.2f}x" if "gn_speedup" in r else " | n/a"
        else:
            step, gn = "n/a | n/a", "n/a | n/a"
        print(f"| {r['config']} | {r['tapegrad_step_ms']:.1f} | {step} | {r['tapegrad_gn_ms']:.1f} | {gn} | "
              f"{r['tapegrad_gflops']:.1f} | {r['sgemm_gflops']:.1f} | {100 * r['fraction_of_sgemm']:.0f}% |")


if __name__ == "__main__":
    main()
