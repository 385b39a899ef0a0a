#!/usr/bin/env bash
# Configures and builds the JNI library (CMake target scbfjni) for one platform. The Maven build
# calls it once per platform in the jar: the host's (always) and linux-aarch64's (-Paarch64, with
# scripts/toolchains/aarch64-linux-gnu.cmake).
# Usage: scripts/build-jni.sh BUILD_DIR OUTPUT_DIR BUILD_TYPE [TOOLCHAIN_FILE]
set -euo pipefail
build_dir=$1
output_dir=$2
build_type=$3
toolchain=${4:-}
source_dir=$(cd "$(dirname "$0")/.." && pwd)
configure=(-S "$source_dir" -B "$build_dir" -DBUILD_TESTING=OFF
  -DCMAKE_BUILD_TYPE="$build_type" -DCMAKE_LIBRARY_OUTPUT_DIRECTORY="$output_dir")
if [ -n "$toolchain" ]; then configure+=(-DCMAKE_TOOLCHAIN_FILE="$toolchain"); fi
cmake "${configure[@]}"
cmake --build "$build_dir" --target scbfjni -j2
