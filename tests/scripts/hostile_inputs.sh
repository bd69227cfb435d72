#!/usr/bin/env bash
# Hostile inputs: mutates a valid checkpoint, run config and task file (bit flips, truncations,
# inserted and deleted ranges, interesting integers, JSON values of the wrong type or size, npy
# headers and zip size fields, members rebuilt with valid CRCs so the mutation reaches the parser)
# and runs the command that reads each (train --resume, eval, tasks --check, eval --data). Every case
# must end with exit 0, or exit 2 and exactly one line on stderr; never a signal, never past the time
# bound, and never change a file outside the case's run directory (inputs included: $TMPDIR is inside
# the checked tree). Deterministic for a seed.
# Usage: hostile_inputs.sh TAPEGRAD [SEED] [CASES] [TIMEOUT_SECONDS]
# Prints the failing cases, counts by input and outcome, and exits 1 if any case failed.
set -euo pipefail
TG=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SEED=${2:-1}
CASES=${3:-300}
BOUND=${4:-20}
PY=$(command -v python3 || echo /usr/bin/python3)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OPENBLAS_NUM_THREADS=1
mkdir -p "$work/tree/tmp" "$work/tree/fixtures"
cd "$work/tree"
export TMPDIR="$work/tree/tmp"
small=(--seed 3 --quiet --set task_options.T=10 --set model_options.hidden=3 --set batch=4 --set eval_batch=4)
"$TG" train --model rnn --task addition --optimizer adam --steps 2 "${small[@]}" --out fixtures/adam >/dev/null
"$TG" train --model rnn --task addition --optimizer hf --steps 1 "${small[@]}" --set curvature_batch=2 \
  --set optimizer_options.max_cg=3 --out fixtures/hf >/dev/null
