"""Trace replay against a real memcached: counts, timing, ordering, bounds, bad traces."""
import os
import random
import re
import subprocess
import tempfile

from harness import PATHS, check, counters, Memcached, named, run_line, run_slap, slap_protocols, write_file
from harness import no_time, threads

OPS = ("get", "set", "delete", "incr", "add", "replace", "append", "prepend", "gets", "cas",
       "decr")


def make_trace(rate, seconds, mix, keys=500, clients=40, seed=1, value=64):
    """A trace of `rate` requests a second for `seconds`; mix: {op: share}. Returns (path,
    {op: count}). Values of incr and decr keys are small numbers, as counters are."""
    rnd = random.Random(seed)
    names = list(mix)
    weights = [mix[n] for n in names]
    counts = dict.fromkeys(OPS, 0)
    fd, path = tempfile.mkstemp(suffix=".csv")
    with os.fdopen(fd, "w") as f:
        for sec in range(seconds):
            for _ in range(rate):
                op = rnd.choices(names, weights)[0]
                k = rnd.randrange(keys)
                counter = op in ("incr", "decr")
                key = ("ctr:%d" % (k % 10)) if counter else "k:%d" % k
                size = 4 if counter else value
                ttl = 3600 if op in ("set", "add", "replace", "cas") else 0
                f.write("%d,%s,%d,%d,%d,%s,%d\n" % (1000 + sec, key, len(key), size,
                                                     k % clients, op, ttl))
                counts[op] += 1
    return path, counts


def server_delta(mc, before):
    after = mc.stats()[0]
    return {k: int(after.get(k, 0)) - int(before.get(k, 0)) for k in after
            if k.replace("_", "").isalpha() and after[k].isdigit()}


@threads
def case_replay_counts_and_rate(mc):
    """The server counts exactly the trace's operations; the trace's times are kept (2%)."""
    mix = {"get": 60, "set": 20, "delete": 5, "incr": 5, "add": 3, "replace": 3, "append": 2,
           "gets": 1, "decr": 1}
    path, want = make_trace(2000, 4, mix)
    try:
        # counters first, so that incr and decr find numbers
        with open(path) as f:
            counter_keys = sorted({line.split(",")[1] for line in f if ",ctr:" in line})
        prime = tempfile.mktemp(suffix=".csv")
        with open(prime, "w") as f:
            for i, key in enumerate(counter_keys):
                f.write("999,%s,%d,2,%d,set,0\n" % (key, len(key), i))
        rc, out, err = run_slap(["-s", mc.addr, "--trace", prime, "-c", "4"])
        before = mc.stats()[0]
        rc, out, err = run_slap(["-s", mc.addr, "--trace", path, "-c", "16", "-T", "2"],
                                timeout=60)
        d = server_delta(mc, before)
        check(rc == 0, "exit status %d: %s" % (rc, err))
        c = counters(out)
        storage = sum(want[op] for op in ("set", "add", "replace", "append", "prepend", "cas"))
        check(d["cmd_set"] == storage == c["cmd_set"], "cmd_set: server %d, trace %d, slap %d"
              % (d["cmd_set"], storage, c["cmd_set"]))
        check(d["cmd_get"] == want["get"] + want["gets"] == c["cmd_get"],
              "cmd_get: server %d, trace %d" % (d["cmd_get"], want["get"] + want["gets"]))
        check(d["delete_hits"] + d["delete_misses"] == want["delete"], "deletes")
        check(d["incr_hits"] == want["incr"] and d["decr_hits"] == want["decr"],
              "incr and decr find the counters: %r" % d)
        check(c["get_misses"] == d["get_misses"], "misses as the server counts them")
        trace_tps, achieved = named(out, "trace_tps"), named(out, "achieved_tps")
        check(abs(trace_tps - 2000) <= 2, "the trace's own rate: %.0f" % trace_tps)
        check(abs(achieved - trace_tps) <= 0.02 * trace_tps,
              "achieved %.0f for a trace of %.0f requests a second" % (achieved, trace_tps))
        check(named(out, "trace_requests") == 8000, "every request replayed")
        check(re.search(r"^trace_lines: 1-8000$", out, re.M), "the source lines")
        m = named(out, "miss_ratio")
        check(abs(m - c["get_misses"] / c["cmd_get"]) < 1e-3, "miss ratio %.4f" % m)
    finally:
        os.unlink(path)


