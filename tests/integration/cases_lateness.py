"""slap's own lateness is never the server's latency (issue 42): an open loop's latency taken
apart (slap late to send, held by the server, network and server, slap late to read), checked
against what the delay server says it did, on a quiet host and with slap held back; and the
verdict, a search and a ramp judged from the parts."""
import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from cases_ktime import delay_server, server_truth
from cases_limits import CpuHog
from harness import check, Memcached, PATHS, run_slap, Skip
from harness import TIMING_STATISTICS, needs, no_time, release_only, set_aside

BUCKET = 1.0 / 128  # the histogram's relative width (hist.h)


class StopBursts:
    """slap stopped by SIGSTOP for stop_s every period_s, then continued, while it runs (a
    process stopped in bursts: no CPU-wait share shows it); from after_s on."""

    def __init__(self, proc, stop_s=0.04, period_s=0.2, after_s=0.5):
        self.proc, self.stop_s, self.period_s, self.after_s = proc, stop_s, period_s, after_s
        self.bursts = 0
        self.thread = threading.Thread(target=self.run)

    def run(self):
        time.sleep(self.after_s)
        while self.proc.poll() is None:
            try:
                os.kill(self.proc.pid, signal.SIGSTOP)
                time.sleep(self.stop_s)
                os.kill(self.proc.pid, signal.SIGCONT)
            except ProcessLookupError:
                return
            self.bursts += 1
            time.sleep(self.period_s - self.stop_s)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.thread.join()
        try:
            os.kill(self.proc.pid, signal.SIGCONT)
        except ProcessLookupError:
            pass


def open_loop(args, path, stopped=False, hog=False):
    """slap on CPU 0 (-T 1, kernel stamps, --json path) with args; stopped in bursts or beside
    a busy loop on its CPU (slap at nice 15) when asked. Its document and report."""
    prefix = ["taskset", "-c", "0"] + (["nice", "-n", "15"] if hog else [])
    cmd = prefix + [PATHS.slap, "-T", "1", "--timestamps=kernel", "--json", path] + args
    with CpuHog(0) if hog else contextlib.nullcontext():
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if stopped:
            with StopBursts(proc):
                out, err = proc.communicate(timeout=60)
        else:
            out, err = proc.communicate(timeout=60)
    check(proc.returncode == 0, "slap %s: exit %d: %s" % (" ".join(args), proc.returncode, err))
    with open(path) as f:
        return json.load(f), out


def total(doc, key):
    return doc[key]["total"]


def parts_add_up(doc, name):
    """Every answered request's latency is its parts' sum: the parts' sums add up to the
    latency's, and the parts count the requests the latency counts (the answered ones: a
    request never answered is in none)."""
    lat = total(doc, "types")
    late, held = total(doc, "late_to_send"), total(doc, "held_by_server")
    uncorrected = total(doc, "uncorrected")
    check(late["count"] == held["count"] == uncorrected["count"] == lat["count"],
          "%s: the parts count %d, %d and %d, the latency %d" %
          (name, late["count"], held["count"], uncorrected["count"], lat["count"]))
    parts = (late["avg_us"] * late["count"] + held["avg_us"] * held["count"] +
             uncorrected["avg_us"] * uncorrected["count"])
    whole = lat["avg_us"] * lat["count"]
    slack = 0.001 * whole + 1
    check(abs(parts - whole) <= slack,
          "%s: the parts add up to %.0f us, the latencies to %.0f us" % (name, parts, whole))


def net_is_the_servers(doc, truth, name):
    """The network-and-server part against the server's own figure: its P99 within a bucket
    of the server's (and the loopback's few tens of us, both ways)."""
    net99 = total(doc, "uncorrected")["percentiles"]["99"]
    check(net99 is not None and abs(net99 - truth["p99"]) <= BUCKET * truth["p99"] + 60,
          "%s: network and server P99 %s us, the server's own %.0f us" %
          (name, net99, truth["p99"]))


