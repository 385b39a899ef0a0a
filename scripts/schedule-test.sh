#!/usr/bin/env bash
# The long form of the write-path schedule explorer (WriteScheduleClusterTest; the test command
# runs its short form, 120 schedules): SCHEDULES schedules (default 10000) from seed SEED (default
# 1), a move of the data region in one of every MOVE_EVERY (default 50). About 40 minutes on 2 cores
# with the defaults. Prints the explorer's summary line; exits non-zero on any missed row.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/prereqs.sh
mkdir -p target
log=target/schedule-test.log
if ! mvn -B test -Dtest=WriteScheduleClusterTest -Dsurefire.failIfNoSpecifiedTests=false \
  -Dscbf.jmx.skip=true -Dscbf.schedules="${SCHEDULES:-10000}" \
  -Dscbf.schedules.seed="${SEED:-1}" -Dscbf.schedules.move-every="${MOVE_EVERY:-50}" \
  >"$log" 2>&1; then
  grep -E 'schedules:|missed|Tests run:|FAIL' "$log" | tail -n 40
  exit 1
fi
grep -E 'schedules:|Tests run:' "$log" | head -n 3
