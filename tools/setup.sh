#!/usr/bin/env bash
# Installs, from Debian's archive, whatever xover needs to build and test and
# is not yet on this machine. Safe to run again: it installs nothing twice.
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  libsimgrid-dev libboost-program-options-dev libpugixml-dev
  libgtest-dev googletest
  python3 python3-matplotlib libxml2-utils
  openmpi-bin libopenmpi-dev iproute2 util-linux procps ucx-utils
  clang libclang-rt-14-dev lld
)
# Optional backends, built when present.
optional=(libibverbs-dev)

missing=()
for p in "${packages[@]}" "${optional[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
echo "xover setup: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
