#!/usr/bin/env bash
# The README's two commands on a fresh Debian, the tree arriving as a release tarball would:
# a minbase bookworm tree (made by debootstrap once and cached, scripts/packages.sh root),
# this tree's files copied in without .git (scripts/tree-files.sh, as `git archive` gives
# them), /proc and /dev mounted, then ./scripts/demo.sh and ./scripts/test.sh as root in a
# chroot. Prints a summary: each command's exit status and time, the tests passed, failed and
# skipped, and each skip's reason. The chroot is a copy of the cached tree (a plain directory,
# as debootstrap leaves it: its / is no mount point), its mounts in a mount namespace of this
# script's own, so nothing stays mounted and the cache stays fresh.
# Usage: scripts/fresh.sh [demo|test|both]   (default both; logs in build-fresh/)
# Not a test (it runs the whole suite, about 25 minutes): run it before landing a change to
# the set-up, the packaging or the suite, and give its summary in the change's note.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
what=${1:-both}
case $what in demo | test | both) ;; *) echo "fresh.sh: demo, test or both, not '$what'" >&2; exit 2 ;; esac
[[ $(id -u) == 0 ]] || { echo "fresh.sh: needs root (debootstrap, chroot, mounts)" >&2; exit 1; }
"$top/scripts/packages.sh" root
base=${SLAP_CACHE:-/var/cache/slap}/bookworm-minbase
logs=$top/build-fresh
mkdir -p "$logs"
work=$(mktemp -d /var/tmp/slap-fresh.XXXXXX)
trap 'rm -rf "$work"' EXIT
cp -a "$base/." "$work/root/"
mkdir -p "$work/root/root/slap"
"$top/scripts/tree-files.sh" | (cd "$top" && tar --null -T - -cf -) |
    tar -C "$work/root/root/slap" -xf -
cp /etc/resolv.conf "$work/root/etc/resolv.conf"

# In the chroot: one command, its output in a log, its status and time in the summary.
# The cached tree is bound read-only where the suite's packages.sh looks for it.
inside=$(cat <<'EOF'
set -u
r=$1 logs=$2 base=$3
shift 3
mount -t proc proc "$r/proc"
mount --rbind /dev "$r/dev"
mount --make-rslave "$r/dev"
mkdir -p "$r/var/cache/slap/bookworm-minbase"
mount --bind "$base" "$r/var/cache/slap/bookworm-minbase"
mount -o remount,bind,ro "$r/var/cache/slap/bookworm-minbase"
for cmd in "$@"; do
    start=$SECONDS
    timeout 3600 chroot "$r" /usr/bin/env -i HOME=/root TERM=dumb \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        /bin/sh -c "cd /root/slap && ./scripts/$cmd.sh" >"$logs/$cmd.log" 2>&1
    echo "$cmd $? $((SECONDS - start))" >>"$logs/status"
    for b in build build-asan; do
        t=$r/root/slap/$b/Testing/Temporary/LastTest.log
        if [ -f "$t" ]; then cp "$t" "$logs/$cmd-$b-LastTest.log"; fi
    done
done
EOF
)
rm -f "$logs"/*.log "$logs/status"
cmds=(demo test)
[[ $what == both ]] || cmds=("$what")
echo "fresh: the tree in $work, logs in $logs: ${cmds[*]}" >&2
unshare --mount --propagation private bash -c "$inside" inside "$work/root" "$logs" "$base" \
    "${cmds[@]}" || echo "fresh: the chroot's set-up failed (status $?)" >&2

# The summary.
fail=0
while read -r cmd status secs; do
    printf 'fresh: ./scripts/%s.sh: exit %s after %ss\n' "$cmd" "$status" "$secs"
    [[ $status == 0 ]] || fail=1
done < <(cat "$logs/status" 2>/dev/null || echo "set-up 1 0")
if [[ -f $logs/test.log ]]; then
    grep -E '^== |tests passed|tests failed' "$logs/test.log" | sed 's/^/fresh:   /'
    grep -E '^[[:space:]]+[0-9]+ - [a-z0-9_]+ \((Failed|Timeout|SEGFAULT|Subprocess aborted)' \
        "$logs/test.log" | sed 's/^[[:space:]]*/fresh:   failed: /' || true
    for b in build build-asan; do
        t=$logs/test-$b-LastTest.log
        [[ -f $t ]] || continue
        grep -oE '^(FAIL|SKIP) [a-z0-9_]+: .*' "$t" | sort -u | sed "s/^/fresh:   $b: /" || true
    done
fi
exit "$fail"
