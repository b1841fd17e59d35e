"""slap search --slo: the highest open-loop rate where a latency objective holds, against a
server of known capacity (a single-threaded fake that serves each request in a fixed time) and
against memcached -t 1 pinned to one CPU; its bad objectives; slap plot of several runs (the
percentile spectrum with its intervals)."""
import collections
import contextlib
import json
import os
import re
import selectors
import shutil
import struct
import socket
import subprocess
import tempfile
import time
import xml.etree.ElementTree as ET

from cases_results import validate
from harness import check, Failure, free_port, Memcached, run_slap, Skip
from harness import TIMING_STATISTICS, needs, no_time, release_only, set_aside, threads
from cases_limits import CpuHog, pin
from cases_tools import complete

ROW = re.compile(r"^(\d+)\s+(\d+)\s+(\d+)\s+(\[\d+, \d+\]|needs \d+ reqs|not estimable)\s+"
                 r"(?:\d+)\s+(?:\d+)\s+"  # Late99(us), Held99(us)
                 r"([\d.]+)\s+(held|broken|undecided|starved)\s+([a-z-]+)$", re.M)
CAPACITY = re.compile(r"^capacity: (\d+) ops/s \(p(\S+) (\d+) \xb5s at that rate; confirmed: "
                      r"it held again( and \d+ ops/s did not)?\)$", re.M)
SVG = "{http://www.w3.org/2000/svg}"
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)  # Linux
CLIENT = "where slap itself held the load back (short of CPU, or late to send: measured twice)"  # the search's stop line


class QueueServer:
    """A server process (pinned to cpu, stopped by its pid) that answers each request
    service_s after the previous answer, or after it came when the server was idle: a FIFO
    queue with one worker, whose capacity is 1 / service_s requests a second and whose
    latency grows without bound beyond it. Gets miss (END), sets are STORED, stats is empty.
    The times are kept on a virtual clock, so a late wake-up delays an answer without
    lowering the capacity."""

    def __init__(self, service_s, cpu=0):
        self.port = free_port()
        code = ("import sys; sys.dont_write_bytecode = True; sys.path.insert(0, %r); "
                "import cases_search; cases_search.serve(%d, %r)"
                % (os.path.dirname(os.path.abspath(__file__)), self.port, service_s))
        self.proc = subprocess.Popen(["nice", "-n", "-10", "taskset", "-c", str(cpu), "python3",
                                      "-c", code])
        deadline = time.monotonic() + 5
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise Failure("the queue server did not start")
                time.sleep(0.02)

    @property
    def addr(self):
        return "127.0.0.1:%d" % self.port

    def stop(self):
        self.proc.kill()
        self.proc.wait()


def serve(port, service_s):
    """QueueServer's process: serve until killed (or 120 s)."""
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(256)
    listener.setblocking(False)
    sel = selectors.DefaultSelector()
    sel.register(listener, selectors.EVENT_READ, None)
    due = collections.deque()  # (time, socket, answer), in time order
    free_at = [0.0]
    end = time.monotonic() + 120
    while time.monotonic() < end:
        timeout = 0.05 if not due else max(0.0, due[0][0] - time.monotonic())
        for key, _ in sel.select(timeout=timeout):
            if key.data is None:
                sock, _ = listener.accept()
                sock.setblocking(False)
                sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
                sel.register(sock, selectors.EVENT_READ, [b""])
            else:
                _read(sel, key.fileobj, key.data, due, free_at, service_s)
        now = time.monotonic()
        while due and due[0][0] <= now:
            _, sock, answer = due.popleft()
            try:
                sock.sendall(answer)
            except OSError:
                pass


def _recv(sock):
    """What came, and when the kernel received it (on the monotonic clock): a server process
    woken late still starts each request at its arrival, so its capacity is not lowered."""
    try:
        data, anc, _, _ = sock.recvmsg(65536, 256)
    except OSError:
        return b"", 0.0
    arrived = time.monotonic()
    for level, kind, value in anc:
        if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(value) >= 16:
            sec, nsec = struct.unpack("qq", value[:16])
            arrived -= max(0.0, time.time() - (sec + nsec / 1e9))
    return data, arrived


