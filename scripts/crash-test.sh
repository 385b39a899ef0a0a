#!/usr/bin/env bash
# A real multi-process cluster, crashed on purpose: ZooKeeper, an HMaster and two region servers
# as separate JVMs (HBase 2.6.1 from Maven Central, local file system, the scbf jar deployed as
# the README says), a writer of indexed rows, and `kill -9` of a region server or the master every
# few seconds, each restarted after a pause. Then the checker (io.scbf.hbase.crash.CrashWorkload)
# compares the table with the writer's log of acknowledged writes (none may be lost) and every
# value's rows by a full scan with what routed queries of the three indexes find (none may be
# missed). Every other kill lands while a region of the BY_VALUE index is being split, and one of
# its regions is moved once the kills are over.
#
#   scripts/crash-test.sh            # 4 kills (RS, master, RS, RS), 2-4 minutes; CI runs this
#   KILLS=10 scripts/crash-test.sh   # a longer run
# Environment: KILLS (default 4), PORT_BASE (default 16100), KEEP=1 to keep the cluster's files.
# Needs the jar and test classes built (`mvn -DskipTests package test-compile`); exits 1 on a
# lost write or a missed row.
set -euo pipefail
cd "$(dirname "$0")/.."
KILLS=${KILLS:-4}
PORT=${PORT_BASE:-16100}
ZK_PORT=$((PORT + 5718))
WORK=$(pwd)/target/crash-test
rm -rf "$WORK" && mkdir -p "$WORK/logs"

jar=$(ls target/scbf-hbase-*.jar | grep -v -E 'sources|javadoc' | head -1)
mvn -B -q dependency:build-classpath -Dmdep.outputFile="$WORK/cp.txt" \
  -Dmdep.includeScope=test >"$WORK/logs/mvn-classpath.log" 2>&1
CP="$(pwd)/$jar:$(cat "$WORK/cp.txt")"  # servers: the deployed jar and HBase, as in production
CLIENT_CP="$(pwd)/target/test-classes:$CP"

site() { # conf dir, region server port
  mkdir -p "$1"
  cat >"$1/hbase-site.xml" <<XML
<configuration>
<property><name>hbase.cluster.distributed</name><value>true</value></property>
<property><name>hbase.rootdir</name><value>file://$WORK/data/hbase</value></property>
<property><name>hbase.tmp.dir</name><value>$WORK/data/tmp-$2</value></property>
<property><name>hbase.zookeeper.quorum</name><value>localhost</value></property>
<property><name>hbase.zookeeper.property.clientPort</name><value>$ZK_PORT</value></property>
<property><name>zookeeper.session.timeout</name><value>10000</value></property>
<property><name>hbase.master.port</name><value>$PORT</value></property>
<property><name>hbase.master.info.port</name><value>-1</value></property>
<property><name>hbase.regionserver.port</name><value>$2</value></property>
<property><name>hbase.regionserver.info.port</name><value>-1</value></property>
<property><name>hbase.wal.provider</name><value>filesystem</value></property>
<property><name>hbase.unsafe.stream.capability.enforce</name><value>false</value></property>
<property><name>hbase.coprocessor.region.classes</name><value>io.scbf.hbase.regionserver.DataTableObserver,io.scbf.hbase.regionserver.IndexRegionCoprocessor</value></property>
<property><name>hbase.coprocessor.regionserver.classes</name><value>io.scbf.hbase.regionserver.IndexRegionServerCoprocessor</value></property>
<property><name>hbase.coprocessor.master.classes</name><value>io.scbf.hbase.master.RoutingMasterEndpoint,io.scbf.hbase.master.IndexDescriptorValidator,io.scbf.hbase.master.IndexLifecycleObserver</value></property>
<property><name>hbase.region.server.rpc.scheduler.factory.class</name><value>io.scbf.hbase.regionserver.IndexRpcSchedulerFactory</value></property>
<property><name>hbase.regionserver.region.split.policy</name><value>io.scbf.hbase.regionserver.LocalIndexSplitPolicy</value></property>
<property><name>scbf.publish.interval.ms</name><value>500</value></property>
</configuration>
XML
}
site "$WORK/conf-master" $((PORT + 100))
site "$WORK/conf-rs1" $((PORT + 101))
site "$WORK/conf-rs2" $((PORT + 102))

declare -A pid
cleanup() {
  for p in "${pid[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  [ "${KEEP:-0}" = 1 ] || rm -rf "$WORK/data"
}
trap cleanup EXIT

start() { # name
  local main conf
  case $1 in
    zk) pid[zk]=$(java -cp "$CP" org.apache.zookeeper.server.ZooKeeperServerMain "$ZK_PORT" \
        "$WORK/data/zk" >>"$WORK/logs/zk.log" 2>&1 & echo $!); return ;;
    master) main=org.apache.hadoop.hbase.master.HMaster; conf=conf-master ;;
    rs*) main=org.apache.hadoop.hbase.regionserver.HRegionServer; conf=conf-$1 ;;
  esac
  pid[$1]=$(java -Xmx768m -cp "$WORK/$conf:$CP" "$main" start >>"$WORK/logs/$1.log" 2>&1 & echo $!)
}
workload() { java -Xmx512m -cp "$WORK/conf-master:$CLIENT_CP" io.scbf.hbase.crash.CrashWorkload "$@" \
  2>>"$WORK/logs/client.log"; }

mkdir -p "$WORK/data/zk"
start zk; sleep 2
start master; start rs1; start rs2
timeout 180 bash -c "until grep -q 'Master has completed initialization' '$WORK/logs/master.log'; do sleep 1; done"
workload setup

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
  start "$v"
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
