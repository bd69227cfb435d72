"""What the experiment table scripts read from a run directory (OUT of `tapegrad train --out OUT`), in one place:
its metrics records, how far it got, whether it finished and was scored, the commands an experiment script
makes, and an archive of a finished run's small facts under docs/results/runs/ so a table can be rebuilt in a
later session, after the run directory (checkpoints, full metrics) is gone.

A run's states: no directory "not run"; no OUT/done "unfinished"; done but no OUT/eval.txt "not scored"."""
import json
import os
import re
import shutil
import subprocess

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
ARCHIVE = os.path.join(REPO, "docs", "results", "runs")
NUM = r"([0-9.e+-]+|nan|inf)"


def shown(path):
    """path relative to the repository when it lies inside it (commands read as one runs them from there)."""
    path = os.path.abspath(path)
    return os.path.relpath(path, REPO) if path.startswith(REPO + os.sep) else path


def records(out):
    """The metrics records of run OUT (metrics.jsonl), skipping a line torn by a kill or still being written."""
    path = os.path.join(out, "metrics.jsonl")
    found = []
    for line in open(path) if os.path.exists(path) else []:
        try:
            found.append(json.loads(line))
        except json.JSONDecodeError:
            pass
    return found


def progress(out, rs=None):
    """(iterations, CPU seconds) of the last record of run OUT, (0, 0.0) without one. RS: OUT's records when the
    caller has read them already (a long run's metrics.jsonl holds a record per iteration)."""
    rs = records(out) if rs is None else rs
    return (rs[-1].get("iteration", 0), rs[-1].get("cpu_seconds", 0.0)) if rs else (0, 0.0)


def best_valid(out, rs=None):
    """The lowest finite validation measure of run OUT, None without one (null is written for a non-finite one).
    RS: OUT's records, as for progress."""
    valid = [r["valid_error"] for r in (records(out) if rs is None else rs) if isinstance(r.get("valid_error"), (int, float))]
    return min(valid) if valid else None


def state(out):
    """None for a finished and scored run, else "not run", "unfinished" or "not scored"."""
    if not os.path.isdir(out):
        return "not run"
    if not os.path.exists(os.path.join(out, "done")):
        return "unfinished"
    if not os.path.exists(os.path.join(out, "eval.txt")):
        return "not scored"
    return None


def interval(out, measure, name="eval.txt"):
    """(value, low, high) from the line of OUT/NAME (eval.txt, or eval_last.txt: the last checkpoint's parameters)
    that starts with MEASURE and carries a 95% interval; None when there is no such line, or no eval_last.txt (a run
    scored without EVAL_LAST=1). A missing eval.txt raises: a finished run is always scored."""
    path = os.path.join(out, name)
    if name != "eval.txt" and not os.path.exists(path):
        return None
    found = re.search(rf"^{measure} {NUM}\s+95% interval \[{NUM}, {NUM}\]", open(path).read(), re.M)
    return tuple(float(found.group(i)) for i in (1, 2, 3)) if found else None


def bold_interval(out, measure):
    """A table cell: the run's state, or its scored MEASURE in bold with the interval, "?" if eval.txt lacks it."""
    s = state(out)
    if s:
        return s
    v = interval(out, measure)
    return f"**{v[0]:.3f}** [{v[1]:.3f}, {v[2]:.3f}]" if v else "?"


def script_commands(script, root, drop, **env):
    """{run name: command} from `PRINT=1 ROOT=root scripts/experiments/SCRIPT`, the run directories shown relative
    to the repository. DROP lists the script's variables a caller's environment must not change (the table
    describes the script's defaults); ENV sets others (e.g. SEEDS="1")."""
    full = dict(os.environ, PRINT="1", ROOT=root, **env)
    for key in drop:
        full.pop(key, None)
    lines = subprocess.run(["bash", os.path.join(REPO, "scripts", "experiments", script)], env=full, check=True,
                           capture_output=True, text=True).stdout.splitlines()
    return {os.path.basename(line.rsplit(" --out ", 1)[1]): line.replace(os.path.abspath(root), shown(root))
            for line in lines}