PARTS_ROW = re.compile(r"^   Total\s+P99\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+|-)$", re.M)


@release_only(TIMING_STATISTICS)
@needs("two_cpus")
def case_lateness_taken_apart():
    """The delay server answers 1 ms plus an exponential of mean 200 us after each request
    comes (CPU 1, nice -10). slap, open loop at 1500/s for 4 s on CPU 0, kernel stamps.
    Quiet: the network-and-server part's P99 is the server's own within a bucket, the parts'
    means add up to the latency's, slap's share of the tail is under half, the verdict is rate.
    Held back (SIGSTOP for 40 ms every 200 ms): the latency's P99 is at least 5 times the
    server's; the network-and-server part is still the server's; slap late to send accounts
    for the rest (the means add up); the verdict is client, its words naming slap's lateness
    and each part's P99, as the report's parts table and JSON give them."""
    proc, addr = delay_server(1000, 200)
    tmp = tempfile.mkdtemp(prefix="slap-late-")
    args = ["-s", addr, "-c", "16", "-P", "1500", "-t", "4s"]
    try:
        server_truth(addr)
        for attempt in range(3):  # a quiet run on this shared host: tried again when not quiet
            quiet, out = open_loop(args, os.path.join(tmp, "quiet.json"))
            truth = server_truth(addr)
            lim = quiet["limits"]
            print("quiet: P99 %s us, server %.0f us, parts %s, tail share %.2f, %s" %
                  (total(quiet, "types")["percentiles"]["99"], truth["p99"],
                   PARTS_ROW.search(out).groups(), lim["slap_tail_share"], lim["verdict"]))
            parts_add_up(quiet, "quiet")
            net_is_the_servers(quiet, truth, "quiet")
            if lim["slap_tail_share"] < 0.5 and lim["verdict"] == "rate":
                break
            set_aside("the quiet run was not quiet: tail share %.2f, %s"
                      % (lim["slap_tail_share"], lim["verdict"]))
        else:
            check(False, "quiet: three times the tail was slap's: %s" % lim["why"])
        held, out = open_loop(args, os.path.join(tmp, "held.json"), stopped=True)
        truth = server_truth(addr)
        lim = held["limits"]
        p99 = total(held, "types")["percentiles"]["99"]
        late99 = total(held, "late_to_send")["percentiles"]["99"]
        print("stopped in bursts: P99 %s us, server %.0f us, slap late to send P99 %s us, "
              "tail share %.2f, %s" % (p99, truth["p99"], late99, lim["slap_tail_share"],
                                      lim["verdict"]))
        check(p99 >= 5 * truth["p99"], "the stops did not hold slap back: P99 %s us" % p99)
        parts_add_up(held, "stopped")
        net_is_the_servers(held, truth, "stopped")
        check(late99 >= 0.5 * p99 and total(held, "held_by_server")["percentiles"]["99"] < 1000,
              "stopped: the P99's wait is not slap's: late %s us, held %s us of %s us" %
              (late99, total(held, "held_by_server")["percentiles"]["99"], p99))
        check(lim["verdict"] == "client" and lim["slap_tail_share"] >= 0.5,
              "stopped: the verdict %s (tail share %.2f): %s" %
              (lim["verdict"], lim["slap_tail_share"], lim["why"]))
        check(lim["why"].startswith("slap was late to send: ") and
              "slap late to send %.1f ms" % (lim["late_to_send_p99_s"] * 1e3) in lim["why"],
              "stopped: the words do not name slap's lateness: %s" % lim["why"])
        row = PARTS_ROW.search(out)
        check(row is not None and abs(int(row.group(2)) - late99) <= 1 and
              abs(int(row.group(1)) - p99) <= 1,
              "the report's parts row %r against JSON's P99 %s and late %s" %
              (row and row.group(0), p99, late99))
        check(held["counters"]["slap_late"] > 0 and
              re.search(r"^slap_late: %d$" % held["counters"]["slap_late"], out, re.M),
              "the slap_late counter: %r" % held["counters"]["slap_late"])
    finally:
        proc.kill()
        proc.wait()
        shutil.rmtree(tmp, ignore_errors=True)


