"""Where output files go: --json, --csv, --svg, --hlog, --samples and --hdr-out (and slap
merge's and slap plot's outputs) replace a regular file whole, write anything else (a device, a FIFO,
standard output by name) in place, and an output that cannot be written fails the run (1)
without losing the report or the other outputs. In a directory other users can write, the
results stay slap's user's and nothing another user planted is followed or written to; two
outputs naming one file are refused; messages quote the paths they name."""
import json
import os
import re
import shutil
import stat
import subprocess
import tempfile
import threading
import time

from harness import PATHS, Skip, check, run_line, run_slap
from harness import no_time

# Each output option, the file name it gets in a test directory.
OUTPUTS = (("--json", "r.json"), ("--csv", "r.csv"), ("--svg", "r.svg"),
           ("--samples", "s.csv"), ("--hdr-out", "r.hgrm"), ("--hlog", "r.hlog"))
RUN = ["-x", "2000", "-c", "4"]


def tmpdir():
    return tempfile.mkdtemp(prefix="slap-outfiles-")


def null_node(path):
    """A character device node like /dev/null (major 1, minor 3) at path; the case is skipped
    where the machine does not let it be made (no root, a container without CAP_MKNOD)."""
    try:
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except OSError as e:
        raise Skip("cannot make a device node here: mknod: %s" % e.strerror)


def is_null_node(path):
    st = os.lstat(path)
    return stat.S_ISCHR(st.st_mode) and st.st_rdev == os.makedev(1, 3)


def no_temporaries(d):
    left = [n for n in os.listdir(d) if ".tmp." in n]
    check(not left, "temporary files left in %s: %r" % (d, left))


def check_written(d, name):
    """The output named name in d is there and whole."""
    path = os.path.join(d, name)
    check(os.path.isfile(path) and os.path.getsize(path) > 0, "%s was not written" % name)
    with open(path) as f:
        text = f.read()
    if name.endswith(".json"):
        json.loads(text)
    elif name.endswith(".svg"):
        check(text.rstrip().endswith("</svg>"), "%s is cut short" % name)
    elif name.endswith(".hgrm"):
        check("Total count" in text, "%s is cut short" % name)
    elif name.endswith(".hlog"):
        check(text.startswith("#[Histogram log format version 1.3]\n") and
              re.search(r"^[0-9.]+,[0-9.]+,[0-9.]+,HISTF[A-Za-z0-9+/=]+$", text, re.M),
              "%s has no interval" % name)
    else:
        check(text.count("\n") > 1, "%s has no rows" % name)


@no_time
def case_outputs_to_a_device_node(mc):
    """Every output (and merge's and plot's) to a character device node writes into the device:
    the node stays a device, nothing is renamed over it, no temporary file is left."""
    d = tmpdir()
    try:
        args = ["-s", mc.addr] + RUN
        for opt, name in OUTPUTS:
            null_node(os.path.join(d, name))
            args += [opt, os.path.join(d, name)]
        rc, out, err = run_slap(args)
        check(rc == 0, "exit status %d: %s" % (rc, err))
        for opt, name in OUTPUTS:
            check(is_null_node(os.path.join(d, name)), "%s replaced the device node" % opt)
        saved = os.path.join(d, "saved.json")
        rc, out, err = run_slap(["-s", mc.addr] + RUN + ["--json", saved])
        check(rc == 0, "exit status %d: %s" % (rc, err))
        for sub in (["merge", saved, "--json", os.path.join(d, "r.json"), "--csv",
                     os.path.join(d, "r.csv"), "--svg", os.path.join(d, "r.svg"), "--hlog",
                     os.path.join(d, "r.hlog")],
                    ["plot", saved, "-o", os.path.join(d, "r.svg")]):
            rc, out, err = run_slap(sub)
            check(rc == 0, "slap %s: exit status %d: %s" % (sub[0], rc, err))
            for name in ("r.json", "r.csv", "r.svg", "r.hlog"):
                check(is_null_node(os.path.join(d, name)),
                      "slap %s replaced the device node %s" % (sub[0], name))
        no_temporaries(d)
    finally:
        shutil.rmtree(d)


