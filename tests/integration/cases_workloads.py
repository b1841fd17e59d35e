"""Published workloads (issue 35): sizes drawn from named laws and Facebook's ETC preset,
checked against what the server holds."""
import math
import socket
import time
from harness import check, counters, Memcached, run_slap
from harness import no_time

# Facebook's ETC pool (Atikoglu et al., SIGMETRICS 2012, as mutilate's fb_key and fb_value
# give it): the truth the server's items are held to
ETC_KEY = (30.7984, 8.20449, 0.078688)
ETC_VALUE_HEAD = (0.00536, 0.00047, 0.17820, 0.09239, 0.00018, 0.02740, 0.00065, 0.00606,
                  0.00023, 0.00837, 0.00837, 0.08989, 0.00092, 0.00326, 0.01980)
ETC_VALUE_TAIL = (15, 214.476, 0.348238)


def gev_cdf(x, loc, scale, shape):
    t = 1 + shape * (x - loc) / scale
    if t <= 0:
        return 0.0 if shape > 0 else 1.0
    return math.exp(-t ** (-1 / shape))


def gpareto_cdf(x, loc, scale, shape):
    z = (x - loc) / scale
    if z <= 0:
        return 0.0
    t = 1 + shape * z
    return 1.0 if t <= 0 else 1 - t ** (-1 / shape)


def clamped(cdf, lo, hi):
    """P(size <= k) of a law floored to whole bytes and clamped to [lo, hi]."""
    return lambda k: 0.0 if k < lo else 1.0 if k >= hi else cdf(k + 1)


def etc_key_truth(k):
    return clamped(lambda x: gev_cdf(x, *ETC_KEY), 16, 250)(k)


def etc_value_truth(k):
    tail = 1 - sum(ETC_VALUE_HEAD)
    head = sum(p for size, p in enumerate(ETC_VALUE_HEAD) if max(size, 1) <= k)
    return head + tail * clamped(lambda x: gpareto_cdf(x, *ETC_VALUE_TAIL), 15, 1 << 20)(k)


def ks_distance(sizes, truth):
    """Kolmogorov-Smirnov's distance between the sizes seen and a law of whole sizes."""
    counts = {}
    for s in sizes:
        counts[s] = counts.get(s, 0) + 1
    seen, worst = 0, 0.0
    for k in sorted(counts):
        before = truth(k - 1)
        worst = max(worst, abs(seen / len(sizes) - before))
        seen += counts[k]
        worst = max(worst, abs(seen / len(sizes) - truth(k)))
    return worst


def metadump(mc):
    """Every item the server holds: (key, total size) from lru_crawler metadump."""
    with socket.create_connection((mc.host, mc.port), timeout=30) as s:
        s.sendall(b"lru_crawler metadump all\r\n")
        data = b""
        deadline = time.monotonic() + 30
        while not data.endswith(b"END\r\n"):
            chunk = s.recv(1 << 20)
            check(chunk != b"" and time.monotonic() < deadline, "metadump: %r" % data[-200:])
            data += chunk
    items = []
    for line in data.decode().splitlines():
        fields = dict(f.split("=", 1) for f in line.split() if "=" in f)
        if "key" in fields:
            items.append((fields["key"], int(fields["size"])))
    return items