@release_only(TIMING_STATISTICS)
def case_lateness_server_held_not_slap():
    """A server busy three quarters of the time: the delay server answers 5 ms after each
    request, two connections carry at most 400/s, and slap sends 300/s at random (Poisson)
    times, so requests queue in full lanes. That wait is the server's (held_by_server), not
    slap's: slap late to send (its turnaround from an answer to the next request, which adds up
    along a queue: a fifth of the hold here, a quarter in the sanitizers' build beside other
    cases) stays under half of it on average, slap's share of the tail under half, the verdict
    not client; the parts add up."""
    proc, addr = delay_server(5000, 0)
    tmp = tempfile.mkdtemp(prefix="slap-late-")
    try:
        doc, out = open_loop(["-s", addr, "-c", "2", "-P", "300", "--arrival=poisson", "-t",
                              "3s"], os.path.join(tmp, "slow.json"))
        lim = doc["limits"]
        held90 = total(doc, "held_by_server")["percentiles"]["90"]
        late = total(doc, "late_to_send")
        print("slow server: held P90 %s us, late P90 %s us (mean %.0f), tail share %.2f, %s" %
              (held90, late["percentiles"]["90"], late["avg_us"], lim["slap_tail_share"],
               lim["verdict"]))
        parts_add_up(doc, "slow server")
        check(held90 is not None and held90 >= 5000, "the full lanes' wait: held P90 %s us" %
              held90)
        held = total(doc, "held_by_server")
        check(late["avg_us"] < 0.5 * held["avg_us"] and lim["slap_tail_share"] < 0.5 and
              lim["verdict"] != "client",
              "the server's wait taken as slap's: late mean %.0f us (held %.0f), share %.2f, "
              "%s: %s" % (late["avg_us"], held["avg_us"], lim["slap_tail_share"], lim["verdict"],
                          lim["why"]))
    finally:
        proc.kill()
        proc.wait()
        shutil.rmtree(tmp, ignore_errors=True)


@release_only(TIMING_STATISTICS)
@needs("two_cpus")
def case_lateness_beside_a_busy_loop():
    """slap at nice 15 on CPU 0 beside a busy loop on the same CPU (4 s at 1500/s), the delay
    server on CPU 1: its wake-ups come late by a scheduler's slice. Where the latency's P99
    rose to at least
    3 times the server's, the network-and-server part stayed the server's, the parts add up,
    and the verdict is client (or both), its words naming slap's lateness or its CPU wait.
    A busy loop that did not hold slap up is tried again, 3 times at most."""
    proc, addr = delay_server(1000, 200)
    tmp = tempfile.mkdtemp(prefix="slap-late-")
    try:
        server_truth(addr)
        for attempt in range(3):
            doc, out = open_loop(["-s", addr, "-c", "16", "-P", "1500", "-t", "4s"],
                                 os.path.join(tmp, "hog.json"), hog=True)
            truth = server_truth(addr)
            lim = doc["limits"]
            p99 = total(doc, "types")["percentiles"]["99"]
            print("beside a busy loop: P99 %s us, server %.0f us, tail share %.2f, %s" %
                  (p99, truth["p99"], lim["slap_tail_share"], lim["verdict"]))
            parts_add_up(doc, "busy loop")
            net_is_the_servers(doc, truth, "busy loop")
            if p99 is not None and p99 >= 3 * truth["p99"]:
                check(lim["verdict"] in ("client", "both"),
                      "slap held up, the verdict %s: %s" % (lim["verdict"], lim["why"]))
                check("slap was late to send" in lim["why"] or
                      "mostly slap's own lateness" in lim["why"] or
                      "waited for a CPU" in lim["why"], "the words: %s" % lim["why"])
                return
            set_aside("the busy loop did not hold slap up (P99 %s us)" % p99)
        raise Skip("in 3 tries the busy loop never held slap up (P99 %s us)" % p99)
    finally:
        proc.kill()
        proc.wait()
        shutil.rmtree(tmp, ignore_errors=True)