@no_time
def case_outputs_to_dev_null(mc):
    """--json /dev/null (and the others) as root leaves /dev/null the character device it was."""
    check(is_null_node("/dev/null"), "/dev/null is not a character device before the test")
    try:
        args = ["-s", mc.addr] + RUN
        for opt, _ in OUTPUTS:
            args += [opt, "/dev/null"]
        rc, out, err = run_slap(args)
        check(rc == 0, "exit status %d: %s" % (rc, err))
        check(is_null_node("/dev/null"), "/dev/null is no longer a character device")
        left = [n for n in os.listdir("/dev") if n.startswith("null.tmp.")]
        check(not left, "temporary files left in /dev: %r" % left)
    finally:
        if not is_null_node("/dev/null"):  # repair what a broken slap did to the machine
            os.unlink("/dev/null")
            null_node("/dev/null")


def read_fifo(path, got):
    with open(path, "rb") as f:
        got.append(f.read())


@no_time
def case_outputs_to_a_fifo(mc):
    """A FIFO with a reader gets the JSON and the samples, and stays a FIFO."""
    d = tmpdir()
    try:
        fifos = [os.path.join(d, n) for n in ("json.fifo", "samples.fifo")]
        readers = []
        for path in fifos:
            os.mkfifo(path)
            got = []
            t = threading.Thread(target=read_fifo, args=(path, got), daemon=True)
            t.start()
            readers.append((t, got))
        rc, out, err = run_slap(["-s", mc.addr] + RUN + ["--json", fifos[0], "--samples",
                                                         fifos[1]])
        check(rc == 0, "exit status %d: %s" % (rc, err))
        for path, (t, got) in zip(fifos, readers):
            t.join(timeout=10)
            check(stat.S_ISFIFO(os.lstat(path).st_mode), "%s is no longer a FIFO" % path)
            check(got, "the reader of %s got nothing" % path)
        doc = json.loads(readers[0][1][0])
        check(doc["types"]["total"]["count"] == 2000, "the JSON through the FIFO: %r"
              % doc["types"]["total"]["count"])
        rows = readers[1][1][0].decode().splitlines()
        check(rows[0].startswith("intended_s,") and len(rows) == 2001,
              "the samples through the FIFO: %d lines" % len(rows))
        no_temporaries(d)
    finally:
        shutil.rmtree(d)


@no_time
def case_outputs_to_standard_output_by_name(mc):
    """--json /dev/stdout, as another user than standard output's owner, appends the JSON to
    standard output after the report; /proc/self/fd/1 does the same."""
    as_nobody = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
    for path, prefix in (("/dev/stdout", as_nobody if os.geteuid() == 0 else []),
                         ("/proc/self/fd/1", [])):
        rc, out, err = run_slap(["-s", "127.0.0.1:%d" % mc.port] + RUN + ["--json", path],
                                prefix=prefix)
        check(rc == 0, "--json %s: exit status %d: %s" % (path, rc, err))
        report, brace, rest = out.partition("\n{")
        check(run_line(report) is not None, "--json %s: no report before the JSON" % path)
        doc = json.loads(brace[1:] + rest)
        check(doc["types"]["total"]["count"] == 2000, "--json %s: the JSON" % path)