def write_atomic(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".tmp", "w") as f:
        f.write(text)
    os.replace(path + ".tmp", path)


def archived_path(out, group):
    """Where run OUT is archived: docs/results/runs/GROUP/<name>, or None when OUT is not under the repository's
    runs/GROUP (a scratch ROOT's runs are neither archived nor stood in for by the archive)."""
    parent = os.path.realpath(os.path.dirname(os.path.abspath(os.path.normpath(out))))
    if parent != os.path.join(os.path.realpath(REPO), "runs", group):
        return None
    return os.path.join(ARCHIVE, group, os.path.basename(os.path.normpath(out)))


# The keys that mark a record with a validation: the trainer's (valid_error), and the Riemannian methods' own
# scoring of the validation sequence every round (valid_bits: all of an Ollivier run's records are kept).
VALIDATION_KEYS = ("valid_error", "valid_bits")


def thinned_metrics(out):
    """Run OUT's metrics.jsonl as kept by archive() and park(): the validation records (the curves), the NaN
    rule's roll-backs (counted by krueger_table.py) and the last record, one JSON object per line."""
    rs = records(out)
    kept = [r for r in rs if any(k in r for k in VALIDATION_KEYS) or "nan_rule" in r]
    if rs and rs[-1] not in kept:
        kept.append(rs[-1])
    return "".join(json.dumps(r, sort_keys=True) + "\n" for r in kept)


def archive(out, group, extra=None):
    """Copies a finished run's config.json, summary.txt, eval.txt and eval_last.txt (those it has), and the metrics records that
    carry a validation measure plus the last one, to docs/results/runs/GROUP/<name>/: a few kB that
    `tapegrad plot --run` and the table scripts read like the run itself, and EXTRA's {file name: text}; then removes OUT's park, stale
    from then on (a scratch tree's too, though its runs are not archived). Returns that directory, or None when OUT lies outside the
    repository's runs/ or has not finished (an unfinished run is never archived, so an archive is always a whole run)."""
    if not os.path.exists(os.path.join(out, "done")):
        return None
    dest = archived_path(out, group)
    if dest is not None:
        for name in ("config.json", "summary.txt", "eval.txt", "eval_last.txt"):
            if os.path.exists(os.path.join(out, name)):
                write_atomic(os.path.join(dest, name), open(os.path.join(out, name)).read())
        write_atomic(os.path.join(dest, "metrics.jsonl"), thinned_metrics(out))
        for name, text in (extra or {}).items():  # facts the table reads from files not archived (a checkpoint)
            write_atomic(os.path.join(dest, name), text)
        write_atomic(os.path.join(dest, "done"), "")
    unpark_done(out)
    return dest


def parked_path(out):
    """Where unfinished run OUT = R/runs/GROUP/NAME is parked between sessions: R/docs/results/parked/GROUP/NAME
    (R the repository, or a scratch tree laid out like it), None when OUT does not lie in a runs/GROUP."""
    out = os.path.abspath(os.path.normpath(out))
    group_dir = os.path.dirname(out)
    if os.path.basename(os.path.dirname(group_dir)) != "runs":
        return None
    root = os.path.dirname(os.path.dirname(group_dir))
    return os.path.join(root, "docs", "results", "parked", os.path.basename(group_dir), os.path.basename(out))


# What a resume needs (tools/trainer.cc): the config, the checkpoint (parameters, optimizer state, RNG, clocks,
# early stopping's state) and the best parameters so far. metrics.jsonl is thinned as archive() does: the
# trainer keeps the records before the checkpoint's iteration and appends from there.
PARKED_FILES = ("config.json", "checkpoint.npz", "best.npz")