def case_replay_speed_and_bounds(mc):
    path, _ = make_trace(1000, 4, {"get": 9, "set": 1})
    try:
        rc, out, err = run_slap(["-s", mc.addr, "--trace", path, "--trace-speed", "2", "-c", "8"])
        secs, _, _, _ = run_line(out)
        check(rc == 0 and 1.9 <= secs <= 2.2, "twice as fast: %.1fs" % secs)
        check(abs(named(out, "target_tps") - 2000) <= 20, "the target is twice the trace's")
        rc, out, err = run_slap(["-s", mc.addr, "--trace", path, "--trace-speed", "max", "-c",
                                 "8"])
        secs, _, _, _ = run_line(out)
        check(rc == 0 and secs < 2.0 and named(out, "trace_requests") == 4000,
              "as fast as it goes: %.1fs" % secs)
        rc, out, err = run_slap(["-s", mc.addr, "--trace", path, "-t", "1500ms", "-c", "8"])
        secs, _, _, _ = run_line(out)
        check(rc == 0 and secs == 1.5, "-t bounds a replay: %.1fs" % secs)
        check(abs(named(out, "trace_requests") - 1500) <= 20, "1.5 s of a 1000/s trace")
        rc, out, err = run_slap(["-s", mc.addr, "--trace", path, "--trace-limit", "777", "-c",
                                 "8"])
        check(rc == 0 and named(out, "trace_requests") == 777, "--trace-limit")
        check(re.search(r"^trace_lines: 1-777$", out, re.M), "lines of the limit")
    finally:
        os.unlink(path)


@no_time
@threads
def case_replay_client_order(mc):
    """A client's requests keep their order: each set is followed by a get of its key from the
    same client, so with --trace-spread=client no get misses; round-robin may reorder them."""
    fd, path = tempfile.mkstemp(suffix=".csv")
    with os.fdopen(fd, "w") as f:
        for i in range(3000):
            key = "order:%d" % i
            f.write("5,%s,%d,10,%d,set,0\n5,%s,%d,10,%d,get,0\n" % (key, len(key), i % 50, key,
                                                                   len(key), i % 50))
    try:
        rc, out, err = run_slap(["-s", mc.addr, "--trace", path, "--trace-speed", "max", "-c",
                                 "32", "-T", "2", "--pipeline", "4"])
        c = counters(out)
        check(rc == 0 and c["cmd_get"] == 3000 and c["get_misses"] == 0,
              "a client's get after its set finds it: %r" % c)
    finally:
        os.unlink(path)


@no_time
def case_replay_from_stdin(mc):
    path, _ = make_trace(500, 2, {"get": 1, "set": 1})
    try:
        with open(path) as f:
            proc = subprocess.run([PATHS.slap, "-s", mc.addr, "--trace", "-", "-c", "4"],
                                  stdin=f, capture_output=True, text=True, timeout=60)
        print(proc.stdout, proc.stderr)
        check(proc.returncode == 0 and "trace_requests: 1000" in proc.stdout,
              "a trace from stdin: %d" % proc.returncode)
    finally:
        os.unlink(path)


@no_time
def case_replay_bad_trace(mc):
    """A malformed line stops the replay with its line named (exit 1, the report printed), or
    is skipped and counted with --trace-skip-bad."""
    fd, path = tempfile.mkstemp(suffix=".csv")
    with os.fdopen(fd, "w") as f:
        for i in range(100):
            f.write("1,k%d,3,10,1,get,0\n" % i)
        f.write("1,k,3,10,1,fetch,0\n")
        for i in range(100):
            f.write("2,k%d,3,10,1,set,0\n" % i)
    try:
        rc, out, err = run_slap(["-s", mc.addr, "--trace", path, "-c", "4"])
        check(rc == 1 and "'%s':101:" % path in err, "the bad line named: %d %r" % (rc, err))
        check("Run time:" in out, "the report of what was replayed")
        rc, out, err = run_slap(["-s", mc.addr, "--trace", path, "--trace-skip-bad", "-c", "4"])
        check(rc == 0 and named(out, "trace_skipped") == 1 and named(out, "trace_requests") == 200,
              "skipped and counted: %d %r" % (rc, out[-400:]))
        for bad, what in ((["--trace", path, "-P", "1000"], "cannot be used with --tps"),
                          (["--trace", path, "--mix", "get=1"], "cannot be used with --mix"),
                          (["--trace-speed", "2"], "--trace_speed needs --trace"),
                          (["--trace", path, "--trace-speed", "0"], "neither max nor"),
                          (["--trace", "/nonexistent/trace.csv"], "/nonexistent/trace.csv")):
            rc, out, err = run_slap(["-s", mc.addr] + bad)
            check(rc in (1, 2) and what in err, "%r: %d %r" % (bad, rc, err))
    finally:
        os.unlink(path)


