#!/usr/bin/env bash
# slap on several load hosts at once with pdsh: every host starts measuring at the same
# instant (--start_at, 15 s from now), writes its results as JSON, and the results are
# gathered here and merged into one report, one JSON document and one picture.
# Usage: HOSTS=load1,load2,load3 SERVER=mc1:11211 examples/pdsh-fanout.sh [slap options...]
# Needs pdsh (Debian: pdsh) with ssh access to the hosts, and slap installed on each.
set -euo pipefail
hosts=${HOSTS:?set HOSTS to a comma-separated list of load hosts}
server=${SERVER:?set SERVER to the memcached host:port}
start=$(($(date +%s) + 15))
dir=results-$start
mkdir -p "$dir"

export PDSH_RCMD_TYPE=ssh
pdsh -w "$hosts" "slap --servers=$server --threads=4 --concurrency=128 --time=60s \
    --start_at=$start --label=\$(hostname) --json=/tmp/slap-$start.json --quiet $*"

for host in ${hosts//,/ }; do
    scp -q "$host:/tmp/slap-$start.json" "$dir/$host.json"
done
slap merge "$dir"/*.json --json="$dir/merged.json" --csv="$dir/merged.csv" \
    --svg="$dir/merged.svg"
