#!/usr/bin/python3
"""Table 5.IV at our scale (docs/results/speech.md): per setting of scripts/experiments/speech.sh, the
dev and test phoneme error rates of each run's best dev validation (eval.txt, written by EVAL=1 bash
scripts/experiments/speech.sh), their mean over seeds, beside Krueger's TIMIT figures, and the PER on
the 4,000 test utterances of data/speech_frames (eval_4000.txt) with its 95% interval; and each run's
training (iterations, epochs, CPU seconds, best iteration, how it ended).
Usage: /usr/bin/python3 scripts/experiments/speech_table.py [ROOT (default runs/speech)]"""
import glob
import json
import os
import re
import statistics
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else "runs/speech"
SETTINGS = ["base", "b50", "b500", "wn", "do", "b50_do", "b500_do", "wn_do", "wn_b50", "wn_b500"]
LABEL = {"base": "0 / 0 / 0", "b50": "50 / 0 / 0", "b500": "500 / 0 / 0", "wn": "0 / .05 / 0", "do": "0 / 0 / .5",
         "b50_do": "50 / 0 / .5", "b500_do": "500 / 0 / .5", "wn_do": "0 / .05 / .5", "wn_b50": "50 / .05 / 0",
         "wn_b500": "500 / .05 / 0"}
# Krueger's Table 5.IV (TIMIT, mean of 5 runs, %): test, dev; weight noise with the stabilizer omitted there
KRUEGER = {"base": (21.8, 19.6), "b50": (20.7, 18.6), "b500": (19.0, 16.9), "wn": (21.5, 19.1), "do": (21.9, 19.5),
           "b50_do": (20.9, 18.5), "b500_do": (19.4, 17.0), "wn_do": (21.1, 18.9)}
EPOCH = 3000 / 16  # iterations per epoch: 3000 training utterances in batches of 16


def per(text, dev):
    for line in text.splitlines():
        if dev == line.startswith("valid part"):
            m = re.search(r"phoneme error rate ([0-9.]+)", line)
            if m:
                return 100 * float(m.group(1))
    return None


def big_test(d):
    """PER % and its 95% interval on the 4,000 test utterances, or None."""
    e = os.path.join(d, "eval_4000.txt")
    if not os.path.exists(e):
        return None
    m = re.search(r"^phoneme error rate ([0-9.]+)\s+95% interval \[([0-9.]+), ([0-9.]+)\]", open(e).read(), re.M)
    return tuple(100 * float(x) for x in m.groups()) if m else None


def run_facts(d):
    rows = [json.loads(l) for l in open(os.path.join(d, "metrics.jsonl")) if l.strip()]
    last = rows[-1] if rows else {}
    best = [r for r in rows if r.get("best")]
    log = open(d + ".log").read() if os.path.exists(d + ".log") else ""
    ended = ("early stopping" if "early stopping at" in log else "CPU budget" if "CPU budget" in log
             else "diverged" if "diverged" in log else "running/cut")
    rollbacks = sum(1 for r in rows if "nan_rule" in r)
    return {"iterations": last.get("iteration", 0), "cpu": last.get("cpu_seconds", 0.0),
            "best_iteration": best[-1]["iteration"] if best else None, "ended": ended, "rollbacks": rollbacks}


def main():
    print("| beta / sigma / p | runs | dev PER % | test PER % | 4,000-utterance test PER % | Krueger dev | Krueger test |")
    print("|---|---|---|---|---|---|---|")
    details = []
    for s in SETTINGS:
        dev, test, big = [], [], []
        for d in sorted(glob.glob(os.path.join(ROOT, f"{s}_s*"))):
            if not os.path.isdir(d):
                continue
            e = os.path.join(d, "eval.txt")
            f = run_facts(d)
            if os.path.exists(e):
                t = open(e).read()
                dv, ts = per(t, True), per(t, False)
                if dv is not None and ts is not None:
                    dev.append(dv)
                    test.append(ts)
                    f.update(dev=dv, test=ts)
            b = big_test(d)
            if b:
                big.append(b)
                f["big"] = b
            details.append((s, os.path.basename(d), f))
        k = KRUEGER.get(s)
        kd, kt = (f"{k[1]:.1f}", f"{k[0]:.1f}") if k else ("(omitted: poor)", "(omitted: poor)")

        def fmt(v):
            if not v:
                return "n/a"
            return f"{statistics.mean(v):.1f}" + (f" ± {statistics.stdev(v):.1f}" if len(v) > 1 else "")
        bigs = (f"{big[0][0]:.1f} [{big[0][1]:.1f}, {big[0][2]:.1f}]" if len(big) == 1
                else fmt([b[0] for b in big]))
        print(f"| {LABEL[s]} | {len(dev)} | {fmt(dev)} | {fmt(test)} | {bigs} | {kd} | {kt} |")
    print("\n| run | iterations | epochs | CPU s | best dev at iteration | dev PER % | test PER % | ended | NaN rollbacks |")
    print("|---|---|---|---|---|---|---|---|---|")
    for s, name, f in details:
        dv = f"{f['dev']:.1f}" if "dev" in f else "n/a"
        ts = f"{f['test']:.1f}" if "test" in f else "n/a"
        print(f"| {name} | {f['iterations']} | {f['iterations'] / EPOCH:.1f} | {f['cpu']:.0f} | {f['best_iteration']} | "
              f"{dv} | {ts} | {f['ended']} | {f['rollbacks']} |")


if __name__ == "__main__":
    main()