@no_time
def case_output_that_cannot_be_written(mc):
    """One output under a regular file (not a directory): exit 1, a line naming the option, the
    path and why; the report complete on standard output; the other outputs written."""
    d = tmpdir()
    try:
        blocker = os.path.join(d, "file")
        with open(blocker, "w") as f:
            f.write("not a directory\n")
        for bad_opt, bad_name in OUTPUTS:
            args = ["-s", mc.addr] + RUN
            for opt, name in OUTPUTS:
                args += [opt, os.path.join(blocker if opt == bad_opt else d, name)]
            rc, out, err = run_slap(args)
            bad = os.path.join(blocker, bad_name)
            check(rc == 1, "%s under a file: exit status %d" % (bad_opt, rc))
            check("%s: cannot write '%s': Not a directory" % (bad_opt, bad) in err,
                  "%s under a file: %r" % (bad_opt, err))
            check(run_line(out) is not None and "Get Statistics" in out,
                  "%s under a file: the report is not complete: %r" % (bad_opt, out))
            for opt, name in OUTPUTS:
                if opt != bad_opt:
                    check_written(d, name)
                    os.unlink(os.path.join(d, name))
        no_temporaries(d)
        saved = os.path.join(d, "saved.json")
        rc, out, err = run_slap(["-s", mc.addr] + RUN + ["--json", saved])
        rc, out, err = run_slap(["merge", saved, "--json", os.path.join(blocker, "m.json"),
                                 "--csv", os.path.join(d, "m.csv")])
        check(rc == 1 and "--json: cannot write '%s/m.json'" % blocker in err,
              "slap merge: %d %r" % (rc, err))
        check(run_line(out) is not None, "slap merge: the report is lost")
        check_written(d, "m.csv")
    finally:
        shutil.rmtree(d)


@no_time
def case_regular_output_replaced_whole(mc):
    """An existing regular file is replaced whole (a new inode, its old mode kept); through a
    symbolic link, the file it names is replaced and the link stays."""
    d = tmpdir()
    try:
        before = {}
        for _, name in OUTPUTS:
            path = os.path.join(d, name)
            with open(path, "w") as f:
                f.write("old content\n" * 1000)
            os.chmod(path, 0o640)
            before[name] = os.stat(path).st_ino
        args = ["-s", mc.addr] + RUN
        for opt, name in OUTPUTS:
            args += [opt, os.path.join(d, name)]
        rc, out, err = run_slap(args)
        check(rc == 0, "exit status %d: %s" % (rc, err))
        for opt, name in OUTPUTS:
            st = os.stat(os.path.join(d, name))
            check(st.st_ino != before[name], "%s was written in place, not replaced" % opt)
            check(stat.S_IMODE(st.st_mode) == 0o640, "%s: mode %o" % (opt, st.st_mode))
            check_written(d, name)
        os.mkdir(os.path.join(d, "real"))
        target = os.path.join(d, "real", "target.json")
        with open(target, "w") as f:
            f.write("old\n")
        link = os.path.join(d, "link.json")
        os.symlink("real/target.json", link)
        rc, out, err = run_slap(["-s", mc.addr] + RUN + ["--json", link])
        check(rc == 0, "exit status %d: %s" % (rc, err))
        check(os.path.islink(link) and os.readlink(link) == "real/target.json",
              "the link was replaced")
        check_written(os.path.join(d, "real"), "target.json")
        no_temporaries(d)
        no_temporaries(os.path.join(d, "real"))
    finally:
        shutil.rmtree(d)


# ---- outputs written as root into a directory other users can write (issue 31) ----

AS_NOBODY = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
NOBODY_UID = 65534


def shared_dir():
    """A private directory (root's, others may only pass through), and in it a sticky directory
    anyone can write, like /tmp: (private, shared)."""
    if os.geteuid() != 0:
        raise Skip("needs root (it plants files as nobody)")
    d = tmpdir()
    os.chmod(d, 0o755)
    shared = os.path.join(d, "shared")
    os.mkdir(shared)
    os.chmod(shared, 0o1777)
    return d, shared


def as_nobody(script):
    """A shell script run as nobody (umask 0): what another user plants."""
    r = subprocess.run(AS_NOBODY + ["sh", "-c", "umask 0; " + script], capture_output=True,
                       text=True)
    check(r.returncode == 0, "as nobody: %s: %s" % (script, r.stderr))


def current_umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


