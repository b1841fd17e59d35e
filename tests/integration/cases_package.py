"""slap as its users install it: the Debian package installed by apt into a fresh minbase
chroot, and the container image built from the Containerfile; in both, the installed slap
loads a memcached on the host's loopback and its counters equal the server's.

scripts/packages.sh makes what these check (the .deb, the debootstrap tree, the image), with
what is slow to make cached between runs; scripts/test.sh runs it before the release pass, so
here it only finds its work done. As root only (chroot, mounts, buildah)."""
import json
import os
import re
import shutil
import subprocess
import tempfile

from harness import check, check_agree, counters, measured, Skip
from harness import SAME_IN_EVERY_BUILD, needs, no_time, release_only, timeout

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CACHE = os.environ.get("SLAP_CACHE", "/var/cache/slap")
ROOT = os.path.join(CACHE, "bookworm-minbase")

# Runs a command in the chroot: the cached tree, read-only, under an overlay whose writable
# layer is the case's own directory (where no overlay can be mounted, a copy of the tree made
# there once), with /proc, in a mount namespace of its own, so that nothing stays mounted when
# the command ends, however it ends. $1: the case's directory; with "slap" as $2 the harness'
# slap path follows it and is replaced by the chroot's slap.
ENTER = r"""set -eu
t=$1
shift
[ "$1" = slap ] && shift 2 && set -- /usr/bin/slap "$@"
if ! mount -t overlay overlay -o "lowerdir=$ROOT,upperdir=$t/upper,workdir=$t/work" "$t/root" \
        2>/dev/null && [ ! -e "$t/root/etc" ]; then
    cp -a "$ROOT/." "$t/upper/." "$t/root/"
fi
mount -t proc proc "$t/root/proc"
exec chroot "$t/root" "$@"
"""


def packages(*steps):
    if os.geteuid() != 0:
        raise Skip("the package tests need root (chroot, mounts, buildah)")
    r = subprocess.run(["unshare", "--mount", "--propagation", "private", "true"],
                       capture_output=True, text=True, timeout=30)
    if r.returncode != 0:
        raise Skip("no private mount namespace can be made here (%s): the chroot and the "
                   "image need one (in a chroot, / is not a mount point)" % r.stderr.strip())
    r = subprocess.run([os.path.join(TOP, "scripts", "packages.sh")] + list(steps),
                       capture_output=True, text=True, timeout=900)
    print(r.stderr)
    check(r.returncode == 0, "scripts/packages.sh %s failed:\n%s" % (" ".join(steps), r.stderr))
    return r.stderr


def the_deb():
    debs = [f for f in os.listdir(os.path.join(TOP, "build-pkg")) if re.match(r"slap_.*\.deb$", f)]
    check(len(debs) == 1, "build-pkg holds %r, not one .deb" % debs)
    return os.path.join(TOP, "build-pkg", debs[0])


def in_root(tmp, args, timeout=300):
    enter = ["unshare", "--mount", "--propagation", "private", "sh", "-c", ENTER, "enter", tmp]
    r = subprocess.run(enter + args, capture_output=True, text=True, timeout=timeout,
                       env=dict(os.environ, ROOT=ROOT, DEBIAN_FRONTEND="noninteractive"))
    print("# in the chroot: %s -> %d\n%s%s" % (" ".join(args), r.returncode, r.stdout, r.stderr))
    return r


@no_time
@release_only(SAME_IN_EVERY_BUILD)
@timeout(900)
@needs("root")
def case_package_deb_in_chroot(mc):
    """The .deb, lintian clean of errors (scripts/deb.sh checks), installed by apt into a fresh
    minbase chroot, which brings its libraries: /usr/bin/slap, the memslap face, the man pages
    (slap's and each subcommand's) and the completion are there, and its slap's counters equal
    the server's."""
    packages("deb", "root")
    deb = the_deb()
    tmp = tempfile.mkdtemp(prefix="slap-chroot-")
    try:
        for d in ("upper", "work", "root"):
            os.mkdir(os.path.join(tmp, d))
        os.makedirs(os.path.join(tmp, "upper", "tmp"))
        shutil.copy(deb, os.path.join(tmp, "upper", "tmp", "slap.deb"))
        r = in_root(tmp, ["dpkg-query", "-W", "slap"])
        check(r.returncode != 0, "slap is already in the chroot: it is not fresh")
        r = in_root(tmp, ["sh", "-c", "apt-get update -qq && apt-get install -y -qq "
                          "--no-install-recommends /tmp/slap.deb"])
        check(r.returncode == 0, "apt could not install the package: %s" % r.stderr[-2000:])
        r = in_root(tmp, ["dpkg-query", "-L", "slap"])
        files = set(r.stdout.split())
        for f in ("/usr/bin/slap", "/usr/bin/slap-memslap", "/usr/share/man/man1/slap.1.gz",
                  "/usr/share/man/man1/slap-compare.1.gz", "/usr/share/man/man1/slap-merge.1.gz",
                  "/usr/share/man/man1/slap-plot.1.gz", "/usr/share/man/man1/slap-search.1.gz",
                  "/usr/share/man/man1/slap-trace-stats.1.gz",
                  "/usr/share/man/man1/slap-memslap.1.gz",
                  "/usr/share/bash-completion/completions/slap",
                  "/usr/share/slap/grafana/slap.json"):
            check(f in files, "the package does not install %s" % f)
        r = in_root(tmp, ["slap", "-", "--version"])
        check(r.returncode == 0 and r.stdout.startswith("slap "), "slap --version: %r" % r.stdout)
        args = ["-s", mc.addr, "-T", "2", "-c", "8", "-t", "1s"]
        rc, out, err, delta, _ = measured([mc], args, prefix=[
            "env", "ROOT=" + ROOT, "unshare", "--mount", "--propagation", "private",
            "sh", "-c", ENTER, "enter", tmp, "slap"])
        check(rc == 0, "the chroot's slap exited %d: %s" % (rc, err))
        slap = counters(out)
        check(slap["cmd_get"] + slap["cmd_set"] > 100, "the chroot's slap hardly ran: %r" % slap)
        check_agree(slap, delta)
        r = in_root(tmp, ["slap-memslap", "--help"])
        check(r.returncode == 0 and "memslap" in r.stdout + r.stderr, "slap-memslap --help failed")
    finally:
        shutil.rmtree(tmp)


