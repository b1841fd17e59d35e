#!/usr/bin/env python3
"""slap against its peers, side by side, on this machine: what each client costs per request.

For each workload and each round, a fresh memcached (-t 1) is started pinned to one CPU and each
tool in turn runs pinned to another, the order of the tools alternating from round to round. Over
the middle of each run (from --skip seconds to --skip + --window seconds) the script reads:

  ops       what the server counted: cmd_get + cmd_set (a multi-get counts each key), per second
  cpu/op    the client's CPU time (user + system, all threads, from /proc/PID/stat) per op
  user/op   the user-mode part of it
  srv/op    memcached's CPU time (its own rusage from `stats`) per op
  rss       the client's peak resident memory (VmHWM at the window's end)
  segs      TCP segments the machine received per op (both directions on loopback: 2 when
            every request and every answer is one segment carrying the other side's ack)

and prints, per workload, each tool's median and spread over the rounds, then slap/peer ratios
(of the medians) with the issue's targets, and each CPU-per-op ratio paired: the median of each
round's ratio of the two runs, made a moment apart (on a host whose other load comes and goes,
the medians of two tools can fall in different rounds' weather; the paired ratio does not).
The floor (scripts/floor_client.c) runs in the design of each workload: one request at a time,
a window of 16 and batches of 16 for --pipeline 16, one UDP socket with sendmmsg/recvmmsg (with
and without epoll) for -U, 10-key gets for -d 10, recvmsg with arrival stamps (and with
departure stamps from the error queue) for kstamps; -U, --pipeline 16 and kstamps also run the
standard workload of slap and of the floor in their own rounds, so that "of slap's standard" is
a ratio of runs side by side. Nothing here is asserted by the test suite: figures
depend on the machine; only ratios measured side by side in one run mean much.

After the workloads: the time from start to the first request (slap -x 1 under strace), and
scripts/memcheck.py's peak memory with -c 1000, 10000 and 20000 (--no-memcheck skips it).
--markdown also prints the table docs/performance.md holds.

--before PATH runs another build of slap (an earlier commit's) as one more tool in the same
rounds: "cpu/op paired slap/slap-before" is what the commits between them cost per request.

Usage: scripts/bench.sh [--rounds N] [--time S] [--workloads a,b,...] [--memtier PATH]
                        [--before PATH] [--no-memcheck] [--markdown] [--list]
"""
import argparse
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

import memcheck  # beside this script: its free port, open-file limit and memory runs

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLK_TCK = os.sysconf("SC_CLK_TCK")

