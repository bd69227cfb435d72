#!/usr/bin/env bash
# Data-parallel throughput: the same training run (same global batch, seed, one BLAS thread per rank)
# as 1 process and as 2 MPI ranks, alternated REPEATS times. Prints, per run, the training seconds of
# the first STEPS iterations (rank 0's clock, without the final validation) and the CPU seconds of
# all processes; then the median throughput of each and the speed-up.
# Workloads: SGD and HF on an RNN (hidden 128) on addition T = 50, 1000-sequence batches (HF: a
# 200-sequence curvature batch, at most 20 CG iterations).
# Usage: scripts/mpi_scaling.sh [STEPS] [REPEATS]     (from a build: bash scripts/build.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
STEPS=${1:-10}
REPEATS=${2:-3}
TG=build/tools/tapegrad
[ -x "$TG" ] || { echo "$0: $TG not built (bash scripts/build.sh)" >&2; exit 2; }
export OPENBLAS_NUM_THREADS=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at start; $(date -u +%FT%TZ)"
/usr/bin/python3 - "$TG" "$work" "$STEPS" "$REPEATS" <<'PYEOF'
import json, os, resource, statistics, subprocess, sys, time
tg, work, steps, repeats = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
common = ["--model", "rnn", "--task", "addition", "--seed", "1", "--steps", str(steps + 1), "--quiet",
          "--set", "task_options.T=50", "--set", "model_options.hidden=128", "--set", "batch=1000",
          "--set", "eval_every=0", "--set", "eval_batch=100", "--set", "threads=1"]
workloads = {
    "sgd": common + ["--optimizer", "sgd"],
    "hf": common + ["--optimizer", "hf", "--set", "curvature_batch=200", "--set", "optimizer_options.max_cg=20",
                    "--set", "optimizer_options.min_cg=20", "--set", "optimizer_options.progress_eps=0"],
}
def run(name, args, np, k):
    out = f"{work}/{name}-np{np}-{k}"
    cmd = [tg, "train"] + args + ["--out", out]
    if np > 1: cmd = ["bash", "scripts/mpi_run.sh", str(np)] + cmd
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    rows = [json.loads(l) for l in open(f"{out}/metrics.jsonl")]
    secs = rows[steps - 1]["seconds"]  # after `steps` iterations; the last one also validates
    comm = sum(r.get("comm_seconds", 0) for r in rows[:steps])
    print(f"  {name} np={np} run {k}: {steps} iterations in {secs:.2f} s ({steps / secs:.3f} it/s, "
          f"{steps * 1000 / secs:.0f} gradient-batch sequences/s); rank 0 in sums {comm:.2f} s; "
          f"CPU of all processes {cpu:.1f} s", flush=True)
    return secs
for name, args in workloads.items():
    t = {1: [], 2: []}
    for k in range(repeats):
        for np in (1, 2):
            t[np].append(run(name, args, np, k))
    m1, m2 = statistics.median(t[1]), statistics.median(t[2])
    print(f"{name}: median {steps / m1:.3f} it/s with 1 process, {steps / m2:.3f} it/s with 2 ranks: "
          f"speed-up {m1 / m2:.2f}x (best runs: {min(t[1]) / min(t[2]):.2f}x)", flush=True)
PYEOF
echo "load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