def _read(sel, sock, buf, due, free_at, service_s):
    data, arrived = _recv(sock)
    if not data:
        sel.unregister(sock)
        sock.close()
        return
    buf[0] += data
    while True:
        answer = _take(buf)
        if answer is None:
            return
        free_at[0] = max(arrived, free_at[0]) + service_s
        due.append((free_at[0], sock, answer))


def _take(buf):
    """One whole request's answer, taken from buf[0]; None for more bytes."""
    line_end = buf[0].find(b"\r\n")
    if line_end < 0:
        return None
    words = buf[0][:line_end].split()
    if words and words[0] in (b"set", b"add", b"replace"):
        need = line_end + 2 + int(words[4]) + 2
        if len(buf[0]) < need:
            return None
        buf[0] = buf[0][need:]
        return b"STORED\r\n"
    buf[0] = buf[0][line_end + 2:]
    return b"ERROR\r\n" if words and words[0] not in (b"get", b"gets", b"stats") else b"END\r\n"


def search(args, timeout=120):
    rc, out, err = run_slap(["search"] + args, timeout=timeout,
                            prefix=("nice", "-n", "-10", "taskset", "-c", "1"))
    check(rc == 0, "exit status %d: %s" % (rc, err))
    rows = ROW.findall(out)
    check(rows, "no step rows:\n%s" % out)
    return out, rows


@release_only(TIMING_STATISTICS)
@needs("two_cpus")
def case_search_known_capacity():
    """A server of capacity 250 requests/s (4 ms each, one at a time), pinned apart from slap:
    the search under 'p50<40ms' with 1 s steps finds between 70% and 115% of it. Below the
    capacity the latency is the service time; above it the queue grows for the whole step:
    10% over for a second ends 100 ms behind, its median 50 ms, the objective broken. (The
    median, not a tail: a shared machine's stalls move a tail far more.) Every held step's
    interval is below 40 ms; the JSON holds the steps by rate."""
    server = QueueServer(0.004)
    d = tempfile.mkdtemp()
    try:
        for attempt in range(2):
            out, rows = search(["--slo", "p50<40ms", "-s", server.addr, "-T", "1", "-c", "32",
                                "--step_time", "1s", "--start", "70", "--max_steps", "8",
                                "--json", os.path.join(d, "s.json")])
            if CLIENT not in out:
                break
            set_aside("slap was the limit against a 250/s server")
        check(CLIENT not in out, "slap was the limit twice against a 250/s server:\n%s" % out)
        m = CAPACITY.search(out)
        check(m is not None and m.group(2) == "50", "no capacity line:\n%s" % out)
        capacity = int(m.group(1))
        check(175 <= capacity <= 287, "capacity %d for a 250/s server:\n%s" % (capacity, out))
        check(int(m.group(3)) < 40000, "the p50 at the capacity is above the objective")
        for r in rows:
            if r[5] == "held":
                high = int(r[3].strip("[]").split(", ")[1])
                check(high < 40000, "held with an interval up to %d us: %r" % (high, r))
        held = [int(r[0]) for r in rows if r[5] == "held"]
        check(max(held) == capacity, "the capacity is not the highest rate held: %r" % rows)
        doc = json.load(open(os.path.join(d, "s.json")))
        targets = [s["target_tps"] for s in doc["steps"]]
        check(targets == sorted(int(r[0]) for r in rows), "JSON steps %r, rows %r" % (targets, rows))
        validate(doc)
        # a rate may be measured twice (a starved step again, a confirmation) with two verdicts:
        # the steps and the rows hold the same (rate, verdict) pairs
        check(sorted((int(s["target_tps"]), s["slo"]) for s in doc["steps"]) ==
              sorted((int(r[0]), r[5]) for r in rows),
              "JSON steps' verdicts %r, rows %r" % ([s["slo"] for s in doc["steps"]], rows))
        check(doc["search"]["objectives"] == "p50<40ms" and
              abs(doc["search"]["capacity_tps"] - capacity) < 1 and
              doc["search"]["client_limit_tps"] is None and doc["search"]["confirmed"] is True,
              "JSON search %r" % doc["search"])
        # the capacity was measured again, and the rate above it: the last rows, after the
        # line that says so, hold and break as before
        m = re.search(r"^confirming: (\d+) ops/s again, and (\d+) ops/s above it\n"
                      r"(.*\n)(.*\n)\n", out, re.M)
        check(m is not None and int(m.group(1)) == capacity, "no confirmation:\n%s" % out)
        again, above = ROW.match(m.group(3)), ROW.match(m.group(4))
        check(again and above and int(again.group(1)) == capacity and again.group(6) == "held"
              and int(above.group(1)) == int(m.group(2)) and
              above.group(6) in ("broken", "undecided"),
              "the confirmation's rows:\n%s" % out)
    finally:
        server.stop()
        shutil.rmtree(d)


