"""Results files that break a rule: each made by editing a real slap-written JSON, broken once,
refused by slap merge, slap compare and slap plot (exit 2, naming the file and the field);
runs merge refuses to add (open with closed loop, different measured lengths); streams and
paths that are no results file (/dev/zero, a directory, a socket, an endless pipe, a --samples
file that is not one); a run longer than the periods a document keeps, read by compare and plot;
readers linear in the parts of a file that grow (scripts/readers_scale.py's dimensions)."""
import copy
import importlib.util
import json
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time

from cases_results import scale_totals
from harness import check, PATHS, run_slap, Skip
from harness import VALGRIND_OR_MEMORY, no_time, release_only

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def tmpdir():
    return tempfile.mkdtemp(prefix="slap-resfiles-")


def load(path):
    with open(path) as f:
        return json.load(f)


def save(doc, path):
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def run_json(mc, path, extra):
    rc, _, err = run_slap(["-s", mc.addr, "-c", "2", "--json", path] + extra)
    check(rc == 0, "slap %r: exit %d: %s" % (extra, rc, err))
    return path


def refused_by_all(d, path, other, field, commands=("merge", "compare", "plot")):
    """path is refused by each command (exit 2, nothing printed, its name and field said)."""
    for cmd in commands:
        args = {"merge": ["merge", path, "--json", os.path.join(d, "m.json")],
                "compare": ["compare", other, path],
                "plot": ["plot", path, "-o", os.path.join(d, "p.svg")]}[cmd]
        rc, out, err = run_slap(args)
        check(rc == 2 and out == "" and path in err and field in err.replace(path, ""),
              "slap %s of %s: exit %d, %r %r" % (cmd, os.path.basename(path), rc, out[:300], err))
        check(not os.path.exists(os.path.join(d, "m.json")) and
              not os.path.exists(os.path.join(d, "p.svg")), "slap %s wrote a file" % cmd)


@no_time
def case_merge_refuses_loops_and_lengths_that_differ(mc):
    """slap merge adds runs that ran alike: a closed-loop run and an open-loop one, or runs of
    different measured length (--rounds 3 of 1 s beside a run of 1 s), are refused naming both
    files (exit 2, no report); two open-loop runs at different rates still merge."""
    d = tmpdir()
    closed = run_json(mc, os.path.join(d, "closed.json"), ["-t", "1s", "-q"])
    opened = run_json(mc, os.path.join(d, "open.json"), ["-t", "1s", "-P", "500", "-q"])
    faster = run_json(mc, os.path.join(d, "open2.json"), ["-t", "1s", "-P", "800", "-q"])
    rounds = run_json(mc, os.path.join(d, "rounds.json"), ["-t", "1s", "--rounds", "3", "-q"])
    for a, b, why in ((closed, opened, "the loops differ"), (opened, closed, "the loops differ"),
                      (rounds, closed, "--rounds is 3"), (closed, rounds, "--rounds is 1")):
        rc, out, err = run_slap(["merge", a, b, "--json", os.path.join(d, "m.json")])
        check(rc == 2 and out == "" and why in err and a in err and b in err,
              "merge %s %s: exit %d, %r" % (os.path.basename(a), os.path.basename(b), rc, err))
        check(not os.path.exists(os.path.join(d, "m.json")), "a merged file was written")
    rc, out, err = run_slap(["merge", opened, faster])
    check(rc == 0 and "target rate: 1300 ops/s" in out, "two open loops: exit %d, %r %r"
          % (rc, out[:400], err))
    shutil.rmtree(d)


