#!/usr/bin/env bash
# slap on several load hosts at once with pdsh: every host starts measuring at the same
# instant (--start_at, LEAD seconds from now), writes its results as JSON, and the results are
# gathered here and merged into one report, one JSON document and one picture. A host that
# fails (unreachable, no slap, a run that went wrong) is named, and the others are merged.
#
# Usage: HOSTS='load[1-4]' SERVER=mc1:11211 examples/pdsh-fanout.sh [slap options...]
#   HOSTS   any pdsh host list: load1,load2,load3 or load[1-4] or load[1-2],other
#   SERVER  the memcached (or proxy) to load, host:port
#   LEAD    seconds from now to the common start (default 15): long enough for ssh to reach
#           every host; a host that starts later than a second past it refuses to run
#   OUT     the directory for the results (default results-START)
#   SHARE   how the hosts split the load: empty (the default) gives host I of N --share=I/N,
#           its part of -P, of each --sweep rate and of -x, so that the hosts together make
#           the load the options write once; keys gives --share=I/N,keys, each host's clients
#           their own keys too; none gives no --share, every host making the whole load
# The slap options after the script's name reach every host as they are, quoted; they come
# after the defaults below (-T 4 -c 128 -t 60s), so they override them.
# A host's I is its place among the names pdsh expands HOSTS into, sorted, each name once
# (load[1-4]: load1 is 1/4; load[1-10]: load10 is 2/10); a host that fails leaves its part
# missing, and the merge names it.
# Each host writes its results into the home directory of the user ssh logs in as
# (slap-START.json), never into /tmp, where any user could have planted the name; once copied
# here, the file is removed from every host (a host's copy is kept only if it could not be
# fetched, and the script says so).
# Needs pdsh (Debian: pdsh; its exec module runs ssh and scp once per host) with ssh access
# to the hosts and slap installed on each, and the hosts' clocks in step (NTP or PTP):
# --start_at is a time of day, read by each host's clock.
# Exit status: 0 every host's results merged; 1 some host failed, the others merged; 2 bad
# usage, or no host produced results.
set -uo pipefail
hosts=${HOSTS:?set HOSTS to a pdsh host list (load1,load2 or load[1-4])}
server=${SERVER:?set SERVER to the memcached host:port}
lead=${LEAD:-15}
start=$(($(date +%s) + lead))
dir=${OUT:-results-$start}
case ${SHARE-} in
"" | none) keys="" ;;
keys) keys=,keys ;;
*) echo "pdsh-fanout: SHARE is empty, keys or none, not '$SHARE'" >&2; exit 2 ;;
esac
mkdir -p "$dir" || exit 2

# The remote command line, every word quoted for the remote shell; $(hostname) is left for it.
remote="slap --servers=$(printf %q "$server") --threads=4 --concurrency=128 --time=60s"
remote+=" --start_at=$start --label=\$(hostname) --json=slap-$start.json --quiet"
for arg in "$@"; do
    remote+=" $(printf %q "$arg")"
done

# pdsh's own reading of the host list (ranges included), run here without connecting anywhere.
mapfile -t names < <(pdsh -R exec -w "$hosts" echo %h | sed 's/^[^:]*: //' | sort -u)
if [[ ${#names[@]} -eq 0 ]]; then
    echo "pdsh-fanout: HOSTS '$hosts' names no host" >&2
    exit 2
fi

# Each host once, in that (sorted) order: its place is its part of the load.
list=$(IFS=,; echo "${names[*]}")
export FANOUT_NAMES="${names[*]}" FANOUT_REMOTE=$remote FANOUT_SHARE=""
[[ ${SHARE-} == none ]] || FANOUT_SHARE="/${#names[@]}$keys"
# One host's run: pdsh's exec module runs it once per host, %h the host's name. The remote
# command reaches it through the environment, not pdsh's command line, where pdsh would read
# each % of the options (--max_errors=1%) as one of its own %h, %u, %n.
run_on() {
    local i=1 name
    for name in $FANOUT_NAMES; do
        [[ $name == "$1" ]] && break
        i=$((i + 1))
    done
    exec ssh "$1" "$FANOUT_REMOTE${FANOUT_SHARE:+ --share=$i$FANOUT_SHARE}"
}
export -f run_on
# A failed host is told apart below, by its missing results. ($1 is bash -c's: the host.)
# shellcheck disable=SC2016
pdsh -S -R exec -w "$list" bash -c 'run_on "$1"' run_on %h
pdsh -R exec -w "$list" scp -q %h:slap-$start.json "$dir/%h.json" 2>/dev/null

have=() fetched=() failed=()
for host in "${names[@]}"; do
    if [[ -s $dir/$host.json ]]; then
        have+=("$dir/$host.json")
        fetched+=("$host")
    else
        failed+=("$host")
    fi
done
# The copies are here: remove each host's file (its name is this run's own, nothing else is
# touched). A host whose file could not be fetched keeps it, if it wrote one.
if [[ ${#fetched[@]} -gt 0 ]] &&
    ! pdsh -S -R exec -w "$(IFS=,; echo "${fetched[*]}")" ssh %h rm -f "slap-$start.json"; then
    echo "pdsh-fanout: slap-$start.json may remain in the home directory of some of" \
        "${fetched[*]}" >&2
fi
if [[ ${#have[@]} -eq 0 ]]; then
    echo "pdsh-fanout: no host produced results (${failed[*]})" >&2
    exit 2
fi
slap merge "${have[@]}" --json="$dir/merged.json" --csv="$dir/merged.csv" \
    --svg="$dir/merged.svg"
merged=$?
if [[ ${#failed[@]} -gt 0 ]]; then
    echo "pdsh-fanout: no results from ${failed[*]}: merged the other ${#have[@]} hosts into $dir" >&2
    exit 1
fi
[[ $merged -eq 0 ]] && exit 0 || exit 1
