#!/usr/bin/env bash
# What the package tests check, built from this tree, with what is slow to make kept between runs:
#   deb    build-pkg/slap_VERSION_ARCH.deb (scripts/deb.sh: dpkg-buildpackage, then lintian),
#          rebuilt only when a file of the tree changed since the last build
#   root   a Debian bookworm minbase tree made by debootstrap, kept in $SLAP_CACHE/bookworm-minbase
#   image  the base image localhost/bookworm-minbase, imported once from that tree, and
#          localhost/slap:test built from the Containerfile on it by buildah (chroot isolation,
#          its layers cached: only the steps after a changed file run again); where buildah
#          cannot work (no mount namespace, / not a mount point as in a chroot), not made, the
#          reason left in build-pkg/image.unable for the image's test to report as its skip
# Usage: scripts/packages.sh [deb|root|image|all]...   (default: all)
#        scripts/packages.sh buildah ARGS...   buildah on the images' storage (run, from, inspect)
# As root only (debootstrap, chroot, buildah). The cache directory is $SLAP_CACHE (default
# /var/cache/slap); a lock in it lets a test and this script run at once. The images live in a
# storage of their own there, overlay unless $SLAP_STORAGE_DRIVER says vfs (for a host that
# cannot mount an overlay, such as a container: vfs copies every layer whole, about twice as
# slow) or the cache is on an overlay itself (then vfs). Prints each step's time.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${SLAP_CACHE:-/var/cache/slap}
out=$top/build-pkg
root=$cache/bookworm-minbase
mirror=${SLAP_MIRROR:-http://deb.debian.org/debian}
# overlay, unless $SLAP_STORAGE_DRIVER says otherwise or the cache is itself on an overlay
# (a container's, a chroot's), which overlay cannot stack on
driver=${SLAP_STORAGE_DRIVER:-overlay}
if [[ -z ${SLAP_STORAGE_DRIVER-} ]] && mkdir -p "$cache" 2>/dev/null &&
    [[ $(stat -f -c %T "$cache") == overlayfs ]]; then
    driver=vfs
fi
# the storage's state that a reboot must clear (mounts, locks) under /run, one per cache
runroot=/run/slap-containers/$(echo "$cache" | md5sum | cut -c1-8)-$driver
buildah=(buildah --root "$cache/containers-$driver" --runroot "$runroot" --storage-driver "$driver")
SECONDS=0
if [[ ${1-} == buildah ]]; then
    exec "${buildah[@]}" "${@:2}"
fi

[[ $(id -u) == 0 ]] || { echo "packages.sh: needs root (debootstrap, chroot, buildah)" >&2; exit 1; }
"$top/scripts/deps.sh" debootstrap buildah build-essential debhelper dpkg-dev fakeroot lintian >&2
mkdir -p "$cache" "$out"
exec 9>"$cache/lock"
flock 9

# The tree's files (scripts/tree-files.sh: git's view, or every file but the build
# directories where there is no git), and their contents.
tree_hash() {
    "$top/scripts/tree-files.sh" | sort -z | (cd "$top" && xargs -0 sha256sum --) |
        sha256sum | cut -c1-16
}

step_deb() {
    local hash
    hash=$(tree_hash)
    if [[ -f $out/deb.stamp && $(cat "$out/deb.stamp") == "$hash" ]] &&
        compgen -G "$out/slap_*.deb" >/dev/null; then
        echo "packages: deb: up to date ($(ls "$out"/slap_*.deb))" >&2
        return
    fi
    rm -f "$out"/slap_*.deb "$out/deb.stamp"
    "$top/scripts/deb.sh" "$out" >/dev/null
    echo "$hash" >"$out/deb.stamp"
    echo "packages: deb: built $(ls "$out"/slap_*.deb) at ${SECONDS}s" >&2
}

step_root() {
    if [[ -f $root/etc/debian_version && -x $root/usr/bin/apt-get ]]; then
        echo "packages: root: cached in $root" >&2
        return
    fi
    local tmp=$cache/bookworm-minbase.new
    rm -rf "$tmp"
    if ! debootstrap --variant=minbase bookworm "$tmp" "$mirror" >"$cache/debootstrap.log" 2>&1; then
        tail -20 "$cache/debootstrap.log" >&2
        echo "packages: debootstrap failed (the whole log: $cache/debootstrap.log)" >&2
        exit 1
    fi
    rm -rf "$root"
    mv "$tmp" "$root"
    echo "packages: root: made by debootstrap in $root at ${SECONDS}s" >&2
}

# Why buildah cannot make images on this machine, or nothing: it needs a mount namespace of
# its own and remounts / (a chroot's / is not a mount point: its commit fails with "remount /
# ... invalid argument"), and a storage it can use. Found before slap's image is tried, so that
# a machine that cannot is told apart from an image that does not build.
image_unable() {
    local why
    if ! mountpoint -q /; then
        echo "/ is not a mount point (a chroot?), and buildah remounts it"
    elif ! why=$(unshare --mount --propagation private true 2>&1); then
        echo "no private mount namespace can be made here (unshare --mount: ${why##*: })"
    elif ! why=$(buildah_probe 2>&1); then
        echo "buildah cannot commit an empty image here ($(grep -m1 -i error <<<"$why" ||
            tail -1 <<<"$why"))"
    fi
}