class SymlinksUnprotected:
    """fs.protected_symlinks set to 0 for the case where the machine lets it be set (and put
    back after); where it does not, the case runs with it as it is and says so: slap's own rule
    must hold either way."""
    PATH = "/proc/sys/fs/protected_symlinks"

    def __enter__(self):
        self.old = None
        try:
            with open(self.PATH) as f:
                value = f.read().strip()
        except OSError as e:
            print("fs.protected_symlinks cannot be read (%s): the case runs with it as it is"
                  % e.strerror)
            return self
        if value == "0":
            print("fs.protected_symlinks is 0: the kernel follows every link; slap must not")
            return self
        try:
            with open(self.PATH, "w") as f:
                f.write("0")
            self.old = value
            print("fs.protected_symlinks set to 0 for this case (it was %s)" % value)
        except OSError as e:
            print("fs.protected_symlinks stays %s (%s): the case runs with the kernel's rule on "
                  "as well" % (value, e.strerror))
        return self

    def __exit__(self, *exc):
        if self.old is not None:
            with open(self.PATH, "w") as f:
                f.write(self.old)
        return False


def nobody_can_write(path):
    r = subprocess.run(AS_NOBODY + ["sh", "-c", 'echo forged >> "$1"', "sh", path],
                       capture_output=True)
    return r.returncode == 0


@no_time
def case_outputs_in_a_shared_directory_stay_slaps(mc):
    """As root, each output over a 0666 file nobody made in a sticky directory anyone can write:
    the results are root's, with the umask's mode (not nobody's 0666), and nobody cannot edit
    them."""
    d, shared = shared_dir()
    try:
        names = " ".join('"%s"' % os.path.join(shared, name) for _, name in OUTPUTS)
        as_nobody("for f in %s; do echo planted > \"$f\"; chmod 666 \"$f\"; done" % names)
        args = ["-s", mc.addr] + RUN
        for opt, name in OUTPUTS:
            args += [opt, os.path.join(shared, name)]
        rc, out, err = run_slap(args)
        check(rc == 0, "exit status %d: %s" % (rc, err))
        want = 0o666 & ~current_umask()
        for opt, name in OUTPUTS:
            path = os.path.join(shared, name)
            st = os.stat(path)
            check(st.st_uid == os.geteuid() and st.st_gid == os.getegid(),
                  "%s: the results belong to uid %d gid %d" % (opt, st.st_uid, st.st_gid))
            check(stat.S_IMODE(st.st_mode) == want, "%s: mode %o, not %o" %
                  (opt, stat.S_IMODE(st.st_mode), want))
            check_written(shared, name)
            check(not nobody_can_write(path), "%s: nobody could edit the results" % opt)
        no_temporaries(shared)
    finally:
        shutil.rmtree(d)


class FifoReader:
    """Reads the FIFO at path, never blocking on it, until stopped: what reached it (got)."""

    def __init__(self, path):
        self.fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        self.got = b""
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.read, daemon=True)
        self.thread.start()

    def read(self):
        while not self.stop.is_set():
            try:
                self.got += os.read(self.fd, 65536)
            except BlockingIOError:
                pass
            time.sleep(0.01)

    def close(self):
        self.stop.set()
        self.thread.join(timeout=5)
        os.close(self.fd)
        return self.got


