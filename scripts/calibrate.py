#!/usr/bin/env python3
"""How often slap's statistical verdicts are right, measured on this machine.

A verdict such as "significant at 95%" is a promise about a rate: identical things compared
are called different at most 5% of the time. This script measures those rates by repeating
comparisons whose truth is known, on a quiet host and beside a CPU hog pinned with slap (the
busy host users run on). Nothing here is asserted by the test suite: docs/comparing.md and
docs/capacity.md quote what it printed, with the machine's load at the time.

  compare   slap compare, every way it can be used:
            --live        identical sides (both the same memcached): the share of figures
                          called significant; and a real 20% slowdown (two delay servers,
                          one 20% slower in every percentile): the share of runs that find it
            files         identical runs made alternately (A, B, B, A, ...): one file a side
                          judged by its within-run interval (what slap compare did before, and
                          now shows without judging), and 4 files a side by ranks
  search    slap search --slo repeated against one memcached -t 1 pinned to CPU 0, slap on
            CPU 1: the capacities found, their spread, and the searches that could not
            conclude (and why)

Usage: scripts/calibrate.py compare [--hog] [--repeats N] [--only live|files] [--out DIR]
       scripts/calibrate.py search [--hog | --server-hog] [--repeats N] [--slo 'p90<5ms']
                                   [--out DIR]
(build slap first: scripts/build.sh build). Every loop is bounded; servers and the hog are
started here and stopped by their pid.
"""
import argparse
import glob
import itertools
import json
import os
import random
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SLAP = os.path.join(TOP, "build", "slap")
DELAY = os.path.join(TOP, "build", "tests", "delay_server")
FIGURES = ("tps", "p50", "p90", "p99", "p99.9")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, proc):
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            if proc.poll() is not None:
                break
            time.sleep(0.05)
    sys.exit("calibrate: a server did not start on port %d" % port)


class Server:
    """memcached, or tests/integration/delay_server.c; stopped by its pid."""

    def __init__(self, delay=None, threads=2):
        self.port = free_port()
        if delay is None:
            cmd = ["memcached", "-p", str(self.port), "-U", "0", "-l", "127.0.0.1", "-t",
                   str(threads)]
            if os.geteuid() == 0:
                cmd += ["-u", "root"]
        else:
            cmd = [DELAY, str(self.port), str(delay[0]), str(delay[1]), "7"]
        self.proc = subprocess.Popen(cmd)
        wait_port(self.port, self.proc)

    @property
    def addr(self):
        return "127.0.0.1:%d" % self.port

    def stop(self):
        self.proc.kill()
        self.proc.wait()


class Hog:
    """A busy loop pinned to CPU 1 (bounded to an hour), beside slap pinned there too; or to
    CPU 0, beside the server (search --server-hog)."""

    def __init__(self, on, cpu=1):
        self.proc = None
        if on:
            self.proc = subprocess.Popen(["taskset", "-c", str(cpu), "python3", "-c",
                                          "import time\nend = time.monotonic() + 3600\n"
                                          "while time.monotonic() < end: pass"])
            time.sleep(0.3)

    def prefix(self):
        return ["taskset", "-c", "1"] if self.proc is not None else []

    def stop(self):
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()


def slap(prefix, args, timeout=600):
    proc = subprocess.run(prefix + [SLAP] + args, capture_output=True, text=True,
                          timeout=timeout)
    return proc.returncode, proc.stdout, proc.stderr


def load():
    return open("/proc/loadavg").read().split()[0]


def verdicts(table_json, comparison=0, key="significant"):
    """{figure: True/False/None} of a compare --json document (key: significant at 95%, or
    significant_together: every figure judged at once)."""
    doc = json.load(open(table_json))
    figures = doc["comparisons"][comparison]["figures"]
    return {name: f[key] for name, f in figures.items()}


def within_run_verdicts(table_json):
    """What the within-run interval would call significant: it leaves 0 out."""
    doc = json.load(open(table_json))
    out = {}
    for name, f in doc["comparisons"][0]["figures"].items():
        ci = f["diff_ci"]
        out[name] = None if ci is None else (ci[0] > 0 or ci[1] < 0)
    return out


