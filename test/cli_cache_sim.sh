#!/usr/bin/env bash
# Contract of `scbf cache-sim`: output form, usage errors, OPT bounds.
# Usage: cli_cache_sim.sh /path/to/scbf
set -u
SCBF=${1:?usage: cli_cache_sim.sh SCBF_BINARY}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# A skewed trace with a scan mixed in, plus lines the parser must skip.
awk 'BEGIN { srand(7); print "# header"; for (i = 0; i < 20000; i++) {
        if (i % 5 == 0) print 5000 + i % 1500; else print int(400 * rand() * rand()) }
      print ""; print "not a key"; print "12abc" }' > "$tmp/trace"

ratio() { "$SCBF" cache-sim --policy "$1" --capacity "$2" "$tmp/trace" | tail -n 1 | sed 's/^hit_ratio=//'; }

REFERENCE="arc lirs s3fifo sieve wtinylfu wtinylfu-1pct"
for p in hotscore paper lru opt $REFERENCE; do
    out=$("$SCBF" cache-sim --policy $p --capacity 50 "$tmp/trace"); rc=$?
    [ $rc -eq 0 ] || fail "$p: exit $rc"
    last=$(printf '%s\n' "$out" | tail -n 1)
    [[ $last =~ ^hit_ratio=0\.[0-9]{4}$ ]] || fail "$p: last line '$last'"
    printf '%s\n' "$out" | grep -q "accesses=20000 " || fail "$p: skipped lines miscounted: $out"
done

# OPT bounds every online policy.
for cap in 10 50 200; do
    opt=$(ratio opt $cap); lru=$(ratio lru $cap); hot=$(ratio hotscore $cap)
    paper=$(ratio paper $cap)
    awk -v o="$opt" -v l="$lru" -v h="$hot" -v p="$paper" \
        'BEGIN { exit !(o >= l && o >= h && o >= p && h > 0 && p > 0) }' ||
        fail "capacity $cap: opt=$opt lru=$lru hotscore=$hot paper=$paper"
done

# Stdin; no --policy is hotscore; the paper's flags.
a=$("$SCBF" cache-sim --policy lru --capacity 50 - < "$tmp/trace" | tail -n 1)
b=$("$SCBF" cache-sim --policy lru --capacity 50 "$tmp/trace" | tail -n 1)
[ "$a" = "$b" ] || fail "stdin gives '$a', file gives '$b'"
[ "$(ratio hotscore 50)" = "$("$SCBF" cache-sim --capacity 50 "$tmp/trace" | tail -n 1 | sed 's/^hit_ratio=//')" ] ||
    fail "no --policy is not hotscore"
"$SCBF" cache-sim --policy paper --capacity 50 --period 100 --decay 0.5 --ghosts 20 "$tmp/trace" \
    | tail -n 1 | grep -Eq '^hit_ratio=0\.[0-9]{4}$' || fail "paper flags"

# A trace whose answer is known: 1 2 1 2 ... with room for both keys.
printf '1\n2\n1\n2\n1\n2\n' > "$tmp/tiny"
for p in hotscore paper lru opt $REFERENCE; do
    last=$("$SCBF" cache-sim --policy $p --capacity 2 "$tmp/tiny" | tail -n 1)
    [ "$last" = "hit_ratio=0.6667" ] || fail "$p on 1 2 1 2 1 2: $last"
done

# Usage errors exit 2 with a message; runtime errors exit 1.
expect_rc() {
    local want=$1; shift
    "$SCBF" cache-sim "$@" > "$tmp/out" 2> "$tmp/err"; local rc=$?
    [ $rc -eq "$want" ] || fail "cache-sim $*: exit $rc, want $want"
    [ -s "$tmp/err" ] || fail "cache-sim $*: no message on stderr"
}
expect_rc 2
expect_rc 2 --policy lru "$tmp/trace"
expect_rc 2 --policy hotscore --period 10 --capacity 10 "$tmp/trace"
expect_rc 2 --policy fifo --capacity 10 "$tmp/trace"
expect_rc 2 --policy lirs --capacity 1 "$tmp/trace"
expect_rc 2 --policy arc --period 10 --capacity 10 "$tmp/trace"
expect_rc 2 --policy lru --capacity 0 "$tmp/trace"
expect_rc 2 --policy lru --capacity -5 "$tmp/trace"
expect_rc 2 --policy lru --capacity ten "$tmp/trace"
expect_rc 2 --policy lru --capacity 10
expect_rc 2 --policy lru --capacity 10 "$tmp/trace" "$tmp/trace"
expect_rc 2 --policy lru --capacity 10 --period 5 "$tmp/trace"
expect_rc 2 --policy paper --capacity 10 --decay 0 "$tmp/trace"
expect_rc 2 --policy paper --capacity 10 --decay 1.5 "$tmp/trace"
expect_rc 2 --policy paper --capacity 10 --period 0 "$tmp/trace"
expect_rc 2 --policy hotscore --capacity 10 --bogus 1 "$tmp/trace"
expect_rc 2 --policy hotscore --capacity
expect_rc 1 --policy lru --capacity 10 "$tmp/does-not-exist"
printf 'no keys here\n' > "$tmp/empty"
expect_rc 1 --policy lru --capacity 10 "$tmp/empty"

if [ $fails -ne 0 ]; then echo "$fails failure(s)"; exit 1; fi
echo "cli_cache_sim: all passed"