@no_time
def case_etc_sizes_as_the_server_holds_them():
    """--key_size=etc --value_size=etc, sets only: the server holds every key set (its counters
    are slap's), and the sizes of its items, read back by lru_crawler metadump (a known item
    gives the bytes each item adds), follow ETC's laws: Kolmogorov-Smirnov's distance under
    1.95 / sqrt(n) (0.1%) for the key sizes and the value sizes."""
    mc = Memcached(extra=("-m", "512"))
    try:
        with socket.create_connection((mc.host, mc.port), timeout=5) as s:
            s.sendall(b"set calibration-key 0 0 100\r\n" + b"v" * 100 + b"\r\n")
            check(s.recv(100) == b"STORED\r\n", "the calibration item")
        items = dict(metadump(mc))
        overhead = items["calibration-key"] - len("calibration-key") - 100
        rc, out, err = run_slap(["-s", mc.addr, "--key_size=etc", "--value_size=etc",
                                 "--ratio=1:0", "-x", "20000", "-c", "4", "-w", "100k"],
                                timeout=120)
        check(rc == 0, "exit status %d: %s" % (rc, err))
        check("key size: etc" in out and "value size: etc" in out,
              "the header names the preset: %s" % out[:600])
        check(counters(out)["cmd_set"] == 20000, "20000 sets")
        items = [(k, size) for k, size in metadump(mc) if k != "calibration-key"]
        check(len(items) == 20000, "the server holds %d items of 20000 sets" % len(items))
        keys = [len(k) for k, _ in items]
        values = [size - overhead - len(k) for k, size in items]
        bound = 1.95 / math.sqrt(len(items))
        dk, dv = ks_distance(keys, etc_key_truth), ks_distance(values, etc_value_truth)
        print("n %d: key sizes %.4f, value sizes %.4f from ETC's laws (bound %.4f); mean key "
              "%.1f, mean value %.1f" % (len(items), dk, dv, bound, sum(keys) / len(keys),
                                         sum(values) / len(values)))
        check(dk < bound, "key sizes %.4f from ETC's (bound %.4f)" % (dk, bound))
        check(dv < bound, "value sizes %.4f from ETC's (bound %.4f)" % (dv, bound))
    finally:
        mc.stop()


@no_time
def case_arrivals_by_law():
    """--arrival=etc (ETC's gaps: generalized Pareto of shape 0.154971, their mean -P's): the
    intended send times --samples records are gaps of that law (Kolmogorov-Smirnov under
    1.95 / sqrt(n)), the rate is -P's (within 10% over 4 s of a heavy tail), the header says the
    law, and the counters are the server's."""
    import csv
    import os
    import shutil
    import tempfile
    mc = Memcached()
    tmp = tempfile.mkdtemp(prefix="slap-arrival-")
    try:
        samples = os.path.join(tmp, "samples.csv")
        before = mc.stats()[0]
        rc, out, err = run_slap(["-s", mc.addr, "-P", "500", "-T", "1", "-c", "1", "-t", "4s",
                                 "--arrival=etc", "--samples", samples], timeout=60)
        after = mc.stats()[0]
        check(rc == 0, "exit status %d: %s" % (rc, err))
        check("500 ops/s, gpareto:0.154971 arrivals" in out, "the header: %s" % out[:800])
        c = counters(out)
        served = sum(int(after[k]) - int(before[k]) for k in ("cmd_get", "cmd_set"))
        check(c["cmd_get"] + c["cmd_set"] == served, "slap counted %d, the server %d"
              % (c["cmd_get"] + c["cmd_set"], served))
        check(abs(served - 2000) <= 200, "%d requests in 4 s at -P 500" % served)
        with open(samples) as f:
            times = sorted(float(row["intended_s"]) for row in csv.DictReader(f))
        gaps = [(b - a) * 500 for a, b in zip(times, times[1:])]
        shape = 0.154971
        truth = lambda x: gpareto_cdf(x, 0, 1 - shape, shape)
        gaps.sort()
        n = len(gaps)
        worst = max(max(abs(truth(g) - i / n), abs(truth(g) - (i + 1) / n))
                    for i, g in enumerate(gaps))
        print("%d gaps: %.4f from the law (bound %.4f), mean %.4f of 2 ms"
              % (n, worst, 1.95 / math.sqrt(n), sum(gaps) / n))
        check(worst < 1.95 / math.sqrt(n), "gaps %.4f from ETC's law" % worst)
    finally:
        mc.stop()
        shutil.rmtree(tmp, ignore_errors=True)


