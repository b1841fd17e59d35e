"""What limited a run, produced with real processes: a pinned one-thread memcached (server),
slap under a CPU quota (client), one client behind a delay (latency); slap's CPU lines against
its own rusage, the server's against memcached's stats; servers that do not answer stats."""
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time

from fakemc import FakeMemcached
from harness import (PATHS, DelayProxy, Memcached, Skip, check, check_agree, counters, measured,
                     named, run_line, run_slap, sweep_rows)
from harness import TIMING_STATISTICS, needs, no_time, release_only, set_aside, threads
from cases_results import validate

SATURATED = 0.85  # LIMITS_SATURATED in include/slap/judge/limits.h


def limits(out):
    """The report's lines on what limited the run, checked for their place and form."""
    lines = out.splitlines()
    first = next(i for i, l in enumerate(lines) if l.startswith("client_cpu_user_s: "))
    last = next(i for i, l in enumerate(lines) if l.startswith("limited_by: "))
    check(lines.index("object_bytes: %d" % named(out, "object_bytes")) < first,
          "the limits lines come after the counters")
    check(lines[last + 1] == "" and lines[last + 2].startswith("Run time: "),
          "limited_by is followed by the blank line and the Run time line")
    m = re.search(r"^client_busy: ([\d.]+) \(busiest thread ([\d.]+), (\d+) threads?\)$", out,
                  re.M)
    check(m is not None, "no client_busy line")
    wait = re.search(r"^client_cpu_wait: ([\d.]+) \(thread max ([\d.]+)\)$", out, re.M)
    verdict = re.search(r"^limited_by: ([a-z]+) \((.+)\)$", out, re.M)
    check(verdict is not None, "no limited_by line")
    servers = {s: (float(cpu), int(threads), float(busy)) for s, cpu, threads, busy in
               re.findall(r"^server_cpu_s: (\S+) ([\d.]+) \((\d+) threads, busy ([\d.]+)\)$",
                          out, re.M)}
    return {"user": named(out, "client_cpu_user_s"), "sys": named(out, "client_cpu_sys_s"),
            "busy_mean": float(m.group(1)), "busy_max": float(m.group(2)),
            "threads": int(m.group(3)),
            "wait_max": float(wait.group(2)) if wait else 0.0,
            "servers": servers,
            "unknown": dict(re.findall(r"^server_cpu_unknown: (\S+) \((.*)\)$", out, re.M)),
            "verdict": verdict.group(1), "why": verdict.group(2)}


def worker_schedstat(pid):
    """memcached's worker threads' time on a CPU and waiting for one (ns, summed)."""
    run = wait = 0
    for task in glob.glob("/proc/%d/task/*" % pid):
        with open(os.path.join(task, "comm")) as f:
            if f.read().strip() != "mc-worker":
                continue
        with open(os.path.join(task, "schedstat")) as f:
            r, w, _ = f.read().split()
        run, wait = run + int(r), wait + int(w)
    return run, wait


def thread_schedstat(pid):
    """Each thread of process pid: its time on a CPU and waiting for one (ns), by thread id."""
    run, wait = {}, {}
    for task in glob.glob("/proc/%d/task/*" % pid):
        try:
            with open(os.path.join(task, "schedstat")) as f:
                r, w, _ = f.read().split()
        except OSError:
            continue
        run[task], wait[task] = int(r), int(w)
    return run, wait


def pin(pid, cpu):
    """Every thread of process pid on one CPU, at nice -10."""
    tids = os.listdir("/proc/%d/task" % pid)
    subprocess.run(["taskset", "-a", "-p", "-c", str(cpu), str(pid)], check=True,
                   stdout=subprocess.DEVNULL)
    subprocess.run(["renice", "-n", "-10", "-p"] + tids, check=True, stdout=subprocess.DEVNULL)


@release_only(TIMING_STATISTICS)
@needs("two_cpus")
def case_limits_server_bound():
    """memcached -t 1 pinned to one CPU and made slow (-vv: a log line per command), slap on
    the other with 64 clients: the server is the limit. On a shared machine the pinned server
    may not get its CPU: the kernel's own account of its worker thread says when it was
    saturated (always running or runnable) and got its CPU; only such a run is judged, and a
    run where it waited long for a CPU is tried again (5 times at most). Both run at nice -10
    for their 2 s, which makes a quiet CPU likelier on a shared machine."""
    mc = Memcached(extra=("-t", "1", "-vv"))
    try:
        pin(mc.proc.pid, 0)
        for attempt in range(5):
            run0, wait0 = worker_schedstat(mc.proc.pid)
            t0 = time.monotonic()
            rc, out, err = run_slap(["-s", mc.addr, "-t", "2s", "-T", "1", "-c", "64"],
                                    prefix=("nice", "-n", "-10", "taskset", "-c", "1"))
            wall = time.monotonic() - t0
            run1, wait1 = worker_schedstat(mc.proc.pid)
            check(rc == 0, "exit status %d" % rc)
            lim = limits(out)
            busy = (run1 - run0) / 1e9 / wall
            waited = (wait1 - wait0) / 1e9 / wall
            secs = run_line(out)[0]
            check(lim["servers"][mc.addr][1] == 1, "memcached -t 1 has one worker thread")
            if (run1 - run0 + wait1 - wait0) / 1e9 < 0.5 * secs:
                # The kernel says the worker was idle half the run: never a server verdict.
                check(lim["verdict"] not in ("server", "both"),
                      "an idle server judged the limit: %r" % lim)
            if waited > 0.10 or (run1 - run0) / 1e9 < SATURATED * secs:
                set_aside("attempt %d: memcached's worker ran %.0f%% and waited for a CPU %.0f%%: "
                          "the machine is busy, not judged" % (attempt + 1, busy * 100,
                                                              waited * 100))
                continue
            check(lim["verdict"] in ("server", "both"),
                  "the server's worker ran %.0f%% of the run, yet: %r" % (busy * 100, lim))
            check(lim["servers"][mc.addr][2] >= SATURATED, "server busy %r" % (lim,))
            check("%s's threads" % mc.addr in lim["why"], "the words name the server")
            return
        raise Skip("in 5 attempts the pinned memcached never had its CPU to itself")
    finally:
        mc.stop()


class CpuQuota:
    """A cgroup whose processes share `share` of one CPU: cgroup v2 where the cpu controller is
    enabled, else cgroup v1's cpu hierarchy. Removed on exit. path is None when neither is."""

    def __init__(self, share):
        self.share = share
        self.path = None
        v2 = next((d for d in ("/sys/fs/cgroup", "/sys/fs/cgroup/unified")
                   if os.path.exists(os.path.join(d, "cgroup.subtree_control"))), None)
        if v2 and all("cpu" in open(os.path.join(v2, f)).read().split()
                      for f in ("cgroup.controllers", "cgroup.subtree_control")):
            self.path = os.path.join(v2, "slap-test-%d" % os.getpid())
            os.mkdir(self.path)
            with open(os.path.join(self.path, "cpu.max"), "w") as f:
                f.write("%d 100000" % int(share * 100000))
        elif os.path.exists("/sys/fs/cgroup/cpu/cpu.cfs_quota_us"):
            self.path = "/sys/fs/cgroup/cpu/slap-test-%d" % os.getpid()
            os.mkdir(self.path)
            with open(os.path.join(self.path, "cpu.cfs_period_us"), "w") as f:
                f.write("100000")
            with open(os.path.join(self.path, "cpu.cfs_quota_us"), "w") as f:
                f.write("%d" % int(share * 100000))

    def prefix(self):
        """A command prefix that moves the process into the cgroup, then execs it."""
        return ("sh", "-c", 'echo $$ > "$0/cgroup.procs" && exec "$@"', self.path)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.path is not None:
            for _ in range(50):  # the process has left once it has been reaped
                try:
                    os.rmdir(self.path)
                    break
                except OSError:
                    time.sleep(0.1)


