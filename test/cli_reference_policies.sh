#!/usr/bin/env bash
# The simulator's reference policies reproduce their published hit ratios on the real traces
# (../shared/traces/README.md, "best published policy here") within 0.01, and hotcache's own
# policies print the same form. Usage: cli_reference_policies.sh /path/to/scbf [TRACES_DIR]
# The traces are not in the repository: they are the shared/traces folder beside it (as on the
# development machines and in CI), or SCBF_TRACES. Without them the test reports itself skipped
# (exit 77), saying where it looked.
set -u
SCBF=${1:?usage: cli_reference_policies.sh SCBF_BINARY [TRACES_DIR]}
here=$(cd "$(dirname "$0")" && pwd)
traces=
for d in ${2:-} ${SCBF_TRACES:-} "$here/../../shared/traces" /work/shared/traces; do
    if [ -f "$d/multi1.trace.gz" ]; then traces=$d; break; fi
done
if [ -z "$traces" ]; then
    echo "SKIP: no traces (looked in ${2:-} ${SCBF_TRACES:-} $here/../../shared/traces /work/shared/traces)"
    exit 77
fi
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

ratio() { zcat "$traces/$1.trace.gz" | "$SCBF" cache-sim --policy "$2" --capacity "$3" - | tail -n 1 | sed 's/^hit_ratio=//'; }

# trace capacity policy published-ratio (the README's column; W-TinyLFU 1% figures for the address
# traces, adapt-size and orm-busy were measured with a plain 1% window there).
while read -r trace cap policy want; do
    got=$(ratio "$trace" "$policy" "$cap")
    awk -v g="$got" -v w="$want" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d <= 0.01) }' ||
        fail "$policy on $trace at $cap: $got, published $want"
    printf '%-12s %6s %-14s %s (published %s)\n' "$trace" "$cap" "$policy" "$got" "$want"
done <<'FIGURES'
multi1 500 lirs 0.560
loop 500 lirs 0.489
cpp 300 arc 0.856
zigzag 300 lirs 0.001
backf 200 lirs 0.002
scan 500 lirs 0.238
twolf 32 wtinylfu-1pct 0.720
swim 32 wtinylfu-1pct 0.712
gcc 32 wtinylfu-1pct 0.722
adapt-size 1000 wtinylfu-1pct 0.299
orm-night 5000 s3fifo 0.905
w106 20000 wtinylfu 0.913
orm-busy 5000 wtinylfu-1pct 0.836
FIGURES

# Usage: the reference policies take no paper flags.
"$SCBF" cache-sim --policy arc --period 10 --capacity 10 "$traces/README.md" > /dev/null 2>&1
[ $? -eq 2 ] || fail "--period with a reference policy is not a usage error"

if [ $fails -eq 0 ]; then echo "cli_reference_policies: all passed"; else exit 1; fi