@no_time
def case_reconnect_every_counts_connections():
    """--reconnect_every N: each connection is closed and opened again after N answers. Closed
    loop, -x 3000 over 4 clients every 100: 28 reconnections (7 a client), each one a
    connection the server counted (total_connections), each timed (connect_time in JSON, the
    connect line), and the requests the server's. Open loop, -P 2000 for 2 s every 50: one
    reconnection per 50 requests of a lane. Refused with -U and with --pipeline 2 (exit 2)."""
    import json
    import os
    import re
    import shutil
    import tempfile
    from harness import check_agree, measured, slap_stats_reads
    mc = Memcached()
    tmp = tempfile.mkdtemp(prefix="slap-churn-")
    try:
        path = os.path.join(tmp, "run.json")
        conns_before = int(mc.stats()[0]["total_connections"])
        args = ["-s", mc.addr, "-x", "3000", "-c", "4", "--reconnect_every", "100",
                "--json", path]
        rc, out, err, delta, _ = measured([mc], args)
        check(rc == 0, "exit status %d: %s" % (rc, err))
        c = counters(out)
        check_agree(c, delta)
        check(c["reconnects"] == 28, "%d reconnections of 3000 requests, every 100 over 4 "
              "clients" % c["reconnects"])
        made = int(mc.stats()[0]["total_connections"]) - conns_before - 3 - \
            slap_stats_reads(args, mc)
        check(made == 4 + 28, "the server saw %d connections, not 32" % made)
        m = re.search(r"^connect: (\d+), p50 (\d+) us, p99 (\d+) us, max (\d+) us "
                      r"\(opened to ready\)$", out, re.M)
        with open(path) as f:
            doc = json.load(f)
        check(m is not None and int(m.group(1)) == 28 and doc["connect_time"]["count"] == 28,
              "the connect line and JSON: %r, %r" % (m and m.group(0), doc.get("connect_time")))
        check(0 < doc["connect_time"]["percentiles"]["50"] < 1e6,
              "connect p50 %r us" % doc["connect_time"]["percentiles"]["50"])
        rc, out, err = run_slap(["-s", mc.addr, "-P", "2000", "-t", "2s", "-c", "4",
                                 "--reconnect_every", "50"])
        check(rc == 0, "open loop: exit status %d: %s" % (rc, err))
        c = counters(out)
        sent = c["cmd_get"] + c["cmd_set"]
        check(abs(c["reconnects"] - sent / 50) <= 4, "open loop: %d reconnections of %d "
              "requests every 50" % (c["reconnects"], sent))
        for other, said in ((["-U"], "cannot be used with -U"),
                            (["--pipeline", "2"], "needs --pipeline 1")):
            rc, _, err = run_slap(["-s", mc.addr, "-x", "10", "--reconnect_every", "5"] + other)
            check(rc == 2 and said in err, "%s: %d %r" % (other, rc, err))
    finally:
        mc.stop()
        shutil.rmtree(tmp, ignore_errors=True)


@no_time
def case_ycsb_presets_as_the_server_counts():
    """--ycsb a, b, c, d and f: the server counts each workload's mix of reads and writes
    (a 50/50, b and d 95/5, c reads only, f a third each of gets, gets for a read-modify-write
    and cas), slap's counters are the server's, every read finds its key (d's reads of the
    latest keys too), the header says the 23-byte keys and 1000-byte values, and e (scans) and
    an unknown letter are refused (exit 2)."""
    from harness import check_agree, measured
    mc = Memcached()
    try:
        for letter, gets, sets, cas in (("a", 3000, 3000, 0), ("b", 5700, 300, 0),
                                        ("c", 6000, 0, 0), ("d", 5700, 300, 0),
                                        ("f", 4000, 0, 2000)):
            cas_before = int(mc.stats()[0]["cas_hits"])
            # c and f store no new key: their windows are filled first (as --preload does)
            rc, out, err, delta, _ = measured([mc], ["-s", mc.addr, "--ycsb", letter,
                                                     "-x", "6000", "-c", "4"] +
                                              (["--preload"] if letter in "cf" else []))
            delta["cas_hits"] = int(mc.stats()[0]["cas_hits"]) - cas_before
            check(rc == 0, "--ycsb %s: exit status %d: %s" % (letter, rc, err))
            c = counters(out)
            import re
            preload = re.search(r"^preload: (\d+) sets", out, re.M)  # c's windows, filled first
            if preload:
                delta["cmd_set"] -= int(preload.group(1))
                delta["bytes_read"] -= int(preload.group(1)) * (len("set  0 0 1000\r\n") + 23 + 1002)
                delta["bytes_written"] -= int(preload.group(1)) * len("STORED\r\n")
            check_agree(c, delta)
            check(delta["cmd_get"] == gets and delta["cmd_set"] == sets + cas and
                  delta["cas_hits"] == cas,
                  "--ycsb %s: the server counted gets %d, sets %d, cas hits %r; expected %d, "
                  "%d, %d" % (letter, delta["cmd_get"], delta["cmd_set"], delta.get("cas_hits"),
                              gets, sets + cas, cas))
            check(delta["get_misses"] == 0, "--ycsb %s: %d reads missed"
                  % (letter, delta["get_misses"]))
            check("key size: 23" in out and "value size: 1000" in out,
                  "--ycsb %s: the header %s" % (letter, out[:500]))
        for letter, said in (("e", "scans ranges of keys"), ("g", "none of YCSB's")):
            rc, _, err = run_slap(["-s", mc.addr, "--ycsb", letter, "-x", "10"])
            check(rc == 2 and said in err, "--ycsb %s: %d %r" % (letter, rc, err))
    finally:
        mc.stop()


