"""--timestamps=kernel (issue 34): an answer's latency ends at the kernel's arrival stamp, and
slap's own delay (its read less that stamp) is reported; checked where the truth is known."""
import json
import math
import os
import re
import shutil
import subprocess
import tempfile
import time
from cases_limits import CpuHog
from harness import check, free_port, Memcached, PATHS, run_slap, Skip

OWN_LINE = re.compile(r"^own_delay: p50 (\d+) us, p99 (\d+) us, max (\d+) us "
                      r"\(kernel arrival to slap's read\)$", re.M)


def delay_server(base_us, mean_us):
    """delay_server on CPU 1, at nice -10 (its timers keep time on a shared host)."""
    server = os.path.join(os.path.dirname(os.path.abspath(PATHS.lmc_check)), "delay_server")
    port = free_port()
    proc = subprocess.Popen(["nice", "-n", "-10", "taskset", "-c", "1", server, str(port),
                             str(base_us), str(mean_us), "7"])
    time.sleep(0.3)
    return proc, "127.0.0.1:%d" % port


def timed_run(addr, stamps, tmp, name, busy):
    """slap on CPU 0 (beside a busy loop at nice 0 and itself at nice 13 when busy: it waits
    for its CPU a scheduler slice at a time); returns the total's and own_delay's summaries."""
    path = os.path.join(tmp, name + ".json")
    args = ["-s", addr, "-t", "4s", "-T", "1", "-c", "48", "--timestamps=" + stamps,
            "--json", path]
    prefix = ("taskset", "-c", "0", "nice", "-n", "13" if busy else "0")
    if busy:
        with CpuHog(0):
            rc, out, err = run_slap(args, prefix=prefix)
    else:
        rc, out, err = run_slap(args, prefix=prefix)
    check(rc == 0, "%s: exit status %d: %s" % (name, rc, err))
    with open(path) as f:
        doc = json.load(f)
    return doc["types"]["total"], doc.get("own_delay"), out


def case_timestamps_busy_host_truth():
    """The delay server answers each request 10 ms plus an exponential of mean 1 ms after it
    comes (p99 14.6 ms), pinned to CPU 1 at nice -10. slap, closed loop, on CPU 0: quiet, then
    beside a busy loop, itself at nice 13 (it gets the CPU a slice at a time, so answers wait
    in its sockets). Busy, the read-time p99 inflates by the wait (at least 10% over the quiet
    run's), the kernel-time p99 stays within 10% of the quiet run's, and the own delay accounts
    for the difference: the busy read-time mean exceeds the busy kernel-time mean by no more
    than 1.5 times the busy run's mean own delay (two runs, a heavy tail's means). Quiet, slap reads an answer within
    tens of microseconds of its arrival (own_delay p50 under 50 us). On a shared machine the
    quiet run may not be: one whose own delay p99 passes 2 ms, or whose kernel-time p99 is not
    within 10% of the server's (the server was held up), is tried again, 4 times at most."""
    if (os.cpu_count() or 1) < 2:
        raise Skip("one CPU: slap and the server cannot be pinned apart")
    proc, addr = delay_server(10000, 1000)
    truth99 = 10000 + 1000 * math.log(100)
    tmp = tempfile.mkdtemp(prefix="slap-ktime-")
    try:
        for attempt in range(4):
            quiet, quiet_own, out = timed_run(addr, "kernel", tmp, "quiet", False)
            check(quiet_own is not None and quiet_own["count"] == quiet["count"],
                  "quiet: every answer has its own delay: %r" % quiet_own)
            q99 = quiet["percentiles"]["99"]
            if quiet_own["percentiles"]["99"] <= 2000 and abs(q99 - truth99) <= 0.10 * truth99:
                break
            print("attempt %d: not quiet (own delay p99 %.0f us, kernel-time p99 %.0f us)" %
                  (attempt + 1, quiet_own["percentiles"]["99"], q99))
        else:
            raise Skip("the host was never quiet enough to compare with (4 tries)")
        check(OWN_LINE.search(out) is not None, "quiet: no own_delay line in the report")
        check(quiet_own["percentiles"]["50"] < 50, "quiet: own delay p50 %.1f us"
              % quiet_own["percentiles"]["50"])
        read, read_own, _ = timed_run(addr, "read", tmp, "busy_read", True)
        check(read_own is None, "--timestamps=read has no own_delay")
        kernel, own, out = timed_run(addr, "kernel", tmp, "busy_kernel", True)
        r99, k99 = read["percentiles"]["99"], kernel["percentiles"]["99"]
        print("p99: truth %.0f us, quiet %.0f us, busy read %.0f us, busy kernel %.0f us; "
              "means: quiet %.0f, read %.0f, kernel %.0f, own %.0f us (own p99 %.0f)" %
              (truth99, q99, r99, k99, quiet["avg_us"], read["avg_us"], kernel["avg_us"],
               own["avg_us"], own["percentiles"]["99"]))
        check(r99 >= 1.10 * q99, "busy read-time p99 %.0f us is not inflated over the quiet "
              "%.0f us: the busy loop did not hold slap up" % (r99, q99))
        check(abs(k99 - q99) <= 0.10 * q99, "busy kernel-time p99 %.0f us is not within 10%% "
              "of the quiet %.0f us" % (k99, q99))
        # the own delay's mean is a heavy tail's (waits of a slice or several), different in
        # each busy run: the read-time run's excess over the kernel-time run must be there,
        # and no more than the own delay explains
        diff = read["avg_us"] - kernel["avg_us"]
        check(0 < diff <= 1.5 * own["avg_us"] + 100,
              "read-time mean less kernel-time mean %.0f us, own delay's mean %.0f us" %
              (diff, own["avg_us"]))
        m = OWN_LINE.search(out)
        check(m is not None and abs(int(m.group(2)) - own["percentiles"]["99"]) <= 1,
              "the report's own_delay line %r against JSON's p99 %.0f" %
              (m and m.group(0), own["percentiles"]["99"]))
    finally:
        proc.kill()
        proc.wait()
        shutil.rmtree(tmp, ignore_errors=True)