@no_time
def case_results_rules_refused(mc):
    """A real file edited to break one rule at a time is refused by merge, compare and plot,
    naming the file and the field: "seconds": 0 (compare found +196.9% from it), a label holding
    a NUL, "periods": [] beside the run's requests, periods or rounds out of order, rounds that
    are not config.rounds'; the file unedited reads."""
    d = tmpdir()
    base = run_json(mc, os.path.join(d, "base.json"), ["-t", "1s", "--rounds", "2", "-S", "0.5s"])
    other = run_json(mc, os.path.join(d, "other.json"), ["-t", "1s", "--rounds", "2"])
    doc = load(base)
    check(len(doc["periods"]) == 4 and len(doc["rounds"]) == 2,
          "periods %d, rounds %d" % (len(doc["periods"]), len(doc.get("rounds", []))))
    rc, out, err = run_slap(["compare", other, base])
    check(rc == 0, "the file unedited: compare exit %d, %r" % (rc, err))

    def zero_seconds(doc):
        doc["seconds"] = 0

    def short_seconds(doc):
        doc["seconds"] = 0.5

    def nul_label(doc):
        doc["label"] = "a\u0000b"

    def no_periods(doc):
        doc["periods"] = []

    def periods_swapped(doc):
        doc["periods"][1], doc["periods"][2] = doc["periods"][2], doc["periods"][1]

    def rounds_swapped(doc):
        doc["rounds"].reverse()

    def rounds_not_config(doc):
        doc["config"]["rounds"] = 3

    def rounds_above_config(doc):
        doc["config"]["rounds"] = 1

    def a_round_dropped(doc):
        doc["rounds"] = doc["rounds"][:1]

    def period_of_no_time(doc):
        doc["periods"][0]["seconds"] = 0

    for edit, field in ((zero_seconds, "seconds"), (short_seconds, "shorter than the periods"),
                        (nul_label, "label"),
                        (no_periods, "periods"), (periods_swapped, "periods[2] elapsed_s"),
                        (rounds_swapped, "rounds[1] elapsed_s"),
                        (rounds_not_config, "config.rounds says 3"),
                        (rounds_above_config, "config.rounds says 1"),
                        (a_round_dropped, "config.rounds says 2"),
                        (period_of_no_time, "periods[0] seconds")):
        bad = copy.deepcopy(doc)
        edit(bad)
        path = save(bad, os.path.join(d, "bad-%s.json" % edit.__name__))
        refused_by_all(d, path, other, field)
    shutil.rmtree(d)


@no_time
def case_streams_and_paths_that_are_no_results(mc):
    """What is no results file is refused at once, naming it and why (exit 2): /dev/zero (slap
    merge copied it aside until the disk was full; slap plot --samples spun forever), text
    before the document's '{' (`yes`), a pipe past 1 GiB, a directory, a socket; a --samples
    file that is not slap's (/etc/passwd, a bad line); a real samples file through a pipe draws
    as the file does, and no copy is left behind."""
    d = tmpdir()
    tmp = os.path.join(d, "tmp")
    os.mkdir(tmp)
    a = run_json(mc, os.path.join(d, "a.json"),
                 ["-t", "1s", "-q", "--samples", os.path.join(d, "s.csv")])
    env = dict(os.environ, TMPDIR=tmp)

    def bash(cmd, timeout=60):
        started = time.time()
        r = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, timeout=timeout,
                           env=env)
        return r.returncode, r.stdout, r.stderr, time.time() - started

    slap = PATHS.slap
    sock = os.path.join(d, "sock")
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(sock)
    for cmd, name, why in (
            ("%s merge /dev/zero %s" % (slap, a), "'/dev/zero'", "(0x00)"),
            ("%s merge <(yes) %s" % (slap, a), "'/dev/fd/", "not the '{'"),
            ("%s merge %s %s" % (slap, d, a), d, "a directory"),
            ("%s compare /dev/zero %s" % (slap, a), "/dev/zero", "control byte (0x00)"),
            ("%s plot /dev/zero -o %s/p.svg" % (slap, d), "/dev/zero", "control byte (0x00)"),
            ("%s compare %s %s" % (slap, d, a), d, "a directory"),
            ("%s plot %s -o %s/p.svg --samples /dev/zero" % (slap, a, d), "'/dev/zero'",
             "control byte"),
            ("%s plot %s -o %s/p.svg --samples /etc/passwd" % (slap, a, d), "'/etc/passwd'",
             "line 1 is not the header"),
            ("%s plot %s -o %s/p.svg --samples <(head -5 %s/s.csv; echo 1,2,3,get,bogus)"
             % (slap, a, d, d), "--samples '/dev/fd/", "line 6 is not a sample"),
            ("%s plot %s -o %s/p.svg --samples %s" % (slap, a, d, d), d, "a directory"),
            ("%s merge %s %s" % (slap, sock, a), sock, "a socket, not a results file"),
            ("%s compare %s %s" % (slap, a, sock), sock, "a socket, not a results file"),
            ("%s plot %s -o %s/p.svg --samples %s" % (slap, a, d, sock), sock, "a socket")):
        rc, out, err, took = bash(cmd)
        check(rc == 2 and out == "" and name in err and why in err and took < 10,
              "%s: exit %d after %.1f s, %r" % (cmd, rc, took, err))
        check(not os.path.exists(os.path.join(d, "p.svg")), "%s drew a picture" % cmd)
    rc, out, err, took = bash("%s merge <(echo '{'; yes ' ') %s" % (slap, a), timeout=120)
    check(rc == 2 and "more than 1024 MiB from a stream" in err,
          "an endless pipe: exit %d after %.1f s, %r" % (rc, took, err))
    check(os.listdir(tmp) == [], "copies left behind: %r" % os.listdir(tmp))
    pictures = []
    for i, samples in enumerate(("%s/s.csv" % d, "<(cat %s/s.csv)" % d)):
        svg = os.path.join(d, "p%d.svg" % i)
        rc, out, err, _ = bash("%s plot %s -o %s --samples %s" % (slap, a, svg, samples))
        check(rc == 0, "plot --samples %s: exit %d, %r" % (samples, rc, err))
        with open(svg) as f:
            pictures.append(f.read())
    check(pictures[0] == pictures[1] and 'data-label="samples"' in pictures[0],
          "the samples through a pipe drew otherwise than the file")
    listener.close()
    shutil.rmtree(d)


