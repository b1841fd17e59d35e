#!/usr/bin/env python3
"""How stable slap's limited_by verdict is: identical runs, their figures' spread, and whether the
runs that disagree are marked borderline. Run by hand (figures in docs/latency.md, "What limited the run").

Each setup below runs --runs times, the setups interleaved (round by round, their order varied),
each run a `slap ... --json`; its `limits` object gives the verdict, the borderline verdict and
the figures the rules compare with their lines. Two memcacheds on free ports, stopped by pid:
one with its default 4 threads, unpinned, one -t 1 pinned to CPU 0.

  quiet  slap -T 2 -c 32, nothing of ours beside it (whatever else the host runs)
  hog    the same, slap pinned to CPU 1 beside a busy loop pinned there (the tests' CpuHog)
  near   slap -T 1 -c 32 pinned to CPU 1 beside a busy loop at nice 10 there, against the
         pinned memcached -t 1: slap waits for its CPU about 10% of the run, the line
  rate   slap -T 1 -c 8 -P 20k pinned to CPU 1 against the pinned memcached: an open loop
         well within what the pair can do (over 100k ops/s closed-loop on a calm host), where
         the -P rules (target met, sends on time, none held) decide

For each setup it prints the words given, how many runs were marked borderline, how many runs
gave another word than the setup's most common one (and how many of those were not marked
borderline), and each deciding figure's mean, standard deviation and range.

Usage: scripts/limits_spread.py [--runs N] [--time 2s] [--setups quiet,hog,near,rate]
                                [--slap build/slap] [--raw]
"""
import argparse
import collections
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """memcached on a free loopback port (TCP only), optionally pinned; stopped by pid."""

    def __init__(self, threads, cpu=None):
        self.port = free_port()
        self.addr = "127.0.0.1:%d" % self.port
        cmd = ["memcached", "-t", str(threads), "-U", "0", "-l", "127.0.0.1", "-p",
               str(self.port)]
        if cpu is not None:
            cmd = ["taskset", "-c", str(cpu)] + cmd
        if os.geteuid() == 0:
            cmd += ["-u", "nobody"]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 5
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit("memcached did not start: %r" % cmd)
                time.sleep(0.02)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout=5)


class Hog:
    """A busy loop pinned to one CPU at a nice level, bounded to 60 s, stopped by pid."""

    def __init__(self, cpu, nice):
        self.proc = subprocess.Popen(
            ["taskset", "-c", str(cpu), "nice", "-n", str(nice), "python3", "-c",
             "import time\nend = time.monotonic() + 60\nwhile time.monotonic() < end: pass"])
        time.sleep(0.3)  # on its CPU before slap starts

    def stop(self):
        self.proc.kill()
        self.proc.wait()


