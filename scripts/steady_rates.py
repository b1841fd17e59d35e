#!/usr/bin/env python3
"""How often slap's steady line says yes, unknown and no: a benchmark of the verdict, run by
hand (its figures are in docs/report.md, "Reading the intervals"), not a test.

Usage: scripts/steady_rates.py [--slap build/slap] [--flat 30] [--ramps 10] [--seconds 3]

memcached -t 1 is pinned to CPU 0 and slap (-T 1 -c 16) to CPU 1, as the integration cases
do. Runs alternate: a flat run with CPU 1 quiet, a flat run beside a busy loop pinned to CPU 1
(the CPU hog), and every third round a ramp: a closed loop through a proxy whose added delay
grows from 0.2 ms by 1.5 ms a second, so the rate falls and the latency rises all along.
A flat run called "no" is a false alarm only if the host held still: the load average is
printed with each run, and the runs called "no" with their rate per period (-S 0.5s), so
that a neighbour that came or went shows.
"""
import argparse
import os
import re
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "tests", "integration"))
import harness  # noqa: E402
from cases_limits import CpuHog, pin  # noqa: E402


def verdict(out):
    m = re.search(r"^steady: (yes|no|unknown) \((.*)\)$", out, re.M)
    return (m.group(1), m.group(2)) if m else ("missing", out[-400:])


def rates(out):
    """The Total table's period rates: how the run went."""
    block = out.split("Total Statistics\n")
    return [int(m.group(1)) for part in block[1:] for m in
            [re.search(r"^Period\s+\S+\s+\d+\s+(\d+)", part, re.M)] if m]


def one(kind, addr, seconds):
    args = ["-s", addr, "-T", "1", "-c", "16", "-t", "%gs" % seconds, "-S", "0.5s"]
    prefix = ("taskset", "-c", "1")
    if kind == "hog":
        with CpuHog(1):
            _, out, _ = harness.run_slap(args, prefix=prefix, timeout=seconds + 30)
    else:
        _, out, _ = harness.run_slap(args, prefix=prefix, timeout=seconds + 30)
    return verdict(out), rates(out)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--slap", default=os.path.join(here, "..", "build", "slap"))
    p.add_argument("--flat", type=int, default=30, help="flat runs of each kind")
    p.add_argument("--ramps", type=int, default=10)
    p.add_argument("--seconds", type=float, default=3.0, help="each flat run's -t")
    p.add_argument("--ramp-seconds", type=float, default=6.0, help="each ramp's -t")
    a = p.parse_args()
    harness.PATHS.slap = os.path.abspath(a.slap)
    sys.stdout = open(os.devnull, "w")  # run_slap echoes each run; the tallies go to stderr
    mc = harness.Memcached(extra=("-t", "1"))
    tally = {}
    try:
        pin(mc.proc.pid, 0)
        for i in range(max(a.flat, a.ramps * 3)):
            todo = (["quiet"] if i < a.flat else []) + (["hog"] if i < a.flat else [])
            if i % 3 == 2 and i // 3 < a.ramps:
                todo.append("ramp")
            for kind in todo:
                load = os.getloadavg()[0]
                if kind == "ramp":
                    proxy = harness.DelayProxy(mc.port, lambda t: 0.0002 + 0.0015 * t)
                    (word, why), seen = one("ramp", proxy.addr, a.ramp_seconds)
                else:
                    (word, why), seen = one(kind, mc.addr, a.seconds)
                tally.setdefault(kind, {}).setdefault(word, 0)
                tally[kind][word] += 1
                shown = " rates %s" % seen if word == "no" and kind != "ramp" else ""
                print("%-5s load %.1f: %s (%s)%s" % (kind, load, word, why, shown),
                      file=sys.stderr, flush=True)
    finally:
        mc.stop()
    for kind, words in tally.items():
        runs = sum(words.values())
        print("%s: %d runs: %s" % (kind, runs, ", ".join(
            "%s %d" % (w, words.get(w, 0)) for w in ("yes", "unknown", "no"))), file=sys.stderr)


if __name__ == "__main__":
    main()