def park(out):
    """Copies unfinished run OUT's resumable state to parked_path(OUT), replacing an older park whole (written
    beside it, then renamed into place): a session's runs/ is gone in the next one, the repository is not.
    Returns the park, or None when OUT has finished, has no checkpoint yet or lies outside a runs/GROUP."""
    dest = parked_path(out)
    if dest is None or os.path.exists(os.path.join(out, "done")) or not os.path.exists(os.path.join(out, "checkpoint.npz")):
        return None
    fresh = dest + ".new"
    shutil.rmtree(fresh, ignore_errors=True)
    os.makedirs(fresh)
    for name in PARKED_FILES:
        if os.path.exists(os.path.join(out, name)):
            shutil.copy2(os.path.join(out, name), os.path.join(fresh, name))
    with open(os.path.join(fresh, "metrics.jsonl"), "w") as f:
        f.write(thinned_metrics(out))
    old = dest + ".old"
    shutil.rmtree(old, ignore_errors=True)
    if os.path.exists(dest):
        os.rename(dest, old)
    os.rename(fresh, dest)
    shutil.rmtree(old, ignore_errors=True)
    return dest


def unpark(out):
    """Restores run OUT from its park when OUT has no checkpoint of its own (a new session); a live run is never
    overwritten. Returns True when it restored OUT."""
    src = parked_path(out)
    if src is None or not os.path.exists(os.path.join(src, "checkpoint.npz")) or os.path.exists(os.path.join(out, "checkpoint.npz")):
        return False
    os.makedirs(out, exist_ok=True)
    for name in PARKED_FILES + ("metrics.jsonl",):
        if os.path.exists(os.path.join(src, name)):
            shutil.copy2(os.path.join(src, name), os.path.join(out, name + ".tmp"))
    for name in ("metrics.jsonl",) + PARKED_FILES[::-1]:  # the checkpoint last: without it OUT starts afresh
        if os.path.exists(os.path.join(out, name + ".tmp")):
            os.replace(os.path.join(out, name + ".tmp"), os.path.join(out, name))
    return True


def unpark_done(out):
    """Removes run OUT's park once OUT has finished (its archive or OUT itself is the record from then on)."""
    src = parked_path(out)
    if src and os.path.isdir(src) and os.path.exists(os.path.join(out, "done")):
        shutil.rmtree(src)


def live_or_archived(out, group):
    """The copy of run OUT that finished: OUT itself, else its archive (the scripts skip an archived run, so a live
    directory beside a finished archive is a stale one), else OUT."""
    if os.path.exists(os.path.join(out, "done")):
        return out
    kept = archived_path(out, group)
    return kept if kept and os.path.exists(os.path.join(kept, "done")) else out


USAGE = """usage: python3 scripts/experiments/runs.py archive OUT
       python3 scripts/experiments/runs.py park ROOT...   (every unfinished run under each runs/GROUP ROOT)
       python3 scripts/experiments/runs.py unpark OUT"""

if __name__ == "__main__":  # archive: what lane.sh's eval_lane calls once it has scored OUT; unpark: train_lane
    import sys
    verb, paths = (sys.argv[1], sys.argv[2:]) if len(sys.argv) >= 3 else (None, [])
    if verb == "archive" and len(paths) == 1:
        out = paths[0]
        archive(out, os.path.basename(os.path.dirname(os.path.abspath(os.path.normpath(out)))))
    elif verb == "unpark" and len(paths) == 1:
        if unpark(paths[0]):
            print(f"{shown(paths[0])}: restored from {shown(parked_path(paths[0]))}", file=sys.stderr)
    elif verb == "park":
        for root in paths:
            if parked_path(os.path.join(root, "x")) is None:
                sys.exit(f"runs.py park: {root} is not a runs/GROUP directory")
            for name in sorted(os.listdir(root)) if os.path.isdir(root) else []:
                out = os.path.join(root, name)
                if os.path.isdir(out):
                    unpark_done(out)
                    dest = park(out)
                    if dest:
                        print(f"{shown(out)} -> {shown(dest)} (last record: iteration {progress(dest)[0]})")
    else:
        sys.exit(USAGE)
