#!/usr/bin/env bash
# Installs the Debian 12 packages Carousel needs, if any are missing. Works as root or as
# a user with sudo; does nothing when everything is already installed.
set -euo pipefail

# `install-deps.sh binary`: only what building and running the carousel binary needs
# (launch/demo.sh); by default also what the tests and the man page need.
packages=(build-essential cmake openmpi-bin libopenmpi-dev libeigen3-dev
  libboost-serialization-dev librandom123-dev libcli11-dev zlib1g-dev)
[ "${1:-}" = binary ] || packages+=(libgtest-dev python3-numpy help2man)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "carousel: installing ${missing[*]}" >&2
if [ "$(id -u)" -eq 0 ]; then sudo=(); else sudo=(sudo); fi
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
