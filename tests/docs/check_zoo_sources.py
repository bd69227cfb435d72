#!/usr/bin/env python3
"""docs/results/zoo.md's last table (header "| family | model | task | measure") copies one figure per
model from other result pages and names the line it came from ("page.md:N"). Line numbers go stale
whenever a page above that line is edited, so this check reads each row's first figure (the first
decimal number of its measure column) and fails unless that number is on the named line of the named
page. A row whose source names a section instead of a line must be listed in UNLINKED.
Usage: check_zoo_sources.py [REPO]"""
import re
import sys
from pathlib import Path

# rows whose source is a page and section, not a line (model column)
UNLINKED = {"irnn (ReLU)"}

repo = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[2])
results = repo / "docs" / "results"
lines = (results / "zoo.md").read_text().splitlines()
header = next((i for i, l in enumerate(lines) if l.startswith("| family | model | task | measure")), None)
if header is None:
    sys.exit("FAIL: zoo.md has no table with the header '| family | model | task | measure'")
rows = []
for l in lines[header + 2:]:
    if not l.startswith("|"):
        break
    rows.append(l)

failures, checked = 0, 0
def fail(row, why):
    global failures
    print(f"FAIL {row[:70]!r}: {why}")
    failures += 1

for row in rows:
    cells = [c.strip() for c in row.strip().strip("|").split("|")]
    if len(cells) != 6:
        fail(row, f"{len(cells)} cells, expected 6"); continue
    model, measure, source = cells[1], cells[3], cells[5]
    ref = re.match(r"([\w.-]+\.md):(\d+)", source)
    if ref is None:
        if model not in UNLINKED: fail(row, f"source {source!r} names no page.md:LINE")
        continue
    page, n = ref.group(1), int(ref.group(2))
    figure = re.search(r"\d+\.\d+", measure)
    if figure is None:
        fail(row, f"no decimal figure in the measure {measure!r}"); continue
    path = results / page
    if not path.is_file():
        fail(row, f"no page {page}"); continue
    page_lines = path.read_text().splitlines()
    if not 1 <= n <= len(page_lines):
        fail(row, f"{page} has {len(page_lines)} lines, not {n}"); continue
    on = re.compile(r"(?<![\d.])" + re.escape(figure.group(0)) + r"(?!\d)")
    if not on.search(page_lines[n - 1]):
        # the lines that do hold it, nearest first: after an edit above it the figure has usually just moved
        holding = sorted((i + 1 for i, l in enumerate(page_lines) if on.search(l)), key=lambda k: abs(k - n))
        hint = f"; it is on line {', '.join(map(str, holding[:3]))}" if holding else f"; it is nowhere in {page}"
        fail(row, f"{figure.group(0)} is not on {page}:{n} ({page_lines[n - 1][:60]!r}){hint}"); continue
    checked += 1
print(f"zoo.md sources: {len(rows)} rows, {checked} checked, {failures} failed")
sys.exit(1 if failures or checked == 0 else 0)
