# shellcheck shell=bash
# A real multi-process HBase cluster for the crash and lifecycle tests: ZooKeeper, an HMaster and
# two region servers as separate JVMs (HBase 2.6.1 from Maven Central, or the pom's profile
# HBASE_PROFILE names, e.g. 2.5; local file system). Sourced;
# the caller sets WORK (a fresh directory) and PORT (base port), then calls cluster_init, which sets
# HBASE_CP (HBase and its dependencies, without the scbf jar) and writes a client's site in
# $WORK/conf/client.

cluster_init() {
  ZK_PORT=$((PORT + 5718))
  mkdir -p "$WORK/logs" "$WORK/data/zk"
  mvn -B -q dependency:build-classpath -Dmdep.outputFile="$WORK/cp.txt" \
    ${HBASE_PROFILE:+-Dhbase.profile=$HBASE_PROFILE} \
    -Dmdep.includeScope=test >"$WORK/logs/mvn-classpath.log" 2>&1
  HBASE_CP=$(cat "$WORK/cp.txt")
  site "$WORK/conf/client" 0 0
  declare -gA pid
  trap cluster_cleanup EXIT
}

cluster_cleanup() {
  for p in "${pid[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  [ "${KEEP:-0}" = 1 ] || rm -rf "$WORK/data"
}

# site CONF_DIR SCBF RS_PORT: the hbase-site.xml of a server (or client), with the settings of the
# binary release's example site (dist/conf/hbase-site.xml: the settings the README's "Install on a
# cluster" lists, checked against Coprocessors.configure by CoprocessorsTest) if SCBF=1, without
# them if 0.
CLUSTER_EXAMPLE_SITE=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/dist/conf/hbase-site.xml
site() {
  mkdir -p "$1"
  {
    cat <<XML
<configuration>
<property><name>hbase.cluster.distributed</name><value>true</value></property>
<property><name>hbase.rootdir</name><value>file://$WORK/data/hbase</value></property>
<property><name>hbase.tmp.dir</name><value>$WORK/data/tmp-$(basename "$1")</value></property>
<property><name>hbase.zookeeper.quorum</name><value>localhost</value></property>
<property><name>hbase.zookeeper.property.clientPort</name><value>$ZK_PORT</value></property>
<property><name>zookeeper.session.timeout</name><value>10000</value></property>
<property><name>hbase.master.port</name><value>$PORT</value></property>
<property><name>hbase.master.info.port</name><value>-1</value></property>
<property><name>hbase.regionserver.port</name><value>$3</value></property>
<property><name>hbase.regionserver.info.port</name><value>-1</value></property>
<property><name>hbase.wal.provider</name><value>filesystem</value></property>
<property><name>hbase.unsafe.stream.capability.enforce</name><value>false</value></property>
XML
    if [ "$2" = 1 ]; then
      # The release's example settings, as an operator merges them into a site.
      sed -e '1,/<configuration>/d' -e '/<\/configuration>/,$d' "$CLUSTER_EXAMPLE_SITE"
      # The publication interval pinned at its default; a crashed server's replication queue claimed
      # after 1-2 s instead of 30-60 s (the crash test kills servers).
      cat <<XML
<property><name>scbf.publish.interval.ms</name><value>500</value></property>
<!-- 0.4 sets its own peer's WAL polling; the lifecycle test's 0.3.0 servers still need these. -->
<property><name>replication.source.sleepforretries</name><value>20</value></property>
<property><name>replication.source.maxretriesmultiplier</name><value>5</value></property>
<property><name>replication.sleep.before.failover</name><value>1000</value></property>
XML
    fi
    echo "</configuration>"
  } >"$1/hbase-site.xml"
}

# start NAME [JAR]: ZooKeeper, or a master / region server (NAME master, rs1, rs2); with JAR, scbf
# is installed on it as the README says (the jar in its class path, the settings in its site).
start() {
  local main port conf
  case $1 in
    zk)
      # No AdminServer: it takes port 8080, which a second cluster's ZooKeeper would need too.
      pid[zk]=$(java -Dzookeeper.admin.enableServer=false -cp "$HBASE_CP" \
        org.apache.zookeeper.server.ZooKeeperServerMain "$ZK_PORT" \
        "$WORK/data/zk" >>"$WORK/logs/zk.log" 2>&1 & echo $!)
      return ;;
    master) main=org.apache.hadoop.hbase.master.HMaster; port=$((PORT + 100)) ;;
    rs1) main=org.apache.hadoop.hbase.regionserver.HRegionServer; port=$((PORT + 101)) ;;
    rs2) main=org.apache.hadoop.hbase.regionserver.HRegionServer; port=$((PORT + 102)) ;;
  esac
  conf="$WORK/conf/$1-${2:+scbf}"
  site "$conf" "$([ -n "${2:-}" ] && echo 1 || echo 0)" "$port"
  pid[$1]=$(java -Xmx768m -cp "$conf:${2:+$2:}$HBASE_CP" "$main" start >>"$WORK/logs/$1.log" 2>&1 &
    echo $!)
}

# stop NAME: a graceful stop (SIGTERM: the server closes its regions; the master reassigns them).
# A stop still running after 15 s leaves the server's threads in $WORK/logs/NAME-stop-*.jstack.
stop() {
  kill "${pid[$1]}" 2>/dev/null || true
  local waited=0
  while kill -0 "${pid[$1]}" 2>/dev/null && [ $waited -lt 90 ]; do
    sleep 1
    waited=$((waited + 1))
    if [ $waited = 15 ]; then
      jstack "${pid[$1]}" >"$WORK/logs/$1-stop-$SECONDS.jstack" 2>&1 || true
    fi
  done
  kill -9 "${pid[$1]}" 2>/dev/null || true
}

# await_master: until the master (re)started last has completed its initialization.
await_master() {
  local line='Master has completed initialization'
  local before=${master_ready:-0}
  timeout 180 bash -c "until [ \$(grep -c '$line' '$WORK/logs/master.log' || true) -gt $before ]; do sleep 1; done"
  master_ready=$(grep -c "$line" "$WORK/logs/master.log")
}