def long_file(base, n, path):
    """base with n periods, each its first period's (its counters and histograms) 0.1 s apart,
    and the run's totals n times that period: a long run's file that adds up."""
    d = load(base)
    first = d["periods"][0]
    lean = dict(first, seconds=0.1)  # every field a period holds: a file of its schema is whole
    scale_totals(d, first, n, round(0.1 * n, 6))
    head, tail = json.dumps(dict(d, periods="@")).split('"@"')
    with open(path, "w") as f:
        f.write(head + "[")
        for i in range(n):
            f.write(("," if i else "") + json.dumps(dict(lean, elapsed_s=round(0.1 * (i + 1), 6))))
        f.write("]" + tail)
    return path


@no_time
def case_compare_and_plot_read_long_runs(mc):
    """slap compare and slap plot read a run of any length (they refused more than 100,000
    periods, `-S 0.1s -t 3h`, that slap itself wrote): past 2000 periods, neighbours are joined
    two by two as they are read. 2100 periods of 0.1 s read as 1050 of 0.2 s: compare's
    intervals say so and its rate is the file's; plot draws 1050 points, the last at the run's
    end."""
    d = tmpdir()
    base = run_json(mc, os.path.join(d, "base.json"), ["-t", "1s", "-q"])
    path = long_file(base, 2100, os.path.join(d, "long.json"))
    doc = load(path)
    rate = doc["types"]["get"]["hist"]["count"] + doc["types"]["set"]["hist"]["count"]
    rate /= doc["seconds"]
    rc, out, err = run_slap(["compare", base, path], timeout=120)
    check(rc == 0 and "from 1050 periods" in out, "compare: exit %d, %r %r" % (rc, out, err))
    tps = [line.split() for line in out.splitlines() if line.startswith("tps ")][0]
    check(abs(float(tps[3]) - rate) <= 0.5, "compare's tps %s, the file's %.1f" % (tps[3], rate))
    svg = os.path.join(d, "p.svg")
    rc, out, err = run_slap(["plot", path, "-o", svg], timeout=120)
    check(rc == 0, "plot: exit %d, %r" % (rc, err))
    with open(svg) as f:
        xs = re.search(r'data-metric="rate" data-x="([^"]*)"', f.read()).group(1).split()
    check(len(xs) == 1050 and abs(float(xs[0]) - 0.2) < 1e-6 and abs(float(xs[-1]) - 210) < 1e-6,
          "plot's points: %d, from %s to %s" % (len(xs), xs[0], xs[-1]))
    shutil.rmtree(d)


@no_time
@release_only(VALGRIND_OR_MEMORY)
def case_readers_linear_in_their_input():
    """Reading results files costs instructions linear in what grows in them (callgrind's
    count, which repeats where a time would not), measured at three sizes N, 2N and 4N by
    scripts/readers_scale.py's builders: the growth of the count from 2N to 4N over that from
    N to 2N is 2 for a linear reader, 4 for a quadratic one. Members of an object unknown to
    slap: each name was compared with every one before it, to find one given twice, and
    json_get scanned them all (a whole slap merge: 1.94 before they were sorted, 1.15 now).
    The runs of two files merged, the check for a run given twice alone (results_merge_shared
    _run: every run was compared with each of the other file's, which a whole merge shows only
    past some 10,000 runs a file)."""
    if shutil.which("valgrind") is None:
        raise Skip("valgrind is not installed (scripts/deps.sh)")
    spec = importlib.util.spec_from_file_location(
        "readers_scale", os.path.join(TOP, "scripts", "readers_scale.py"))
    scale = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(scale)
    work = tmpdir()
    for name, n, within in (("members", 500, None), ("runs", 1000, "results_merge_shared_run")):
        ir, exponent = scale.measure(PATHS.slap, name, n, work, factor=2, within=within)
        print("%s at %d, %d, %d%s: Ir %s, exponent %.2f" %
              (name, n, 2 * n, 4 * n, " in " + within if within else "", ir, exponent))
        check(min(ir) > 0, "nothing counted in %s: %s" % (within, ir))
        check(exponent < 1.25, "reading grows as %s^%.2f: %s" % (name, exponent, ir))
    shutil.rmtree(work)
