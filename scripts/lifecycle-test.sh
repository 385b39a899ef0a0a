#!/usr/bin/env bash
# Install, rolling upgrade, rollback and uninstall of scbf on a running multi-process cluster
# (scripts/cluster.sh: ZooKeeper, an HMaster, two region servers), a writer running throughout
# (io.scbf.hbase.crash.CrashWorkload logs every acknowledged write):
#   1. plain HBase (no jar, no settings), a table created and written;
#   2. install the previous release (its jar and the README's settings), one server at a time
#      (rs1, rs2, then the master); create a global index of each layout, a local index and an
#      EVENTUAL global index (checked once awaitIndexed says it caught up);
#   3. rolling upgrade to this build's jar, one server at a time; check: 0 lost, 0 misses; then
#      the binary release (target/scbf-hbase-*-bin.tar.gz) unpacked, its bin/scbf-admin status
#      lists every index, and so does the launcher alone once the jar is in $HBASE_HOME/lib;
#   4. rollback to the previous release, one server at a time; check again;
#   5. uninstall: drop the indexes, then restart each server without the jar and the settings;
#      every table opens and reads, 0 lost.
# The previous release is built from git by scripts/previous-release.sh (the commit in
# .ci/previous-release, the last release's tag v0.3.0), which the API check in `mvn verify` has
# usually run already: the jar is built once. Each server is stopped gracefully (SIGTERM), as a
# rolling restart does.
#
#   scripts/lifecycle-test.sh                 # CI's short mode: 100 writes between steps
#   STEP_WRITES=1000 scripts/lifecycle-test.sh
# Environment: STEP_WRITES (default 100), PORT_BASE (default 16300), PREVIOUS (a git revision),
# KEEP=1 to keep the cluster's files. Needs this build's jar, release tarball and test classes
# (`mvn -DskipTests package test-compile`); exits 1 on a lost write, a missed row, a table that
# does not read or a release whose scbf-admin does not list the indexes.
set -euo pipefail
cd "$(dirname "$0")/.."
STEP_WRITES=${STEP_WRITES:-100}
PORT=${PORT_BASE:-16300}
WORK=$(pwd)/target/lifecycle-test
rm -rf "$WORK" && mkdir -p "$WORK"
source scripts/cluster.sh
cluster_init

jar=$(pwd)/$(ls target/scbf-hbase-*.jar | grep -v -E 'sources|javadoc|hbase-shaded-client' | head -1)
echo "the previous release: ${PREVIOUS:-$(cat .ci/previous-release)}"
previous=$(bash scripts/previous-release.sh)
# A copy: the servers run from it while a later build may replace target/previous-release.
cp "$previous" "$WORK/scbf-previous.jar" && previous=$WORK/scbf-previous.jar

workload() { java -Xmx512m -cp "$WORK/conf/client:$(pwd)/target/test-classes:$jar:$HBASE_CP" \
  io.scbf.hbase.crash.CrashWorkload "$@" 2>>"$WORK/logs/client.log"; }
# Each writer run logs to its own file (the writer starts its log afresh); checks read them all.
run=0
logged() { wc -l <"$WORK/acked-$run.log"; }
progress() { # waits until the writer has logged $1 more writes (at most 120 s)
  local target=$(($(logged) + $1)) waited=0
  while [ "$(logged)" -lt "$target" ] && [ $waited -lt 120 ]; do sleep 1; waited=$((waited + 1)); done
  [ "$(logged)" -ge "$target" ] || { echo "the writer stalled at $(logged) writes"; exit 1; }
}
writing() { # starts a writer run
  rm -f "$WORK/stop"
  run=$((run + 1))
  touch "$WORK/acked-$run.log"
  workload write "$WORK/acked-$run.log" "$WORK/stop" &
  writer=$!
}
checked() { # stops the writer, then checks every run's writes (check or check-data)
  touch "$WORK/stop"
  wait "$writer"
  for ((r = 1; r <= run; r++)); do cat "$WORK/acked-$r.log"; done >"$WORK/acked.log"
  workload "$1" "$WORK/acked.log"
}