# Each workload: slap's options, and the same run in each peer's words (None: the peer has no
# such run; floor: scripts/floor_client.c's CLIENTS and MODE). The standard one is memaslap's
# defaults at -T 1 -c 64: 64-byte keys, 1 KiB values, one set in ten. A workload whose target is
# against slap's own standard run ("baseline") runs the standard slap and floor in the same
# rounds, alternated with the rest: the machine moves by more than the targets' margins between
# one workload's rounds and the next's.
WORKLOADS = {
    "standard": {"slap": ["-T", "1", "-c", "64"],
                 "memaslap": ["-T", "1", "-c", "64"],
                 "memtier": ["--threads=1", "--clients=64", "--ratio=1:9"],
                 "floor": ["64"]},
    "d10": {"slap": ["-T", "1", "-c", "64", "-d", "10"],
            "memaslap": ["-T", "1", "-c", "64", "-d", "10"],
            "memtier": None,
            "floor": ["64", "mget", "10"]},
    "pipeline16": {"slap": ["-T", "1", "-c", "64", "--pipeline", "16"],
                   "memaslap": None,
                   "memtier": ["--threads=1", "--clients=64", "--ratio=1:9", "--pipeline=16"],
                   "floor": ["64", "pipeline", "16"],
                   "floor-batch": ["64", "batch", "16"],  # 16 out, all 16 back, 16 out
                   "baseline": True},
    "udp": {"slap": ["-T", "1", "-c", "64", "-U"],
            "memaslap": ["-T", "1", "-c", "64", "-U"],
            "memtier": None,
            "floor": ["64", "udp"],
            "floor-wait": ["64", "udp-wait"],  # recvmmsg blocks: no epoll_wait
            "baseline": True},
    "binary": {"slap": ["-T", "1", "-c", "64", "-B"],
               "memaslap": ["-T", "1", "-c", "64", "-B"],
               "memtier": ["--threads=1", "--clients=64", "--ratio=1:9",
                           "--protocol=memcache_binary"]},
    "meta": {"slap": ["-T", "1", "-c", "64", "--protocol", "meta"],
             "memaslap": None,
             "memtier": None},
    "c1000": {"slap": ["-T", "1", "-c", "1000", "-w", "1k"],  # memaslap wants the k
              "memaslap": ["-T", "1", "-c", "1000", "-w", "1k"],
              "memtier": ["--threads=1", "--clients=1000", "--ratio=1:9"],
              "floor": ["1000"]},
    "c10000": {"slap": ["-T", "1", "-c", "10000", "-w", "16"],
               "memaslap": ["-T", "1", "-c", "10000", "-w", "16"],
               "memtier": None},
    "open80": {"slap": ["-T", "1", "-c", "64"],  # -P is added: 80% of slap's closed-loop rate
               "memaslap": ["-T", "1", "-c", "64"],
               "memtier": ["--threads=1", "--clients=64", "--ratio=1:9"]},
    # --priority=realtime (issue 42): the open loop at 80% of slap's closed-loop rate with its
    # workers at SCHED_FIFO, side by side with the same open loop at the ordinary priority
    "realtime": {"slap": ["-T", "1", "-c", "64", "--priority=realtime"],
                 "memaslap": None,
                 "memtier": None,
                 "baseline": True},
    "T2": {"slap": ["-T", "2", "-c", "64"],  # both threads on the client's one CPU
           "memaslap": None,
           "memtier": None},
    # --timestamps=kernel (issue 34): the standard run with the kernel's arrival stamps, side by
    # side with the standard run without them; the floor in the same design (recvmsg with
    # arrival stamps), and with departure stamps too (read from the error queue: their cost)
    "kstamps": {"slap": ["-T", "1", "-c", "64", "--timestamps=kernel"],
                "memaslap": None,
                "memtier": None,
                "floor": ["64", "stamped"],
                "floor-tx": ["64", "stamped-tx"],
                "baseline": True},
}

# The targets: (workload, ratio, "<=" or ">=", bound), checked on the ratios printed.
TARGETS = [
    ("standard", "cpu/op slap/floor", "<=", 1.03),
    ("c1000", "cpu/op slap/floor", "<=", 1.03),
    ("standard", "cpu/op slap/memaslap", "<=", 0.85),
    ("standard", "user/op slap/memaslap", "<=", 0.5),
    ("standard", "ops slap/memaslap", ">=", 1.0),
    ("standard", "cpu/op spread slap/memaslap", "<=", 1.0),
    ("d10", "cpu/op slap/memaslap", "<=", 0.8),
    ("d10", "cpu/op slap/floor", "<=", 1.03),
    ("udp", "cpu/op slap/floor", "<=", 1.03),  # the floor of the same design, in each mode
    ("pipeline16", "cpu/op slap/floor", "<=", 1.03),
    ("d10", "ops slap/memaslap", ">=", 1.0),
    ("pipeline16", "cpu/op slap/slap-standard", "<=", 0.55),
    ("pipeline16", "ops slap/memtier", ">=", 1.0),
    ("udp", "cpu/op slap/slap-standard", "<=", 0.75),
    ("udp", "cpu/op slap/memaslap", "<=", 0.8),
    ("T2", "cpu/op slap/slap-standard", "<=", 1.1),
    ("kstamps", "cpu/op paired slap/slap-standard", "<=", 1.03),
    ("realtime", "cpu/op paired slap/slap-standard", "<=", 1.03),
]