@contextlib.contextmanager
def memcached_on_cpu0():
    """memcached -t 1 pinned to CPU 0 (the cases run slap on CPU 1) and a scratch directory:
    (mc, d), both gone afterwards. Skipped on one CPU."""
    if (os.cpu_count() or 1) < 2:
        raise Skip("one CPU: slap and the server cannot be pinned apart")
    mc = Memcached(extra=("-t", "1"))
    d = tempfile.mkdtemp()
    try:
        pin(mc.proc.pid, 0)
        yield mc, d
    finally:
        mc.stop()
        shutil.rmtree(d)


@threads
def case_search_memcached_pinned():
    """memcached -t 1 pinned to CPU 0, slap on CPU 1: the search ramps from 5000 ops/s and ends
    with a capacity line; when slap rather than the server became the limit (a step that did
    not hold, judged client) it stops at that step and says so, and says so of no other. The
    SVG of the curve renders."""
    with memcached_on_cpu0() as (mc, d):
        svg = os.path.join(d, "s.svg")
        rc, out, err = run_slap(["search", "--slo", "p99<10ms", "-s", mc.addr, "-T", "1",
                                 "-c", "32", "--step_time", "1s", "--start", "5000",
                                 "--max_steps", "4", "--max_rate", "400k", "--svg", svg],
                                prefix=("taskset", "-c", "1"), timeout=120)
        check(rc == 0, "exit status %d: %s" % (rc, err))
        rows = ROW.findall(out)
        check(rows and int(rows[0][0]) == 5000, "the first step is --start:\n%s" % out)
        check(re.search(r"^capacity: ((at least )?\d+ ops/s \(p99 \d+ \xb5s at that rate|none "
                        r"found|none confirmed)", out, re.M), "no capacity line:\n%s" % out)
        # a step where slap was short of CPU (client or both) is starved, never the server's
        # answer: measured again at once, and a second starved step ends the search
        for i, r in enumerate(rows):
            if r[5] == "starved":
                check(r[6] in ("client", "both"), "starved, limited by %s: %r" % (r[6], r))
            measured_again = i > 0 and rows[i - 1][0] == r[0] and rows[i - 1][5] == "starved"
            if r[5] == "starved" and not measured_again and i + 1 < len(rows):
                check(rows[i + 1][0] == r[0], "a starved step not measured again:\n%s" % out)
        twice = [i for i in range(len(rows) - 1) if rows[i][0] == rows[i + 1][0] and
                 rows[i][5] == rows[i + 1][5] == "starved"]
        if CLIENT in out:
            # starved twice at a rate: slap's ceiling, the search narrows below it
            ceiling = int(re.search(r"went no higher than (\d+) ops/s", out).group(1))
            first = [i for i in twice if int(rows[i][0]) == ceiling]
            check(first, "no two starved steps at %d ops/s:\n%s" % (ceiling, out))
            check(all(int(r[0]) < ceiling for r in rows[first[0] + 2:]),
                  "measured at or above slap's ceiling after it:\n%s" % out)
        else:
            check(not twice or any(int(r[0]) < int(rows[twice[0]][0]) and r[5] != "starved"
                                   for r in rows[twice[0] + 2:]),
                  "starved twice, and not said:\n%s" % out)
        # the picture: the objective's percentile against the rate, and the objective's line
        root = ET.parse(svg).getroot()
        metrics = {g.get("data-metric"): g for g in root.iter(SVG + "g")
                   if g.get("data-metric") is not None}
        check("p99_us" in metrics and "objective_p99_us" in metrics,
              "the SVG lacks the objective's percentile or line: %r" % sorted(metrics))
        check(set(metrics["objective_p99_us"].get("data-y").split()) == {"10000"},
              "the objective's line is not at 10 ms: %r" % metrics["objective_p99_us"].get("data-y"))
        png = os.path.join(d, "s.png")
        r = subprocess.run(["rsvg-convert", "-o", png, svg], capture_output=True, text=True)
        check(r.returncode == 0 and r.stderr == "", "rsvg-convert failed: %s" % r.stderr)


