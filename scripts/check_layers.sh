#!/usr/bin/env bash
# Checks the layer order from the includes: a file may include its own layer and the layers below,
# never one above. Lowest first (core/ and ops/ are one layer, the engine):
#   core, ops -> tasks -> optim -> models -> riemannian -> gradcheck -> bench -> tools
# tests/ and examples/ sit on top and may include anything. The engine also may not look primitives
# up by name (ops::find_primitive is for tests and the gradcheck listing).
# Prints one line per violation and exits 1 if there is any.
set -euo pipefail
cd "$(dirname "$0")/.."
declare -A rank=([core]=0 [ops]=0 [tasks]=1 [optim]=2 [models]=3 [riemannian]=4 [gradcheck]=5 [bench]=6 [tools]=7)
bad=0
checked=0
for dir in "${!rank[@]}"; do
  while IFS= read -r file; do
    checked=$((checked + 1))
    while IFS=: read -r line target; do
      top=${target%%/*}
      [[ -v rank[$top] ]] || continue
      if (( rank[$top] > rank[$dir] )); then
        echo "layers: $file:$line includes \"$target\": $top/ is above $dir/"
        bad=$((bad + 1))
      fi
    done < <(grep -noE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"]+"' "$file" | sed -E 's/^([0-9]+):.*"([^"]+)"/\1:\2/')
  done < <(find "$dir" -type f \( -name '*.h' -o -name '*.cc' \) | sort)
done
while IFS= read -r hit; do
  echo "layers: $hit: the engine looks a primitive up by name"
  bad=$((bad + 1))
done < <(grep -rnE 'find_primitive\(' core ops --include='*.cc' --include='*.h' | grep -v '^ops/registry\.' || true)
if (( bad > 0 )); then
  echo "layers: $bad upward include(s) or look-up(s) in $checked files"
  exit 1
fi
echo "layers: $checked files, every include points down or sideways"