# scbf-admin as an operator runs it, against this build's servers: from the unpacked release (the
# jar in its lib/), then a lone copy of the launcher with the jar in $HBASE_HOME/lib only. HBase's
# bin/hbase is a stand-in that answers as HBase 2.x's does: `hbase classpath`, the configuration
# directory and the shaded client jar (HBase's binary release has one) but not lib/*.jar; with
# --internal-classpath, the configuration directory, lib/*.jar and HBase's dependencies.
release_cli() {
  local home=$WORK/hbase-home started=$SECONDS release status
  mkdir -p "$home/bin" "$home/lib" "$WORK/release" "$WORK/path"
  cat >"$home/bin/hbase" <<SH
#!/usr/bin/env bash
shopt -s nullglob
lib=("\$(dirname "\$0")"/../lib/*.jar)
case "\$*" in
  classpath) echo "$WORK/conf/client:$home/lib/shaded-clients/hbase-shaded-client.jar" ;;
  "--internal-classpath classpath")
    IFS=: && echo "$WORK/conf/client:\${lib[*]}\${lib[*]:+:}\$(cat "$WORK/cp.txt")" ;;
  *) echo "stand-in hbase: only classpath" >&2 && exit 1 ;;
esac
SH
  chmod +x "$home/bin/hbase"
  tar -xzf target/scbf-hbase-*-bin.tar.gz -C "$WORK/release"
  release=$(echo "$WORK"/release/scbf-hbase-*)
  lists_indexes() { # runs scbf-admin status crash ("$@": the launcher, with its environment)
    local out line
    out=$(env "$@" status crash 2>>"$WORK/logs/client.log") || { echo "$* exited $?"; return 1; }
    for line in '^city +d:city +global, 8 buckets' '^age +d:age +local' \
      '^zone +d:zone +global, by value' '^score +d:score long +global, ordered' \
      '^shelf +d:shelf +global, by value.*, EVENTUAL'; do
      grep -qE "$line" <<<"$out" || { printf '%s: no line %s in\n%s\n' "$*" "$line" "$out"; return 1; }
    done
  }
  lists_indexes PATH="$home/bin:$PATH" "$release/bin/scbf-admin"
  echo "  release: $(basename "$release")/bin/scbf-admin status lists the 5 indexes"

  cp "$release/bin/scbf-admin" "$WORK/path/scbf-admin"
  status=0
  HBASE_HOME=$home "$WORK/path/scbf-admin" status crash >/dev/null 2>"$WORK/no-jar.err" || status=$?
  if [ $status != 2 ] || ! grep -q 'no scbf-hbase jar' "$WORK/no-jar.err"; then
    echo "with no scbf-hbase jar anywhere, scbf-admin exited $status, not 2 naming the jar:"
    cat "$WORK/no-jar.err"
    exit 1
  fi
  cp "$release"/lib/scbf-hbase-*.jar "$home/lib/"
  lists_indexes HBASE_HOME="$home" "$WORK/path/scbf-admin"
  echo "  release: the launcher alone, the jar in \$HBASE_HOME/lib: status lists the 5 indexes" \
    "($((SECONDS - started)) s for both)"
}

restart_all() { # JAR or nothing (uninstalled): one server at a time, writes going on
  local began stopped
  for server in rs1 rs2 master; do
    began=$SECONDS
    stop "$server"
    stopped=$SECONDS
    start "$server" "${1:-}"
    [ "$server" = master ] && await_master
    progress "$STEP_WRITES"
    echo "  $server restarted $([ -n "${1:-}" ] && echo "with $(basename "$1")" || echo "without scbf")," \
      "$SECONDS s in (stop $((stopped - began)) s, start and $STEP_WRITES writes" \
      "$((SECONDS - stopped)) s), $(logged) writes in this run"
  done
}

echo "1. plain HBase"
start zk; sleep 2
start master; start rs1; start rs2
await_master
workload create-table
writing
progress "$STEP_WRITES"

echo "2. install the previous release, one server at a time"
restart_all "$previous"
workload create-indexes
workload create-eventual
progress "$STEP_WRITES"

echo "3. rolling upgrade to this build"
restart_all "$jar"
checked check
release_cli

echo "4. rollback to the previous release"
writing
restart_all "$previous"
checked check

echo "5. uninstall"
writing
workload drop-indexes
restart_all
checked check-data
echo "lifecycle: done in $SECONDS s"
