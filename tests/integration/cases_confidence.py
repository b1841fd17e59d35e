"""Confidence (issue 21): percentile intervals, not estimable, steady, --precision."""
import concurrent.futures
import json
import math
import os
import re
import shutil
import subprocess
import tempfile
import time
import xml.etree.ElementTree as ET

from cases_limits import CpuHog, pin
from cases_ktime import server_truth
from harness import check, DelayProxy, free_port, Memcached, PATHS, run_slap, Skip
from harness import TIMING_STATISTICS, needs, no_time, release_only, set_aside


def interval(out, block, name):
    """(value, low, high) of a percentile line of a final block."""
    m = re.search(r"^%s Statistics \(\d+ events\)\n((?:   .*\n|       .*\n)+)" % block, out, re.M)
    check(m is not None, "no final %s block" % block)
    v = re.search(r"^   %s:\s+(\d+)  \[(\d+), (\d+)\]" % re.escape(name), m.group(1), re.M)
    check(v is not None, "no interval on %s of %s:\n%s" % (name, block, m.group(1)))
    return tuple(int(x) for x in v.groups())


@no_time
def case_confidence_not_estimable(mc):
    rc, out, err = run_slap(["-s", mc.addr, "-x", "1000", "-c", "4", "-T", "1",
                             "--percentiles", "50,99.99"])
    check(rc == 0, "exit status %d: %s" % (rc, err))
    check(re.search(r"^   P99\.99: not estimable \(1000 requests; about 500000 needed\)$", out,
                    re.M) is not None, "no 'not estimable' P99.99 line:\n" + out)
    check("percentile intervals: 95%" in out, "the method is not named")


def steady_line(out):
    m = re.search(r"^steady: .*$", out, re.M)
    check(m is not None, "no steady line:\n" + out)
    return m.group(0)


@release_only(TIMING_STATISTICS)
def case_confidence_steady(mc):
    """A flat memcached run (open loop, 3 s) is never called drifted: yes, or unknown when the
    host's noise leaves it open, in each of three runs. A run through a proxy whose added delay
    grows across the run (0.2 ms to 12.2 ms in 6 s: the median grows about fourfold from the
    first third to the last) is not steady, for its latency. 6 s, so that a third holds four
    batches of half a second: a 4 s run's two batches a third cannot tell even a clean ramp
    from noise at 99.9% (measured: unknown, the median "rose 215% [+95%, +335%]")."""
    lines = []
    for _ in range(3):
        rc, out, _ = run_slap(["-s", mc.addr, "-P", "1000", "-c", "8", "-T", "1", "-t", "3s"])
        check(rc == 0, "exit status %d:\n%s" % (rc, out))
        lines.append(steady_line(out))
    check(not any(line.startswith("steady: no") for line in lines),
          "a flat memcached run called drifted:\n" + "\n".join(lines))
    proxy = DelayProxy(mc.port, lambda t: 0.0002 + 0.002 * t)
    rc, out, _ = run_slap(["-s", proxy.addr, "-P", "400", "-c", "16", "-T", "1", "-t", "6s"])
    check(rc == 0 and re.search(r"^steady: no \(.*median latency rose", out, re.M),
          "a growing delay not judged drifted:\n" + out)


@release_only(TIMING_STATISTICS)
@needs("two_cpus")
def case_confidence_steady_busy_host():
    """The verdict on a busy load host (memcached -t 1 pinned to CPU 0, slap to CPU 1): a busy
    loop sharing slap's CPU for the whole run takes half of it all along, a noisy run but a
    flat one, never called drifted in three runs (yes, or unknown). The same loop starting
    halfway through a 6 s run takes half of the second half, and the run is not steady, its
    rate falling (slap at -c 16 is bound by its CPU: half of it cost 44% of the rate when
    measured): never called steady, and called drifted once in three tries (a third of the
    run, in four batches of half a second, must show the fall out of the noise at 99.9%).
    Beside another tenant's work the loop's fall does not show: the scheduler moves the
    tenant's threads off slap's CPU when the loop comes (slap's rate rose 30% so, twice, here
    during another session's tests) and its comings and goings move the rate by +-50% in a
    second. Three tries that all end unknown are then skipped, saying so, never passed."""
    mc = Memcached(extra=("-t", "1"))
    args = ["-s", mc.addr, "-T", "1", "-c", "16"]
    cpu1 = ("taskset", "-c", "1")
    try:
        pin(mc.proc.pid, 0)
        lines = []
        with CpuHog(1):
            for _ in range(3):
                rc, out, err = run_slap(args + ["-t", "3s"], prefix=cpu1)
                check(rc == 0, "exit status %d: %s" % (rc, err))
                lines.append(steady_line(out))
        check(not any(line.startswith("steady: no") for line in lines),
              "a busy loop there all along judged a drift:\n" + "\n".join(lines))
        lines = []
        for _ in range(3):
            hog = {}

            def halfway():
                time.sleep(3.0)
                hog["h"] = CpuHog(1)

            try:
                rc, out, err = run_slap(args + ["-t", "6s"], prefix=cpu1, during=halfway)
            finally:
                if "h" in hog:
                    hog["h"].__exit__()
            check(rc == 0, "exit status %d: %s" % (rc, err))
            lines.append(steady_line(out))
            check(not lines[-1].startswith("steady: yes"),
                  "a busy loop from halfway judged steady: " + lines[-1])
            if re.match(r"steady: no \(the rate fell", lines[-1]):
                break
            set_aside("the busy loop from halfway not seen through the noise: " + lines[-1])
        if not re.match(r"steady: no \(the rate fell", lines[-1]):
            raise Skip("the host's own noise hid the busy loop from halfway 3 times:\n" +
                       "\n".join(lines))
    finally:
        mc.stop()


