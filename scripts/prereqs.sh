#!/usr/bin/env bash
# Installs what the build and tests need on a fresh Debian 12 machine, only if
# missing. Sourced-safe: run it, it exits 0 when everything is present.
set -euo pipefail

packages=(cmake gcc make pkg-config check libxxhash-dev clang clang-format libclang-rt-14-dev
          openjdk-17-jdk-headless maven)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "prereqs: installing ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
fi
