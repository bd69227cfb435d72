#!/usr/bin/env bash
# Writes the default text corpus, the King James Bible (public domain; Debian's bible-kjv package,
# installed by scripts/setup.sh), to data/kjv.txt: one verse a line, about 4.14 M characters.
# Idempotent: an existing non-empty data/kjv.txt is kept. Written via a temporary file and a rename,
# so an interrupted run never leaves a partial corpus.
set -euo pipefail
cd "$(dirname "$0")/.."
out=data/kjv.txt
if [ -s "$out" ]; then
  echo "corpus: $out already present ($(wc -c <"$out") bytes)"
  exit 0
fi
if ! command -v bible >/dev/null 2>&1; then
  echo "corpus: the 'bible' program is missing: install bible-kjv (bash scripts/setup.sh)" >&2
  exit 2
fi
mkdir -p data
tmp="$out.tmp"
trap 'rm -f "$tmp"' EXIT
# Verse text only: drop blank lines and "Book N" chapter headings, strip the verse numbers.
bible -l100000 "Gen1:1-Rev22:21" </dev/null |
  sed -E '/^$/d; /^[1-3]? ?[A-Z][A-Za-z ]+ [0-9]+$/d; s/^ +[0-9]+ //' >"$tmp"
if [ ! -s "$tmp" ]; then
  echo "corpus: bible produced no text" >&2
  exit 2
fi
sync "$tmp" 2>/dev/null || true
mv "$tmp" "$out"
trap - EXIT
echo "corpus: wrote $out ($(wc -c <"$out") bytes, $(wc -l <"$out") lines)"