@threads
def case_search_starved_ends_without_capacity():
    """memcached -t 1 pinned to CPU 0; slap -T 4 on CPU 1 beside two busy loops there: every
    step finds slap short of CPU (limited_by client or both), so none is the server's answer.
    The first step is measured again, starved again, and the search ends without a capacity,
    saying that slap was short of CPU and why (the verdict's words); the JSON has no capacity
    and the rate where it stopped. Two tries: a step the loops happen to spare is the
    server's, and then the search goes on."""
    with memcached_on_cpu0() as (mc, d):
        path = os.path.join(d, "s.json")
        for attempt in range(2):
            with CpuHog(1), CpuHog(1):
                rc, out, err = run_slap(["search", "--slo", "p99<10ms", "-s", mc.addr, "-T", "4",
                                         "-c", "32", "--step_time", "1s", "--start", "5000",
                                         "--max_steps", "4", "--json", path],
                                        prefix=("taskset", "-c", "1"), timeout=120)
            check(rc == 0, "exit status %d: %s" % (rc, err))
            if CLIENT in out:
                break
            set_aside("the busy loops spared a step: it was the server's")
        rows = ROW.findall(out)
        check(len(rows) == 2 and all(r[5] == "starved" and r[6] in ("client", "both") and
                                     r[0] == "5000" for r in rows),
              "not two starved steps at 5000 ops/s:\n%s" % out)
        check(re.search(r"^search: went no higher than 5000 ops/s, where slap itself held the load "
                        r"back \(short of CPU, or late to send: measured twice\).*: limited_by (client|both): (borderline with \w+: "
                        r"[^;]*; )?slap's threads waited for a CPU", out, re.M),
              "the stop is not explained:\n%s" % out)
        check(re.search(r"^capacity: none found: slap itself held the load back \(short of CPU, or "
                        r"late to send\) at 5000 ops/s", out,
                        re.M), "a capacity from starved steps:\n%s" % out)
        doc = json.load(open(path))
        validate(doc)
        check(doc["search"]["capacity_tps"] is None and doc["search"]["client_limit_tps"] == 5000
              and doc["search"]["confirmed"] is False, "JSON search %r" % doc["search"])
        check([s["slo"] for s in doc["steps"]] == ["starved", "starved"],
              "JSON steps %r" % [s["slo"] for s in doc["steps"]])


