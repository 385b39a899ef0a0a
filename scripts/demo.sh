#!/usr/bin/env bash
# The README's main job. Builds everything and runs the demo.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/prereqs.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" >/dev/null

echo "== SCBF sizing for 45 KB of counter positions at P=0.1% =="
build/scbf sizing --positions 368640 --fpr 0.001
echo "== Sizing for one million keys at P=0.1% =="
build/scbf sizing --capacity 1000000 --fpr 0.001
echo "== Measured false-positive rate at design capacity (single, then scalable) =="
build/scbf fpr --capacity 1000000 --fpr 0.001
build/scbf fpr --capacity 1000000 --fpr 0.001 --scalable
trace=$(mktemp)
zcat ../shared/traces/multi1.trace.gz > "$trace" 2>/dev/null || true
if [ -s "$trace" ]; then
  for policy in hotscore lru opt; do
    printf '== cache-sim multi1, 500 entries, %s: ' "$policy"
    build/scbf cache-sim --policy "$policy" --capacity 500 "$trace" | tail -n 1
  done
fi
rm -f "$trace"