@no_time
def case_planted_links_and_fifos_refused(mc):
    """In a sticky directory anyone can write, nobody's symbolic links (to a file outside, a
    dangling one into a root-only directory, one on the way to the name) and FIFO are refused
    by every output: exit 1, a message naming the link's owner, the report kept, nothing
    written through them. fs.protected_symlinks is 0 where the machine lets it be: slap's rule
    holds whatever the kernel's. Root's own link there is followed."""
    d, shared = shared_dir()
    try:
        outside = os.path.join(d, "outside.json")
        with open(outside, "w") as f:
            f.write("secret\n")
        private = os.path.join(d, "private")
        os.mkdir(private, 0o700)
        as_nobody('ln -s "%s" %s/link; ln -s "%s/new.json" %s/dangling; ln -s "%s" %s/way; '
                  'mkfifo %s/fifo; ln -s "%s" %s/link2; ln -s "%s" %s/link3'
                  % (outside, shared, private, shared, d, shared, shared, outside, shared,
                     outside, shared))
        reader = FifoReader(os.path.join(shared, "fifo"))
        planted = (("link", "it is a symbolic link of another user (uid %d)" % NOBODY_UID),
                   ("dangling", "it is a symbolic link of another user (uid %d)" % NOBODY_UID),
                   ("way/outside.json", "'%s/way' is a symbolic link of another user (uid %d)"
                    % (shared, NOBODY_UID)),
                   ("fifo", "a FIFO of another user (uid %d)" % NOBODY_UID),
                   ("link2", "it is a symbolic link of another user (uid %d)" % NOBODY_UID),
                   ("link3", "it is a symbolic link of another user (uid %d)" % NOBODY_UID))
        with SymlinksUnprotected():
            for (opt, _), (name, why) in zip(OUTPUTS, planted):
                path = os.path.join(shared, name)
                rc, out, err = run_slap(["-s", mc.addr] + RUN + [opt, path])
                check(rc == 1, "%s %s: exit status %d" % (opt, name, rc))
                check("%s: cannot write '%s': %s" % (opt, path, why) in err,
                      "%s %s: %r" % (opt, name, err))
                check(run_line(out) is not None, "%s %s: the report is lost" % (opt, name))
            with open(outside) as f:
                check(f.read() == "secret\n", "the file outside was replaced through a link")
            check(os.listdir(private) == [], "made in the root-only directory: %r"
                  % os.listdir(private))
            got = reader.close()
            check(got == b"", "the planted FIFO received %d bytes" % len(got))
            own = os.path.join(shared, "own")
            os.symlink(outside, own)
            rc, out, err = run_slap(["-s", mc.addr] + RUN + ["--json", own])
            check(rc == 0, "root's own link: exit status %d: %s" % (rc, err))
            json.load(open(outside))
        no_temporaries(shared)
        no_temporaries(d)
    finally:
        shutil.rmtree(d)


@no_time
def case_two_outputs_one_file(mc):
    """Two outputs naming one file are refused before the run (exit 2), naming both (in the
    option table's order): the same
    name (also in a directory that is not there), ./x and x, a link and its file, a dangling
    link and the name it leads to; slap merge the same. /dev/null may take several."""
    d = tmpdir()
    try:
        real = os.path.join(d, "real.json")
        open(real, "w").close()
        os.symlink("real.json", os.path.join(d, "link.json"))
        os.symlink("new.json", os.path.join(d, "dangling.json"))
        cases = ((["--samples", "X", "--json", "X"], "--json and --samples both name 'X'"),
                 (["--json", "nodir/X", "--hdr_out", "nodir/X"],
                  "--hdr_out and --json both name 'nodir/X'"),
                 (["--csv", "./y.csv", "--svg", "y.csv"],
                  "--csv './y.csv' and --svg 'y.csv' are the same file"),
                 (["--json", "link.json", "--csv", "real.json"],
                  "--json 'link.json' and --csv 'real.json' are the same file"),
                 (["--samples", "dangling.json", "--hdr_out", "new.json"],
                  "--hdr_out 'new.json' and --samples 'dangling.json' are the same file"))
        for extra, want in cases:
            r = subprocess.run([PATHS.slap, "-s", mc.addr] + RUN + extra, cwd=d,
                               capture_output=True, text=True, timeout=30)
            print("$ slap %s -> %d\n%s" % (" ".join(extra), r.returncode, r.stderr))
            check(r.returncode == 2 and want in r.stderr and "a file of its own" in r.stderr,
                  "%s: %d %r" % (extra, r.returncode, r.stderr))
            check("Run time" not in r.stdout, "%s: the run went ahead" % extra)
        check(sorted(os.listdir(d)) == ["dangling.json", "link.json", "real.json"],
              "files were made: %r" % os.listdir(d))
        saved = os.path.join(d, "saved.json")
        rc, out, err = run_slap(["-s", mc.addr] + RUN + ["--json", saved, "--csv", "/dev/null",
                                                         "--hdr_out", "/dev/null"])
        check(rc == 0, "/dev/null twice: exit status %d: %s" % (rc, err))
        r = subprocess.run([PATHS.slap, "merge", "saved.json", "--json", "m.json", "--csv",
                            "./m.json"], cwd=d, capture_output=True, text=True, timeout=30)
        check(r.returncode == 2 and "--csv './m.json' and --json 'm.json' name one file"
              in r.stderr, "slap merge: %d %r" % (r.returncode, r.stderr))
        check(not os.path.exists(os.path.join(d, "m.json")), "slap merge wrote m.json")
        before = open(saved, "rb").read()
        for args in (["merge", "saved.json", "--json", "./saved.json"],
                     ["plot", "saved.json", "-o", "saved.json"]):
            r = subprocess.run([PATHS.slap] + args, cwd=d, capture_output=True, text=True,
                               timeout=30)
            check(r.returncode == 2 and "names the input 'saved.json'" in r.stderr,
                  "an output over its input: %r: %d %r" % (args, r.returncode, r.stderr))
            check(open(saved, "rb").read() == before, "%r replaced its input" % args)
    finally:
        shutil.rmtree(d)


