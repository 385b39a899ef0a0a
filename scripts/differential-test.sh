#!/usr/bin/env bash
# The long form of the differential tester (DifferentialClusterTest; the test command runs its
# short form): SEQUENCES sequences (default 2000) of OPS ops (default 100) from seed SEED (default
# 1; sequence i uses seed SEED+i), PARALLEL at once (default 4), starting none after MINUTES
# (default 0: no limit). Every failure is shrunk and reported (the run goes on after one). Prints
# the summary line and the failures; exits non-zero on any failure. Progress: one line per
# sequence in the log.
# docs/testing-differential.md says how to read a failure.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/prereqs.sh
mkdir -p target
log=target/differential-test.log
if ! mvn -B -q test -Djapicmp.skip=true -Dtest=DifferentialClusterTest \
  -Dsurefire.failIfNoSpecifiedTests=false -Dscbf.jmx.skip=true \
  -Dscbf.differential.sequences="${SEQUENCES:-2000}" -Dscbf.differential.ops="${OPS:-100}" \
  -Dscbf.differential.seed="${SEED:-1}" -Dscbf.differential.parallel="${PARALLEL:-4}" \
  -Dscbf.differential.minutes="${MINUTES:-0}" \
  -Dscbf.differential.stop-at-first=false >"$log" 2>&1; then
  grep -E -A60 '^differential (failure|error)' "$log" | grep -v '^\s*at ' | head -n 400 || true
  grep -E '^differential:' "$log" || true
  echo "differential-test: FAILED (full log: $log)"
  exit 1
fi
grep -E '^differential:' "$log"
