#!/usr/bin/env bash
# A real multi-process cluster (scripts/cluster.sh), crashed on purpose: ZooKeeper, an HMaster and
# two region servers as separate JVMs (the scbf jar deployed as the README says), a writer of indexed rows, and `kill -9` of a region server or the master every
# few seconds, each restarted after a pause. Then the checker (io.scbf.hbase.crash.CrashWorkload)
# compares the table with the writer's log of acknowledged writes (none may be lost) and every
# value's rows by a full scan with what routed queries of the five indexes find (none may be
# missed; the EVENTUAL one once it has caught up). Every other kill lands while a region of the BY_VALUE index is being split, and one of
# its regions is moved once the kills are over.
#
#   scripts/crash-test.sh            # 4 kills (RS, master, RS, RS), 2-4 minutes; CI runs this
#   KILLS=10 scripts/crash-test.sh   # a longer run
#   HBASE_PROFILE=2.5 KILLS=1 scripts/crash-test.sh   # on HBase 2.5.11 (CI runs this short form)
# Environment: KILLS (default 4), PORT_BASE (default 16100), KEEP=1 to keep the cluster's files,
# HBASE_PROFILE (2.5: the HBase 2.5 line's servers, jar and test classes, from target/hbase-2.5).
# Needs the jar and test classes built (`mvn -DskipTests package test-compile`, with
# -Dhbase.profile=2.5 for that line); exits 1 on a lost write or a missed row.
set -euo pipefail
cd "$(dirname "$0")/.."
KILLS=${KILLS:-4}
PORT=${PORT_BASE:-16100}
build=$(pwd)/target${HBASE_PROFILE:+/hbase-$HBASE_PROFILE}
WORK=$(pwd)/target/crash-test${HBASE_PROFILE:+-$HBASE_PROFILE}
rm -rf "$WORK" && mkdir -p "$WORK"
source scripts/cluster.sh
cluster_init

jar=$(ls "$build"/scbf-hbase-*.jar | grep -v -E 'sources|javadoc|hbase-shaded-client' | head -1)
echo "HBase $(basename "$(tr ':' '\n' <<<"$HBASE_CP" | grep -m1 '/hbase-server-')" .jar), $(basename "$jar")"
workload() { java -Xmx512m -cp "$WORK/conf/client:$build/test-classes:$jar:$HBASE_CP" \
  io.scbf.hbase.crash.CrashWorkload "$@" 2>>"$WORK/logs/client.log"; }

start zk; sleep 2
start master "$jar"; start rs1 "$jar"; start rs2 "$jar"
await_master
workload setup
workload create-eventual

logged() { wc -l <"$WORK/acked.log"; }
progress() { # waits until the writer has logged $1 more writes (at most 120 s)
  local target=$(($(logged) + $1)) waited=0
  while [ "$(logged)" -lt "$target" ] && [ $waited -lt 120 ]; do sleep 1; waited=$((waited + 1)); done
}
touch "$WORK/acked.log"
workload write "$WORK/acked.log" "$WORK/stop" &
writer=$!
victims=(rs1 master rs2 rs1 master rs2)
for ((k = 0; k < KILLS; k++)); do
  progress 300 # every kill lands in the middle of writes
  v=${victims[$((k % ${#victims[@]}))]}
  splitter=
  if ((k % 2 == 0)); then # and every other one in the middle of an index region split
    workload split &
    splitter=$!
    sleep 0.5
  fi
  kill -9 "${pid[$v]}"
  echo "kill -9 $v after $(logged) logged writes${splitter:+, a split of the by-value index running}"
  sleep 4
  start "$v" "$jar"
  [ -z "$splitter" ] || wait "$splitter" || true
done
progress 300
workload split
workload move
progress 300 # writes go on after the last recovery, split and move
touch "$WORK/stop"
wait "$writer"
sleep 3 # the last restarted server's regions publish; routing asks the ones it is unsure of anyway
workload check "$WORK/acked.log"
# The checker must be able to fail: a forged acknowledged write that never happened is a loss.
cp "$WORK/acked.log" "$WORK/forged.log" && echo "0 999" >>"$WORK/forged.log"
if workload check "$WORK/forged.log" >"$WORK/logs/forged-check.log"; then
  echo "the checker missed a forged lost write" && exit 1
fi
echo "checker self-test: a forged lost write is reported ($(grep -c LOST "$WORK/logs/forged-check.log") loss)"
# Servers die here only by kill -9, which logs nothing: an abort in a server's log is one the
# product, a client or a table descriptor caused, which the invariants forbid.
if grep -q 'ABORTING' "$WORK"/logs/rs*.log "$WORK"/logs/master.log; then
  grep -h -B2 -A8 'ABORTING' "$WORK"/logs/rs*.log "$WORK"/logs/master.log | head -n 60
  echo "a server aborted during the crash test" && exit 1
fi
echo "no server aborted: $(ls "$WORK"/logs/rs*.log "$WORK"/logs/master.log | wc -l) server logs read"