@release_only(TIMING_STATISTICS)
@needs("root", "cgroup")
def case_limits_client_bound(mc):
    """slap held to 20% of a CPU by a cgroup quota: it is the limit, and says it was short of
    CPU (its threads waited for one), with the advice to give it more, then raise -T."""
    with CpuQuota(0.20) as quota:
        if quota.path is None:
            raise Skip("neither cgroup v2 with the cpu controller nor cgroup v1's cpu "
                       "hierarchy is available for a CPU quota")
        rc, out, err = run_slap(["-s", mc.addr, "-t", "2s", "-T", "1", "-c", "16"],
                                prefix=quota.prefix())
        check(rc == 0, "exit status %d: %s" % (rc, err))
        lim = limits(out)
        # both when the machine is busy enough that memcached waited for its CPU too
        server_waited = re.search(r"^server_cpu_wait: %s ([\d.]+) " % re.escape(mc.addr), out,
                                  re.M)
        check(lim["verdict"] == "client" or (lim["verdict"] == "both" and server_waited and
                                             float(server_waited.group(1)) >= 0.10),
              "slap under a 20%% quota: %r" % lim)
        check("waited for a CPU" in lim["why"] and "the load host's CPU limited the run" in
              lim["why"] and "lift a CPU quota" in lim["why"],
              "the words say why and what to do: %s" % lim["why"])
        m = re.search(r"^client_cpus: ([\d.]+) \(used ([\d.]+) of them\)$", out, re.M)
        check(m is not None and abs(float(m.group(1)) - 0.20) < 0.01 and
              float(m.group(2)) >= SATURATED, "slap used its quota of 0.2 CPU: %r"
              % (m and m.group(0)))
        # The quota holds its threads to 20% of a CPU: what they ran cannot be more.
        check(lim["busy_max"] <= 0.20 + 0.05, "busy %.2f under a 20%% quota" % lim["busy_max"])
        check(lim["wait_max"] >= 0.5, "waited %.2f under a 20%% quota" % lim["wait_max"])
        check(lim["servers"][mc.addr][2] < SATURATED, "the server was not saturated")


@release_only(TIMING_STATISTICS)
def case_limits_latency_bound(mc):
    """One client behind 2 ms of delay: neither side is busy; the words ask for more clients."""
    proxy = DelayProxy(mc.port, 0.002)
    rc, out, err = run_slap(["-s", proxy.addr, "-t", "2s", "-c", "1"])
    check(rc == 0, "exit status %d" % rc)
    lim = limits(out)
    check(lim["verdict"] == "latency", "one client 2 ms away: %r" % lim)
    check("too few clients (-c 1)" in lim["why"] and "raise -c" in lim["why"],
          "the words: %s" % lim["why"])
    check(lim["busy_max"] < 0.5, "one client 2 ms away kept slap busy %.2f" % lim["busy_max"])
    check(proxy.addr in lim["servers"], "the server's stats, through the proxy")