SEARCH_STOP = re.compile(r"^search: went no higher than (\d+) ops/s, where slap itself held the "
                         r"load back \(short of CPU, or late to send: measured twice\)", re.M)


@release_only(TIMING_STATISTICS)
def case_lateness_search_names_slap():
    """slap search against an idle memcached while slap is stopped for 40 ms every 200 ms:
    every step's P99 is slap's lateness, so every step is starved, the search ends naming slap,
    never 'did not hold even at' a rate (which blames the server), and no capacity is given;
    the rows' Late99 column shows it."""
    mc = Memcached()
    tmp = tempfile.mkdtemp(prefix="slap-late-")
    try:
        path = os.path.join(tmp, "search.json")
        cmd = ["taskset", "-c", "0", PATHS.slap, "search", "--slo", "p99<2ms", "--start", "1000",
               "--max_rate", "4000", "--max_steps", "4", "--step_time", "2s", "-s", mc.addr,
               "-T", "1", "-c", "8", "--json", path]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        with StopBursts(proc, after_s=0.2):
            out, err = proc.communicate(timeout=90)
        print(out)
        check(proc.returncode in (0, 1), "slap search: exit %d: %s" % (proc.returncode, err))
        check("did not hold with confidence even at" not in out,
              "the search blamed the server for slap's lateness:\n%s" % out)
        check(SEARCH_STOP.search(out) is not None and
              re.search(r"^capacity: none found: slap itself held the load back", out, re.M),
              "the search did not end naming slap:\n%s" % out)
        doc = json.load(open(path))
        check(doc["search"]["capacity_tps"] is None and doc["search"]["client_limit_tps"] > 0,
              "search JSON: %r" % doc["search"])
        # each row gives its parts: slap's stops (40 ms) make the P99 of slap late to send
        # milliseconds, far above the server's hold
        parts = re.findall(r"^\d+\s+\d+\s+\d+\s+\S.*?\s(\d+)\s+(\d+)\s+[\d.]+\s+"
                           r"(?:held|broken|undecided|starved)\s", out, re.M)
        check(parts and all(int(late) >= 1000 and int(late) > int(held) for late, held in parts),
              "the rows' Late99 and Held99 do not show slap's lateness: %r\n%s" % (parts, out))
    finally:
        mc.stop()
        shutil.rmtree(tmp, ignore_errors=True)


RAMP_ROW = re.compile(r"^(\d+\.\d+)\s+(\d+)\s+(\d+)\s.*\s(\d+\.\d)%( \*)?$", re.M)


@release_only(TIMING_STATISTICS)
def case_lateness_ramp_marks_rows():
    """--ramp=500:2000/4s -S 500ms against an idle memcached. Quiet: no row of the ramp's
    table is marked. slap stopped for 40 ms every 200 ms from 2 s on: the rows after that are
    marked (Slap_late at 1% or more, '*'), the footnote says what the mark means, and the rows
    before are not."""
    mc = Memcached()
    tmp = tempfile.mkdtemp(prefix="slap-late-")
    try:
        args = ["-s", mc.addr, "--ramp=500:2000/4s", "-S", "500ms", "-c", "8"]
        _, quiet = open_loop(args, os.path.join(tmp, "quiet.json"))
        rows = RAMP_ROW.findall(quiet)
        check(len(rows) == 8, "quiet: the ramp's rows: %r" % rows)
        marked = [r for r in rows if r[4]]
        check(len(marked) <= 1, "quiet: rows marked as slap's: %r" % marked)
        cmd = ["taskset", "-c", "0", PATHS.slap, "-T", "1", "--json",
               os.path.join(tmp, "held.json")] + args
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        with StopBursts(proc, after_s=2.1):
            out, err = proc.communicate(timeout=60)
        check(proc.returncode == 0, "ramp: exit %d: %s" % (proc.returncode, err))
        rows = RAMP_ROW.findall(out)
        print(out[out.find("Start(s)"):])
        check(len(rows) == 8, "held: the ramp's rows: %r" % rows)
        late = [r for r in rows if float(r[0]) >= 2.5]
        check(all(r[4] for r in late), "rows after the stops began not marked: %r" % late)
        check("* slap was late to send 1% or more of the row's requests" in out,
              "no footnote:\n%s" % out)
    finally:
        mc.stop()
        shutil.rmtree(tmp, ignore_errors=True)