def case_outputs_with_names_near_the_limit(mc):
    """Output names of 245 to 255 bytes (the longest a directory takes) are written: the
    temporary file's suffix would pass the limit, so it is named .slap.tmp.XXXXXX beside it
    (they failed with 'File name too long'); nothing is left behind."""
    d = tmpdir()
    try:
        for length in (245, 255):
            name = "r" * (length - 5) + ".json"
            out = os.path.join(d, name)
            rc, _, err = run_slap(["-s", mc.addr, "-x", "2000", "-c", "4", "-q", "--json", out])
            check(rc == 0, "a %d-byte name: exit %d: %s" % (length, rc, err))
            json.load(open(out))
            check(sorted(os.listdir(d)) == [name], "left in the directory: %r" % os.listdir(d))
            os.unlink(out)
    finally:
        shutil.rmtree(d, ignore_errors=True)


@no_time
def case_temporary_file_is_slaps_own(mc):
    """A file named like slap's temporary file (PATH.tmp.PID, the old name) is left alone; the
    temporary file slap makes is its user's, mode 0600 while it is written, and the finished
    file gets the umask's mode."""
    d = tmpdir()
    try:
        out = os.path.join(d, "r.json")
        r = subprocess.run(["sh", "-c", 'echo keep > "$1.tmp.$$"; echo keep > "$1.tmp"; '
                            'exec "$2" -s "$3" -x 2000 -c 4 -q --json "$1"; ', "sh", out,
                            PATHS.slap, mc.addr], capture_output=True, text=True, timeout=60)
        check(r.returncode == 0, "exit status %d: %s" % (r.returncode, r.stderr))
        json.load(open(out))
        kept = sorted(n for n in os.listdir(d) if n != "r.json")
        check(len(kept) == 2, "the user's files of slap's temporary names: %r" % kept)
        for name in kept:
            with open(os.path.join(d, name)) as f:
                check(f.read() == "keep\n", "%s was overwritten" % name)
            os.unlink(os.path.join(d, name))
        samples = os.path.join(d, "s.csv")
        seen = []

        def watch():
            deadline = time.monotonic() + 10
            while not seen and time.monotonic() < deadline:
                for name in os.listdir(d):
                    if name.startswith("s.csv.tmp."):
                        try:
                            seen.append(os.stat(os.path.join(d, name)))
                        except OSError:
                            pass
                time.sleep(0.01)

        rc, out_text, err = run_slap(["-s", mc.addr, "-t", "2s", "-c", "2", "--samples",
                                      samples], during=watch)
        check(rc == 0, "exit status %d: %s" % (rc, err))
        check(seen, "no temporary file seen during the run")
        check(stat.S_IMODE(seen[0].st_mode) == 0o600 and seen[0].st_uid == os.geteuid(),
              "the temporary file: mode %o, uid %d" % (stat.S_IMODE(seen[0].st_mode),
                                                       seen[0].st_uid))
        want = 0o666 & ~current_umask()
        check(stat.S_IMODE(os.stat(samples).st_mode) == want, "the samples file: mode %o"
              % stat.S_IMODE(os.stat(samples).st_mode))
        no_temporaries(d)
    finally:
        shutil.rmtree(d)


