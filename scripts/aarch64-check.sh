#!/usr/bin/env bash
# The native library for linux-aarch64: cross-built with Debian's gcc-aarch64-linux-gnu, then its
# C suite run under qemu-user. Installs what it needs (the arm64 multiarch packages of Check).
#
# Every Check case runs except those named "concurrency": qemu-user runs AArch64 threads with the
# host's (x86's, stronger) memory ordering, so a concurrency case there proves nothing about
# AArch64's; and its emulation of exclusive loads and stores lets a glibc rwlock writer starve
# behind two spinning readers (a ten-line program never gets the write lock in 30 s), so those
# cases hang. They need AArch64 hardware. `mvn -Paarch64 package` puts the library in the jar.
# Environment: SCBF_TEST_SCALE (default 0.05: emulation is ~10x slower than native).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/prereqs.sh gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user check:arm64 \
  libsubunit-dev:arm64

build=build-aarch64
JAVA_HOME="${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")}" \
  cmake -S . -B "$build" -DCMAKE_TOOLCHAIN_FILE=scripts/toolchains/aarch64-linux-gnu.cmake \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j"$(nproc)" >/dev/null

lib="$build/libscbfjni.so"
machine=$(readelf -h "$lib" | awk -F: '/Machine/ {gsub(/^ +/, "", $2); print $2}')
[ "$machine" = AArch64 ] || { echo "aarch64: $lib is built for '$machine'"; exit 1; }
# What the jar's library may need of the host: glibc only (libc, libm, and the loader for TLS).
extra=$(readelf -d "$lib" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' |
  grep -vxE 'libc\.so\.6|libm\.so\.6|ld-linux-aarch64\.so\.1' || true)
[ -z "$extra" ] || { echo "aarch64: $lib needs more than glibc: $extra"; exit 1; }
echo "aarch64: $lib ($machine, needs $(readelf -d "$lib" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' '))"

emulate=(qemu-aarch64 -L /usr/aarch64-linux-gnu)
export SCBF_TEST_SCALE="${SCBF_TEST_SCALE:-0.05}" CK_FORK=no
# One process per Check case, as many at a time as there are cores (each is single-threaded);
# each prints its line, or its output's tail and "FAILED" on a failure.
run_case() { # TEST CASE
  local out
  if out=$(CK_RUN_CASE="$2" timeout 600 "${emulate[@]}" "$build/$1" 2>&1); then
    echo "  $1/$2: $(echo "$out" | tail -n 1)"
  else
    echo "$out" | tail -n 30
    echo "aarch64: $1 case $2 FAILED"
  fi
}
export -f run_case
export build
export emulate_line="${emulate[*]}"
cases=()
for t in "$build"/test_*; do
  name=$(basename "$t")
  for c in $(sed -n 's/.*tcase_create("\([a-z_]*\)").*/\1/p' "test/$name.c"); do
    [ "$c" = concurrency ] || cases+=("$name $c")
  done
done
results=$(printf '%s\n' "${cases[@]}" |
  xargs -P "$(nproc)" -L 1 bash -c 'emulate=($emulate_line); run_case "$0" "$1"')
echo "$results"
if grep -q ' FAILED$' <<<"$results"; then exit 1; fi
cases=${#cases[@]}
wrapper="$build/scbf-emulated"
printf '#!/bin/sh\nexec %s "%s" "$@"\n' "${emulate[*]}" "$(pwd)/$build/scbf" >"$wrapper"
chmod +x "$wrapper"
for script in test/cli_*.sh; do
  rc=0
  out=$(bash "$script" "$wrapper" 2>&1) || rc=$?
  if [ "$rc" -eq 77 ]; then
    echo "  $(basename "$script"): skipped (its data is missing)"
  elif [ "$rc" -ne 0 ]; then
    echo "$out" | tail -n 30
    echo "aarch64: $(basename "$script") failed"
    exit 1
  else
    echo "  $(basename "$script"): ok"
  fi
done
echo "aarch64: $cases Check cases and the CLI contract passed under qemu-user"
