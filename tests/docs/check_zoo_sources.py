#!/usr/bin/env python3
"""docs/results/zoo.md's last table copies one figure per model from other result pages and names the
line it came from ("page.md:N"). Line numbers go stale whenever a page above that line is edited, so
this check reads each row's first figure (the first decimal number of its measure column) and fails
unless it is on the named line of the named page. Usage: check_zoo_sources.py [REPO]"""
import re
import sys
from pathlib import Path

repo = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[2])
results = repo / "docs" / "results"
rows = [l for l in (results / "zoo.md").read_text().splitlines() if re.search(r"\| [a-z_]+\.md:\d+", l)]
failures = 0
for row in rows:
    cells = [c.strip() for c in row.strip("|").split("|")]
    measure, source = cells[3], cells[-1]
    page, line = re.match(r"([a-z_]+\.md):(\d+)", source).groups()
    figure = re.search(r"\d+\.\d+", measure).group(0)
    lines = (results / page).read_text().splitlines()
    cited = lines[int(line) - 1] if int(line) <= len(lines) else ""
    if figure not in cited:
        print(f"FAIL {cells[1]}: {figure} is not on {page}:{line} ({cited[:80]!r})")
        failures += 1
print(f"zoo.md sources: {len(rows)} rows, {failures} stale")
if not rows:
    print("FAIL: no sourced rows found in zoo.md")
sys.exit(1 if failures or not rows else 0)