def thread_policies(pid):
    """The scheduling policy of each of the process's threads by thread id (/proc's stat field
    41: 0 SCHED_OTHER, 1 SCHED_FIFO)."""
    out = {}
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/stat" % (pid, tid)) as f:
                stat = f.read()
        except OSError:
            continue
        out[int(tid)] = int(stat[stat.rindex(")") + 2:].split()[41 - 3])
    return out


@no_time
def case_priority_realtime_workers(mc):
    """--priority=realtime: while the run goes on, its worker threads (-T 2) are SCHED_FIFO and
    its main thread is not; without it none is. Refused with exit 2 and said: in a closed loop,
    and for a user who may not use SCHED_FIFO (nobody, as root drops to it)."""
    for prio, want in (("realtime", 2), ("normal", 0)):
        proc = subprocess.Popen([PATHS.slap, "-s", mc.addr, "-T", "2", "-c", "4", "-P", "200",
                                 "-t", "2s", "--priority=" + prio], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        time.sleep(1.0)
        policies = thread_policies(proc.pid)
        out, err = proc.communicate(timeout=30)
        check(proc.returncode == 0, "--priority=%s: exit %d: %s" % (prio, proc.returncode, err))
        fifo = sum(1 for p in policies.values() if p == 1)
        print("--priority=%s: %r" % (prio, policies))
        check(fifo == want, "--priority=%s: %d SCHED_FIFO threads, not %d: %r" %
              (prio, fifo, want, policies))
        check(policies.get(proc.pid) == 0, "the main thread's policy: %r" % policies)
    rc, out, err = run_slap(["-s", mc.addr, "-t", "1s", "--priority=realtime"])
    check(rc == 2 and "--priority=realtime needs an open loop" in err,
          "closed loop: exit %d: %s" % (rc, err))
    if os.geteuid() != 0:
        raise Skip("not root: cannot run slap as another user to see it refused")
    r = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                        PATHS.slap, "-s", mc.addr, "-P", "100", "-t", "1s",
                        "--priority=realtime"], capture_output=True, text=True, timeout=30)
    check(r.returncode == 2 and "this process may not use SCHED_FIFO" in r.stderr,
          "unprivileged: exit %d: %s" % (r.returncode, r.stderr))
    # how a run was scheduled is not replayed: its results file reads back anywhere
    tmp = tempfile.mkdtemp(prefix="slap-prio-")
    try:
        path = os.path.join(tmp, "rt.json")
        rc, out, err = run_slap(["-s", mc.addr, "-P", "100", "-t", "1s", "--priority=realtime",
                                 "--json", path])
        check(rc == 0, "realtime run: exit %d: %s" % (rc, err))
        os.chmod(tmp, 0o755)
        os.chmod(path, 0o644)
        r = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                            PATHS.slap, "merge", path], capture_output=True, text=True,
                           timeout=30)
        check(r.returncode == 0, "a realtime run's file merged by nobody: exit %d: %s" %
              (r.returncode, r.stderr))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