class Server:
    """memcached -t 1 pinned to a CPU, on a free port (TCP and UDP), stopped by pid."""

    def __init__(self, cpu, udp):
        self.port = memcheck.free_port()
        cmd = ["taskset", "-c", str(cpu), "memcached", "-t", "1", "-m", "1024", "-c", "15000",
               "-p", str(self.port), "-U", str(self.port) if udp else "0",
               "-l", "127.0.0.1,127.0.0.2"]
        if os.geteuid() == 0:
            cmd += ["-u", "root"]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 5
        while True:
            try:
                self.stats()
                return
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit("memcached did not start: %r" % cmd)
                time.sleep(0.02)

    def stats(self):
        with socket.create_connection(("127.0.0.1", self.port), timeout=5) as s:
            s.sendall(b"stats\r\n")
            data = b""
            while not data.endswith(b"END\r\n"):
                chunk = s.recv(65536)
                if not chunk:
                    raise OSError("closed")
                data += chunk
        out = {}
        for line in data.decode().split("\r\n"):
            parts = line.split(" ")
            if len(parts) == 3 and parts[0] == "STAT":
                try:
                    out[parts[1]] = float(parts[2])
                except ValueError:
                    pass
        return out

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def proc_cpu(pid):
    """User and system CPU seconds of a process, all its threads (or None once it is gone)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return int(fields[11]) / CLK_TCK, int(fields[12]) / CLK_TCK


def tcp_segments():
    """TCP segments received by this machine so far (/proc/net/snmp InSegs): on loopback, the
    requests, answers and pure acknowledgements of both sides."""
    with open("/proc/net/snmp") as f:
        rows = [line.split() for line in f if line.startswith("Tcp:")]
    return int(rows[1][rows[0].index("InSegs")])


def peak_rss_kb(pid):
    """The process's resident high-water mark so far (VmHWM). Not wait4's ru_maxrss: a child
    of this script starts its count from the script's own size, inherited across exec."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def command(tool, args, port, seconds, paths):
    server = "127.0.0.1:%d" % port
    if tool in ("slap", "slap-before"):  # --before: another build of slap, in the same rounds
        return [paths[tool], "-s", server, "-t", "%ds" % seconds] + args
    if tool == "memaslap":
        return ["memcaslap", "-s", server, "-t", "%ds" % seconds] + args
    if tool == "floor":  # scripts/floor_client.c: CLIENTS, then its MODE if not tcp
        return [paths["floor"], "127.0.0.1", str(port), args[0], str(seconds)] + args[1:]
    return [paths["memtier"], "-s", "127.0.0.1", "-p", str(port), "--protocol=memcache_text",
            "--test-time=%d" % seconds, "--data-size=1024", "--key-minimum=1",
            "--key-maximum=10000", "--key-prefix=memtier-key-of-sixty-four-bytes-or-so-padded-",
            "--hide-histogram"] + args


def prefill_memtier(port, paths, args):
    """memtier's gets mostly miss otherwise (96% here: its random sets cover a fifth of the key
    range), while slap's and memaslap's get what they set: every key is set first, as slap and
    memaslap do, so that all three fetch 1 KiB values."""
    cmd = command("memtier", ["--threads=1", "--clients=1", "--ratio=1:0", "--key-pattern=P:P",
                              "--requests=allkeys"], port, 0, paths)
    cmd = [a for a in cmd if not a.startswith("--test-time")]
    if "--protocol=memcache_binary" in args:
        cmd.remove("--protocol=memcache_text")
        cmd.append("--protocol=memcache_binary")
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)


def one_run(tool, args, cpus, opts, paths, udp):
    """One tool's run on a fresh server: its figures over the window, or None if it failed."""
    srv = Server(cpus[0], udp)
    try:
        if tool == "memtier":
            prefill_memtier(srv.port, paths, args)
        cmd = ["taskset", "-c", str(cpus[1])] + command(
            tool if tool == "slap-before" else tool.split("-")[0], args, srv.port, opts.time,
            paths)
        if tool == "memtier" and "--protocol=memcache_binary" in args:
            cmd.remove("--protocol=memcache_text")
        start = time.monotonic()
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        marks = []
        for at in (opts.skip, opts.skip + opts.window):
            time.sleep(max(0.0, start + at - time.monotonic()))
            marks.append((time.monotonic(), proc_cpu(proc.pid), srv.stats(), tcp_segments()))
        hwm = peak_rss_kb(proc.pid)
        out = b""
        for chunk in iter(lambda: proc.stdout.read(65536), b""):
            out += chunk
        _, status, _ = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        (t0, c0, s0, g0), (t1, c1, s1, g1) = marks
        if c0 is None or c1 is None:
            print("  %s: ended before the window closed (exit %d): %s"
                  % (tool, proc.returncode, out.decode(errors="replace")[-300:]), file=sys.stderr)
            return None
        ops = (s1["cmd_get"] + s1["cmd_set"]) - (s0["cmd_get"] + s0["cmd_set"])
        gets = s1["cmd_get"] - s0["cmd_get"]
        misses = s1["get_misses"] - s0["get_misses"]
        if ops <= 0:
            print("  %s: the server counted nothing" % tool, file=sys.stderr)
            return None
        seconds = t1 - t0
        return {"ops_s": ops / seconds,
                "cpu_us": 1e6 * ((c1[0] - c0[0]) + (c1[1] - c0[1])) / ops,
                "user_us": 1e6 * (c1[0] - c0[0]) / ops,
                "srv_us": 1e6 * ((s1["rusage_user"] + s1["rusage_system"]) -
                                 (s0["rusage_user"] + s0["rusage_system"])) / ops,
                "client_busy": ((c1[0] - c0[0]) + (c1[1] - c0[1])) / seconds,
                "segs": (g1 - g0) / ops,
                "miss": misses / gets if gets > 0 else 0.0,
                "rss_mb": (hwm or 0) / 1024.0,
                "exit": proc.returncode}
    finally:
        srv.stop()


