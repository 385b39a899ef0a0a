#!/usr/bin/env bash
# The README's main job: builds everything (C library, JNI library, jar), then
# starts an in-process HBase mini cluster with the scbf coprocessors, writes a
# sample table, creates indexes and runs routed queries next to full scans.
# DEMO_ROWS (default 300000) sets the sample table's size.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/prereqs.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
echo "native core built: build/scbf (CLI), build/scbf-bench; try: build/scbf sizing --capacity 1000000 --fpr 0.001"
exec mvn -B -q -Pdemo verify -Ddemo.rows="${DEMO_ROWS:-300000}"