def blocks_within_seen(out):
    """Every percentile's bounds of every final block within its Min and Max: the blocks, each
    as (name, min, max, [(percentile, value, low, high)])."""
    found = []
    for m in re.finditer(r"^(\w+) Statistics \(\d+ events\)\n((?:   .*\n|       .*\n)+)", out,
                         re.M):
        body = m.group(2)
        low_seen = int(re.search(r"^   Min:\s+(\d+)$", body, re.M).group(1))
        high_seen = int(re.search(r"^   Max:\s+(\d+)$", body, re.M).group(1))
        rows = [(p, int(v), int(lo), int(hi)) for p, v, lo, hi in
                re.findall(r"^   P([\d.]+):\s+(\d+)  \[(\d+), (\d+)\]", body, re.M)]
        for p, v, lo, hi in rows:
            check(low_seen <= lo <= v <= hi <= high_seen,
                  "%s P%s: %d [%d, %d] beyond Min %d, Max %d" % (m.group(1), p, v, lo, hi,
                                                               low_seen, high_seen))
        found.append((m.group(1), low_seen, high_seen, rows))
    check(found, "no final block:\n" + out)
    return found


@no_time
def case_confidence_fine_periods(mc):
    """-t 5s -S 1s, the demo's run: the tables and the document keep their five periods of a
    second, while the intervals and the steady line read tenths of a second: batch means (not
    order statistics), and a steady line judged on the thirds (not "5 periods, 6 needed").
    Every bound within its block's Min and Max."""
    tmp = tempfile.mkdtemp(prefix="slap-fine-")
    try:
        path = os.path.join(tmp, "run.json")
        rc, out, err = run_slap(["-s", mc.addr, "-T", "2", "-c", "32", "-t", "5s", "-S", "1s",
                                 "--json", path])
        check(rc == 0, "exit status %d: %s" % (rc, err))
        check(re.search(r"^percentile intervals: 95%, batch means of \d+ batches of periods$",
                        out, re.M) is not None, "no batch means under -S 1s:\n" + out)
        line = steady_line(out)
        check(re.match(r"steady: (yes|no|unknown) \(.*from the first third of the run to the "
                       r"last", line) is not None, "steady not judged: " + line)
        globals_ = re.findall(r"^Global\s+(\d+)\s", out, re.M)
        check(globals_ == [str(n) for n in range(1, 6) for _ in range(3)],
              "the -S tables are not five periods of each block: %r" % globals_)
        with open(path) as f:
            doc = json.load(f)
        check([p["seconds"] for p in doc["periods"]] == [1.0] * 5 and doc["period_s"] == 1.0,
              "the document's periods: %r" % [p["seconds"] for p in doc["periods"]])
        blocks_within_seen(out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


@no_time
def case_confidence_bounds_within_seen(mc):
    """A proxy that holds every answer 20 ms for 0.3 s, then passes them at once for 0.3 s:
    the batches (tenths of a second) disagree so much that t * s / sqrt(B) is far larger than
    P10's distance to the fastest request (its low bound was printed as 0). Every bound stops
    at its block's Min and Max, P10's low one at Min itself; the JSON's percentile_ci too, and
    slap plot's bands of the spectrum (drawn down to 0.1 us before)."""
    proxy = DelayProxy(mc.port, lambda t: 0.02 if int(t / 0.3) % 2 else 0.0)
    tmp = tempfile.mkdtemp(prefix="slap-seen-")
    try:
        path, svg = os.path.join(tmp, "run.json"), os.path.join(tmp, "run.svg")
        rc, out, err = run_slap(["-s", proxy.addr, "-P", "1000", "-c", "32", "-T", "1", "-t", "3s",
                                 "-S", "0.1s", "--percentiles", "10,50,90", "--json", path])
        check(rc == 0, "exit status %d: %s" % (rc, err))
        total = [b for b in blocks_within_seen(out) if b[0] == "Total"]
        check(len(total) == 1, "no Total block:\n" + out)
        _, low_seen, _, rows = total[0]
        p10 = [r for r in rows if r[0] == "10"]
        check(p10 and p10[0][2] == low_seen, "P10's low bound is not the fastest request %d: %r"
              % (low_seen, p10))
        with open(path) as f:
            t = json.load(f)["types"]["total"]
        for pct, ci in t["percentile_ci"].items():
            check(ci is None or t["min_us"] <= ci[0] <= ci[1] <= t["max_us"],
                  "JSON p%s %r beyond [%s, %s]" % (pct, ci, t["min_us"], t["max_us"]))
        shutil.copy(path, path + ".again")  # the spectrum is drawn when runs are compared
        rc, _, err = run_slap(["plot", path, path + ".again", "-o", svg])
        check(rc == 0, "plot failed: %s" % err)
        bands = [g for g in ET.parse(svg).getroot().iter("{http://www.w3.org/2000/svg}g")
                 if g.get("data-metric") == "spectrum_ci_us"]
        check(len(bands) == 2, "%d spectrum bands" % len(bands))
        lows = [float(v) for v in bands[0].get("data-low").split()]
        highs = [float(v) for v in bands[0].get("data-high").split()]
        check(lows and min(lows) >= t["min_us"] - 0.001 and max(highs) <= t["max_us"] + 0.001,
              "bands drawn from %g to %g us, the run's requests took %g to %g us" %
              (min(lows), max(highs), t["min_us"], t["max_us"]))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


@release_only(TIMING_STATISTICS)
def case_confidence_precision(mc):
    rc, out, _ = run_slap(["-s", mc.addr, "-P", "2000", "-c", "8", "-T", "1", "-t", "20s",
                           "--precision", "p50=10%"])
    m = re.search(r"^precision: p50 within ([\d.]+)% after ([\d.]+) s$", out, re.M)
    check(rc == 0 and m is not None, "precision not reached:\n" + out)
    check(float(m.group(1)) <= 10 and float(m.group(2)) < 10, "stopped late: " + m.group(0))
    # the time as measured, not rounded to a second: the run stopped then
    secs = float(re.search(r"^Run time: ([\d.]+)s ", out, re.M).group(1))
    check(abs(float(m.group(2)) - secs) <= 0.06, "%s, but the run took %.1f s" % (m.group(0), secs))


def case_confidence_precision_not_reached(mc):
    """--precision's intervals judged every period (under the sanitizers too, where the case
    above, a judgement of how soon an interval narrows, does not run): an aim it cannot reach
    within -t is said, a percentile it cannot estimate refused."""
    rc, out, _ = run_slap(["-s", mc.addr, "-P", "1000", "-c", "8", "-T", "1", "-t", "2s",
                           "--precision", "p99=0.1%"])
    check(re.search(r"^precision: p99 not reached within -t 2 s: ", out, re.M) is not None,
          "no 'not reached':\n" + out)
    rc, _, err = run_slap(["-s", mc.addr, "--precision", "p100=5%"])
    check(rc == 2 and "--precision" in err, "p100 accepted")


def p90_run(addr, seconds, path):
    """One closed-loop run of -c 64 against addr: (p90, low, high) in us from its --json. A
    warm-up first, so that a short run's start (connecting, the first requests) does not make
    it differ from a long one; latencies end at the kernel's arrival stamps, so that a moment
    when this shared host holds slap up does not move one run's figures from another's."""
    rc, out, err = run_slap(["-s", addr, "-c", "64", "-T", "1", "-t", "%ds" % seconds,
                             "--warmup", "0.3s", "--percentiles", "50,90", "--json", path,
                             "--timestamps=kernel"], timeout=seconds + 30)
    check(rc == 0, "exit status %d: %s" % (rc, err))
    with open(path) as f:
        total = json.load(f)["types"]["total"]
    ci = total["percentile_ci"]["90"]
    check(ci is not None, "p90 not estimable after %d s:\n%s" % (seconds, out))
    return total["percentiles"]["90"], ci[0], ci[1]


@release_only(TIMING_STATISTICS)
def case_confidence_covers_known_truth():
    """Where the truth is known: a server (delay_server) answering each request 20 ms plus an
    exponential of mean 10 ms after it comes, with at most one request in flight per
    connection (-c 64, closed loop), so the latency is that delay plus loopback's overhead,
    which at these delays is a fraction of a percent: runs differ by the delays drawn, not by
    the host's noise. The delay's p90 is 20 + 10 ln 10 = 43.0 ms; the truth is the p90 of two
    pooled 6 s runs, checked to be within 1% below (the histogram's bucket) and 1 ms above the
    p90 the server itself measured of the same answers (delay_server's truth: a host that holds
    the server up, as it did once here by 1.1 ms, moves both alike). The 1 s runs go four at
    a time, and each four's truth is the p90 the server measured of their answers: a host whose
    load comes and goes moved the server's p90 by 2.5 ms within one case (12 of 20 intervals
    held the long runs' p90 then).
    Of 20 runs of 1 s, the 95% intervals must not show a coverage below 90%: fewer than 16
    holding the truth would (at a coverage of 90%, 16 or more hold 96% of the time; 17 to 20
    measured, 155 of 160 in eight tries with the bounds kept within the fastest and slowest
    request; without Student's t, 5), and the 6 s runs' intervals are narrower than the 1 s
    runs' (sqrt(1/6) = 0.41; 0.35 to 0.41 times as wide measured; at most 0.6 is asked)."""
    server = os.path.join(os.path.dirname(os.path.abspath(PATHS.lmc_check)), "delay_server")
    port = free_port()
    # at nice -10: its timers fire on time on a shared host (the truth is its delays)
    proc = subprocess.Popen(["nice", "-n", "-10", server, str(port), "20000", "10000", "7"])
    tmp = tempfile.mkdtemp(prefix="slap-coverage-")
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=4)
    try:
        time.sleep(0.2)
        addr = "127.0.0.1:%d" % port
        # the runs go four at a time (the server's delays, not the CPU, make their latency:
        # slap's share of it is a fraction of a percent), so the case takes 15 s, not 42
        server_truth(addr)  # the server's account starts here
        long_runs = list(pool.map(lambda i: p90_run(addr, 6, os.path.join(tmp, "long%d.json" % i)),
                                  range(2)))
        truth = sum(v for v, _, _ in long_runs) / len(long_runs)
        analytic = 20000 + 10000 * math.log(10)
        # slap's long p90 against the server's own of the same answers (its delays as it made
        # them: a host that holds the server up moves both alike)
        served = server_truth(addr)["p90"]
        check(0.99 * served <= truth <= served + 1000,
              "p90 %.0f us: the server's of the same answers is %.0f us (the delay's %.0f)"
              % (truth, served, analytic))
        # the short runs four at a time; each four's truth is the p90 the server measured of
        # their answers (10000 of them: within 0.5% of the law's p90 as the server then made
        # it), so that the host's load, which moves the server's delays from one moment to the
        # next, moves the truth with them
        short, truths = [], []
        for batch in range(5):
            server_truth(addr)
            short += list(pool.map(
                lambda i: p90_run(addr, 1, os.path.join(tmp, "short%d.json" % (4 * batch + i))),
                range(4)))
            truths += [server_truth(addr)["p90"]] * 4
        covered = sum(1 for (_, low, high), t in zip(short, truths) if low <= t <= high)
        check(covered >= 16, "%d of 20 intervals hold their p90: %r" %
              (covered, [(round(lo), round(t), round(hi))
                         for (_, lo, hi), t in zip(short, truths)]))
        width_short = sum(high - low for _, low, high in short) / len(short)
        width_long = sum(high - low for _, low, high in long_runs) / len(long_runs)
        check(width_long <= 0.6 * width_short, "6 s runs' intervals %.0f us wide, 1 s runs' %.0f"
              % (width_long, width_short))
        print("p90 %.0f us (the server's %.0f, the delay's %.0f): %d of 20 intervals hold their "
              "four's (%s); mean width %.0f us at 1 s, %.0f us at 6 s"
              % (truth, served, analytic, covered, ", ".join("%.0f" % t for t in truths[::4]),
                 width_short, width_long))
    finally:
        pool.shutdown(wait=True)
        proc.kill()
        proc.wait()
        shutil.rmtree(tmp, ignore_errors=True)