@release_only(TIMING_STATISTICS)
def case_limits_cpu_figures_true(mc):
    """slap's CPU lines against its own rusage (wait4), the server's against memcached's stats."""
    before = mc.stats()[0]
    proc = subprocess.Popen([PATHS.slap, "-s", mc.addr, "-t", "2s", "-T", "2", "-c", "16"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out = proc.stdout.read()
    proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = 0
    after = mc.stats()[0]
    check(os.waitstatus_to_exitcode(status) == 0, "exit status %d" % status)
    lim = limits(out)
    secs = run_line(out)[0]
    # The report covers the measured part, the process all of its life: no more, and close.
    for mine, whole in ((lim["user"], usage.ru_utime), (lim["sys"], usage.ru_stime)):
        check(mine <= whole + 0.005, "reported %.2f s, the process used %.3f s" % (mine, whole))
    whole = usage.ru_utime + usage.ru_stime
    check(lim["user"] + lim["sys"] >= 0.8 * whole - 0.1,
          "reported %.2f s of the process's %.3f s" % (lim["user"] + lim["sys"], whole))
    threads_cpu = lim["busy_mean"] * lim["threads"] * secs
    check(lim["threads"] == 2 and threads_cpu <= lim["user"] + lim["sys"] + 0.03,
          "the threads' %.2f s within the process's" % threads_cpu)
    # The server: the test's stats readings enclose slap's.
    cpu = (float(after["rusage_user"]) - float(before["rusage_user"]) +
           float(after["rusage_system"]) - float(before["rusage_system"]))
    got, threads, busy = lim["servers"][mc.addr]
    check(got <= cpu + 0.005 and got >= 0.9 * cpu - 0.05,
          "server_cpu_s %.2f, memcached's own stats %.3f" % (got, cpu))
    check(threads == int(after["threads"]) == 2, "memcached's threads")
    check(abs(busy - got / (secs * threads)) <= 0.05 * max(busy, 0.1) + 0.01,
          "busy %.2f is not cpu / (seconds x threads)" % busy)


@no_time
def case_limits_stalled_server_said():
    """A memcached stopped (SIGSTOP) as slap starts, for longer than slap waits for its stats:
    its CPU still comes from /proc, the line says the stats were not read and why, and slap's
    counters still equal the server's (of slap's own `stats` requests, the test can no longer
    tell how many were answered: slap said so)."""
    mc = Memcached()
    pid = mc.proc.pid

    def resume():
        time.sleep(3.5)  # past the 2 s slap waits for stats, begun within its first second
        os.kill(pid, signal.SIGCONT)

    try:
        stop = ("sh", "-c", 'kill -STOP %d && exec "$@"' % pid, "sh")
        rc, out, err, delta, _ = measured([mc], ["-s", mc.addr, "-t", "2s", "-T", "2", "-c", "16"],
                                          prefix=stop, during=resume)
        check(rc == 0, "exit status %d: %s" % (rc, err))
        check(re.search(r"^server_cpu_s: %s [\d.]+ \(\d+ threads, busiest thread busy [\d.]+; "
                        r"pid %d, from /proc; stats not read before the run: no answer to stats "
                        r"in time\)$" % (re.escape(mc.addr), pid), out, re.M),
              "the CPU line does not say the stats were not read: %r" % out[-1200:])
        check_agree(counters(out), delta)
    finally:
        os.kill(pid, signal.SIGCONT)
        mc.stop()


@no_time
def case_limits_garbage_server_stats():
    """A server whose stats say figures that are no numbers (rusage_user nan, threads 1e308)
    gets a note naming the figure, and the run its whole report (exit 0): never a figure made of
    garbage (a busy share of 0 from nan) nor an overflow."""
    figures = ["cmd_get", "cmd_set", "get_hits", "get_misses", "evictions", "bytes_read",
               "bytes_written", "curr_connections", "rusage_user", "rusage_system", "threads"]
    for bad, value in (("rusage_user", "nan"), ("threads", "1e308")):
        stats = "".join("STAT %s %s\r\n" % (f, value if f == bad else "1") for f in figures)
        garbage = FakeMemcached(rewrite=lambda request, answer, stats=stats: (
            (stats + "END\r\n").encode() if request[0] == "other"
            and request[1][:1] == [b"stats"] else None))
        try:
            rc, out, err = run_slap(["-s", garbage.addr, "-t", "1s", "-c", "2"], timeout=30)
            said = ("stats not read before the run: its stats' %s is not a number from 0 to "
                    "2^64 (it said '%s')" % (bad, value))
            check(rc == 0 and said in out and run_line(out)[1] > 0,
                  "%s %s: exit %d, %r" % (bad, value, rc, out[-1500:] + err))
        finally:
            garbage.stop()


@release_only(TIMING_STATISTICS)
def case_limits_without_server_stats():
    """A server that refuses stats, whose process slap cannot see (slap as another user), gets a
    note, no CPU line, and a verdict about the client only, without a delay; seen in /proc (the
    fake server runs in this process), its CPU comes from there; one that never answers stats
    delays the start by 2 s at most."""
    refusing = FakeMemcached()  # answers ERROR to stats
    silent = FakeMemcached(behave=lambda conn, req: "stall" if conn >= 2 else None)
    d = tempfile.mkdtemp(prefix="slap-limits-")
    try:
        path = os.path.join(d, "r.json")
        rc, out, err = run_slap(["-s", refusing.addr, "-t", "1s", "-c", "2", "--json", path])
        check(rc == 0, "exit status %d" % rc)
        line = (r"^server_cpu_s: %s [\d.]+ \(\d+ threads, busiest thread busy [\d.]+; "
                r"pid %d, from /proc; stats not read before the run: it did not answer "
                r"stats \(it said 'ERROR'\)%%s\)$" % (re.escape(refusing.addr), os.getpid()))
        check(re.search(line % "", out, re.M),
              "the refusing server's process is this one: %r" % out[-1200:])
        # the document keeps why, and a merge prints the same line
        with open(path) as f:
            doc = json.load(f)
        validate(doc)
        why = doc["limits"]["servers"][0].get("cpu_from_why")
        check(why == "stats not read before the run: it did not answer stats (it said 'ERROR')",
              "the document's cpu_from_why: %r" % why)
        rc, merged, err = run_slap(["merge", path])
        check(rc == 0 and re.search(line % "(?:, read by [^)]*)?", merged, re.M),
              "the merged report's line: %d %r" % (rc, merged[-1200:]))
        if os.geteuid() != 0:
            return  # slap cannot run as a user that does not see this process
        t0 = time.monotonic()
        rc, out, err = run_slap(["-s", refusing.addr, "-t", "1s", "-c", "2"],
                                prefix=("setpriv", "--reuid=nobody", "--regid=nogroup",
                                        "--clear-groups"))
        wall = time.monotonic() - t0
        check(rc == 0, "exit status %d" % rc)
        lim = limits(out)
        note = lim["unknown"].get(refusing.addr, "")
        check(not lim["servers"] and "did not answer stats" in note,
              "a note, no CPU line: %r" % lim)
        check(lim["verdict"] in ("unknown", "client") and "about the client only" in lim["why"],
              "the verdict is about the client only: %r" % lim)
        check(wall < 1.0 + 1.0, "a server refusing stats slowed the run: %.1f s" % wall)

        t0 = time.monotonic()
        rc, out, err = run_slap(["-s", silent.addr, "-t", "1s", "-c", "2"],
                                prefix=("setpriv", "--reuid=nobody", "--regid=nogroup",
                                        "--clear-groups"))
        wall = time.monotonic() - t0
        check(rc == 0, "exit status %d" % rc)
        lim = limits(out)
        check("no answer to stats in time" in lim["unknown"].get(silent.addr, ""), "note %r" % lim)
        check(abs(run_line(out)[0] - 1.0) < 0.1, "the measured run kept its length")
        check(wall < 1.0 + 2.0 + 1.0, "a silent server delayed the run %.1f s" % wall)
    finally:
        refusing.stop()
        silent.stop()
        shutil.rmtree(d)


@no_time
def case_limits_json_and_merge(mc):
    """The document's limits are the report's lines; a merge adds the hosts' CPU and threads
    and judges again; -q prints the Run time line alone."""
    d = tempfile.mkdtemp(prefix="slap-limits-")
    try:
        outs = []
        for i in range(2):
            path = os.path.join(d, "h%d.json" % i)
            rc, out, err = run_slap(["-s", mc.addr, "-t", "1s", "-c", "4", "--json", path,
                                     "--label", "h%d" % i])
            check(rc == 0, "exit status %d" % rc)
            outs.append(out)
        docs = []
        for i, out in enumerate(outs):
            with open(os.path.join(d, "h%d.json" % i)) as f:
                doc = json.load(f)
            validate(doc)
            lim, jl = limits(out), doc["limits"]
            check(jl["verdict"] == lim["verdict"] and jl["why"] == lim["why"], "verdict")
            check(abs(jl["client"]["cpu_user_s"] - lim["user"]) <= 0.005 and
                  abs(jl["client"]["busy_max"] - lim["busy_max"]) <= 0.005 and
                  jl["client"]["threads"] == lim["threads"], "client figures %r" % jl)
            server = jl["servers"][0]
            check(server["name"] == mc.addr and server["label"] == "h%d" % i and
                  abs(server["cpu_s"] - lim["servers"][mc.addr][0]) <= 0.005, "server %r" % server)
            docs.append(jl)
        merged = os.path.join(d, "m.json")
        rc, out, err = run_slap(["merge", os.path.join(d, "h0.json"), os.path.join(d, "h1.json"),
                                 "--json", merged])
        check(rc == 0, "merge exit status %d: %s" % (rc, err))
        with open(merged) as f:
            doc = json.load(f)
        validate(doc)
        ml = doc["limits"]
        check(ml["client"]["threads"] == 2 and
              abs(ml["client"]["cpu_user_s"] - sum(x["client"]["cpu_user_s"] for x in docs)) < 1e-6
              and ml["client"]["busy_max"] == max(x["client"]["busy_max"] for x in docs),
              "merged client %r" % ml["client"])
        check([s["label"] for s in ml["servers"]] == ["h0", "h1"], "both hosts' server readings")
        lim = limits(out)
        check(lim["verdict"] == ml["verdict"] and "read by h0" in out and "read by h1" in out,
              "the merged report's lines")
        rc, out, err = run_slap(["-s", mc.addr, "-t", "1s", "-c", "2", "-q"])
        check(out.startswith("Run time:") and out.count("\n") == 1, "-q printed %r" % out)
    finally:
        shutil.rmtree(d)


class CpuHog:
    """A busy loop pinned to one CPU (bounded to 120 s) at a nice level, stopped by its pid on
    exit: the busy load host of the verdict cases."""

    def __init__(self, cpu, nice=0):
        self.proc = subprocess.Popen(["taskset", "-c", str(cpu), "nice", "-n", str(nice),
                                      "python3", "-c",
                                      "import time\nend = time.monotonic() + 120\n"
                                      "while time.monotonic() < end: pass"])

    def __enter__(self):
        time.sleep(0.3)  # on its CPU before slap starts
        return self

    def __exit__(self, *exc):
        self.proc.kill()
        self.proc.wait()


@release_only(TIMING_STATISTICS)
@needs("two_cpus")
def case_limits_busy_host():
    """memcached -t 1 pinned to CPU 0, a busy loop pinned to CPU 1, slap on CPU 1 beside it:
    slap waits for its CPU, and whatever -c it is given the verdict is that the load host's
    CPU limited the run, never "raise -c" (following that advice made such runs slower);
    --pipeline 16 is not called too few clients either."""
    mc = Memcached(extra=("-t", "1"))
    try:
        pin(mc.proc.pid, 0)
        with CpuHog(1):
            for args, possible in ((["-T", "4", "-c", "16"], 16), (["-T", "4", "-c", "256"], 256),
                                   (["-T", "2", "-c", "64", "--pipeline", "16"], 64 * 16)):
                rc, out, err = run_slap(["-s", mc.addr, "-t", "2s"] + args,
                                        prefix=("taskset", "-c", "1"))
                check(rc == 0, "%s: exit status %d: %s" % (args, rc, err))
                lim = limits(out)
                check(lim["wait_max"] >= 0.10, "%s: beside a busy loop slap's threads waited "
                      "for their CPU only %.2f of the run" % (args, lim["wait_max"]))
                check(lim["verdict"] in ("client", "both"), "%s: %r" % (args, lim))
                check("the load host's CPU limited the run" in lim["why"], "%s: %s"
                      % (args, lim["why"]))
                check("raise -c" not in lim["why"] and "too few clients" not in lim["why"],
                      "%s: more clients was the wrong advice: %s" % (args, lim["why"]))
                m = re.search(r"^client_cpus: ([\d.]+) \(used ([\d.]+) of them\)$", out, re.M)
                check(m is not None and float(m.group(1)) == 1.0,
                      "slap may use one CPU (taskset): %r" % (m and m.group(0)))
                m = re.search(r"^in_flight: ([\d.]+) \(of (\d+) possible", out, re.M)
                check(m is not None and int(m.group(2)) == possible,
                      "%s: %d possible in flight: %r" % (args, possible, m and m.group(0)))
    finally:
        mc.stop()


@release_only(TIMING_STATISTICS)
def case_limits_in_flight_little(mc):
    """The in_flight line is Little's law over the run: requests per second x mean latency
    from the report's own figures, of -c x -n x --pipeline possible."""
    rc, out, err = run_slap(["-s", mc.addr, "-t", "2s", "-T", "1", "-c", "8", "-n", "2",
                             "--pipeline", "2"])
    check(rc == 0, "exit status %d: %s" % (rc, err))
    m = re.search(r"^in_flight: ([\d.]+) \(of (\d+) possible", out, re.M)
    check(m is not None and int(m.group(2)) == 8 * 2 * 2, "8 clients x 2 sockets x 2: %r"
          % (m and m.group(0)))
    events = int(re.search(r"^Total Statistics \((\d+) events\)", out, re.M).group(1))
    avg = int(re.search(r"^Total Statistics.*?\n   Min:.*?\n   Max:.*?\n   Avg:\s+(\d+)", out,
                        re.S | re.M).group(1))
    secs = run_line(out)[0]
    want = events / secs * avg / 1e6
    check(abs(float(m.group(1)) - want) <= 0.05 * want + 0.5,
          "in_flight %s, the report's rate x mean latency %.1f" % (m.group(1), want))


def case_limits_nothing_measured():
    """-U against a memcached without UDP: nothing was measured, so no verdict and no rates,
    and standard error says what failed and the likely cause."""
    mc = Memcached()  # the harness starts memcached with -U 0
    try:
        rc, out, err = run_slap(["-s", mc.addr, "-U", "-t", "1s"])
        check(rc == 1, "exit status %d" % rc)
        check("limited_by:" not in out and "client_cpu_user_s:" not in out,
              "a run that measured nothing has no verdict: %r" % out[-600:])
        secs, ops, tps, net = run_line(out)
        check(ops == 0 and tps == 0 and net == 0.0, "no rates: %r" % (run_line(out),))
        check("nothing answered over UDP; is the server started with UDP on its port "
              "(memcached -U PORT" in err, "the likely cause: %r" % err)
    finally:
        mc.stop()


@needs("root", "cgroup")
def case_open_loop_client_lag(mc):
    """-P beside a CPU quota of 5%: slap cannot keep its schedule. The requests it never sent
    are its own lag, not the server's silence: counted as client_lag (and unsent, and in the
    latency from their intended time), said to be slap's on standard error, judged `client`
    with the schedule named, and the run does not fail for them: the server answered every
    request it was sent."""
    with CpuQuota(0.05) as quota:
        if quota.path is None:
            raise Skip("neither cgroup v2 with the cpu controller nor cgroup v1's cpu "
                       "hierarchy is available for a CPU quota")
        before = mc.stats()[0]
        rc, out, err = run_slap(["-s", mc.addr, "-t", "2s", "-T", "1", "-c", "8", "-P", "20k"],
                                prefix=quota.prefix())
        after = mc.stats()[0]
    c = {k: int(v) for k, v in re.findall(r"^(\w+): (\d+)$", out, re.M)}
    check(c.get("unsent", 0) > 0 and c.get("client_lag", 0) > 0,
          "slap at 5%% of a CPU must fall behind 20k/s: %r" % c)
    check(c["client_lag"] <= c["unsent"] <= c.get("unanswered", 0), "counters nest: %r" % c)
    sent = int(after["cmd_get"]) + int(after["cmd_set"]) - int(before["cmd_get"]) - \
        int(before["cmd_set"])
    check(sent >= c["cmd_get"] + c["cmd_set"], "the server counted what slap counted")
    check(rc == 0, "the server answered what it was sent; slap's lag must not fail the run: "
          "exit %d: %s" % (rc, err))
    check("slap: client lag: %d of the requests never sent" % c["client_lag"] in err,
          "standard error names slap's lag (a plain run's line names no step): %r" % err)
    check("unanswered by the server" not in err, "%r" % err)
    lim = limits(out)
    check(lim["verdict"] == "client" and "could not keep the -P schedule" in lim["why"],
          "the verdict names the schedule: %r" % lim)


def case_slap_stopped_its_lanes_not_the_servers(mc):
    """-P 1000 over 4 connections through a proxy adding 2 ms, slap stopped (SIGSTOP) for
    1.5 s from 2.2 s into a 3 s run: the lanes awaiting an answer when it stopped got theirs,
    unread in their sockets, and the requests due behind them were never sent. slap held the
    run back (its verdict client, its schedule lost), so none of them is the server's silence:
    when the loop ran the run's end late (more than WORKER_STALL_NS: it ended while slap was
    stopped) with those answers unread, every unsent request is slap's lag; when the end came
    just after slap was let go, the lanes it refilled then hold the rest, and standard error
    names them as due behind connections while slap held the run back. Either way the run
    does not fail and the verdict is client. (Before, the lanes awaiting an answer at the stop
    counted theirs as the server's: when all four did, the run failed with 'unanswered by the
    server', judged latency, in the sanitizers' pass.)"""
    proxy = DelayProxy(mc.port, 0.002)  # a daemon thread's: it ends with the case
    proc = subprocess.Popen([PATHS.slap, "-s", proxy.addr, "-P", "1000", "-c", "4", "-T", "1",
                             "-t", "3s"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        time.sleep(2.2)
        proc.send_signal(signal.SIGSTOP)
        time.sleep(1.5)
        proc.send_signal(signal.SIGCONT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    print(out + err)
    c = {k: int(v) for k, v in re.findall(r"^(\w+): (\d+)$", out, re.M)}
    behind = c.get("unsent", 0) - c.get("client_lag", 0)
    check(c.get("unsent", 0) >= 400 and c.get("client_lag", 0) > 0,
          "slap stopped for 1.5 s must leave requests unsent, slap's lag: %r" % c)
    check(behind == 0 or "%d requests fell due behind connections awaiting answers while slap "
          "itself held the run back (limited_by client)" % behind in err,
          "the lanes' requests named: %r" % err)
    check(proc.returncode == 0 and "unanswered by the server" not in err,
          "slap's stop counted against the server: exit %d: %s" % (proc.returncode, err))
    check(limits(out)["verdict"] == "client", "the verdict: %r" % limits(out))


def case_open_loop_slow_server_not_client_lag(mc):
    """-P 2000 over 4 connections through a proxy adding 5 ms: each lane can carry about 175
    requests a second, so most requests fall due while their lane awaits an answer. Those are
    the server's, not slap's lag (its thread is idle): unsent and unanswered, no client_lag,
    no 'client lag' line, a verdict of latency (the lanes are full), and the run fails on the
    1% rule; a search step against it is not client either (unless starved). A busy host
    may starve slap's thread: the counters are checked in every try where it was on a CPU or
    waiting for one under 40% of the run (at half, slap's own unread answers may fill a lane,
    and the old rule decides), the verdict in a try where it waited under 10%; up to four
    tries, else skipped (not passed)."""
    proxy = DelayProxy(mc.port, 0.005)
    counted = judged = False
    for attempt in range(4):
        rc, out, err = run_slap(["-s", "127.0.0.1:%d" % proxy.port, "-c", "4", "-t", "2s",
                                 "-P", "2000"], timeout=60)
        lim = limits(out)
        c = {k: int(v) for k, v in re.findall(r"^(\w+): (\d+)$", out, re.M)}
        check(c.get("unsent", 0) >= 1000 and c["unsent"] <= c.get("unanswered", 0),
              "most requests fell due behind a full lane: %r" % c)
        check("could not keep the -P schedule" not in lim["why"] or
              lim["wait_max"] + lim["busy_max"] >= 0.4, "%r" % lim)
        if lim["wait_max"] + lim["busy_max"] < 0.4:
            counted = True
            check(c.get("client_lag", 0) == 0, "the server held those lanes, not slap: %r" % c)
            check("client lag" not in err, "%r" % err)
            check("(%d of them never sent, %d due while their connection awaited the server)"
                  % (c["unsent"], c["unsent"]) in err, "standard error says whose: %r" % err)
            check(rc == 1 and "more than 1%" in err, "the server's unanswered fail the run: "
                  "exit %d: %s" % (rc, err))
        if "waited for a CPU" not in lim["why"]:
            judged = True
            check(lim["verdict"] == "latency" and "raise -c" in lim["why"],
                  "the verdict is the latency, not slap: %r" % lim)
            break
        set_aside("attempt %d: slap's thread waited for a CPU (%s)" % (attempt + 1, lim["why"]))
    rc, sout, serr = run_slap(["search", "-s", "127.0.0.1:%d" % proxy.port, "-c", "4",
                               "--slo", "p50<1s", "--step_time", "1s", "--start", "2000",
                               "--max_steps", "1"], timeout=60)
    row = re.search(r"^2000\s+\d+\s+.*\s(held|broken|undecided|starved)\s+([a-z-]+)$", sout,
                    re.M)
    check(row is not None and (row.group(2) != "client" or row.group(1) == "starved"),
          "the search step's verdict:\n%s" % sout)
    if not (counted and judged):
        raise Skip("slap's thread waited for a CPU in every try (load host busy): %r" % lim)


def case_multiget_rate_in_requests(mc):
    """-P counts requests, and a multi-get of -d keys is one: achieved_tps and the verdict
    compare requests with the target, while the run line and keys_per_sec count keys."""
    rc, out, err = run_slap(["-s", mc.addr, "-t", "2s", "-c", "4", "-d", "10", "-P", "1000",
                             "--preload"])
    check(rc == 0, "exit status %d: %s" % (rc, err))
    achieved = named(out, "achieved_tps")
    check(900 <= achieved <= 1050, "achieved_tps %s for a target of 1000 requests/s" % achieved)
    keys = named(out, "keys_per_sec")
    check(keys >= 2 * achieved, "keys_per_sec %s counts the keys of the multi-gets" % keys)
    lim = limits(out)
    if lim["verdict"] == "rate":
        m = re.search(r"target of 1000 ops/s was met \((\d+) achieved\)", lim["why"])
        check(m is not None and int(m.group(1)) <= 1050, "the verdict's achieved rate: %s"
              % lim["why"])


@release_only(TIMING_STATISTICS)
@needs("two_cpus")
def case_limits_through_proxy():
    """Through twemproxy, which answers no stats: its CPU comes from /proc (the process that
    listens on its port, its busiest thread: the event loop), the memcached behind it is read
    as a backend (named by --stats_servers, or found in twemproxy's stats with --proxy_stats),
    twemproxy's own counters are shown, and a proxy made slow (a log line per request) and
    pinned to one CPU is judged the limit by name, not `unknown`."""
    from cases_ketama import Nutcracker
    mc = Memcached(extra=("-t", "1"))
    proxy = Nutcracker([mc], ["fnv1a_64"], extra=("-v", "11", "-i", "1000"))
    try:
        addr = "127.0.0.1:%d" % proxy.ports["fnv1a_64"]
        stats = "127.0.0.1:%d" % proxy.stats_port
        pin(proxy.proc.pid, 0)
        rc, out, err = run_slap(["-s", addr, "-t", "2s", "-c", "4", "--stats_servers", mc.addr])
        check(rc == 0, "exit status %d: %s" % (rc, err))
        check(re.search(r"^server_cpu_s: %s [\d.]+ \(\d+ threads, busiest thread busy [\d.]+; "
                        r"pid %d, from /proc; stats not read before the run: it closed the "
                        r"connection instead of answering stats\)$" % (re.escape(addr),
                                                                      proxy.proc.pid),
                        out, re.M), "the proxy's CPU from /proc: %r" % out[-1500:])
        check(re.search(r"^server_cpu_s: %s [\d.]+ \(1 threads, busy [\d.]+, a backend\)$"
                        % re.escape(mc.addr), out, re.M), "the backend's line: %r" % out[-1500:])
        for attempt in range(5):
            ran0, waits0 = thread_schedstat(proxy.proc.pid)
            waited0 = sum(waits0.values())
            t0 = time.monotonic()
            rc, out, err = run_slap(["-s", addr, "-t", "2s", "-T", "1", "-c", "128",
                                     "--proxy_stats", stats],
                                    prefix=("nice", "-n", "-10", "taskset", "-c", "1"))
            check(rc == 0, "exit status %d: %s" % (rc, err))
            lim = limits(out)
            check(re.search(r"^proxy_stats: %s requests \d+ responses \d+ server_err 0 "
                            % re.escape(stats), out, re.M), "twemproxy's counters: %r"
                  % out[-1500:])
            check(re.search(r"^server_cpu_s: %s .*, a backend\)$" % re.escape(mc.addr), out,
                            re.M), "the backend found in twemproxy's stats: %r" % out[-1500:])
            check(lim["verdict"] != "unknown", "a proxy on this host is judged: %r" % lim)
            wall = time.monotonic() - t0
            ran1, waits1 = thread_schedstat(proxy.proc.pid)
            proxy_waited = (sum(waits1.values()) - waited0) / 1e9 / wall
            # the kernel's own account of the proxy's busiest thread over the run
            proxy_ran = max((ran1[t] - ran0.get(t, 0)) / 1e9 / run_line(out)[0] for t in ran1)
            if lim["wait_max"] >= 0.10 or proxy_waited >= 0.10:
                set_aside("attempt %d: slap waited for a CPU %.0f%% of the run, the proxy %.0f%%: "
                          "the machine is busy" % (attempt + 1, lim["wait_max"] * 100,
                                                   proxy_waited * 100))
                continue
            if abs(proxy_ran - SATURATED) < 0.03:
                # slap's window (the measured part) and this one (the whole run line) differ a
                # little: a thread within 3% of the line may fall on either side of it in each.
                set_aside("attempt %d: the proxy's thread ran %.0f%%: too close to %.0f%% to tell"
                          % (attempt + 1, proxy_ran * 100, SATURATED * 100))
                continue
            if proxy_ran < SATURATED:
                # Not saturated by the kernel's account: never judged the limit by name.
                check(lim["verdict"] not in ("server", "both") or addr not in lim["why"],
                      "a proxy whose thread ran %.0f%% judged the limit: %r"
                      % (proxy_ran * 100, lim))
                set_aside("attempt %d: the proxy's thread ran %.0f%%: not saturated, judged %s"
                          % (attempt + 1, proxy_ran * 100, lim["verdict"]))
                continue
            check(lim["verdict"] in ("server", "both"), "a proxy whose busiest thread ran "
                  "%.0f%% of the run is the limit: %r" % (proxy_ran * 100, lim))
            check("%s's busiest thread was busy" % addr in lim["why"], "the proxy is named: %r"
                  % lim)
            return
        raise Skip("in 5 attempts the proxy was never saturated with its CPU to itself")
    finally:
        proxy.stop()
        mc.stop()


PROXY_LINE = (r"^proxy_stats: %s requests (\d+) responses (\d+) server_err 0 server_timedout 0 "
              r"server_eof 0 server_ejects 0 forward_error 0 client_err (\d+) in_queue 0 "
              r"out_queue 0(?: \((.*)\))?$")


def proxy_run(servers, stats, extra=()):
    """slap's 10,000 requests through servers, --proxy_stats stats: its report, its run line's
    count and the JSON's proxy object (the document follows the schema, and slap merge prints
    the same proxy line); exit status 0."""
    with tempfile.TemporaryDirectory(prefix="slap-proxy-") as tmp:
        path = os.path.join(tmp, "r.json")
        rc, out, err = run_slap(["-s", servers, "-x", "10000", "-c", "4", "-T", "1",
                                 "--proxy_stats", stats, "--json", path] + list(extra))
        check(rc == 0, "exit status %d: %s" % (rc, err))
        with open(path) as f:
            doc = json.load(f)
        validate(doc)
        rc, merged, err = run_slap(["merge", path])
        check(rc == 0, "slap merge: exit status %d: %s" % (rc, err))
    proxy_lines = [l for l in out.splitlines() if l.startswith("proxy_stats")]
    check(proxy_lines == [l for l in merged.splitlines() if l.startswith("proxy_stats")],
          "slap merge prints the run's proxy line: %r" % merged[-1500:])
    return out, run_line(out)[1], doc["limits"]["proxy"]


@no_time
def case_proxy_stats_cover_the_run():
    """--proxy_stats against nutcracker, whose stats thread adds up its counters only when it
    wakes (once per stats interval, -i, or at a read of its stats port) and then only those its
    event loop handed over since: with -i 30000 slap's 10,000 requests read back as "requests 4
    responses 0". slap reads its stats, turns its loop through -s and reads again, so with a
    long interval and a short one alike the proxy's counts are the run's: slap's own and the
    memcached's behind it. A proxy that carried only part of slap's load (two proxies in -s)
    is said to be partial with the share its figures count; one that carried none of it says so
    instead of its figures."""
    from cases_ketama import Nutcracker
    mc = Memcached(extra=("-t", "1"))
    proxies = []
    try:
        for interval in ("30000", "100"):
            proxy = Nutcracker([mc], ["fnv1a_64"], extra=("-i", interval))
            proxies.append(proxy)
            addr = "127.0.0.1:%d" % proxy.ports["fnv1a_64"]
            stats = "127.0.0.1:%d" % proxy.stats_port
            before = mc.stats()
            out, ops, obj = proxy_run(addr, stats)
            after = mc.stats()
            served = sum(int(after[0][k]) - int(before[0][k]) for k in ("cmd_get", "cmd_set"))
            m = re.search(PROXY_LINE % re.escape(stats), out, re.M)
            check(m is not None, "-i %s: the proxy's line: %r" % (interval, out[-1500:]))
            requests, responses, client_err, note = m.groups()
            check(note is None and obj["note"] is None, "-i %s: the whole run, no note: %r %r"
                  % (interval, note, obj))
            check(int(requests) == int(responses) == ops == served == obj["requests"],
                  "-i %s: the proxy's requests %s, responses %s, slap's %d, the memcached's %d, "
                  "the JSON's %s agree" % (interval, requests, responses, ops, served,
                                           obj["requests"]))
            check(int(client_err) == 0, "slap's stats request to the proxy is not the run's: "
                  "client_err %s" % client_err)
        # -s two proxies, --proxy_stats the first: its figures count its share of slap's load
        first, second = proxies
        stats = "127.0.0.1:%d" % first.stats_port
        both = "127.0.0.1:%d,127.0.0.1:%d" % (first.ports["fnv1a_64"], second.ports["fnv1a_64"])
        out, ops, obj = proxy_run(both, stats)
        m = re.search(PROXY_LINE % re.escape(stats), out, re.M)
        check(m is not None and m.group(4) is not None, "a partial proxy line: %r" % out[-1500:])
        counted = int(m.group(2))
        check(0.3 * ops < counted < 0.7 * ops, "the first proxy's share of the keys: %d of %d"
              % (counted, ops))
        want = ("partial: they count %d answers to the %d requests slap had answered (%.1f%%): "
                "its stats cover part of the run (nutcracker -i), or part of slap's load went "
                "through other servers" % (counted, ops, counted / ops * 100))
        check(m.group(4) == want == obj["note"] and obj["responses"] == counted,
              "the note says how much: %r, %r" % (m.group(4), obj))
        # -s the memcached itself: the proxy's figures count none of the run, and say so
        out, ops, obj = proxy_run(mc.addr, stats)
        want = ("its figures count no answer to the run's %d requests: its stats are older than "
                "the run (twemproxy adds them up once per stats interval, nutcracker -i), or "
                "slap's load did not go through it" % ops)
        check("\nproxy_stats_unknown: %s (%s)\n" % (stats, want) in out,
              "no figures, the reason: %r" % out[-1500:])
        check(obj == {"name": stats, "note": want}, "the JSON's proxy: %r" % obj)
    finally:
        for proxy in proxies:
            proxy.stop()
        mc.stop()


def check_step_limits(step, word):
    """A sweep's (or a search's) step: its limits object's verdict is its limited_by and the
    table's word; its borderline and its words agree."""
    lim = step.get("limits")
    check(lim is not None, "the step at %s has no limits, only %s" % (step["target_tps"],
                                                                    sorted(step)))
    check(lim["verdict"] == step["limited_by"] == word, "step %s: verdict %s, limited_by %s, "
          "the table's %s" % (step["target_tps"], lim["verdict"], step["limited_by"], word))
    check_borderline(lim)


def check_borderline(lim):
    """A limits object's borderline: null with no figure and no such words, or the verdict
    named first in its words with a figure within its band of its line."""
    other, figure = lim["borderline"], lim["borderline_figure"]
    check((other is None) == (figure is None), "borderline %r, its figure %r" % (other, figure))
    if other is None:
        check("borderline" not in lim["why"], "words of a clear verdict: %s" % lim["why"])
        return
    check(other != lim["verdict"], "borderline with itself: %r" % lim)
    check(lim["why"].startswith("borderline with %s: " % other), "words: %s" % lim["why"])
    check(abs(figure["value"] - figure["line"]) < figure["band"], "not near: %r" % figure)


@no_time
def case_sweep_steps_judged(mc):
    """Each step of a --sweep's JSON has its own limits object, as a run's: valid by the schema,
    its verdict the table's Limited_by. slap merge of two hosts' sweeps judges each step again
    over both hosts (its servers read by each, its clients' threads summed, the merged table's
    word its verdict); a host's file whose steps have no limits (an older slap's) still merges,
    and the merged steps then have none."""
    d = tempfile.mkdtemp(prefix="slap-limits-")
    try:
        hosts = []
        for i in range(2):
            path = os.path.join(d, "h%d.json" % i)
            rc, out, err = run_slap(["-s", mc.addr, "--sweep", "1k:2k:1k", "--step_time", "1s",
                                     "-c", "4", "--label", "h%d" % i, "--json", path])
            check(rc == 0, "sweep %d: exit %d: %s" % (i, rc, err))
            with open(path) as f:
                doc = json.load(f)
            validate(doc)
            check("limits" not in doc, "a sweep's limits are its steps'")
            rows = sweep_rows(out, 4)
            check(len(rows) == len(doc["steps"]) == 2, "rows %r" % rows)
            for row, step in zip(rows, doc["steps"]):
                check_step_limits(step, row[4])
                check([s["label"] for s in step["limits"]["servers"]] == ["h%d" % i],
                      "the step's servers %r" % step["limits"]["servers"])
            hosts.append(doc)
        m = os.path.join(d, "m.json")
        rc, out, err = run_slap(["merge", os.path.join(d, "h0.json"), os.path.join(d, "h1.json"),
                                 "--json", m])
        check(rc == 0, "merge: exit %d: %s" % (rc, err))
        with open(m) as f:
            merged = json.load(f)
        validate(merged)
        rows = sweep_rows(out, 4)
        check(len(rows) == len(merged["steps"]) == 2, "merged rows %r" % rows)
        for k, (row, step) in enumerate(zip(rows, merged["steps"])):
            check_step_limits(step, row[4])
            lim = step["limits"]
            check(sorted(s["label"] for s in lim["servers"]) == ["h0", "h1"],
                  "merged step %d's servers %r" % (k, lim["servers"]))
            threads = sum(h["steps"][k]["limits"]["client"]["threads"] for h in hosts)
            check(lim["client"]["threads"] == threads, "merged step %d's threads %d, the hosts' "
                  "%d" % (k, lim["client"]["threads"], threads))
        old = hosts[1]
        for step in old["steps"]:
            del step["limits"]
        with open(os.path.join(d, "old.json"), "w") as f:
            json.dump(old, f)
        rc, out, err = run_slap(["merge", os.path.join(d, "h0.json"), os.path.join(d, "old.json"),
                                 "--json", m])
        check(rc == 0, "merge with an older file: exit %d: %s" % (rc, err))
        with open(m) as f:
            merged = json.load(f)
        validate(merged)
        check(all("limits" not in s for s in merged["steps"]), "merged steps judged without one "
              "host's figures: %r" % [s.get("limits") for s in merged["steps"]])
        check([s["limited_by"] for s in merged["steps"]] ==
              [a["limited_by"] if a["limited_by"] == b["limited_by"] else "mixed"
               for a, b in zip(hosts[0]["steps"], old["steps"])],
              "merged words %r" % [s["limited_by"] for s in merged["steps"]])
    finally:
        shutil.rmtree(d)


@no_time
@threads
def case_search_steps_judged(mc):
    """slap search writes its steps as a sweep's: each with its limits object, its verdict the
    step's limited_by (the table's word)."""
    d = tempfile.mkdtemp(prefix="slap-limits-")
    try:
        path = os.path.join(d, "s.json")
        rc, out, err = run_slap(["search", "--slo", "p50<1s", "-s", mc.addr, "-c", "4",
                                 "--step_time", "1s", "--start", "1000", "--max_steps", "2",
                                 "--json", path])
        check(rc == 0, "exit status %d: %s" % (rc, err))
        with open(path) as f:
            doc = json.load(f)
        validate(doc)
        rows = re.findall(r"^(\d+)\s+\d+\s+\d+\s", out, re.M)
        # two steps, then the capacity confirmed: every measurement one step, one row
        check(len(doc["steps"]) == len(rows) >= 2,
              "steps %r, rows %r" % ([s["target_tps"] for s in doc["steps"]], rows))
        for step in doc["steps"]:
            check(re.search(r"^%d\s.*\s%s\s*$" % (step["target_tps"], step["limited_by"]), out,
                            re.M), "no row of %s ending %s:\n%s" % (step["target_tps"],
                                                                   step["limited_by"], out))
            check_step_limits(step, step["limited_by"])
    finally:
        shutil.rmtree(d)


def near_line_run(mc, path):
    """slap -T 1 -c 32 on CPU 1 beside a busy loop at nice 10 there, against memcached -t 1 on
    CPU 0: slap waits for its CPU near the 10% line. Its limited_by line and JSON limits."""
    rc, out, err = run_slap(["-s", mc.addr, "-t", "2s", "-T", "1", "-c", "32", "--json", path],
                            prefix=("taskset", "-c", "1"))
    check(rc == 0, "exit status %d: %s" % (rc, err))
    with open(path) as f:
        lim = json.load(f)["limits"]
    line = re.search(r"^limited_by: ([a-z]+) \((.*)\)$", out, re.M)
    check(line is not None and line.group(1) == lim["verdict"] and line.group(2) == lim["why"],
          "the report's line and the JSON: %r, %r" % (line and line.group(0), lim))
    check_borderline(lim)
    return lim


@release_only(TIMING_STATISTICS)
@needs("two_cpus")
def case_limits_borderline_beside_hog():
    """Identical runs whose slap waits for its CPU near the 10% line (a busy loop at nice 10 on
    its CPU): they give one word, or the runs that differ say they were borderline. Two runs
    that both say nothing of it must agree. A shared host sometimes takes the CPU from slap
    for much of a run (slap waiting half of it or more: not the identical runs this is about):
    such runs are left out, and four more runs are tried when fewer than three are left."""
    mc = Memcached(extra=("-t", "1"))
    d = tempfile.mkdtemp(prefix="slap-limits-")
    try:
        pin(mc.proc.pid, 0)
        for attempt in range(2):
            with CpuHog(1, nice=10):
                runs = [near_line_run(mc, os.path.join(d, "r%d.json" % i)) for i in range(4)]
            kept = []
            for r in runs:
                wait = r["client"]["cpu_wait_max"] or 0
                print("attempt %d: %s%s, slap waited %.3f, the server's busy %s%s" % (
                    attempt + 1, r["verdict"], " (borderline with %s by %s)" % (
                        r["borderline"], r["borderline_figure"]["name"]) if r["borderline"]
                    else "", wait, [s.get("busy") for s in r["servers"]],
                    ": left out" if wait >= 0.5 else ""))
                if wait < 0.5:
                    kept.append(r)
            if len(kept) < 3:
                set_aside("attempt %d: slap waited for a CPU half of %d of 4 runs"
                          % (attempt + 1, 4 - len(kept)))
                continue
            clear = {r["verdict"] for r in kept if r["borderline"] is None}
            check(len(clear) <= 1, "identical runs beside a busy loop gave %s, none of them "
                  "borderline" % " and ".join(sorted(clear)))
            return
        raise Skip("in two tries the host took slap's CPU for half of most runs")
    finally:
        mc.stop()
        shutil.rmtree(d)


def case_limits_borderline_read_back(mc):
    """A run's JSON whose figures are set near a line, read back by slap merge and judged again:
    slap's CPU wait just under the 10% line beside a saturated server is `server`, borderline
    with both (just over: `both`, borderline with server; far under: `server`, not borderline),
    said first in the merged report's limited_by line and kept in its JSON. A document of an
    older slap, without borderline, still reads."""
    d = tempfile.mkdtemp(prefix="slap-limits-")
    try:
        run = os.path.join(d, "run.json")
        rc, out, err = run_slap(["-s", mc.addr, "-t", "1s", "-T", "1", "-c", "4", "--json", run])
        check(rc == 0, "exit status %d: %s" % (rc, err))
        with open(run) as f:
            doc = json.load(f)
        check("borderline" in doc["limits"] and "borderline_figure" in doc["limits"],
              "a run's limits say whether it was borderline: %r" % sorted(doc["limits"]))
        for wait, word, other in ((0.096, "server", "both"), (0.104, "both", "server"),
                                  (0.02, "server", None)):
            lim = doc["limits"]
            lim["client"].update(busy_max=0.2, busy_mean=0.2, cpu_wait_max=wait,
                                 cpu_wait_mean=wait, demand_max=0.2 + wait, cpu_share=0.2)
            for s in lim["servers"]:
                s.update(busy=0.95, cpu_wait_max=0.0 if s.get("pid") else None)
            lim.pop("borderline", None)  # as an older slap wrote it, under schema 1
            lim.pop("borderline_figure", None)
            doc["schema"] = 1
            path = os.path.join(d, "w%s.json" % wait)
            with open(path, "w") as f:
                json.dump(doc, f)
            merged = os.path.join(d, "m.json")
            rc, out, err = run_slap(["merge", path, "--json", merged])
            check(rc == 0, "merge: exit %d: %s" % (rc, err))
            line = re.search(r"^limited_by: ([a-z]+) \((.*)\)$", out, re.M)
            check(line is not None and line.group(1) == word, "wait %.3f: %r" % (
                wait, line and line.group(0)))
            with open(merged) as f:
                back = json.load(f)
            validate(back)
            check(back["limits"]["verdict"] == word and back["limits"]["borderline"] == other,
                  "wait %.3f: the JSON's %r" % (wait, back["limits"]))
            check_borderline(back["limits"])
            if other is not None:
                check(line.group(2).startswith(
                    "borderline with %s: slap's threads waited for a CPU %.1f%% of the run, near "
                    "the 10%% line; " % (other, wait * 100)), "the words: %s" % line.group(2))
                check(back["limits"]["borderline_figure"]["name"] == "client.cpu_wait_max",
                      "the figure %r" % back["limits"]["borderline_figure"])
        doc["limits"]["borderline"] = "maybe"
        doc["limits"]["borderline_figure"] = {"name": "client.cpu_wait_max", "value": 0.1,
                                              "line": 0.1, "band": 0.05}
        with open(os.path.join(d, "bad.json"), "w") as f:
            json.dump(doc, f)
        rc, out, err = run_slap(["merge", os.path.join(d, "bad.json")])
        check(rc == 2 and "borderline: not null or a verdict slap gives" in err,
              "a borderline that is no verdict: exit %d, %r" % (rc, err))
    finally:
        shutil.rmtree(d)


def case_sweep_client_lag_names_its_step(mc):
    """A sweep whose slap cannot keep its schedule (held to 5% of a CPU by a cgroup quota, or
    pinned beside a busy loop where there is none): standard error's client lag and unanswered
    lines name their step by its rate, and none is a plain run's."""
    quota = CpuQuota(0.05) if os.geteuid() == 0 else None
    hogs = []
    try:
        if quota is not None and quota.path is not None:
            prefix = quota.prefix()
        elif (os.cpu_count() or 1) >= 2:
            # no quota (a chroot without /sys, no root): slap at nice 15 on CPU 1 beside three
            # busy loops at nice -5 gets about 1% of it (beside one at its own nice it kept
            # 20k/s), the server on CPU 0
            pin(mc.proc.pid, 0)
            hogs = [CpuHog(1, nice=-5) for _ in range(3)]
            hogs[0].__enter__()
            prefix = ("taskset", "-c", "1", "nice", "-n", "15")
        else:
            raise Skip("neither a CPU quota cgroup nor a second CPU to hold slap back")
        rc, out, err = run_slap(["-s", mc.addr, "--sweep", "20k:40k:20k", "--step_time", "1s",
                                 "-T", "1", "-c", "8"], prefix=prefix)
    finally:
        for hog in hogs:
            hog.__exit__()
        if quota is not None:
            quota.__exit__()
    check(rc == 0, "slap's own lag does not fail a sweep: exit %d: %s" % (rc, err))
    for rate in (20000, 40000):
        step = "slap: step %d ops/s: " % rate
        check(re.search(r"^%s\d+ requests? unanswered at the end of the run" % step, err, re.M),
              "no unanswered line of the step at %d: %r" % (rate, err))
        check(re.search(r"^%sclient lag: \d+ of the requests never sent" % step, err, re.M),
              "no client lag line of the step at %d: %r" % (rate, err))
    check(not re.search(r"^slap: (client lag|\d+ requests? unanswered)", err, re.M),
          "a line that names no step: %r" % err)


@release_only(TIMING_STATISTICS)
@needs("two_cpus")
def case_limits_shares_within_the_run():
    """slap starved hard (four threads at nice 15 on CPU 1 beside three busy loops at nice -5
    there), four runs: a thread's CPU wait and its busy + wait are shares of the time its
    readings cover, so none passes 1. Before, a thread preempted between its clock's last reading and its
    schedstat's counted that wait in one and not the other: 1.41 of the run in 1 run of 3."""
    mc = Memcached(extra=("-t", "1"))
    d = tempfile.mkdtemp(prefix="slap-limits-")
    hogs = [subprocess.Popen(["taskset", "-c", "1", "nice", "-n", "-5", "python3", "-c",
                              "import time\nend = time.monotonic() + 60\n"
                              "while time.monotonic() < end: pass"]) for _ in range(3)]
    try:
        pin(mc.proc.pid, 0)
        time.sleep(0.3)
        for k in range(4):
            path = os.path.join(d, "r%d.json" % k)
            rc, out, err = run_slap(["-s", mc.addr, "-T", "4", "-c", "32", "-P", "2000", "-t",
                                     "500ms", "--json", path],
                                    prefix=("taskset", "-c", "1", "nice", "-n", "15"))
            check(rc in (0, 1), "exit status %d: %s" % (rc, err))
            if not os.path.exists(path):
                continue
            with open(path) as f:
                client = json.load(f).get("limits", {}).get("client")
            if client is None:
                continue
            wait = client["cpu_wait_max"] or 0.0
            check(wait <= 1.005 and client["demand_max"] <= 1.005 and client["busy_max"] <= 1.005,
                  "run %d: shares beyond the run: %r" % (k, client))
    finally:
        for h in hogs:
            h.kill()
            h.wait()
        mc.stop()
        shutil.rmtree(d)
