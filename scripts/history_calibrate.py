#!/usr/bin/env python3
"""How often slap history's changes are right, measured on this machine.

slap history finds where a figure's level changed in a series of runs (E-divisive means and a
permutation test, p <= 0.01). Its promise is a rate: on a series whose server never changed
it should find a change at most once per 100 runs per figure, and a real slowdown should be
found within a few runs after it. This script measures both with real runs kept in a real
store, read back by slap history itself:

  steady    histories of RUNS runs of one server that never changes (slap -t 1s -T 1 -c N):
            memcached, or the delay server below answering in 500 us plus an exponential of
            mean 250 us; quiet and beside a CPU hog pinned with slap. Every change found is
            false; counted per figure (tps, p50, p90, p99, p99.9, errors) over all the runs,
            apart for those slap history marks host? (most runs around them limited by slap's
            own host: not given as the server's)
  slowdown  histories against tests/integration/delay_server.c answering in 500 us plus an
            exponential of mean 250 us, replaced part-way (after run AT) on the same port by
            one answering in 600 + 300 us: every percentile 20% slower. For each history, the
            runs after the slowdown slap history needed to find it at its place (within one
            run) in p50, p90 and p99, judging the history as it grew; and any other change

Nothing here is asserted by the test suite: README.md's "History" and slap-history(1) quote
what it printed, with the machine's load at the time.

Usage: scripts/history_calibrate.py steady [--hog] [--server memcached|delay] [--histories N]
                                           [--runs N] [--clients N] [--out DIR]
                                           [--slap='OPTIONS']
       scripts/history_calibrate.py slowdown [--hog] [--histories N] [--runs N] [--at N]
                                             [--clients N] [--out DIR] [--slap='OPTIONS']
(--judge-only --out DIR: judge the histories of an earlier run again, with this slap)
(build slap first: scripts/build.sh build). Every loop is bounded; the servers and the hog are
started here and stopped by their pid.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from calibrate import DELAY, SLAP, Hog, free_port, load, wait_port  # noqa: E402

FIGURES = ("tps", "p50", "p90", "p99", "p99.9", "errors")
SLOWED = ("p50", "p90", "p99")


class Server:
    """memcached, or the delay server, on a port given (the same address across a swap)."""

    def __init__(self, port, delay=None):
        self.port = port
        if delay is None:
            cmd = ["memcached", "-p", str(port), "-U", "0", "-l", "127.0.0.1", "-t", "2"]
            if os.geteuid() == 0:
                cmd += ["-u", "root"]
        else:
            cmd = [DELAY, str(port), str(delay[0]), str(delay[1]), "7"]
        self.proc = subprocess.Popen(cmd)
        wait_port(port, self.proc)

    def stop(self):
        self.proc.kill()
        self.proc.wait()


EXTRA = []  # --slap: more of slap's options for every run
CLIENTS = [4]  # --clients


def run(prefix, port, store, label):
    """One run kept in the store: its exit status."""
    args = prefix + [SLAP, "-s", "127.0.0.1:%d" % port, "-t", "1s", "-T", "1", "-c",
                     str(CLIENTS[0]), "-q", "--label", label, "--store", store] + EXTRA
    return subprocess.run(args, capture_output=True, text=True, timeout=120).returncode


def judged(store, label, until_ms=None):
    """slap history's JSON of the series labelled label (as far as until_ms)."""
    args = [SLAP, "history", "--store", store, label, "--json", "-"]
    if until_ms is not None:
        args += ["--until", "%.3f" % (until_ms / 1000)]
    out = subprocess.run(args, capture_output=True, text=True, timeout=120, check=True).stdout
    return json.loads(out)


def verdicts(series):
    """The runs' limited_by, counted: "both 38, client 2"."""
    count = {}
    for r in series["runs"]:
        count[r["limited_by"]] = count.get(r["limited_by"], 0) + 1
    return ", ".join("%s %d" % kv for kv in sorted(count.items()))


def steady(opts, store):
    false = {f: 0 for f in FIGURES}  # changes slap history gives as the server's
    host = {f: 0 for f in FIGURES}  # changes it marks host? (slap's host limited the runs)
    runs = 0
    for h in range(opts.histories):
        label = "steady%d" % h
        if not opts.judge_only:
            hog = Hog(opts.hog)
            server = Server(free_port()) if opts.server == "memcached" else \
                Server(free_port(), (500, 250))
            try:
                for _ in range(opts.runs):
                    status = run(hog.prefix(), server.port, store, label)
                    if status != 0:
                        print("  a run exited %d" % status)
            finally:
                server.stop()
                hog.stop()
        series = judged(store, label)
        runs += len(series["runs"])
        found = [(c["figure"], c["at_run"], c["relative"], c["host"]) for c in series["changes"]]
        for figure, _, _, marked in found:
            (host if marked else false)[figure] += 1
        print("history %d: %d runs (%s), load %s; changes found: %s" % (
            h + 1, len(series["runs"]), verdicts(series), load(),
            ", ".join("%s at %d (%+.1f%%%s)" % (f, at, r * 100, ", host?" if m else "")
                      for f, at, r, m in found) or "none"))
    print("\nsteady %s (%s): %d runs in %d histories" % (
        opts.server, "beside a hog" if opts.hog else "quiet", runs, opts.histories))
    for figure in FIGURES:
        print("  %-6s %d false changes given as the server's: %.2f per 100 runs; %d marked "
              "host?" % (figure, false[figure], 100.0 * false[figure] / runs, host[figure]))