# buildah itself, on nothing of this tree's: an empty image committed, then removed.
buildah_probe() {
    local c status=0
    c=$("${buildah[@]}" from scratch) || return
    "${buildah[@]}" mount "$c" >/dev/null &&
        "${buildah[@]}" commit -q "$c" localhost/slap-probe >/dev/null &&
        "${buildah[@]}" rmi localhost/slap-probe >/dev/null || status=$?
    "${buildah[@]}" rm "$c" >/dev/null 2>&1 || true
    return "$status"
}

step_image() {
    step_root
    local unable
    unable=$(image_unable)
    if [[ -n $unable ]]; then
        echo "$unable" >"$out/image.unable"
        echo "packages: image: not made: $unable" >&2
        return
    fi
    rm -f "$out/image.unable"
    if ! "${buildah[@]}" inspect --type image localhost/bookworm-minbase >/dev/null 2>&1; then
        local c
        c=$("${buildah[@]}" from scratch)
        tar -C "$root" -c . | tar -C "$("${buildah[@]}" mount "$c")" -x
        "${buildah[@]}" commit -q --rm "$c" localhost/bookworm-minbase >/dev/null
        echo "packages: image: base imported from $root at ${SECONDS}s" >&2
    fi
    # The build stage is tagged too, so that pruning the layers no tag leads to (those of
    # earlier trees) keeps its cached packages.
    local bud=("${buildah[@]}" bud --isolation chroot --layers
               --build-arg BASE=localhost/bookworm-minbase)
    if ! { "${bud[@]}" --target build -t localhost/slap-build:test "$top" &&
           "${bud[@]}" -t localhost/slap:test "$top"; } >"$out/image.log" 2>&1; then
        tail -30 "$out/image.log" >&2
        echo "packages: the image did not build (the whole log: $out/image.log)" >&2
        exit 1
    fi
    "${buildah[@]}" rmi --prune >/dev/null 2>&1 || true
    echo "packages: image: localhost/slap:test built at ${SECONDS}s" >&2
}

[[ $# -gt 0 ]] || set -- all
for what in "$@"; do
    case $what in
    deb) step_deb ;;
    root) step_root ;;
    image) step_image ;;
    all) # debootstrap mostly waits on the mirror: the .deb builds meanwhile
        step_root &
        root_made=$!
        step_deb
        wait "$root_made"
        step_image ;;
    *) echo "packages.sh: unknown step '$what' (deb, root, image or all)" >&2; exit 2 ;;
    esac
done
