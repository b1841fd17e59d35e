#!/usr/bin/env python3
"""slap history on a year of hourly runs: how long listing the series and judging one take,
and how large the store is per run.

One real run is kept by slap (--store) against a memcached started here; its row is then copied
8,760 times, an hour apart, each copy with its own identity and figures drawn around the real
run's (3% noise, a 20% step in p99 at run 3,000 and a 10% fall in tps at run 6,000), as a
year of cron would leave them. Then, ROUNDS times each, order alternated: `slap history`
(every series listed, each judged) and `slap history SERIES` (its 8,760 runs and their
changes); the medians and spreads are printed, with the load average.

The store's size per run is measured from real runs: RUNS runs of 1 s kept one after the
other, the file's size over their number (the documents dominate it).

Usage: scripts/history_bench.py [--rounds N] [--runs N] [--out DIR]
(build slap first: scripts/build.sh build). Every loop is bounded; memcached is started here and
stopped by its pid.
"""
import argparse
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from calibrate import SLAP, free_port, load, wait_port  # noqa: E402

HOURS = 8760


def memcached():
    port = free_port()
    cmd = ["memcached", "-p", str(port), "-U", "0", "-l", "127.0.0.1", "-t", "2"]
    if os.geteuid() == 0:
        cmd += ["-u", "root"]
    proc = subprocess.Popen(cmd)
    wait_port(port, proc)
    return proc, port


def keep(port, store, label, seconds="1s"):
    subprocess.run([SLAP, "-s", "127.0.0.1:%d" % port, "-t", seconds, "-T", "1", "-c", "4",
                    "-q", "--label", label, "--store", store], check=True, capture_output=True,
                   timeout=120)


def year_of(store):
    """The store's one run copied HOURS times, an hour apart, its figures drawn around its own."""
    conn = sqlite3.connect(store)
    cols = [r[1] for r in conn.execute("PRAGMA table_info(slap_runs)") if r[1] != "id"]
    row = dict(zip(cols, conn.execute("SELECT %s FROM slap_runs" % ", ".join(cols)).fetchone()))
    figures = conn.execute("SELECT name, value, low, high FROM slap_figures").fetchall()
    conn.execute("DELETE FROM slap_figures")
    conn.execute("DELETE FROM slap_runs")
    rng = random.Random(7)
    start = row["started_ms"] - HOURS * 3600 * 1000
    for k in range(HOURS):
        row["ident"] = "bench/%d/%d" % (k, start)
        row["started_ms"] = start + k * 3600 * 1000
        cur = conn.execute("INSERT INTO slap_runs (%s) VALUES (%s)" % (
            ", ".join(cols), ", ".join("?" * len(cols))), [row[c] for c in cols])
        for name, value, low, high in figures:
            level = 1.0
            if name == "p99" and k >= 3000:
                level = 1.2
            if name == "tps" and k >= 6000:
                level = 0.9
            v = value * level * (1 + rng.gauss(0, 0.03))
            conn.execute("INSERT INTO slap_figures VALUES (?, ?, ?, ?, ?)",
                         (cur.lastrowid, name, v, None if low is None else v * low / value,
                          None if high is None else v * high / value))
    conn.commit()
    series = conn.execute("SELECT short FROM slap_series").fetchone()[0]
    conn.close()
    return series


def timed(args):
    start = time.monotonic()
    subprocess.run([SLAP, "history"] + args, check=True, capture_output=True, timeout=600)
    return time.monotonic() - start


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--out", default=None)
    opts = p.parse_args()
    if not 1 <= opts.rounds <= 50 or not 1 <= opts.runs <= 500:
        sys.exit("history_bench: 1-50 rounds, 1-500 runs")
    out = opts.out or tempfile.mkdtemp(prefix="slap-history-bench-")
    os.makedirs(out, exist_ok=True)
    print("load average %s at the start" % load())
    proc, port = memcached()
    try:
        sized = os.path.join(out, "sized.db")
        for _ in range(opts.runs):
            keep(port, sized, "sized")
        size = os.path.getsize(sized)
        conn = sqlite3.connect(sized)
        docs, packed = conn.execute("SELECT sum(doc_bytes), sum(length(doc)) FROM slap_runs").fetchone()
        conn.close()
        print("%d runs of 1 s: the store %d bytes, %.1f KiB a run (documents %.1f KiB each as "
              "JSON, %.1f KiB kept)" % (opts.runs, size, size / 1024 / opts.runs,
                                        docs / 1024 / opts.runs, packed / 1024 / opts.runs))
        year = os.path.join(out, "year.db")
        keep(port, year, "hourly", "0.2s")
    finally:
        proc.kill()
        proc.wait()
    series = year_of(year)
    print("a year of hourly runs: %d runs, the store %.1f MiB" % (HOURS,
                                                                 os.path.getsize(year) / 2**20))
    times = {"list": [], "series": []}
    for r in range(opts.rounds):
        order = ("list", "series") if r % 2 == 0 else ("series", "list")
        for what in order:
            times[what].append(timed(["--store", year] + ([series] if what == "series" else [])))
    for what, label in (("list", "slap history (the series listed, each judged)"),
                        ("series", "slap history SERIES (8,760 runs and their changes)")):
        t = sorted(times[what])
        print("%s: median %.3f s (%.3f to %.3f over %d rounds)" % (label, t[len(t) // 2], t[0],
                                                                   t[-1], len(t)))
    print("load average %s at the end" % load())


if __name__ == "__main__":
    main()
