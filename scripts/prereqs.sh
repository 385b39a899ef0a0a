#!/usr/bin/env bash
# Installs, only if missing, what the build and tests need on a fresh Debian 12 machine, or else
# the packages named as arguments (without their recommendations; a name with a foreign
# architecture, e.g. check:arm64, adds that architecture first). Exits 0 when all are present.
set -euo pipefail

if (($#)); then
  packages=("$@")
  flags=(--no-install-recommends)
else
  packages=(cmake gcc make pkg-config check libxxhash-dev clang clang-format libclang-rt-14-dev
            openjdk-17-jdk-headless maven)
  flags=()
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "prereqs: installing ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  for p in "${missing[@]}"; do
    arch=${p#*:}
    if [ "$arch" != "$p" ] && ! dpkg --print-foreign-architectures | grep -qx "$arch"; then
      "${sudo_cmd[@]}" dpkg --add-architecture "$arch"
    fi
  done
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${flags[@]}" \
    "${missing[@]}" >/dev/null
fi
