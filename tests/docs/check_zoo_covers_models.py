#!/usr/bin/env python3
"""docs/results/zoo.md must cover every model that `tapegrad models` lists (issue 23): each listed name has to
appear as a whole word in one of zoo.md's table rows or headings, where a trained model is reported. A name
that appears only in running text does not count.
Usage: check_zoo_covers_models.py TAPEGRAD [REPO]"""
import re
import subprocess
import sys
from pathlib import Path

if len(sys.argv) < 2:
    sys.exit("usage: check_zoo_covers_models.py TAPEGRAD [REPO]")
repo = Path(sys.argv[2] if len(sys.argv) > 2 else Path(__file__).resolve().parents[2])
listing = subprocess.run([sys.argv[1], "models"], check=True, capture_output=True, text=True).stdout

# `tapegrad models` prints one block per family: a header line ("model   seed   description", "network
# (feedforward)   seed   description", ...), then one line per model starting with its name; a description
# too long for one line goes on under it, indented.
names = []
for line in listing.splitlines():
    if not line.strip() or line[0].isspace():
        continue
    if re.search(r"\sseed\s+description\s*$", line):
        continue
    names.append(line.split()[0])
if len(names) < 20:  # the zoo lists 33 models; far fewer means this parser has not understood the listing
    sys.exit(f"FAIL: read only {len(names)} model names from `tapegrad models`: {names}")

reported = [l for l in (repo / "docs" / "results" / "zoo.md").read_text().splitlines() if l.startswith(("|", "#"))]
missing = [n for n in names
           if not any(re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", l, re.IGNORECASE) for l in reported)]
for n in missing:
    print(f"FAIL: `tapegrad models` lists {n}, which no table row or heading of docs/results/zoo.md reports")
print(f"zoo.md covers {len(names) - len(missing)} of the {len(names)} models `tapegrad models` lists")
sys.exit(1 if missing else 0)