def slap_json(slap, args, prefix=()):
    """One run: its JSON document (None when it wrote none)."""
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        subprocess.run(list(prefix) + [slap] + args + ["--json", f.name, "-q"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
        try:
            with open(f.name) as g:
                return json.load(g)
        except (OSError, ValueError):
            return None


def figures(lim):
    """The figures the verdict's rules compare with their lines, by name."""
    c = lim["client"]
    out = {"client.cpu_wait_max": c["cpu_wait_max"], "client.demand_max": c["demand_max"]}
    if c.get("cpu_share") is not None:
        out["client.cpu_share"] = c["cpu_share"]
    known = [s for s in lim["servers"] if s["note"] is None]
    if known:
        out["server.busy (busiest)"] = max(s["busy"] for s in known)
    waits = [s["cpu_wait_max"] for s in lim["servers"] if s.get("cpu_wait_max") is not None]
    if waits:
        out["server.cpu_wait_max"] = max(waits)
    if lim["in_flight"]["possible"] > 0:
        out["in_flight_share"] = lim["in_flight"]["mean"] / lim["in_flight"]["possible"]
    return out


def setups(args, default_mc, pinned_mc):
    """Each setup: its slap options, command prefix and hog (cpu, nice), or None."""
    t = ["-t", args.time]
    return {
        "quiet": (["-s", default_mc.addr, "-T", "2", "-c", "32"] + t, (), None),
        "hog": (["-s", default_mc.addr, "-T", "2", "-c", "32"] + t, ("taskset", "-c", "1"),
                (1, 0)),
        "near": (["-s", pinned_mc.addr, "-T", "1", "-c", "32"] + t, ("taskset", "-c", "1"),
                 (1, 10)),
        "rate": (["-s", pinned_mc.addr, "-T", "1", "-c", "8"] + t, ("taskset", "-c", "1"), None),
    }


def one_run(args, name, setup, rate):
    opts, prefix, hog = setup
    if name == "rate":
        opts = opts + ["-P", "%d" % rate]
    h = Hog(*hog) if hog is not None else None
    try:
        doc = slap_json(args.slap, opts, prefix)
    finally:
        if h is not None:
            h.stop()
    if doc is None or "limits" not in doc:
        return None
    lim = doc["limits"]
    figs = figures(lim)
    if name == "rate":
        figs["achieved_share"] = doc["run"]["tps"] / rate if "run" in doc else 0
        figs["send_lag_p99_s"] = lim["send_lag_p99_s"]
        figs["client_lag"] = lim["client_lag"]
    return {"verdict": lim["verdict"], "borderline": lim.get("borderline"),
            "figure": (lim.get("borderline_figure") or {}).get("name"), "figures": figs}


def summary(name, runs, raw):
    words = collections.Counter(r["verdict"] for r in runs)
    common = words.most_common(1)[0][0]
    other = [r for r in runs if r["verdict"] != common]
    marked = [r for r in runs if r["borderline"] is not None]
    print("%s: %d runs, %s" % (name, len(runs), ", ".join("%s %d" % w for w in
                                                           words.most_common())))
    print("  borderline: %d (%s)" % (len(marked), ", ".join(
        "%s with %s by %s" % (r["verdict"], r["borderline"], r["figure"]) for r in marked)))
    print("  another word than %s: %d, of them not marked borderline: %d"
          % (common, len(other), sum(r["borderline"] is None for r in other)))
    names = sorted({k for r in runs for k in r["figures"]})
    for k in names:
        xs = [r["figures"][k] for r in runs if k in r["figures"]]
        sd = statistics.stdev(xs) if len(xs) > 1 else 0.0
        med = statistics.median(xs)
        mad = 1.4826 * statistics.median(abs(x - med) for x in xs)  # sd, were they normal
        print("  %-22s median %.3f robust sd %.3f (sd %.3f) range %.3f..%.3f"
              % (k, med, mad, sd, min(xs), max(xs)))
        if raw:
            print("    " + " ".join("%.3f" % x for x in xs))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--runs", type=int, default=10)
    p.add_argument("--time", default="2s")
    p.add_argument("--setups", default="quiet,hog,near,rate")
    p.add_argument("--slap", default=os.path.join(TOP, "build", "slap"))
    p.add_argument("--raw", action="store_true", help="print every run's figures too")
    args = p.parse_args()
    if (os.cpu_count() or 1) < 2:
        raise SystemExit("two CPUs are needed: the hogs and the server are pinned apart")
    wanted = args.setups.split(",")
    default_mc, pinned_mc = Server(4), Server(1, cpu=0)
    try:
        table = setups(args, default_mc, pinned_mc)
        results = {name: [] for name in wanted}
        for i in range(args.runs):
            order = list(wanted)
            random.Random(i).shuffle(order)
            for name in order:
                r = one_run(args, name, table[name], 20000)
                if r is not None:
                    results[name].append(r)
            print("round %d of %d done" % (i + 1, args.runs), file=sys.stderr)
        for name in wanted:
            if results[name]:
                summary(name, results[name], args.raw)
    finally:
        default_mc.stop()
        pinned_mc.stop()


if __name__ == "__main__":
    main()