def first_found(store, label, series, at, host):
    """{figure: runs after the slowdown slap history needed to find it at its place (within a
    run)}: given as the server's (host False), or marked host? (host True)."""
    needed = {}
    for k in range(at + 1, len(series["runs"]) + 1):
        grown = judged(store, label, series["runs"][k - 1]["time_ms"])
        for c in grown["changes"]:
            if (c["figure"] in SLOWED and c["figure"] not in needed and c["host"] == host and
                    abs(c["at_run"] - (at + 1)) <= 1):
                needed[c["figure"]] = k - at
    return needed


def slowdown(opts, store):
    needed_all, marked_all, other = [], [], 0
    for h in range(opts.histories):
        label = "slowdown%d" % h
        if not opts.judge_only:
            hog = Hog(opts.hog)
            port = free_port()
            server = Server(port, (500, 250))
            try:
                for i in range(opts.runs):
                    if i == opts.at:
                        server.stop()
                        server = Server(port, (600, 300))
                    run(hog.prefix(), port, store, label)
            finally:
                server.stop()
                hog.stop()
        series = judged(store, label)
        before = [r["figures"]["p50"]["value"] for r in series["runs"][:opts.at]]
        after = [r["figures"]["p50"]["value"] for r in series["runs"][opts.at:]]
        measured = sorted(after)[len(after) // 2] / sorted(before)[len(before) // 2] - 1
        wrong = [c for c in series["changes"] if not c["host"] and
                 not (c["figure"] in SLOWED + ("tps",) and abs(c["at_run"] - (opts.at + 1)) <= 1)]
        other += len(wrong)
        needed = first_found(store, label, series, opts.at, False)
        marked = first_found(store, label, series, opts.at, True)
        needed_all.append(needed)
        marked_all.append(marked)
        print("history %d: p50 %+.1f%% after run %d (%s), load %s; found after %s runs; marked "
              "host? after %s; other changes: %s" % (
                  h + 1, measured * 100, opts.at, verdicts(series), load(),
                  ", ".join("%s %d" % kv for kv in sorted(needed.items())) or "none",
                  ", ".join("%s %d" % kv for kv in sorted(marked.items())) or "none",
                               ", ".join("%s at %d" % (c["figure"], c["at_run"]) for c in wrong)
                               or "none"))
    print("\nslowdown of 20%% after run %d of %d (%s), %d histories:" % (
        opts.at, opts.runs, "beside a hog" if opts.hog else "quiet", opts.histories))
    for figure in SLOWED:
        got = sorted(n[figure] for n in needed_all if figure in n)
        host = sorted(n[figure] for n in marked_all if figure in n)
        print("  %-4s found as the server's in %d of %d (runs after it needed: %s); found but "
              "marked host? in %d" % (figure, len(got), opts.histories,
                                      " ".join(str(g) for g in got) or "-", len(host)))
    print("  changes found elsewhere (false): %d" % other)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("what", choices=("steady", "slowdown"))
    p.add_argument("--hog", action="store_true")
    p.add_argument("--histories", type=int, default=3)
    p.add_argument("--runs", type=int, default=40)
    p.add_argument("--at", type=int, default=16)
    p.add_argument("--out", default=None)
    p.add_argument("--slap", default="", help="more of slap's options for every run")
    p.add_argument("--server", choices=("memcached", "delay"), default="memcached",
                   help="steady: memcached, or the delay server (500 + 250 us)")
    p.add_argument("--clients", type=int, default=4, help="slap's -c (default 4)")
    p.add_argument("--judge-only", action="store_true",
                   help="judge the histories already in --out's store again, running nothing")
    opts = p.parse_args()
    EXTRA.extend(opts.slap.split())
    CLIENTS[0] = opts.clients
    if not 1 <= opts.histories <= 50 or not 8 <= opts.runs <= 500 or not 4 <= opts.at < opts.runs:
        sys.exit("history_calibrate: 1-50 histories of 8-500 runs, --at from 4 to below --runs")
    if opts.judge_only and opts.out is None:
        sys.exit("history_calibrate: --judge-only reads the store of --out DIR")
    out = opts.out or tempfile.mkdtemp(prefix="slap-history-calibrate-")
    os.makedirs(out, exist_ok=True)
    store = os.path.join(out, "runs.db")
    print("load average %s at the start; store %s" % (load(), store))
    started = time.monotonic()
    (steady if opts.what == "steady" else slowdown)(opts, store)
    print("load average %s at the end; %.0f s" % (load(), time.monotonic() - started))


if __name__ == "__main__":
    main()