@release_only(TIMING_STATISTICS)
def case_search_narrows_below_slaps_ceiling():
    """memcached -t 1 pinned to CPU 0, slap -T 1 alone on CPU 1, an objective no step breaks
    (p50<1s): slap's one thread saturates first. The rate where it was starved twice is slap's
    ceiling, not the server's answer: the search bisects below it to 5% and ends with 'at least'
    the highest rate held there (confirmed by measuring it again), saying it went no higher
    than the ceiling; the JSON has both. Near its line slap's CPU share starves one step in two,
    so the ceiling may keep coming down until the confirmations are used up: the lower bound is
    then said without "confirmed". A host too busy to let slap hold even the start is skipped
    (the verdict is then right: no capacity)."""
    with memcached_on_cpu0() as (mc, d):
        path = os.path.join(d, "s.json")
        rc, out, err = run_slap(["search", "--slo", "p50<1s", "-s", mc.addr, "-T", "1",
                                 "-c", "32", "--step_time", "500ms", "--start", "10000",
                                 "--max_steps", "12", "--json", path],
                                prefix=("taskset", "-c", "1"), timeout=120)
        check(rc == 0, "exit status %d: %s" % (rc, err))
        if "capacity: none found" in out:
            raise Skip("slap was starved at its first step: the host is too busy")
        m = re.search(r"^search: went no higher than (\d+) ops/s, where slap itself", out, re.M)
        cap = re.search(r"^capacity: at least (\d+) ops/s \(p50 \d+ \xb5s at that rate(; "
                        r"confirmed: it held again)?\)$", out, re.M)
        check(m is not None and cap is not None, "no ceiling and lower bound:\n%s" % out)
        ceiling, capacity = int(m.group(1)), int(cap.group(1))
        rows = ROW.findall(out)
        # starved twice at the ceiling (slap's ceiling may have come down to it from above)
        first = min(i for i in range(len(rows) - 1) if rows[i][5] == rows[i + 1][5] == "starved"
                    and int(rows[i][0]) == int(rows[i + 1][0]) == ceiling)
        below = [int(r[0]) for r in rows[first + 2:] if r[5] == "held"]
        check(below and all(int(r[0]) < ceiling for r in rows[first + 2:]),
              "the search did not narrow below the ceiling:\n%s" % out)
        # confirmed, the two are within the search's 5%; a ceiling that kept coming down
        # (slap's CPU share at its line, starved one time in two) may use up the confirmations
        check(capacity < ceiling and (cap.group(2) is None or ceiling <= 1.05 * capacity + 1
                                      or "--max_steps" in out),
              "held %d and slap's ceiling %d:\n%s" % (capacity, ceiling, out))
        doc = json.load(open(path))
        validate(doc)
        check(abs(doc["search"]["capacity_tps"] - capacity) < 1 and
              abs(doc["search"]["client_limit_tps"] - ceiling) < 1, "JSON %r" % doc["search"])


@no_time
def case_search_bad_objectives():
    """Objectives and options a search cannot take: a clear message, exit 2, nothing run."""
    for args, words in ((["--slo", "p99<1"], "a duration with a unit"),
                        (["--slo", "p100<1ms"], "above 0 and below 100"),
                        (["--slo", "99<1ms"], "write it as p99<1ms"),
                        (["--slo", "p99>1ms"], "write it as p99<1ms"),
                        ([], "--slo names the objective"),
                        (["--slo", "p99<1ms", "-P", "1000"], "the search chooses the rates"),
                        (["--slo", "p99<1ms", "--ramp=1k:2k/1m"], "--sweep and --ramp cannot"),
                        (["--slo", "p99<1ms", "--max_steps", "0"], "--max_steps"),
                        (["--slo", "p99<1ms", "--arrival", "bursty"], "uniform or poisson"),
                        (["--slo", "p99<1ms", "--bogus"], "--bogus"),
                        # the header would say other than what is done: refused
                        (["--slo", "p99<1ms", "--step_time", "1ms"], "at least 400ms"),
                        (["--slo", "p99<1ms", "--start", "1"], "--start is at least 10"),
                        (["--slo", "p99<1ms", "--max_rate", "9"], "--max_rate is at least 10"),
                        (["--slo", "p99<1ms", "--rounds", "3"], "--rounds cannot be used"),
                        (["--slo", "p99<1ms", "--slo", "p50<1ms"], "--slo is given once")):
        rc, out, err = run_slap(["search", "-s", "127.0.0.1:1"] + args)
        check(rc == 2, "%r: exit status %d" % (args, rc))
        check(words in err and "Ops" not in out, "%r: %r" % (args, err))
    # --arrival, slap's only with -P or --sweep, is the search's: taken, then no server
    rc, out, err = run_slap(["search", "-s", "127.0.0.1:%d" % free_port(), "--slo", "p99<1ms",
                             "--arrival=poisson", "--step-time", "1s"])
    check(rc == 1 and "cannot connect" in err and "poisson arrivals" in out, "%d %s" % (rc, err))
    rc, out, err = run_slap(["search", "--help"])
    check(rc == 0 and "--slo OBJECTIVE" in out and "--step_time" in out, "search --help")
    check(complete("slap sea") == ["search"], "completion: %r" % complete("slap sea"))
    check(complete("slap search --sl") == ["--slo"], "completion of search's options")