@no_time
def case_outputs_on_a_full_disk_say_so(mc):
    """Every output into /dev/full, and --hdr_out, --json and --csv into /dev/stdout on a full
    disk, say 'No space left on device' (--hdr_out said 'Input/output error'), exit 1. (-q
    there: without it the report's header finds standard output full, and no run starts.)"""
    for opt, _ in OUTPUTS:
        rc, out, err = run_slap(["-s", mc.addr] + RUN + [opt, "/dev/full"])
        check(rc == 1 and "%s: cannot write '/dev/full': No space left on device" % opt in err,
              "%s /dev/full: %d %r" % (opt, rc, err))
    for opt in ("--hdr-out", "--json", "--csv"):
        with open("/dev/full", "w") as full:
            r = subprocess.run([PATHS.slap, "-s", mc.addr, "-q"] + RUN + [opt, "/dev/stdout"],
                               stdout=full, stderr=subprocess.PIPE, text=True, timeout=60)
        print("$ slap %s /dev/stdout >/dev/full -> %d\n%s" % (opt, r.returncode, r.stderr))
        check(r.returncode == 1 and "%s: cannot write '/dev/stdout': No space left on device"
              % opt in r.stderr and "Input/output error" not in r.stderr,
              "%s /dev/stdout: %d %r" % (opt, r.returncode, r.stderr))


@no_time
def case_paths_in_messages_are_quoted(mc):
    """A path (or URL, or word) with an escape sequence and a newline is shown quoted, its
    bytes as \\xNN: nothing paints the terminal or starts a forged line of its own."""
    bad = "nodir/\x1b[31mRED\x1b[0m\nfake: line.csv"
    shown = "'nodir/\\x1b[31mRED\\x1b[0m\\x0afake: line.csv'"
    run = os.path.join(tmpdir(), "run.json")
    rc, _, err = run_slap(["-s", mc.addr] + RUN + ["--json", run])
    check(rc == 0, "a results file: %d %r" % (rc, err))
    tries = (
        (["-s", mc.addr] + RUN + ["--csv", bad], 1, "--csv: cannot write %s" % shown),
        (["-s", mc.addr] + RUN + ["--csv", bad, "--svg", bad], 2,
         "--csv and --svg both name %s" % shown),
        (["-s", mc.addr, "--tls", "--tls_ca", bad], 2, "--tls_ca: cannot read %s" % shown),
        (["-s", mc.addr, "--push", "http://" + bad], 2,
         "--push 'http://nodir/\\x1b[31mRED\\x1b[0m\\x0afake: line.csv'"),
        (["merge", "--" + bad], 2, "unknown option '--nodir/\\x1b[31m"),
        (["-s", mc.addr] + RUN + ["--json", "/nonexistent/it's"], 1,
         "cannot write '/nonexistent/it\\x27s'"),
        # inputs: merge's and plot's files, compare's globs, plot's samples
        (["merge", bad], 2, "cannot read %s" % shown),
        (["plot", bad, "-o", "/dev/null"], 2, "cannot read %s" % shown),
        (["compare", bad + "*", bad + "*"], 2, "no results file matches %s" % shown[:-1]),
        (["plot", run, "--samples", bad, "-o", "/dev/null"], 2, "--samples %s" % shown))
    for args, status, want in tries:
        rc, out, err = run_slap(args)
        check(rc == status and want in err, "%r: %d %r" % (args[-1], rc, err))
        check("\x1b" not in err and not re.search(r"^fake:", err, re.M),
              "%r: raw bytes in the message: %r" % (args[-1], err))