def tally(results):
    """results: list of {figure: bool/None}: (significant, judged) per figure and overall."""
    counts = {f: [0, 0] for f in FIGURES}
    for r in results:
        for f, v in r.items():
            if f in counts and v is not None:
                counts[f][0] += bool(v)
                counts[f][1] += 1
    total = [sum(c[0] for c in counts.values()), sum(c[1] for c in counts.values())]
    return counts, total


def show(title, results, extra=""):
    counts, total = tally(results)
    rate = 100.0 * total[0] / total[1] if total[1] else float("nan")
    per = ", ".join("%s %d/%d" % (f, c[0], c[1]) for f, c in counts.items() if c[1])
    print("%-44s %3d of %4d figures significant (%.1f%%): %s%s" %
          (title, total[0], total[1], rate, per, extra))
    sys.stdout.flush()


def compare_live(hog, repeats, out):
    """repeats comparisons of a memcached with itself (10 rounds of 0.3 s), then a third as
    many of two delay servers, the second 20% slower."""
    mc = Server()
    same, together, found = [], [], 0
    try:
        for k in range(repeats):
            path = os.path.join(out, "live-%d.json" % k)
            rc, o, e = slap(hog.prefix(), ["compare", "--live", "-q", "--rounds", "10",
                                           "-T", "2", "-c", "16", "-t", "300ms",
                                           "A=" + mc.addr, "B=" + mc.addr, "--json", path])
            if rc not in (0, 1):
                sys.exit("calibrate: compare --live failed (%d): %s" % (rc, e))
            same.append(verdicts(path))
            together.append(verdicts(path, key="significant_together"))
        show("--live, identical sides (10 rounds)", same)
        print("--live, identical sides: comparisons with a yes among their %d figures: %d of "
              "%d at 95%% each, %d of %d judged all at once (the 'together' line)" %
              (len(FIGURES), sum(any(v.values()) for v in same), len(same),
               sum(any(v.values()) for v in together), len(together)))
    finally:
        mc.stop()
    fast, slow = Server(delay=(500, 250)), Server(delay=(600, 300))
    try:
        runs = max(5, repeats // 3)
        tps_found = 0
        for k in range(runs):
            path = os.path.join(out, "slow-%d.json" % k)
            rc, o, e = slap(hog.prefix(), ["compare", "--live", "-q", "--rounds", "10",
                                           "-T", "2", "-c", "8", "-t", "300ms",
                                           "--percentiles", "50,90,99",
                                           "A=" + fast.addr, "B=" + slow.addr, "--json", path])
            v = verdicts(path)
            doc = json.load(open(path))["comparisons"][0]["figures"]
            found += bool(v["p50"]) and doc["p50"]["diff"] > 0
            tps_found += bool(v["tps"]) and doc["tps"]["diff"] < 0
        print("--live, B 20%% slower (delay servers): p50 found slower in %d of %d, tps lower "
              "in %d of %d" % (found, runs, tps_found, runs))
    finally:
        fast.stop()
        slow.stop()


def compare_files(hog, repeats, out):
    """2 x repeats runs made alternately in pairs of random order; then one file a side (the
    within-run interval), four a side from the same pairs (random choices of four pairs) and
    four a side from different minutes (blocks of four pairs against other blocks)."""
    mc = Server()
    rng = random.Random(1)
    files = {"A": [], "B": []}
    try:
        slap(hog.prefix(), ["-s", mc.addr, "-t", "1s", "-q"])  # the windows stored once
        for k in range(repeats):
            order = ["A", "B"] if rng.random() < 0.5 else ["B", "A"]
            for side in order:
                path = os.path.join(out, "%s-%03d.json" % (side, k))
                rc, o, e = slap(hog.prefix(), ["-s", mc.addr, "-T", "2", "-c", "32", "-t", "1s",
                                               "--rounds", "3", "-q", "--json", path])
                if rc != 0:
                    sys.exit("calibrate: a run failed (%d): %s" % (rc, e))
                files[side].append(path)
    finally:
        mc.stop()
    one, matched, apart = [], [], []
    table = os.path.join(out, "table.json")
    for a, b in zip(files["A"], files["B"]):
        rc, o, e = slap([], ["compare", a, b, "--json", table])
        one.append(within_run_verdicts(table))
    show("files, one a side, within-run interval", one,
         " (shown, not judged, since this)")
    n = len(files["A"])
    for k in range(min(200, 10 * n)):  # 4 pairs' runs a side, each side's from the same pairs
        picked = sorted(rng.sample(range(n), 4))
        rc, o, e = slap([], ["compare", ",".join(files["A"][i] for i in picked),
                             ",".join(files["B"][i] for i in picked), "--json", table])
        matched.append(verdicts(table))
    show("files, 4 a side made alternately", matched)
    blocks = [range(i, i + 4) for i in range(0, n - 3, 4)]
    for ia, ba in enumerate(blocks):
        for ib, bb in enumerate(blocks):
            if ia != ib:
                rc, o, e = slap([], ["compare", ",".join(files["A"][i] for i in ba),
                                     ",".join(files["B"][i] for i in bb), "--json", table])
                apart.append(verdicts(table))
    show("files, 4 a side made apart (other minutes)", apart)


def search_spread(hog, repeats, out, slo):
    """repeats searches of one memcached -t 1 pinned to CPU 0, slap -T 1 on CPU 1 (beside the
    hog when there is one): the capacities and why a search could not conclude."""
    mc = Server(threads=1)
    subprocess.run(["taskset", "-a", "-pc", "0", str(mc.proc.pid)], capture_output=True)
    found = []
    try:
        for k in range(repeats):
            path = os.path.join(out, "search-%d.json" % k)
            rc, o, e = slap(["taskset", "-c", "1"],
                            ["search", "--slo", slo, "-s", mc.addr, "-T", "1", "-c", "32",
                             "--step_time", "2s", "--start", "5000", "--json", path],
                            timeout=1200)
            cap = re.search(r"^capacity: (.*)$", o, re.M)
            found.append(cap.group(1) if cap else "(no capacity line: exit %d)" % rc)
            print("search %d: capacity: %s" % (k + 1, found[-1]))
            for line in o.splitlines():
                if line.startswith("search: ") and "highest rate" not in line:
                    print("    " + line)
            sys.stdout.flush()
    finally:
        mc.stop()
    rates = [float(m.group(1)) for m in (re.match(r"(\d+) ops/s", f) for f in found) if m]
    if rates:
        lo, hi = min(rates), max(rates)
        mid = (lo + hi) / 2
        print("capacities: %s; spread %.0f%% around their middle" %
              (", ".join("%.0f" % r for r in rates), 100.0 * (hi - lo) / 2 / mid))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("what", choices=["compare", "search"])
    p.add_argument("--hog", action="store_true", help="a busy loop pinned with slap on CPU 1")
    p.add_argument("--server-hog", action="store_true",
                   help="search: a busy loop pinned with the server on CPU 0 (another tenant "
                        "of the server's host), slap alone on CPU 1")
    p.add_argument("--repeats", type=int, default=30)
    p.add_argument("--only", choices=["live", "files"], help="compare: one of its two parts")
    p.add_argument("--slo", default="p90<5ms")
    p.add_argument("--out", help="where the runs' files go (default: a new temporary folder)")
    a = p.parse_args()
    if not os.access(SLAP, os.X_OK):
        sys.exit("calibrate: build slap first (scripts/build.sh build)")
    if a.repeats < 1 or a.repeats > 500:
        sys.exit("calibrate: --repeats is 1 to 500")
    out = a.out or tempfile.mkdtemp(prefix="slap-calibrate-")
    os.makedirs(out, exist_ok=True)
    where = ("beside a CPU hog pinned with slap" if a.hog else
             "a CPU hog pinned with the server" if a.server_hog else "no hog")
    print("calibrate %s: %s, load average %s at the start, %d CPUs, files in %s" %
          (a.what, where, load(), os.cpu_count(), out))
    hog = Hog(a.hog or a.server_hog, cpu=0 if a.server_hog else 1)
    try:
        if a.what == "compare":
            if a.only != "files":
                compare_live(hog, a.repeats, out)
            if a.only != "live":
                compare_files(hog, a.repeats, out)
        else:
            search_spread(hog, a.repeats, out, a.slo)
    finally:
        hog.stop()
    print("load average %s at the end" % load())


if __name__ == "__main__":
    main()