@no_time
def case_plot_spectrum_of_two_runs(mc):
    """slap plot of two runs (one open loop at 2000 ops/s, one closed): a spectrum panel with
    one curve per run on the nines axis (x = -log10(1 - p)), each point the run's percentile
    as its JSON has it, a band of 95% intervals under each, low <= value <= high; the open
    run's throughput panel has its target line; the picture renders. Two files of one label
    are named by their files."""
    d = tempfile.mkdtemp()
    try:
        a, b, svg = (os.path.join(d, n) for n in ("a.json", "b.json", "p.svg"))
        for path, label, extra in ((a, "open", ["-P", "2000"]), (b, "closed", [])):
            rc, out, err = run_slap(["-s", mc.addr, "-t", "3s", "-c", "4", "-S", "200ms",
                                     "--json", path, "--label", label] + extra)
            check(rc == 0, "%s: exit status %d: %s" % (label, rc, err))
        rc, out, err = run_slap(["plot", a, b, "-o", svg])
        check(rc == 0, "plot failed: %s" % err)
        root = ET.parse(svg).getroot()
        groups = [g for g in root.iter(SVG + "g") if g.get("data-metric") is not None]
        curves = {g.get("data-label"): g for g in groups if g.get("data-metric") == "spectrum_us"}
        bands = {g.get("data-label"): g for g in groups if g.get("data-metric") == "spectrum_ci_us"}
        check(sorted(curves) == ["closed", "open"], "spectrum curves %r" % sorted(curves))
        check(sorted(bands) == ["closed", "open"], "spectrum bands %r" % sorted(bands))
        for label, path in (("open", a), ("closed", b)):
            xs = [float(v) for v in curves[label].get("data-x").split()]
            ys = [float(v) for v in curves[label].get("data-y").split()]
            check(xs[:9] == [0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0], "x %r" % xs)
            check(ys == sorted(ys), "%s: the spectrum falls: %r" % (label, ys))
            pct = json.load(open(path))["types"]["total"]["percentiles"]
            for x, key in ((1.0, "90"), (2.0, "99")):
                y = ys[xs.index(x)]
                check(abs(y - pct[key]) <= 0.01 * pct[key] + 1,
                      "%s: p%s drawn %.1f, JSON %.1f" % (label, key, y, pct[key]))
            band = bands[label]
            bx = [float(v) for v in band.get("data-x").split()]
            lows = [float(v) for v in band.get("data-low").split()]
            highs = [float(v) for v in band.get("data-high").split()]
            check(0.0 not in bx and 1.0 in bx and len(bx) == len(lows) == len(highs),
                  "%s: band x %r" % (label, bx))
            for x, lo, hi in zip(bx, lows, highs):
                y = ys[xs.index(x)]
                check(lo <= y <= hi, "%s: at %g nines %g outside [%g, %g]" % (label, x, y, lo, hi))
            check(band.find(SVG + "polygon") is not None, "%s: no band drawn" % label)
        targets = [g for g in groups if g.get("data-metric") == "target_tps"]
        check(len(targets) == 1 and targets[0].get("data-label") == "open" and
              set(targets[0].get("data-y").split()) == {"2000"}, "the target line")
        texts = " ".join(t.text or "" for t in root.iter(SVG + "text"))
        check("Percentile spectrum" in texts and "99.9" in texts, "the spectrum's axis")
        r = subprocess.run(["rsvg-convert", "-o", svg + ".png", svg], capture_output=True,
                           text=True)
        check(r.returncode == 0 and r.stderr == "", "rsvg-convert failed: %s" % r.stderr)
        # two runs of one label (the host's, by default): told apart by their files
        rc, out, err = run_slap(["plot", a, a, "-o", svg])
        root = ET.parse(svg).getroot()
        labels = {g.get("data-label") for g in root.iter(SVG + "g")
                  if g.get("data-metric") == "spectrum_us"}
        check(rc == 0 and len(labels) == 1 and labels != {"open"},
              "two runs of one label: legends %r" % labels)
        b2 = os.path.join(d, "again.json")
        shutil.copy(a, b2)
        rc, out, err = run_slap(["plot", a, b2, "-o", svg])
        root = ET.parse(svg).getroot()
        labels = {g.get("data-label") for g in root.iter(SVG + "g")
                  if g.get("data-metric") == "spectrum_us"}
        check(rc == 0 and len(labels) == 2 and all(l.endswith(".json") for l in labels),
              "two files of one label are not told apart by their names: %r" % labels)
    finally:
        shutil.rmtree(d)
