#!/usr/bin/env bash
# Builds the jar of the last release from git, once: target/previous-release/scbf-hbase.jar.
# Two checks use it: the API check in `mvn verify` (japicmp, which runs this script first) and the
# lifecycle test (scripts/lifecycle-test.sh: upgrade from it, roll back to it).
# .ci/previous-release holds the commit of the last release's tag (v0.3.0): a commit rather than the
# tag, so that a clone without tags has it. The jar is kept while the commit stays the same, so a
# test run builds it at most once.
#   scripts/previous-release.sh              # prints the jar's path
# Environment: PREVIOUS (a git revision instead of .ci/previous-release).
set -euo pipefail
cd "$(dirname "$0")/.."
revision=${PREVIOUS:-$(cat .ci/previous-release)}
commit=$(git rev-parse --verify --quiet "$revision^{commit}") || {
  echo "previous-release: $revision is not in this clone (a shallow clone? git fetch --unshallow)" >&2
  exit 1
}
out=$(pwd)/target/previous-release
jar=$out/scbf-hbase.jar
if [ -f "$jar" ] && [ "$(cat "$out/commit" 2>/dev/null)" = "$commit" ]; then
  echo "$jar"
  exit 0
fi
rm -rf "$out" && mkdir -p "$out/src"
# git archive rather than a worktree: nothing to clean up in .git if the build fails.
git archive "$commit" | tar -x -C "$out/src"
if ! (cd "$out/src" && mvn -B -q -DskipTests -Dspotless.check.skip=true -Dmaven.javadoc.skip=true \
  -Dmaven.source.skip=true package) >"$out/build.log" 2>&1; then
  tail -n 40 "$out/build.log" >&2
  echo "previous-release: the build of $commit failed (log: $out/build.log)" >&2
  exit 1
fi
built=$(ls "$out"/src/target/scbf-hbase-*.jar | grep -v -E 'sources|javadoc|hbase-shaded-client' | head -1)
cp "$built" "$jar.tmp" && mv "$jar.tmp" "$jar"
echo "$commit" >"$out/commit"
rm -rf "$out/src"
echo "$jar"