@no_time
def case_replay_protocols(mc):
    """Every command of a trace, in the text, binary and meta protocols: the server counts what
    the trace holds, and slap's counters are the server's."""
    mix = {"get": 40, "set": 20, "delete": 5, "incr": 5, "decr": 5, "add": 5, "replace": 5,
           "append": 5, "prepend": 5, "gets": 5}
    path, want = make_trace(3000, 1, mix, keys=200, clients=20)
    prime = tempfile.mktemp(suffix=".csv")
    with open(prime, "w") as f:
        for i in range(10):
            f.write("1,ctr:%d,%d,4,%d,set,0\n" % (i, len("ctr:%d" % i), i))
    try:
        for proto in ([], ["-B"], ["--protocol", "meta"]):
            rc, out, err = run_slap(["-s", mc.addr, "--trace", prime, "-c", "2"] + proto)
            check(rc == 0, "priming the counters: %d %s" % (rc, err))
            before = mc.stats()[0]
            rc, out, err = run_slap(["-s", mc.addr, "--trace", path, "--trace-speed", "max",
                                     "-c", "8"] + proto)
            d = server_delta(mc, before)
            c = counters(out)
            check(rc == 0, "%r: exit %d %s" % (proto, rc, err))
            storage = sum(want[op] for op in ("set", "add", "replace", "append", "prepend"))
            check(d["cmd_set"] == storage == c["cmd_set"], "%r cmd_set: server %d, trace %d, "
                  "slap %d" % (proto, d["cmd_set"], storage, c["cmd_set"]))
            check(d["cmd_get"] == want["get"] + want["gets"] == c["cmd_get"],
                  "%r cmd_get: server %d, slap %d" % (proto, d["cmd_get"], c["cmd_get"]))
            for k in ("get_misses", "delete_hits", "delete_misses", "incr_hits", "incr_misses",
                      "decr_hits", "decr_misses"):
                check(c.get(k, 0) == d[k], "%r %s: slap %d, server %d" % (proto, k, c.get(k, 0),
                                                                         d[k]))
            check(d["incr_hits"] == want["incr"], "%r incr finds the counters" % proto)
    finally:
        os.unlink(path)
        os.unlink(prime)


@no_time
def case_replay_cas(mc):
    """A trace holds no cas tokens: a cas uses the client's latest gets of its key, and without
    one is refused (EXISTS, or NOT_FOUND for a missing key), never stored as a plain set."""
    for n, proto in enumerate(([], ["-B"], ["--protocol", "meta"])):
        lines = (("a", "set"),    # stored: 3 + 10 object bytes
                 ("a", "cas"),    # no token: EXISTS
                 ("b", "cas"),    # no token, no key: NOT_FOUND
                 ("a", "gets"),
                 ("b", "cas"),    # the token is the other key's: NOT_FOUND
                 ("a", "cas"),    # stored with the token: 13 bytes
                 ("a", "cas"))    # the token is spent: EXISTS
        path = write_file("".join("1,%s:%d,3,10,1,%s,0\n" % (k, n, op) for k, op in lines))
        try:
            before = mc.stats()[0]
            rc, out, err = run_slap(["-s", mc.addr, "--trace", path, "-c", "1"] + proto)
            d = server_delta(mc, before)
            c = counters(out)
            check(rc == 0, "%r: exit %d %s" % (proto, rc, err))
            check((d["cas_hits"], d["cas_badval"], d["cas_misses"]) == (1, 2, 2),
                  "%r the server's cas counters: %r" % (proto, d))
            check((c.get("cas_hits", 0), c.get("cas_badval", 0), c.get("cas_misses", 0)) ==
                  (1, 2, 2), "%r slap's cas counters: %r" % (proto, c))
            check(c["object_bytes"] == 26, "%r object_bytes of the trace's keys: %d"
                  % (proto, c["object_bytes"]))
        finally:
            os.unlink(path)


@no_time
def case_replay_due_after_the_end(mc):
    """A request due past what 64 bits of nanoseconds hold (a timestamp near the format's limit;
    a gap of 1e9 s at --trace_speed 0.001) is due after the run ends: it is never sent, where
    the wrapped wait sent it at once."""
    traces = (("0,first:1,7,10,1,set,0\n18446744072,never:1,7,10,1,set,0\n", []),
              ("0,first:1,7,10,1,set,0\n1000000000,never:1,7,10,1,set,0\n",
               ["--trace_speed", "0.001"]))
    for text, extra in traces:
        path = write_file(text)
        try:
            before = mc.stats()[0]
            rc, out, err = run_slap(["-s", mc.addr, "--trace", path, "-c", "1", "-t", "1s"]
                                    + extra, timeout=30)
            d = server_delta(mc, before)
            check(rc == 0 and d["cmd_set"] == 1, "%r: one set, not %d (exit %d: %s)"
                  % (extra, d["cmd_set"], rc, err))
        finally:
            os.unlink(path)


@no_time
def case_replay_long_ttl(mc):
    """A TTL over 30 days would be a Unix time to memcached (long past: the item gone at once);
    slap sends it as the Unix time that far ahead, so the item is there to get. One past what
    the protocol carries (ascii and meta read above 2^31-1 as negative: gone at once) goes as
    the latest it does carry."""
    path = write_file("1,long:1,6,10,1,set,2592001\n1,long:1,6,0,1,get,0\n"
                      "1,short:1,7,10,1,set,2592000\n1,short:1,7,0,1,get,0\n"
                      "1,huge:1,6,10,1,set,4294967295\n1,huge:1,6,0,1,get,0\n")
    try:
        for proto in slap_protocols():
            rc, out, err = run_slap(["-s", mc.addr, "--trace", path, "-c", "1",
                                     "--protocol=" + proto])
            c = counters(out)
            check(rc == 0 and c["cmd_get"] == 3 and c["get_misses"] == 0,
                  "%s: every item found: %d %r" % (proto, rc, c))
    finally:
        os.unlink(path)