"$TG" tasks --dump addition --set T=10 -n 3 -o fixtures/task.jsonl >/dev/null
"$TG" tasks --dump temporal_order --set T=10 -n 3 -o fixtures/order.jsonl >/dev/null
rm -f fixtures/*/.lock

"$PY" - "$TG" "$SEED" "$CASES" "$BOUND" <<'PYEOF'
import hashlib, io, json, os, random, shutil, struct, subprocess, sys, time, warnings, zipfile
from collections import Counter

TG, SEED, CASES, BOUND = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
rng = random.Random(SEED)
warnings.simplefilter("ignore")  # zipfile: "Duplicate name" (a member twice is one of the mutations)
INTERESTING = [0, 1, -1, 0x7F, 0x80, 0xFF, 0x7FFF, 0xFFFF, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF,
               0x7FFFFFFFFFFFFFFF, 0xFFFFFFFFFFFFFFFF, 1 << 32, 1 << 40]
HOSTILE_JSON = ['-1', '0', '1e308', '-1e308', '1e400', 'NaN', 'Infinity', '9223372036854775807',
                '9223372036854775808', '18446744073709551616', '-9223372036854775809', '0.5', '""',
                '"' + 'x' * 10000 + '"', '[]', '{}', 'null', 'true', '[1,2,3]', '{"a":1}', '"\\u0000"',
                '"\\ud800"', '[' * 5000 + ']' * 5000, '"../../escape"', '"/dev/zero"', '1' * 400]

# ---- generic byte mutations --------------------------------------------------------------------
def mutate_bytes(b):
    b = bytearray(b)
    op = rng.randrange(8)
    n = len(b)
    if n == 0 or op == 7:
        return bytes(rng.getrandbits(8) for _ in range(rng.randrange(0, 64))), "random bytes"
    if op == 0:
        for _ in range(rng.randint(1, 8)):
            i = rng.randrange(n); b[i] ^= 1 << rng.randrange(8)
        return bytes(b), "bit flips"
    if op == 1:
        for _ in range(rng.randint(1, 4)):
            b[rng.randrange(n)] = rng.choice([0, 0xFF, 0x7F, 0x80, rng.getrandbits(8)])
        return bytes(b), "byte set"
    if op == 2:
        return bytes(b[:rng.randrange(n)]), "truncated"
    if op == 3:
        i = rng.randrange(n + 1)
        return bytes(b[:i] + bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 32))) + b[i:]), "inserted"
    if op == 4:
        i = rng.randrange(n); j = min(n, i + rng.randint(1, 64))
        return bytes(b[:i] + b[j:]), "deleted range"
    if op == 5:
        i = rng.randrange(n); j = min(n, i + rng.randint(1, 64))
        return bytes(b[:j] + b[i:j] * rng.randint(1, 20) + b[j:]), "duplicated range"
    v = rng.choice(INTERESTING)
    w = rng.choice([2, 4, 8])
    i = rng.randrange(max(1, n - w + 1))
    b[i:i + w] = (v & ((1 << (8 * w)) - 1)).to_bytes(w, "little")
    return bytes(b), f"int{8 * w} {v:#x}"

# ---- JSON mutations ----------------------------------------------------------------------------
def paths(j, prefix=()):
    yield prefix
    if isinstance(j, dict):
        for k, v in j.items(): yield from paths(v, prefix + (k,))
    elif isinstance(j, list):
        for i, v in enumerate(j[:8]): yield from paths(v, prefix + (i,))

def mutate_json_text(text):
    try:
        j = json.loads(text)
    except ValueError:
        return mutate_bytes(text.encode())[0].decode("latin-1"), "bytes (invalid JSON input)"
    ps = [p for p in paths(j) if p]
    if not ps:
        return rng.choice(HOSTILE_JSON), "whole value"
    p = rng.choice(ps)
    parent = j
    for k in p[:-1]: parent = parent[k]
    op = rng.randrange(4)
    if op == 0 and isinstance(parent, dict):
        del parent[p[-1]]
        return json.dumps(j), f"deleted {'.'.join(map(str, p))}"
    if op == 1 and isinstance(parent, dict):
        parent["unknown_" + str(rng.randrange(100))] = 1
        return json.dumps(j), f"unknown key beside {'.'.join(map(str, p))}"
    marker = "\u0001HOSTILE\u0001"
    parent[p[-1]] = marker
    value = rng.choice(HOSTILE_JSON)
    return json.dumps(j).replace(json.dumps(marker), value), f"{'.'.join(map(str, p))} = {value[:24]}"

# ---- npz mutations -----------------------------------------------------------------------------
def read_members(b):
    z = zipfile.ZipFile(io.BytesIO(b))
    return [(i.filename, z.read(i.filename)) for i in z.infolist()]

def write_members(members):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
        for name, data in members: z.writestr(name, data)
    return out.getvalue()

def mutate_npz(b):
    op = rng.randrange(5)
    if op == 0:
        return mutate_bytes(b)
    if op == 1:  # a zip size or offset field
        sigs = [(b"PK\x03\x04", [(18, 4), (22, 4), (26, 2), (28, 2)]),
                (b"PK\x01\x02", [(20, 4), (24, 4), (28, 2), (42, 4)]),
                (b"PK\x05\x06", [(10, 2), (12, 4), (16, 4)])]
        sig, fields = rng.choice(sigs)
        offs = [i for i in range(len(b)) if b.startswith(sig, i)]
        if not offs: return mutate_bytes(b)
        f, w = rng.choice(fields)
        o = rng.choice(offs) + f
        v = rng.choice(INTERESTING)
        bb = bytearray(b); bb[o:o + w] = (v & ((1 << (8 * w)) - 1)).to_bytes(w, "little")
        return bytes(bb), f"zip field {v:#x}"
    members = read_members(b)
    k = rng.randrange(len(members))
    name, data = members[k]
    if op == 2:  # the npy header's shape or dtype, CRC valid
        hl = struct.unpack("<H", data[8:10])[0]
        header = data[10:10 + hl].decode("latin-1")
        if rng.random() < 0.5:
            shape = rng.choice(["()", "(0,)", "(-1,)", "(9223372036854775807,)", "(4294967296, 4294967296)",
                                "(1,1,1,1,1,1)", "(3,", "(1e3,)"])
            import re
            header2 = re.sub(r"'shape': \([^)]*\)", "'shape': " + shape, header)
        else:
            d = rng.choice(["'<f2'", "'>f4'", "'|O'", "'<i4'", "'<U8'", "'<f8'", "'<i8'", "'|u1'", "''"])
            import re
            header2 = re.sub(r"'descr': '[^']*'", "'descr': " + d, header)
        header2 = header2.ljust(len(header))[:max(len(header), len(header2))]
        data = data[:8] + struct.pack("<H", len(header2)) + header2.encode("latin-1") + data[10 + hl:]
        members[k] = (name, data)
        return write_members(members), f"npy header of {name}"
    if op == 3:  # a member's bytes, CRC valid
        members[k] = (name, mutate_bytes(data)[0])
        return write_members(members), f"bytes of {name}, valid CRC"
    if rng.random() < 0.5:  # drop or duplicate a member
        del members[k]
        return write_members(members), f"without {name}"
    members.append((name, data))
    return write_members(members), f"{name} twice"

def mutate_task_file(b):
    lines = b.split(b"\n")
    op = rng.randrange(4)
    if op == 0: return mutate_bytes(b)
    if op == 1 and len(lines) > 2:
        i = rng.randrange(len(lines) - 1)
        t, what = mutate_json_text(lines[i].decode())
        lines[i] = t.encode("utf-8", "surrogatepass")
        return b"\n".join(lines), f"line {i + 1}: {what}"
    if op == 2 and len(lines) > 2:
        i = rng.randrange(len(lines) - 1)
        if rng.random() < 0.5:
            del lines[i]; return b"\n".join(lines), f"line {i + 1} deleted"
        lines.insert(i, lines[i]); return b"\n".join(lines), f"line {i + 1} doubled"
    t, what = mutate_json_text(lines[0].decode())
    lines[0] = t.encode("utf-8", "surrogatepass")
    return b"\n".join(lines), f"header: {what}"

# ---- running -----------------------------------------------------------------------------------
ROOT = os.getcwd()

def snapshot(skip):
    s = {}
    for d, dirs, files in os.walk(ROOT):
        if os.path.abspath(d) == skip or os.path.abspath(d).startswith(skip + os.sep):
            dirs[:] = []; continue
        for f in files + [x for x in dirs if os.path.islink(os.path.join(d, x))]:
            p = os.path.join(d, f)
            st = os.lstat(p)
            h = hashlib.sha1(open(p, "rb").read()).hexdigest() if os.path.isfile(p) and not os.path.islink(p) else ""
            s[os.path.relpath(p, ROOT)] = (st.st_mode, st.st_size, h)
        for x in dirs: s[os.path.relpath(os.path.join(d, x), ROOT) + "/"] = ()
    return s

outcomes = Counter()
failures = []
t0 = time.time()
for case in range(CASES):
    kind = rng.choice(["checkpoint", "checkpoint", "config", "task"])
    base = rng.choice(["adam", "hf"])
    run = os.path.join(ROOT, "runs", f"case{case}")
    os.makedirs(os.path.dirname(run), exist_ok=True)
    shutil.copytree(os.path.join(ROOT, "fixtures", base), run)
    if kind == "checkpoint":
        p = os.path.join(run, "checkpoint.npz")
        data, what = mutate_npz(open(p, "rb").read())
        open(p, "wb").write(data)
        cmd = rng.choice([["train", "--out", run, "--resume", "--steps", "3", "--quiet"], ["eval", "--run", run, "-n", "4"]])
    elif kind == "config":
        p = os.path.join(run, "config.json")
        text, what = mutate_json_text(open(p).read()) if rng.random() < 0.7 else (None, None)
        if text is None:
            data, what = mutate_bytes(open(p, "rb").read())
            open(p, "wb").write(data)
        else:
            open(p, "w", encoding="utf-8", errors="surrogatepass").write(text)
        cmd = rng.choice([["train", "--out", run, "--resume", "--steps", "3", "--quiet"], ["eval", "--run", run, "-n", "4"]])
    else:
        src = rng.choice(["task.jsonl", "order.jsonl"])
        p = os.path.join(ROOT, "inputs", f"case{case}.jsonl")
        os.makedirs(os.path.dirname(p), exist_ok=True)
        data, what = mutate_task_file(open(os.path.join(ROOT, "fixtures", src), "rb").read())
        open(p, "wb").write(data)
        cmd = rng.choice([["tasks", "--check", p], ["eval", "--run", run, "--data", p, "-n", "4"]])
    before = snapshot(run)
    start = time.time()
    try:
        r = subprocess.run([TG] + cmd, cwd=ROOT, capture_output=True, timeout=BOUND)
        rc, err = r.returncode, r.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        rc, err = "timeout", ""
    secs = time.time() - start
    after = snapshot(run)
    lines = err.splitlines()
    problem = None
    if rc == "timeout": problem = f"still running after {BOUND:g} s"
    elif rc < 0: problem = f"signal {-rc}"
    elif rc not in (0, 2): problem = f"exit {rc}"
    elif rc == 2 and len(lines) != 1: problem = f"exit 2 with {len(lines)} stderr lines"
    if before != after:
        changed = sorted(set(before) ^ set(after) | {k for k in before if k in after and before[k] != after[k]})
        problem = (problem + "; " if problem else "") + "changed outside the run directory: " + ", ".join(changed[:5])
    outcome = "FAIL" if problem else f"exit {rc}"
    outcomes[(kind, outcome)] += 1
    if problem:
        keep = os.path.join(os.environ.get("HOSTILE_KEEP", "/nonexistent"), f"case{case}")
        failures.append(f"FAIL case {case} ({kind} {what}; tapegrad {' '.join(cmd[:2])}): {problem}"
                        + (f"\n    stderr: {lines[0][:300]}" if lines else "")
                        + (f"\n    ... and {len(lines) - 1} more lines: {lines[-1][:200]}" if len(lines) > 1 else ""))
        if os.path.isdir(os.path.dirname(keep)):
            shutil.copy(p, keep + os.path.splitext(p)[1])
    shutil.rmtree(run, ignore_errors=True)
    if kind == "task": os.remove(p)

for f in failures: print(f)
print(f"hostile_inputs: {CASES} cases (seed {SEED}) in {time.time() - t0:.0f} s; time bound {BOUND:g} s each")
for kind in ("checkpoint", "config", "task"):
    row = {o: n for (k, o), n in outcomes.items() if k == kind}
    print(f"  {kind:10s} " + ", ".join(f"{o}: {n}" for o, n in sorted(row.items())))
sys.exit(1 if failures else 0)
PYEOF
