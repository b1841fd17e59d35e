"""Where output files go: --json, --csv, --svg, --samples and --hdr-out (and slap merge's and
slap plot's outputs) replace a regular file whole, write anything else (a device, a FIFO,
standard output by name) in place, and an output that cannot be written fails the run (1)
without losing the report or the other outputs."""
import json
import os
import shutil
import stat
import subprocess
import tempfile
import threading

from harness import PATHS, Skip, check, run_line, run_slap

# Each output option, the file name it gets in a test directory.
OUTPUTS = (("--json", "r.json"), ("--csv", "r.csv"), ("--svg", "r.svg"),
           ("--samples", "s.csv"), ("--hdr-out", "r.hgrm"))
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
    else:
        check(text.count("\n") > 1, "%s has no rows" % name)


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
                     os.path.join(d, "r.csv"), "--svg", os.path.join(d, "r.svg")],
                    ["plot", saved, "-o", os.path.join(d, "r.svg")]):
            rc, out, err = run_slap(sub)
            check(rc == 0, "slap %s: exit status %d: %s" % (sub[0], rc, err))
            for name in ("r.json", "r.csv", "r.svg"):
                check(is_null_node(os.path.join(d, name)),
                      "slap %s replaced the device node %s" % (sub[0], name))
        no_temporaries(d)
    finally:
        shutil.rmtree(d)


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