def case_timestamps_udp():
    """UDP (recvmmsg): every answer has its datagram's stamp: own_delay counts them all, no
    fallback message, and the report line and JSON agree."""
    server = Memcached(udp=True)
    tmp = tempfile.mkdtemp(prefix="slap-ktime-")
    try:
        path = os.path.join(tmp, "udp.json")
        rc, out, err = run_slap(["-s", server.addr, "-U", "-t", "1s", "-c", "8",
                                 "--timestamps=kernel", "--json", path])
        check(rc == 0, "exit status %d: %s" % (rc, err))
        with open(path) as f:
            doc = json.load(f)
        own, total = doc.get("own_delay"), doc["types"]["total"]
        check(own is not None and own["count"] == total["count"] > 0,
              "UDP: own_delay %r for %d answers" % (own and own["count"], total["count"]))
        check("no kernel arrival stamps" not in err, "UDP fell back: %r" % err)
        check(OWN_LINE.search(out) is not None, "UDP: no own_delay line")
        check(doc["config"]["timestamps"] == "kernel", "config: %r" % doc["config"].get("timestamps"))
    finally:
        server.stop()
        shutil.rmtree(tmp, ignore_errors=True)


def case_timestamps_unix_falls_back():
    """A unix socket: the kernel stamps nothing on it. slap says so once on stderr, naming the
    unix socket, and its latencies end at read time: no own_delay line or field; the run is
    otherwise whole."""
    tmp = tempfile.mkdtemp(prefix="slap-ktime-")
    sock = os.path.join(tmp, "mc.sock")
    server = Memcached(unix=sock)
    try:
        path = os.path.join(tmp, "unix.json")
        rc, out, err = run_slap(["-s", sock, "-t", "1s", "-c", "4", "--timestamps=kernel",
                                 "--json", path])
        check(rc == 0, "exit status %d: %s" % (rc, err))
        told = [l for l in err.splitlines() if "no kernel arrival stamps" in l]
        check(len(told) == 1 and "unix socket" in told[0] and "read" in told[0],
              "the fallback told once, naming the unix socket: %r" % err)
        with open(path) as f:
            doc = json.load(f)
        check("own_delay" not in doc and OWN_LINE.search(out) is None,
              "a unix socket has no own delay")
        check(doc["types"]["total"]["count"] > 0, "no answers measured")
    finally:
        server.stop()
        shutil.rmtree(tmp, ignore_errors=True)
