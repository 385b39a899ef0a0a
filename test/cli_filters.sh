#!/usr/bin/env bash
# CLI contract for the filter commands: exact output forms and usage errors.
# $1 = path to the scbf binary.
set -u
scbf=$1
fail=0
check() { # description, expected, actual
    if [ "$2" != "$3" ]; then
        echo "FAIL: $1: expected '$2', got '$3'"
        fail=1
    fi
}
expect_usage() { # args...: must exit 2 with a message on stderr and nothing on stdout
    local out err rc
    out=$("$scbf" "$@" 2>/tmp/cli_filters_err.$$)
    rc=$?
    err=$(cat /tmp/cli_filters_err.$$)
    rm -f /tmp/cli_filters_err.$$
    [ "$rc" = 2 ] || { echo "FAIL: scbf $*: exit $rc, expected 2"; fail=1; }
    [ -z "$out" ] || { echo "FAIL: scbf $*: unexpected stdout '$out'"; fail=1; }
    case "$err" in *usage:*) ;; *) echo "FAIL: scbf $*: no usage on stderr"; fail=1 ;; esac
}

# The SCBF paper's Table 1 (M = 45 KB = 368,640 positions).
check "sizing P=0.1%" "k=10 m=36864 n=25639" "$("$scbf" sizing --positions 368640 --fpr 0.001)"
check "sizing P=0.01%" "k=14 m=26331 n=19229" "$("$scbf" sizing --positions 368640 --fpr 0.0001)"
check "sizing P=0.001%" "k=17 m=21684 n=15383" "$("$scbf" sizing --positions 368640 --fpr 0.00001)"
check "sizing P=0.0001%" "k=20 m=18432 n=12819" "$("$scbf" sizing --positions 368640 --fpr 0.000001)"
# Inverse: the smallest k*m with capacity >= 25639 (one slice position less
# than the paper's filter still holds 25639.2 keys); 2304 words per slice.
check "sizing capacity" "positions=368630 k=10 m=36863 bytes=184320" \
    "$("$scbf" sizing --capacity 25639 --fpr 0.001)"
check "sizing capacity order" "positions=368630 k=10 m=36863 bytes=184320" \
    "$("$scbf" sizing --fpr 0.001 --capacity 25639)"
check "sizing capacity 1" "positions=8 k=4 m=2 bytes=32" "$("$scbf" sizing --capacity 1 --fpr 0.1)"

# fpr: last line form, and the measured rate near the target.
for args in "--capacity 20000 --fpr 0.01" "--capacity 20000 --fpr 0.01 --scalable --seed 7"; do
    out=$("$scbf" fpr $args) || { echo "FAIL: scbf fpr $args exited $?"; fail=1; continue; }
    last=$(printf '%s\n' "$out" | tail -n 1)
    if ! [[ "$last" =~ ^measured_fpr=([0-9.e+-]+)\ target_fpr=([0-9.e+-]+)$ ]]; then
        echo "FAIL: scbf fpr $args: last line '$last'"
        fail=1
        continue
    fi
    m=${BASH_REMATCH[1]} t=${BASH_REMATCH[2]}
    check "fpr target echo ($args)" "0.01" "$t"
    # Single filter: within 15% of P. Scalable: P is a ceiling on the compound rate.
    case "$args" in *--scalable*) scalable=1 ;; *) scalable=0 ;; esac
    ok=$(awk -v m="$m" -v t="$t" -v s="$scalable" 'BEGIN {
        if (s == 1) print (m > 0 && m <= t) ? 1 : 0;
        else print (m >= 0.85 * t && m <= 1.15 * t) ? 1 : 0 }')
    check "fpr measured ($args) = $m" 1 "$ok"
done

# Usage errors: exit 2, usage on stderr.
expect_usage sizing
expect_usage sizing --positions 368640
expect_usage sizing --fpr 0.001
expect_usage sizing --positions 368640 --capacity 10 --fpr 0.001
expect_usage sizing --positions abc --fpr 0.001
expect_usage sizing --positions -5 --fpr 0.001
expect_usage sizing --positions 368640 --fpr 0
expect_usage sizing --positions 368640 --fpr 1.5
expect_usage sizing --positions 368640 --fpr x
expect_usage sizing --positions 5 --fpr 0.001
expect_usage sizing --positions 368640 --fpr 0.001 --bogus 1
expect_usage sizing --positions 368640 --fpr
expect_usage fpr
expect_usage fpr --capacity 1000
expect_usage fpr --capacity 0 --fpr 0.01
expect_usage fpr --capacity 1000 --fpr 2
expect_usage fpr --capacity 1000 --fpr 0.01 --seed -1
expect_usage fpr --capacity 1000 --fpr 0.01 --what

[ "$fail" = 0 ] && echo "cli_filters: all checks passed"
exit "$fail"