@no_time
def case_reconnect_rate_spreads_reopens():
    """--reconnect_rate R: R reopens a second over all the connections, each connection at its
    own times. Closed loop, -t 2s -c 4 at 20: the run's n-th reopen is due (n - 1/2) / 20 s
    after the go (25 ms, 75 ms, ... 1975 ms), 40 in all, connection (n - 1) mod 4's; each is
    made at the connection's first answer after its time, never twice for one time, so 40 at
    most, and one fewer for each connection whose answer came too late for its last time (the
    last is 25 ms before the end; a host stalled that long: 36 at least). Whatever the count,
    the server saw exactly that many connections more than the 4 (total_connections), each
    timed (the connect line and connect_time), and its cmd_get and cmd_set are slap's. Open
    loop, -P 1000 for 1 s at 20: the same, 20 (16 at least). Refused with --reconnect_every
    (a message naming both), -U and --pipeline 2 (exit 2)."""
    import json
    import os
    import re
    import shutil
    import tempfile
    from harness import check_agree, measured, slap_stats_reads
    mc = Memcached()
    tmp = tempfile.mkdtemp(prefix="slap-churn-rate-")
    try:
        path = os.path.join(tmp, "run.json")
        conns_before = int(mc.stats()[0]["total_connections"])
        args = ["-s", mc.addr, "-t", "2s", "-c", "4", "--reconnect_rate=20", "--json", path]
        rc, out, err, delta, _ = measured([mc], args)
        check(rc == 0, "exit status %d: %s" % (rc, err))
        c = counters(out)
        check_agree(c, delta)
        check(36 <= c["reconnects"] <= 40, "%d reopens in 2 s at 20 a second, not 36 to 40"
              % c["reconnects"])
        made = int(mc.stats()[0]["total_connections"]) - conns_before - 3 - \
            slap_stats_reads(args, mc)
        check(made == 4 + c["reconnects"], "the server saw %d connections, slap made 4 and "
              "reopened %d" % (made, c["reconnects"]))
        m = re.search(r"^connect: (\d+), p50 \d+ us, p99 \d+ us, max \d+ us \(opened to ready\)$",
                      out, re.M)
        with open(path) as f:
            doc = json.load(f)
        check(m is not None and int(m.group(1)) == c["reconnects"] and
              doc["connect_time"]["count"] == c["reconnects"] and
              doc["config"]["reconnect_rate"] == 20,
              "the connect line and JSON: %r, %r, config %r" % (
                  m and m.group(0), doc.get("connect_time"), doc["config"].get("reconnect_rate")))
        rc, out, err = run_slap(["-s", mc.addr, "-P", "1000", "-t", "1s", "-c", "4",
                                 "--reconnect_rate", "20"])
        check(rc == 0, "open loop: exit status %d: %s" % (rc, err))
        c = counters(out)
        check(16 <= c["reconnects"] <= 20, "open loop: %d reopens in 1 s at 20 a second"
              % c["reconnects"])
        for other, said in ((["--reconnect_every", "5"],
                             "--reconnect_every and --reconnect_rate both say"),
                            (["-U"], "--reconnect_rate reopens TCP connections: it cannot be "
                                     "used with -U"),
                            (["--pipeline", "2"], "--reconnect_rate closes a connection "
                                                  "between requests: it needs --pipeline 1")):
            rc, _, err = run_slap(["-s", mc.addr, "-x", "10", "--reconnect_rate", "5"] + other)
            check(rc == 2 and said in err, "%s: %d %r" % (other, rc, err))
    finally:
        mc.stop()
        shutil.rmtree(tmp, ignore_errors=True)
