#!/usr/bin/env python3
"""Integration tests of slap against a real memcached started on a free loopback port.

Usage: run.py --slap PATH --memcached PATH CASE
Each case starts its own server(s), runs the built slap and checks what slap
prints against the server's own `stats`. Servers are stopped by their pid.
"""
import argparse
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time

ARGS = None
COUNTERS = ("cmd_get", "cmd_set", "get_misses", "written_bytes", "read_bytes", "object_bytes")


class Failure(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Failure(what)


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Memcached:
    """A throwaway memcached on 127.0.0.1, stopped by pid."""

    def __init__(self, port=None, extra=()):
        self.port = port or free_port()
        cmd = [ARGS.memcached, "-l", "127.0.0.1", "-p", str(self.port), "-U", "0", "-t", "2"]
        if os.geteuid() == 0:
            cmd += ["-u", "root"]
        self.proc = subprocess.Popen(cmd + list(extra), stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 5
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise Failure("memcached did not start on port %d" % self.port)
                time.sleep(0.02)

    @property
    def addr(self):
        return "127.0.0.1:%d" % self.port

    def stats(self):
        """The server's stats, and the size of the response (which the server counts)."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=5) as s:
            s.sendall(b"stats\r\n")
            data = b""
            while not data.endswith(b"END\r\n"):
                chunk = s.recv(65536)
                if not chunk:
                    raise Failure("stats: connection closed")
                data += chunk
        values = {}
        for line in data.decode().split("\r\n"):
            parts = line.split(" ")
            if len(parts) == 3 and parts[0] == "STAT":
                values[parts[1]] = parts[2]
        return values, len(data)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def run_slap(args, timeout=60, interrupt_after=None, during=None):
    """Run slap; return (returncode, stdout, stderr)."""
    proc = subprocess.Popen([ARGS.slap] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    if during is not None:
        threading.Thread(target=during, daemon=True).start()
    if interrupt_after is not None:
        time.sleep(interrupt_after)
        proc.send_signal(signal.SIGINT)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        raise Failure("slap did not finish within %ds\nstdout:\n%s\nstderr:\n%s" % (timeout, out, err))
    sys.stdout.write("$ slap %s  -> %d\n%s%s" % (" ".join(args), proc.returncode, out, err))
    return proc.returncode, out, err


def counters(out):
    found = {}
    for line in out.splitlines():
        m = re.match(r"^([a-z_]+): (\d+)$", line)
        if m:
            found[m.group(1)] = int(m.group(2))
    for name in COUNTERS:
        check(name in found, "counter %s missing from the report" % name)
    return found


def run_line(out):
    m = re.search(r"^Run time: ([\d.]+)s Ops: (\d+) TPS: (\d+) Net_rate: ([\d.]+)M/s$", out, re.M)
    check(m is not None, "no Run time line")
    return float(m.group(1)), int(m.group(2)), int(m.group(3)), float(m.group(4))


def server_delta(before, after):
    (b, before_len), (a, _) = before, after
    d = {k: int(a[k]) - int(b[k]) for k in ("cmd_get", "cmd_set", "get_misses", "get_hits",
                                            "bytes_read", "bytes_written")}
    # The second `stats` request is read before its snapshot; the first one's
    # answer is written after its snapshot. Neither is slap's traffic.
    d["bytes_read"] -= len(b"stats\r\n")
    d["bytes_written"] -= before_len
    return d


def check_agree(slap, delta):
    pairs = (("cmd_get", "cmd_get"), ("cmd_set", "cmd_set"), ("get_misses", "get_misses"),
             ("written_bytes", "bytes_read"), ("read_bytes", "bytes_written"))
    for mine, theirs in pairs:
        check(slap[mine] == delta[theirs],
              "slap %s=%d but the server counted %s=%d" % (mine, slap[mine], theirs, delta[theirs]))


def measured(servers, args, **kw):
    befores = [s.stats() for s in servers]
    rc, out, err = run_slap(args, **kw)
    deltas = [server_delta(b, s.stats()) for b, s in zip(befores, servers)]
    total = {k: sum(d[k] for d in deltas) for k in deltas[0]}
    return rc, out, err, total, deltas


# ---------------------------------------------------------------- cases

def case_counters_timed(mc):
    rc, out, err, delta, _ = measured([mc], ["-s", mc.addr, "-t", "2s", "-T", "2", "-c", "64",
                                             "--win_size=1k"])
    check(rc == 0, "exit status %d" % rc)
    c = counters(out)
    check_agree(c, delta)
    secs, ops, tps, _ = run_line(out)
    check(ops == c["cmd_get"] + c["cmd_set"], "Ops is not cmd_get + cmd_set")
    check(1.9 <= secs <= 2.5, "Run time %.1f for -t 2s" % secs)
    check(ops > 1000, "only %d operations in 2 s" % ops)
    check(abs(c["cmd_set"] * 9 - c["cmd_get"]) <= 64 * 9 + 64, "mix is not 0.1/0.9")
    check(c["get_misses"] == 0, "misses with a cache bigger than the windows")
    check(c["object_bytes"] == c["cmd_set"] * (64 + 1024), "object_bytes")


def case_counters_counted(mc):
    rc, out, err, delta, _ = measured([mc], ["-s", mc.addr, "-x", "10007", "-c", "64", "-T", "2"])
    check(rc == 0, "exit status %d" % rc)
    c = counters(out)
    check_agree(c, delta)
    _, ops, _, _ = run_line(out)
    check(ops == 10007, "-x 10007 ran %d operations" % ops)
    check("execute number: 10007" in out, "header lacks execute number")


def case_execute_below_concurrency(mc):
    rc, out, err, delta, _ = measured([mc], ["-s", mc.addr, "-x", "5", "-c", "16"])
    check(rc == 0, "exit status %d" % rc)
    c = counters(out)
    check_agree(c, delta)
    check(c["cmd_get"] + c["cmd_set"] == 5, "-x 5 with -c 16 must run 5 operations")


def case_stat_freq_shape(mc):
    rc, out, err = run_slap(["-s", mc.addr, "-S", "1s", "-t", "3s", "-T", "2", "-c", "8"])
    check(rc == 0, "exit status %d" % rc)
    check("\033" not in out, "escape codes written into a pipe")
    header = re.compile(r"^Type\s+Time\(s\)\s+Ops\s+TPS\(ops/s\)\s+Net\(M/s\)\s+Get_miss\s+Min\(us\)"
                        r"\s+Max\(us\)\s+Avg\(us\)\s+Std_dev\s+Geo_dist\s+P50\(us\)\s+P90\(us\)"
                        r"\s+P99\(us\)\s+P99\.9\(us\)$", re.M)
    check(len(header.findall(out)) == 9, "expected 3 periods x Get/Set/Total tables")
    globals_ = re.findall(r"^Global\s+(\d+)\s+(\d+)\s+(\d+)\s", out, re.M)
    times = [int(t) for t, _, _ in globals_]
    check(times == [1, 1, 1, 2, 2, 2, 3, 3, 3], "Global times %r" % times)
    periods = re.findall(r"^Period\s+1\s+(\d+)\s+(\d+)\s+([\d.]+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)"
                         r"\s+([\d.]+)\s+([\d.]+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)$", out, re.M)
    check(len(periods) == 9, "Period rows are not 13 numeric columns")
    for row in periods:
        mn, mx, p50, p99 = int(row[4]), int(row[5]), int(row[9]), int(row[11])
        check(mn <= p50 <= p99 <= mx, "percentiles out of order: %r" % (row,))
    for name in ("Get", "Set", "Total"):
        check(re.search(r"^%s Statistics \(\d+ events\)$" % name, out, re.M), "no final %s block" % name)
    check(re.search(r"^   Log2 Dist:\n(      [ \d]\d:(   [ \d]{6})+\n)+   P50:", out, re.M),
          "Log2 Dist rows and percentile lines")
    check(out.index("Total Statistics (") < out.index("cmd_get:") < out.index("Run time:"),
          "final order: blocks, counters, run line")


def case_two_servers(mc):
    other = Memcached()
    try:
        rc, out, err, total, deltas = measured([mc, other], ["-s", "%s,%s" % (mc.addr, other.addr),
                                                             "-t", "2s", "-c", "8"])
        check(rc == 0, "exit status %d" % rc)
        for d in deltas:
            check(d["cmd_get"] > 0 and d["cmd_set"] > 0, "a server got no traffic: %r" % d)
        check_agree(counters(out), total)
        check("servers: %s,%s" % (mc.addr, other.addr) in out, "servers header")
    finally:
        other.stop()


def case_dead_port(mc):
    port = free_port()
    rc, out, err = run_slap(["-s", "127.0.0.1:%d" % port, "-t", "2s"], timeout=20)
    check(rc == 1, "exit status %d, expected 1" % rc)
    lines = err.strip().splitlines()
    check(len(lines) == 1, "expected one error line, got %r" % lines)
    check("127.0.0.1:%d" % port in lines[0] and "refused" in lines[0].lower(),
          "error line should name the server and the reason: %r" % lines[0])


def case_sigint(mc):
    before = mc.stats()
    rc, out, err = run_slap(["-s", mc.addr, "-t", "60s", "-c", "8", "-S", "1s"], interrupt_after=2.5)
    delta = server_delta(before, mc.stats())
    check(rc == -signal.SIGINT, "slap should die of SIGINT, returncode %d" % rc)
    secs, ops, _, _ = run_line(out)
    check(1.5 <= secs <= 4.0, "Run time %.1f after SIGINT at 2.5 s" % secs)
    check("interrupted: SIGINT" in out, "report not marked as interrupted")
    check_agree(counters(out), delta)


def case_sigterm(mc):
    proc = subprocess.Popen([ARGS.slap, "-s", mc.addr, "-t", "60s", "-c", "4"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1.5)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=20)
    check(proc.returncode == -signal.SIGTERM, "slap should die of SIGTERM, got %d" % proc.returncode)
    check("interrupted: SIGTERM" in out and "Run time:" in out, "no report after SIGTERM")


def case_tiny_window_uneven_threads(mc):
    rc, out, err, delta, _ = measured([mc], ["-s", mc.addr, "-w", "1", "-x", "1000", "-T", "2",
                                             "-c", "3", "--conn-sock=2"])
    check(rc == 0, "exit status %d" % rc)
    c = counters(out)
    check_agree(c, delta)
    check(c["cmd_get"] + c["cmd_set"] == 1000, "-x 1000 ran %d" % (c["cmd_get"] + c["cmd_set"]))
    check("windows size: 1\n" in out, "header should print the window as given")
    check(int(mc.stats()[0]["curr_items"]) <= 3, "-w 1 with 3 clients should write 3 keys at most")


def case_env_servers(mc):
    env = dict(os.environ, MEMCACHED_SERVERS=mc.addr)
    before = mc.stats()
    res = subprocess.run([ARGS.slap, "-x", "500", "-c", "2"], env=env, capture_output=True,
                         text=True, timeout=60)
    delta = server_delta(before, mc.stats())
    check(res.returncode == 0, "exit status %d" % res.returncode)
    check("servers: %s" % mc.addr in res.stdout, "MEMCACHED_SERVERS not used")
    check_agree(counters(res.stdout), delta)


def case_bad_options(mc):
    for args in (["-T", "0"], ["--win_size=0k"], ["--no-such-option"], ["-t", "5x"]):
        rc, out, err = run_slap(args)
        check(rc == 2, "%r: exit status %d, expected 2" % (args, rc))
        check(out == "", "%r printed to stdout" % (args,))
        check(len(err.strip().splitlines()) == 2 and "--help" in err, "%r: error text %r" % (args, err))


def case_server_dies(mc):
    def kill_later():
        time.sleep(1.0)
        mc.stop()
    rc, out, err = run_slap(["-s", mc.addr, "-t", "20s", "-c", "4"], during=kill_later, timeout=30)
    check(rc == 1, "exit status %d, expected 1" % rc)
    c = counters(out)
    check(c.get("conn_closed", 0) >= 1 and c.get("clients_stopped", 0) == 4, "closed connections not reported")
    secs, ops, _, _ = run_line(out)
    check(secs < 5 and ops > 0, "run should end soon after the server died (%.1fs)" % secs)


def case_reconnect(mc):
    port = mc.port
    box = {}

    def bounce():
        time.sleep(1.0)
        mc.stop()
        time.sleep(0.5)
        box["new"] = Memcached(port=port)
    rc, out, err = run_slap(["-s", mc.addr, "-t", "4s", "-c", "4", "-R"], during=bounce, timeout=30)
    try:
        check(rc == 0, "exit status %d with -R, expected 0" % rc)
        c = counters(out)
        check(c.get("reconnects", 0) >= 4, "reconnects not reported")
        st, _ = box["new"].stats()
        check(int(st["cmd_get"]) > 0, "no traffic after the reconnect")
    finally:
        if "new" in box:
            box["new"].stop()


def case_server_error(mc):
    small = Memcached(extra=["-I", "1k", "-o", "slab_chunk_max=1024", "-m", "8"])
    try:
        rc, out, err = run_slap(["-s", small.addr, "-t", "1s", "-c", "2", "-X", "2000"])
        check(rc == 1, "exit status %d: no request succeeded, expected 1" % rc)
        check(err.count("SERVER_ERROR") == 1, "the error should be shown once: %r" % err)
        c = counters(out)
        check(c.get("server_error", 0) > 0, "SERVER_ERROR replies not counted")
        check("SERVER_ERROR" not in out, "server errors printed per request on stdout")
        check(c["cmd_set"] == 0, "a refused set was counted as a set")
    finally:
        small.stop()


def garbage_server(port, reply):
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", port))
    srv.listen(16)

    def serve():
        srv.settimeout(10)
        try:
            while True:
                conn, _ = srv.accept()
                conn.recv(4096)
                conn.sendall(reply)
        except OSError:
            pass
    threading.Thread(target=serve, daemon=True).start()
    return srv


def case_garbage(mc):
    port = free_port()
    srv = garbage_server(port, b"HELLO WORLD\r\n")
    try:
        rc, out, err = run_slap(["-s", "127.0.0.1:%d" % port, "-t", "5s", "-c", "2"], timeout=20)
        check(rc == 1, "exit status %d, expected 1" % rc)
        c = counters(out)
        check(c.get("protocol_error", 0) >= 1 or c.get("conn_closed", 0) >= 1, "garbage not reported")
        check("not a memcached response" in err, "stderr should say what was wrong: %r" % err)
    finally:
        srv.close()


def main():
    global ARGS
    p = argparse.ArgumentParser()
    p.add_argument("--slap", required=True)
    p.add_argument("--memcached", default="memcached")
    p.add_argument("case")
    ARGS = p.parse_args()
    fn = globals().get("case_" + ARGS.case)
    if fn is None:
        print("unknown case %s" % ARGS.case)
        return 2
    mc = Memcached()
    try:
        fn(mc)
    except Failure as f:
        print("FAIL %s: %s" % (ARGS.case, f))
        return 1
    finally:
        mc.stop()
    print("PASS %s" % ARGS.case)
    return 0


if __name__ == "__main__":
    sys.exit(main())