def summary(runs, key):
    values = [r[key] for r in runs]
    return statistics.median(values), min(values), max(values)


def run_workload(name, opts, paths, cpus, tools, extra_slap=None, rate_from=None):
    spec = WORKLOADS[name]
    present = [t for t in tools if spec.get("slap" if t == "slap-before" else t) is not None]
    if "floor" in present:  # the floor's other designs for this workload
        present += [t for t in spec if t.startswith("floor-")]
    if spec.get("baseline"):  # the standard run of slap (and the floor) in the same rounds
        present += [t + "-standard" for t in ("slap", "floor") if t in present]
    results = {t: [] for t in present}
    for rnd in range(opts.rounds):
        order = present if rnd % 2 == 0 else list(reversed(present))
        for tool in order:
            if tool.endswith("-standard"):
                args = list(WORKLOADS["standard"][tool.split("-")[0]])
            else:
                args = list(spec["slap" if tool == "slap-before" else tool])
            if rate_from is not None and tool in ("slap", "slap-before", "slap-standard"):
                args += ["-P", "%d" % rate_from]
            elif rate_from is not None and tool == "memaslap":  # it takes thousands only
                args += ["-P", "%dk" % max(1, rate_from // 1000)]
            elif rate_from is not None and tool == "memtier":  # its rate is per connection
                args += ["--rate-limiting=%d" % max(1, rate_from // 64)]
            r = one_run(tool, args, cpus, opts, paths, udp=(name == "udp"))
            if r is not None:
                results[tool].append(r)
    return {t: v for t, v in results.items() if v}


def print_workload(name, results, note, verbose):
    print("\n== %s%s" % (name, note))
    print("%-14s %5s %18s %16s %16s %9s %6s %7s %6s" % ("tool", "runs", "ops/s (min-max)",
                                                        "cpu us/op", "user us/op", "srv us/op",
                                                        "busy", "rss MB", "segs"))
    for tool, runs in results.items():
        ops, olo, ohi = summary(runs, "ops_s")
        cpu, clo, chi = summary(runs, "cpu_us")
        user, ulo, uhi = summary(runs, "user_us")
        print("%-14s %5d %8.0f (%3.0f-%3.0fk) %5.2f (%4.2f-%4.2f) %5.2f (%4.2f-%4.2f) %9.2f %6.2f "
              "%7.1f %6.2f" % (tool, len(runs), ops, olo / 1000, ohi / 1000, cpu, clo, chi, user,
                               ulo, uhi, summary(runs, "srv_us")[0],
                               summary(runs, "client_busy")[0], max(r["rss_mb"] for r in runs),
                               summary(runs, "segs")[0]))
        if verbose:
            for r in runs:
                print("          %8.0f ops/s  cpu %5.2f  user %4.2f  srv %5.2f  segs/op %4.2f  "
                      "get misses %.0f%%" % (r["ops_s"], r["cpu_us"], r["user_us"], r["srv_us"],
                                             r["segs"], 100 * r["miss"]))


def ratios(name, results, standard):
    """slap/peer ratios of the medians (and the pipeline against slap's own standard run)."""
    out = {}
    if "slap" not in results:
        return out
    s = {k: summary(results["slap"], k)[0] for k in ("ops_s", "cpu_us", "user_us")}
    for peer in ["slap-before", "memaslap", "memtier", "floor"] + [t for t in results if t.startswith("floor-")
                                                    and t != "floor-standard"]:
        if peer in results:
            p = {k: summary(results[peer], k)[0] for k in ("ops_s", "cpu_us", "user_us")}
            out["cpu/op slap/%s" % peer] = s["cpu_us"] / p["cpu_us"]
            out["user/op slap/%s" % peer] = s["user_us"] / p["user_us"]
            out["ops slap/%s" % peer] = s["ops_s"] / p["ops_s"]
            if spread(results[peer]) > 0 and len(results["slap"]) > 2:
                out["cpu/op spread slap/%s" % peer] = spread(results["slap"]) / spread(results[peer])
    if "slap-standard" in results:  # side by side, in this workload's rounds
        out["cpu/op slap/slap-standard"] = s["cpu_us"] / summary(results["slap-standard"],
                                                                  "cpu_us")[0]
    elif standard is not None and name != "standard":
        out["cpu/op slap/slap-standard"] = s["cpu_us"] / summary(standard, "cpu_us")[0]
    for floor in [t for t in results if t.startswith("floor") and t != "floor-standard"]:
        if "floor-standard" in results:  # what the bare client gains by the same means
            out["cpu/op %s/floor-standard" % floor] = (
                summary(results[floor], "cpu_us")[0] /
                summary(results["floor-standard"], "cpu_us")[0])
    for k in [k for k in out if k.startswith("cpu/op ") and " spread " not in k]:
        a, b = k[len("cpu/op "):].split("/")
        tool_a = "slap" if a == "slap" else a
        if len(results.get(tool_a, [])) == len(results.get(b, [])) > 1:
            # each round's ratio (its runs side by side, a moment apart), their median: on a
            # host whose load comes and goes it holds where the ratio of medians does not
            out["cpu/op paired %s/%s" % (a, b)] = statistics.median(
                x["cpu_us"] / y["cpu_us"] for x, y in zip(results[tool_a], results[b]))
    for k, v in out.items():
        verdict = ""
        for w, what, how, bound in TARGETS:
            if w == name and what == k:
                met = v <= bound if how == "<=" else v >= bound
                verdict = " (target %s %.2f: %s)" % (how, bound, "met" if met else "NOT met")
        print("  %-34s %6.2f%s" % (k, v, verdict))
    return out


def spread(runs):
    """Run-to-run spread of the CPU per op: (max - min) / median."""
    values = [r["cpu_us"] for r in runs]
    return (max(values) - min(values)) / statistics.median(values)


def startup_ms(paths, cpus, tries=5):
    """From exec to the first request on the wire: slap -x 1 under strace -f -ttt."""
    if shutil.which("strace") is None:
        return None
    times = []
    srv = Server(cpus[0], udp=False)
    private = tempfile.mkdtemp(prefix="slap-bench-")  # strace's log where no one else writes
    log = os.path.join(private, "startup.strace")
    try:
        for _ in range(tries):
            r = subprocess.run(["strace", "--seccomp-bpf", "-f", "-ttt",
                                "-e", "trace=execve,writev,write,sendmsg",
                                "-o", log, paths["slap"],
                                "-s", "127.0.0.1:%d" % srv.port, "-x", "1"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=30)
            if r.returncode != 0:
                continue
            with open(log) as f:
                lines = f.read().splitlines()
            start = first = None
            for line in lines:
                m = re.match(r"\d+\s+([\d.]+) (\w+)\((\d+)?", line)
                if not m:
                    continue
                if m.group(2) == "execve" and start is None:
                    start = float(m.group(1))
                elif m.group(2) in ("writev", "sendmsg", "write") and m.group(3) not in ("1", "2"):
                    first = float(m.group(1))
                    break
            if start is not None and first is not None:
                times.append(1000 * (first - start))
    finally:
        srv.stop()
        shutil.rmtree(private, ignore_errors=True)
    return statistics.median(times) if times else None


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--time", type=int, default=9, help="seconds each run lasts")
    p.add_argument("--skip", type=float, default=1.5, help="seconds before the window opens")
    p.add_argument("--window", type=float, default=6.0, help="seconds the window lasts")
    p.add_argument("--workloads", default=",".join(WORKLOADS))
    p.add_argument("--memtier", help="path of a memtier_benchmark to compare with")
    p.add_argument("--slap", default=os.path.join(TOP, "build", "slap"))
    p.add_argument("--before", help="another slap (an earlier commit's build) to run in the same "
                   "rounds: its cost against this one's, paired (the request path's budget)")
    p.add_argument("--floor", default=os.path.join(TOP, "build", "floor_client"),
                   help="the bare client of scripts/floor_client.c (scripts/bench.sh builds it)")
    p.add_argument("--list", action="store_true", help="print the workloads and exit")
    p.add_argument("--no-memcheck", action="store_true", help="skip memcheck.py's runs")
    p.add_argument("--markdown", action="store_true", help="print a markdown table at the end")
    p.add_argument("-v", "--verbose", action="store_true", help="print every run's figures")
    opts = p.parse_args()
    memcheck.raise_nofile()  # children inherit it: memcached -c 15000 and slap -c 10000
    if opts.list:
        for name, spec in WORKLOADS.items():
            print("%-10s slap %s" % (name, " ".join(spec["slap"])))
        return 0
    if opts.skip + opts.window >= opts.time:
        raise SystemExit("--skip + --window must end before --time")
    for path in (opts.slap, opts.memtier, opts.before):
        if path is not None and not os.access(path, os.X_OK):
            raise SystemExit("bench: %s is not an executable (scripts/bench.sh builds slap)" % path)
    paths = {"slap": opts.slap, "memtier": opts.memtier, "floor": opts.floor,
             "slap-before": opts.before}
    tools = (["slap"] + (["slap-before"] if opts.before else []) + ["memaslap"] + (["memtier"] if opts.memtier else []) +
             (["floor"] if os.access(opts.floor, os.X_OK) else []))
    cpus = (0, 1) if os.cpu_count() >= 2 else (0, 0)
    names = opts.workloads.split(",")
    for n in names:
        if n not in WORKLOADS:
            raise SystemExit("unknown workload %r (--list names them)" % n)
    print("slap bench: %d rounds of %d s each (window %.1f-%.1f s), memcached -t 1 on CPU %d, "
          "clients on CPU %d; tools: %s" % (opts.rounds, opts.time, opts.skip,
                                            opts.skip + opts.window, cpus[0], cpus[1],
                                            ", ".join(tools)))
    standard = None
    table = []
    for name in names:
        rate = None
        if name in ("open80", "realtime"):
            base = standard or run_workload("standard", opts, paths, cpus, ["slap"]).get("slap")
            rate = int(0.8 * summary(base, "ops_s")[0]) if base else None
            if rate is None:
                continue
        results = run_workload(name, opts, paths, cpus, tools, rate_from=rate)
        if name == "standard":
            standard = results.get("slap")
        print_workload(name, results, " (-P %d)" % rate if rate else "", opts.verbose)
        table.append((name, rate, results, ratios(name, results, standard)))
        sys.stdout.flush()
    ms = startup_ms(paths, cpus)
    if ms is not None:
        print("\nstart to first request (slap -x 1 under strace, median of 5): %.1f ms "
              "(target < 30)" % ms)
    if opts.markdown:
        print_markdown(table, tools)
    if not opts.no_memcheck:
        print("\n== peak memory with many connections (scripts/memcheck.py)")
        sys.stdout.flush()
        memcheck.main(["--slap", opts.slap])
    return 0


def print_markdown(table, tools):
    """docs/performance.md's table: per workload and tool, medians (and slap's ratios to each peer)."""
    print("\n| workload | tool | ops/s | client CPU us/op (user) | server CPU us/op | RSS MB |"
          " slap/peer: CPU/op, user/op, ops/s |")
    print("|---|---|---|---|---|---|---|")
    for name, rate, results, rat in table:
        label = "`%s`%s" % (" ".join(WORKLOADS[name]["slap"]), " -P %d" % rate if rate else "")
        for tool in list(tools) + [t for t in results if t not in tools]:
            if tool not in results:
                continue
            runs = results[tool]
            cmp = ""
            if tool.endswith("-standard"):
                cmp = "the standard workload, in the same rounds"
            elif tool != "slap" and "cpu/op slap/%s" % tool in rat:
                cmp = "%.2f, %.2f, %.2f" % (rat["cpu/op slap/%s" % tool],
                                            rat["user/op slap/%s" % tool],
                                            rat["ops slap/%s" % tool])
            elif tool == "slap" and "cpu/op slap/slap-standard" in rat:
                cmp = "CPU/op %.2f of slap's standard" % rat["cpu/op slap/slap-standard"]
            elif "cpu/op %s/floor-standard" % tool in rat:
                cmp = ("CPU/op %.2f of the floor's standard"
                       % rat["cpu/op %s/floor-standard" % tool])
            print("| %s | %s | %.0fk | %.2f (%.2f) | %.2f | %.1f | %s |"
                  % (label, tool, summary(runs, "ops_s")[0] / 1000, summary(runs, "cpu_us")[0],
                     summary(runs, "user_us")[0], summary(runs, "srv_us")[0],
                     max(r["rss_mb"] for r in runs), cmp))


if __name__ == "__main__":
    sys.exit(main())
