#!/usr/bin/env bash
# Install what slap needs to build and test, from Debian packages; only what is missing.
set -euo pipefail

packages=(cmake make gcc pkg-config libevent-dev libmemcached-dev libcmocka-dev libssl-dev openssl
          memcached python3)
packages+=("$@")

missing=()
for pkg in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$pkg")
    fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "deps: installing ${missing[*]}" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