def buildah(*args, timeout=120):
    r = subprocess.run([os.path.join(TOP, "scripts", "packages.sh"), "buildah"] + list(args),
                       capture_output=True, text=True, timeout=timeout)
    return r


@no_time
@release_only(SAME_IN_EVERY_BUILD)
@timeout(900)
@needs("root")
def case_package_image_runs(mc):
    """The image the Containerfile builds (on a base made from the same minbase tree, since no
    registry is reachable): slap is its entry point, it runs as the unprivileged user slap
    (uid 10001), and its slap, run on the host's network, loads a memcached on loopback with
    counters equal to the server's."""
    packages("image")
    unable = os.path.join(TOP, "build-pkg", "image.unable")
    if os.path.exists(unable):
        with open(unable) as f:
            raise Skip("buildah cannot make images here: %s" % f.read().strip())
    r = buildah("inspect", "--type", "image", "localhost/slap:test")
    check(r.returncode == 0, "no image localhost/slap:test: %s" % r.stderr)
    config = json.loads(r.stdout)["OCIv1"]["config"]
    check(config.get("Entrypoint") == ["slap"], "the entry point is %r" % config.get("Entrypoint"))
    check(config.get("User") == "slap", "the image runs as %r" % config.get("User"))
    r = buildah("from", "localhost/slap:test")
    check(r.returncode == 0, "buildah from: %s" % r.stderr)
    container = r.stdout.strip().splitlines()[-1]
    run = [os.path.join(TOP, "scripts", "packages.sh"), "buildah", "run", "--isolation", "chroot",
           "--network", "host", container, "--"]
    try:
        r = subprocess.run(run + ["id", "-u"], capture_output=True, text=True, timeout=60)
        check(r.stdout.strip() == "10001", "the image's user is uid %r" % r.stdout)
        r = subprocess.run(run + ["sh", "-c", "command -v cc gcc cmake || true"],
                           capture_output=True, text=True, timeout=60)
        check(r.stdout.strip() == "", "the runtime stage carries build tools: %r" % r.stdout)
        args = ["-s", mc.addr, "-T", "2", "-c", "8", "-t", "1s"]
        # the harness puts its own slap's path first: the shell drops it and runs the image's
        rc, out, err, delta, _ = measured([mc], args, prefix=run + [
            "sh", "-c", 'shift; exec slap "$@"', "image"])
        check(rc == 0, "the image's slap exited %d: %s" % (rc, err))
        slap = counters(out)
        check(slap["cmd_get"] + slap["cmd_set"] > 100, "the image's slap hardly ran: %r" % slap)
        check_agree(slap, delta)
    finally:
        buildah("rm", container)


@no_time
def case_tree_files_without_git():
    """A tree without .git (a release tarball, `git archive`) lists the same files as the git
    checkout it came from (scripts/tree-files.sh: what the package is built from and its cache
    key hashes), and never a build directory's."""
    lister = os.path.join(TOP, "scripts", "tree-files.sh")
    r = subprocess.run([lister], capture_output=True, timeout=60)
    check(r.returncode == 0, "tree-files.sh: %s" % r.stderr)
    files = sorted(r.stdout.decode().split("\0")[:-1])
    check("CMakeLists.txt" in files and "scripts/tree-files.sh" in files, "listed: %r" % files[:9])
    tmp = tempfile.mkdtemp(prefix="slap-tarball-")
    try:
        tar = subprocess.run("tar --null -T - -cf - | tar -C %s -xf -" % tmp, shell=True, cwd=TOP,
                             input=r.stdout, capture_output=True, timeout=60)
        check(tar.returncode == 0, "tar: %s" % tar.stderr)
        for junk in ("build/CMakeCache.txt", "build-asan/slap", "src/x.o",
                     "tests/integration/__pycache__/harness.cpython-311.pyc"):
            os.makedirs(os.path.dirname(os.path.join(tmp, junk)), exist_ok=True)
            open(os.path.join(tmp, junk), "w").close()
        r = subprocess.run([os.path.join(tmp, "scripts", "tree-files.sh")], capture_output=True,
                           timeout=60, env=dict(os.environ, GIT_CEILING_DIRECTORIES=tmp))
        check(r.returncode == 0, "tree-files.sh without .git: %s" % r.stderr)
        without = sorted(r.stdout.decode().split("\0")[:-1])
        check(without == files, "without .git: %d files, %r more, %r fewer" % (
            len(without), sorted(set(without) - set(files))[:5],
            sorted(set(files) - set(without))[:5]))
    finally:
        shutil.rmtree(tmp)
