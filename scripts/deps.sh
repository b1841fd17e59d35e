#!/usr/bin/env bash
# Install what slap needs to build and test, from Debian packages; only what is missing.
# As root it installs them; otherwise it names them, prints the command to run and fails.
set -euo pipefail

packages=(cmake make gcc pkg-config libevent-dev libmemcached-dev libcmocka-dev libssl-dev openssl
          libzstd-dev zstd zlib1g-dev libsqlite3-dev libpq-dev memcached python3)
packages+=("$@")

missing=()
for pkg in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$pkg")
    fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
    echo "deps: missing packages: ${missing[*]}" >&2
    echo "deps: install them as root, then run this again:" >&2
    echo "    apt-get update && apt-get install -y --no-install-recommends ${missing[*]}" >&2
    exit 1
fi
echo "deps: installing ${missing[*]}" >&2
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
