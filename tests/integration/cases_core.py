"""Closed-loop runs whose counters agree with the server's; the report's shape;
signals, the environment and bad options."""
import os
import re
import signal
import subprocess
import time

from harness import (check, check_agree, counters, measured, Memcached, PATHS, run_line, run_slap,
                     server_delta)
from harness import no_time, threads


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


@no_time
@threads
def case_counters_counted(mc):
    rc, out, err, delta, _ = measured([mc], ["-s", mc.addr, "-x", "10007", "-c", "64", "-T", "2"])
    check(rc == 0, "exit status %d" % rc)
    c = counters(out)
    check_agree(c, delta)
    _, ops, _, _ = run_line(out)
    check(ops == 10007, "-x 10007 ran %d operations" % ops)
    check("execute number: 10007" in out, "header lacks execute number")


@no_time
def case_execute_below_concurrency(mc):
    rc, out, err, delta, _ = measured([mc], ["-s", mc.addr, "-x", "5", "-c", "16"])
    check(rc == 0, "exit status %d" % rc)
    c = counters(out)
    check_agree(c, delta)
    check(c["cmd_get"] + c["cmd_set"] == 5, "-x 5 with -c 16 must run 5 operations")


@no_time
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


@no_time
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


def case_sigint(mc):
    before = mc.stats()
    rc, out, err = run_slap(["-s", mc.addr, "-t", "60s", "-c", "8", "-S", "1s"], interrupt_after=2.5)
    delta = server_delta(before, mc.stats(), 2)
    check(rc == -signal.SIGINT, "slap should die of SIGINT, returncode %d" % rc)
    secs, ops, _, _ = run_line(out)
    check(1.5 <= secs <= 4.0, "Run time %.1f after SIGINT at 2.5 s" % secs)
    check("interrupted: SIGINT" in out, "report not marked as interrupted")
    check_agree(counters(out), delta)


def case_sigterm(mc):
    proc = subprocess.Popen([PATHS.slap, "-s", mc.addr, "-t", "60s", "-c", "4"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1.5)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=20)
    check(proc.returncode == -signal.SIGTERM, "slap should die of SIGTERM, got %d" % proc.returncode)
    check("interrupted: SIGTERM" in out and "Run time:" in out, "no report after SIGTERM")


@no_time
@threads
def case_tiny_window_uneven_threads(mc):
    rc, out, err, delta, _ = measured([mc], ["-s", mc.addr, "-w", "1", "-x", "1000", "-T", "2",
                                             "-c", "3", "--conn-sock=2"])
    check(rc == 0, "exit status %d" % rc)
    c = counters(out)
    check_agree(c, delta)
    check(c["cmd_get"] + c["cmd_set"] == 1000, "-x 1000 ran %d" % (c["cmd_get"] + c["cmd_set"]))
    check("windows size: 1\n" in out, "header should print the window as given")
    check(int(mc.stats()[0]["curr_items"]) <= 3, "-w 1 with 3 clients should write 3 keys at most")


@no_time
def case_env_servers(mc):
    env = dict(os.environ, MEMCACHED_SERVERS=mc.addr)
    before = mc.stats()
    res = subprocess.run([PATHS.slap, "-x", "500", "-c", "2"], env=env, capture_output=True,
                         text=True, timeout=60)
    delta = server_delta(before, mc.stats(), 2)
    check(res.returncode == 0, "exit status %d" % res.returncode)
    check("servers: %s" % mc.addr in res.stdout, "MEMCACHED_SERVERS not used")
    check_agree(counters(res.stdout), delta)
    # set but empty: the same refusal as -s '', naming the variable, in both faces
    empty = dict(os.environ, MEMCACHED_SERVERS="")
    for argv, says in (([PATHS.slap, "-t", "1s"], "slap: MEMCACHED_SERVERS: the list is empty"),
                       ([PATHS.slap, "-s", "", "-t", "1s"], "slap: --servers: the list is empty"),
                       ([PATHS.slap, "memslap"], "slap: MEMCACHED_SERVERS: the list is empty")):
        res = subprocess.run(argv, env=empty, capture_output=True, text=True, timeout=60)
        check(res.returncode == 2 and res.stderr.startswith(says) and res.stdout == "",
              "%r with MEMCACHED_SERVERS='': exit %d %r" % (argv[1:], res.returncode,
                                                               res.stderr))


@no_time
def case_bad_options():
    for args in (["-T", "0"], ["--win_size=0k"], ["--no-such-option"], ["-t", "5x"],
                 ["--mix", "get=1.7e308,set=1e307"], ["--ratio", "1e308:1e308"],
                 ["--exp_time", "4294967296"], ["--exp_time", "1000000000"],
                 ["--reconnect_rate", "10", "--reconnect_every", "100"],
                 ["--reconnect_rate", "0"], ["--reconnect_rate", "2g"], ["--reconnect_rate", "x"],
                 ["--ramp=0:0/1s"], ["--ramp=1:10"], ["--ramp=-1:10/1s"], ["--ramp=1:10/1us"],
                 ["--ramp=1:10/1000000d"], ["--ramp=1:10/1s", "-x", "100"],
                 ["--key_min=10", "--key_max=5"], ["--key_max=4294967296"],
                 ["--key_pattern=get:zipf,,set:sequential"], ["--key_pattern=foo:zipf"],
                 ["--key_pattern=get:zipf:0"], ["--key_pattern=get:zipf:1e308"],
                 ["--key_pattern=all:latest"], ["--key_pattern=get:zipf:0." + "9" * 60 + "x"],
                 ["-P", "1k", "--arrival=gpareto:0.5"], ["-P", "1k", "--arrival=gev:0.9"],
                 ["-P", "1k", "--arrival=normal:1"]):
        rc, out, err = run_slap(args)
        check(rc == 2, "%r: exit status %d, expected 2" % (args, rc))
        check(out == "", "%r printed to stdout" % (args,))
        check(len(err.strip().splitlines()) == 2 and "--help" in err, "%r: error text %r" % (args, err))
    # a law's shape past what keeps the rate: the law, the range and why, in the first line
    for shape, says in (("gpareto:0.5", "gpareto:SHAPE takes a shape from 0 and below 0.5 "
                                        "(from 0.5 the gaps' variance is infinite"),
                        ("gev:0.9", "gev:SHAPE takes a shape above 0 and below 0.5 (from 0.5"),
                        ("normal:1", "normal:SHAPE takes a shape above 0 and up to 0.33 (beyond "
                                     "it more gaps fall below 0")):
        rc, out, err = run_slap(["-P", "1k", "--arrival=" + shape])
        check(says in err.splitlines()[0], "--arrival=%s: error text %r" % (shape, err))
