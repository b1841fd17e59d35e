"""Many load hosts making one load: --share I/N splits the rate, -x and (with ,keys) the keys,
checked against the server's own counters; slap merge checks that the parts add up."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

from cases_ktime import server_truth
from harness import PATHS, Memcached, Skip, block_stat, check, free_port, run_line, run_slap
from harness import TIMING_STATISTICS, no_time, release_only, set_aside


def stats(mc):
    """The server's stats, the numbers as numbers (harness's settled snapshot)."""
    return {k: int(v) for k, v in mc.stats()[0].items() if v.isdigit()}


def run_parts(mc, tmp, parts, extra):
    """The parts (e.g. ["1/3,keys", "2/3,keys", "3/3,keys"]) run at once, as hosts would: each
    (returncode, stdout, stderr, its JSON path)."""
    procs = []
    for i, part in enumerate(parts):
        path = os.path.join(tmp, "part%d.json" % i)
        args = ["-s", mc.addr, "--share", part, "--label", "host%d" % i, "--json", path] + extra
        procs.append((args, path, subprocess.Popen([PATHS.slap] + args, stdout=subprocess.PIPE,
                                                   stderr=subprocess.PIPE, text=True)))
    done = []
    for args, path, p in procs:
        out, err = p.communicate(timeout=60)
        print("$ slap %s  -> %d\n%s%s" % (" ".join(args), p.returncode, out, err))
        done.append((p.returncode, out, err, path))
    return done


def merge(paths, *extra):
    r = subprocess.run([PATHS.slap, "merge"] + list(paths) + list(extra), capture_output=True,
                       text=True, timeout=60)
    print("$ slap merge %s  -> %d\n%s%s" % (" ".join(paths), r.returncode, r.stdout, r.stderr))
    return r


def figure(out, name):
    m = re.search(r"^%s: ([\d.]+)" % re.escape(name), out, re.M)
    check(m is not None, "no %s line" % name)
    return float(m.group(1))


def case_share_splits_rate_and_keys(mc):
    """Three hosts with --share i/3,keys and -P 1500: each aims at 500/s, the server counts the
    three parts' requests, and their keys are apart (three times the items of one host); the
    same without ,keys shares one set of keys. The merge aims at 1500/s."""
    tmp = tempfile.mkdtemp(prefix="slap-share-")
    try:
        common = ["-P", "1500", "-c", "2", "-w", "100", "--preload", "-t", "2s"]
        before = stats(mc)
        done = run_parts(mc, tmp, ["%d/3,keys" % i for i in (1, 2, 3)],
                         common + ["--start_at", "%.3f" % (time.time() + 3)])
        after = stats(mc)
        for i, (rc, out, err, _) in enumerate(done):
            check(rc == 0, "part %d: exit %d: %s" % (i + 1, rc, err))
            check("share: %d/3, keys of its own" % (i + 1) in out, "part %d's header" % (i + 1))
            check(figure(out, "target_tps") == 500, "part %d aims at %s/s, not 500"
                  % (i + 1, figure(out, "target_tps")))
        gets = sum(figure(out, "cmd_get") for _, out, _, _ in done)
        sets = sum(figure(out, "cmd_set") for _, out, _, _ in done)
        check(after["cmd_get"] - before["cmd_get"] == gets and
              after["cmd_set"] - before["cmd_set"] >= sets,
              "the server counted %d gets and %d sets, the parts %d and %d (preloads besides)"
              % (after["cmd_get"] - before["cmd_get"], after["cmd_set"] - before["cmd_set"],
                 gets, sets))
        check(after["curr_items"] - before["curr_items"] == 3 * 2 * 100,
              "three parts of 2 clients x 100 keys with keys of their own: %d new items"
              % (after["curr_items"] - before["curr_items"]))
        r = merge([d[3] for d in done], "--json", os.path.join(tmp, "merged.json"))
        check(r.returncode == 0, "merge: exit %d: %s" % (r.returncode, r.stderr))
        check(figure(r.stdout, "target_tps") == 1500, "the merge aims at %s/s"
              % figure(r.stdout, "target_tps"))
        check("share:" not in r.stdout, "a merge of every part is the whole load: %s" % r.stdout)
        # a line per host after the report, then how far apart they started (--start_at)
        rows = re.findall(r"^(\d+) +(\d+) +(\d+) +(\d+) +(\d+) +(-?\d+)  (\S+) +(host\d)$",
                          r.stdout, re.M)
        check(len(rows) == 3 and [row[7] for row in rows] == ["host0", "host1", "host2"],
              "a line per host: %r" % rows)
        merged_runs = json.load(open(os.path.join(tmp, "merged.json")))["runs"]
        for row, (_, out, _, _), run in zip(rows, done, merged_runs):
            word = re.search(r"^limited_by: (\S+)", out, re.M).group(1)
            check(int(row[1]) == run_line(out)[1] and row[6] == word,
                  "host %s's line %r, its report's Ops %d and limited_by %s"
                  % (row[0], row, run_line(out)[1], word))
            # how late after --start_at it began measuring: a few ms, as the start skew
            check(0 <= int(row[5]) < 200, "host %s began %s ms after --start_at" % (row[0], row[5]))
            # the merged JSON's runs hold each host's figures, as its line
            check(run["label"] == row[7] and run["requests"] == int(row[1]) and
                  run["limited_by"] == word and run["start_ms"] - run["start_at_ms"] == int(row[5]),
                  "the merged runs[] entry %r, the host's line %r" % (run, row))
        skew = re.search(r"^start_skew: (\d+) ms; all measuring at once: ([\d.]+) s$",
                         r.stdout, re.M)
        check(skew is not None and int(skew.group(1)) < 200 and float(skew.group(2)) >= 1.5,
              "three hosts with --start_at: %r" % (skew and skew.group(0)))
        doc = json.load(open(os.path.join(tmp, "merged.json")))
        check(doc["config"]["share"] is None, "merged config share %r" % doc["config"]["share"])
        part = json.load(open(done[1][3]))
        check(part["config"]["share"] == "2/3,keys" and part["config"]["tps"] == 1500,
              "a part's config: share %r, tps %r" % (part["config"]["share"],
                                                      part["config"]["tps"]))
        # without ,keys the hosts read and write one set of keys (a server of its own: a flush
        # leaves the items counted until they are reclaimed)
        other = Memcached()
        try:
            done = run_parts(other, tmp, ["%d/3" % i for i in (1, 2, 3)], common)
            check(all(d[0] == 0 for d in done), "the parts without keys failed")
            items = stats(other)["curr_items"]
            check(items == 2 * 100, "three parts sharing keys: %d items, not one host's 200"
                  % items)
        finally:
            other.stop()
    finally:
        shutil.rmtree(tmp)


@no_time
def case_share_execute_number(mc):
    """-x 10 split three ways: 4, 3 and 3 requests, 10 in all by the server's count."""
    tmp = tempfile.mkdtemp(prefix="slap-share-")
    try:
        before = stats(mc)
        done = run_parts(mc, tmp, ["1/3", "2/3", "3/3"], ["-x", "10", "-c", "1"])
        after = stats(mc)
        ops = [run_line(out)[1] for _, out, _, _ in done]
        check(ops == [4, 3, 3], "-x 10 in three parts: %r" % ops)
        served = (after["cmd_get"] - before["cmd_get"]) + (after["cmd_set"] - before["cmd_set"])
        check(served == 10, "the server served %d requests of -x 10" % served)
    finally:
        shutil.rmtree(tmp)


@no_time
def case_share_merge_refusals(mc):
    """slap merge takes the parts of one load once each: a part twice, parts of different N or
    runs with and without --share are refused (exit 2, naming the files); a missing part is
    named after the report (exit 1)."""
    tmp = tempfile.mkdtemp(prefix="slap-share-")
    try:
        done = run_parts(mc, tmp, ["1/3", "2/3", "3/3", "2/3", "1/2"],
                         ["-x", "30", "-c", "1", "-q"])
        check(all(d[0] == 0 for d in done), "a part failed")
        p1, p2, p3, p2b, half = [d[3] for d in done]
        r = merge([p1, p2, p2b, p3])
        check(r.returncode == 2 and "are both part 2/3 of the load" in r.stderr and
              os.path.basename(p2b) in r.stderr, "a part twice: %d %s" % (r.returncode, r.stderr))
        r = merge([p1, half])
        check(r.returncode == 2 and "only the parts of one load" in r.stderr,
              "parts of 3 and of 2: %d %s" % (r.returncode, r.stderr))
        whole = os.path.join(tmp, "whole.json")
        rc, _, _ = run_slap(["-s", mc.addr, "-x", "30", "-c", "1", "-q", "--json", whole])
        check(rc == 0, "the whole run")
        r = merge([whole, p1])
        check(r.returncode == 2 and "is no --share" in r.stderr and "is part 1/3" in r.stderr,
              "with and without --share: %d %s" % (r.returncode, r.stderr))
        r = merge([p1, p3])
        check(r.returncode == 1 and "no results of part 2/3 of the load" in r.stderr and
              "Run time:" in r.stdout and "share: some of 3 parts" in r.stdout,
              "a missing part: %d %s" % (r.returncode, r.stderr))
        _, ops, _, _ = run_line(r.stdout)
        check(ops == 20, "parts 1/3 and 3/3 of -x 30: %d" % ops)
    finally:
        shutil.rmtree(tmp)


@no_time
def case_share_bad_options():
    """--share refuses what is not a part of N (exit 2, naming it); auto takes an engine's
    index (Kubernetes' JOB_COMPLETION_INDEX, Slurm's SLURM_PROCID, from 0) plus 1."""
    env = {k: v for k, v in os.environ.items() if k not in ("JOB_COMPLETION_INDEX",
                                                              "SLURM_PROCID")}
    for arg, said in (("0/4", "outside 1 to 4"), ("5/4", "outside 1 to 4"),
                      ("2/0", "N is 1 to"), ("a/4", "I is a number"), ("2/4,key", "is not I/N"),
                      ("2", "is not I/N"), ("auto/4", "neither JOB_COMPLETION_INDEX")):
        r = subprocess.run([PATHS.slap, "--share", arg, "-x", "1"], capture_output=True,
                           text=True, env=env, timeout=30)
        check(r.returncode == 2 and "--share" in r.stderr and said in r.stderr,
              "--share %s: %d %r" % (arg, r.returncode, r.stderr))
    r = subprocess.run([PATHS.slap, "--share", "auto/4", "-x", "1"], capture_output=True,
                       text=True, env=dict(env, JOB_COMPLETION_INDEX="1\x1b[2J"), timeout=30)
    check(r.returncode == 2 and "\\x1b" in r.stderr and "\x1b" not in r.stderr,
          "a bad JOB_COMPLETION_INDEX, quoted: %r" % r.stderr)
    r = subprocess.run([PATHS.slap, "--share", "1/2,keys", "-c", "10000000", "-x", "1"],
                       capture_output=True, text=True, env=env, timeout=30)
    check(r.returncode == 2, "-c beyond what --share ,keys can name: %r" % r.stderr)
    r = subprocess.run([PATHS.slap, "--share", "1/2", "--trace", "/dev/null"],
                       capture_output=True, text=True, env=env, timeout=30)
    check(r.returncode == 2 and "cannot be split" in r.stderr, "--trace: %r" % r.stderr)
    for other in (["--share", "1/2"], ["-x", "10"], ["--sweep", "1k:2k:1k"]):
        r = subprocess.run([PATHS.slap, "--probe"] + other, capture_output=True, text=True,
                           env=env, timeout=30)
        check(r.returncode == 2 and "--probe measures latency beside a load" in r.stderr,
              "--probe %s: %d %r" % (" ".join(other), r.returncode, r.stderr))


@no_time
def case_share_auto_from_engine(mc):
    """--share auto/N: a Kubernetes Indexed Job's pod 1 is part 2/N, srun's process 0 part 1/N;
    the JSON records the part."""
    tmp = tempfile.mkdtemp(prefix="slap-share-")
    try:
        base = {k: v for k, v in os.environ.items() if k not in ("JOB_COMPLETION_INDEX",
                                                                   "SLURM_PROCID")}
        for var, value, part in (("JOB_COMPLETION_INDEX", "1", "2/4"),
                                 ("SLURM_PROCID", "0", "1/4")):
            path = os.path.join(tmp, var + ".json")
            r = subprocess.run([PATHS.slap, "-s", mc.addr, "--share", "auto/4", "-x", "8",
                                "-c", "1", "-q", "--json", path], capture_output=True,
                               text=True, env=dict(base, **{var: value}), timeout=30)
            check(r.returncode == 0, "%s=%s: %s" % (var, value, r.stderr))
            share = json.load(open(path))["config"]["share"]
            check(share == part, "%s=%s: share %r, not %s" % (var, value, share, part))
            check(run_line(r.stdout)[1] == 2, "a quarter of -x 8: %r" % r.stdout)
    finally:
        shutil.rmtree(tmp)


@no_time
def case_merge_checks_time_and_servers(mc):
    """Runs of different servers are refused (exit 2, naming both); runs made one after the
    other merge with a warning that they never ran at once, and the line after the hosts says
    how far apart they were."""
    tmp = tempfile.mkdtemp(prefix="slap-apart-")
    other = Memcached()
    try:
        a, b, c = (os.path.join(tmp, n + ".json") for n in "abc")
        for path, server in ((a, mc), (b, mc), (c, other)):
            rc, _, _ = run_slap(["-s", server.addr, "-t", "1s", "-c", "2", "-q", "--json", path])
            check(rc == 0, "a run failed")
        r = merge([a, c])
        check(r.returncode == 2 and "runs of different servers are compared" in r.stderr and
              "a.json" in r.stderr and "c.json" in r.stderr,
              "different servers: %d %s" % (r.returncode, r.stderr))
        r = merge([a, b])
        check(r.returncode == 0 and "were not measuring at once" in r.stderr,
              "runs one after the other: %d %s" % (r.returncode, r.stderr))
        check(re.search(r"^start_skew: \d+ ms; all measuring at once: never \([\d.]+ s apart\)$",
                        r.stdout, re.M), "the hosts' spread: %s" % r.stdout[-400:])
    finally:
        other.stop()
        shutil.rmtree(tmp)


# The probe case's hosts: name, CPU, nice level, options. The probe at nice -10 beside the
# server: its CPU's own, on a host with other work.
PROBE_HOSTS = (("load1", "1", "0", ["-T", "1", "-c", "200"]),
               ("load2", "1", "0", ["-T", "1", "-c", "200"]),
               ("probe", "0", "-10", ["--probe"]))
# What a busy host does to the probe case's hosts: any of them started after its --start_at
# (exit 2); a load host given so little CPU that the answers it had no time to read passed 1%
# of its requests (exit 1)
LATE_START = re.compile(r"--start_at: '[^']*' is [\d.]+ s in the past")
STARVED = re.compile(r"requests unanswered at the end of the run")


def disturbed(name, status, err):
    return ((status == 2 and LATE_START.search(err)) or
            (name != "probe" and status == 1 and STARVED.search(err)))


def probe_and_load(addr, tmp, lead_s):
    """The load hosts and the probe, measuring together from lead_s from now for 3 s: each
    (its JSON's path, its standard output); None when the busy host kept one of them from its
    part (disturbed), to be tried again. Any other exit status but 0 fails the case."""
    at = "%.3f" % (time.time() + lead_s)
    runs = []
    for name, cpu, nice, extra in PROBE_HOSTS:
        path = os.path.join(tmp, name + ".json")
        args = ["nice", "-n", nice, "taskset", "-c", cpu, PATHS.slap, "-s", addr, "-t", "3s",
                "--start_at", at, "--label", name, "--json", path, "-q"] + extra
        runs.append((name, path, subprocess.Popen(args, stdout=subprocess.PIPE,
                                                  stderr=subprocess.PIPE, text=True)))
    done, kept = [], []
    for name, path, p in runs:
        out, err = p.communicate(timeout=60)
        if disturbed(name, p.returncode, err):
            kept.append("%s: exit %d %s" % (name, p.returncode, err.strip().splitlines()[0]))
        else:
            check(p.returncode == 0, "%s: exit %d %s" % (path, p.returncode, err))
        done.append((path, out))
    if kept:
        set_aside("the busy host kept a host from its part: %s" % "; ".join(kept))
        return None
    return done


@release_only(TIMING_STATISTICS)
def case_probe_latency_beside_saturated_load():
    """A latency probe (--probe: 100/s on 2 connections, its own CPU) beside two load hosts that
    saturate their CPU (closed loop, 200 connections each, pinned with a busy loop to the other
    CPU), against a server (delay_server) that answers every request 2 ms after it comes.
    The server and the probe run at nice -10 (a CPU of their own, on a host with other work).
    Judged from the server's own account of the same run (its truth: each answer's time from
    its request's kernel arrival stamp to its write), so that a host whose other load holds the
    server up moves the mark with it: the probe's p50 is the server's p50 plus at most 1 ms
    (loopback and the probe's wake-ups; a fifth of the server's p50 when that is more), and
    never below the server's 2 ms; the load hosts' p50 is the server's plus more than 1 ms and
    more than twice the probe's excess (their own wait for their CPU besides). A try in which
    the busy host kept a host from its part (disturbed) is made again, 3 tries at most. slap
    merge adds none of the probe's requests to the load's and shows its latency apart."""
    if not shutil.which("taskset") or len(os.sched_getaffinity(0)) < 2:
        raise Skip("needs taskset and two CPUs")
    server = os.path.join(os.path.dirname(os.path.abspath(PATHS.lmc_check)), "delay_server")
    port = free_port()
    tmp = tempfile.mkdtemp(prefix="slap-probe-")
    procs = []
    try:
        procs.append(subprocess.Popen(["nice", "-n", "-10", "taskset", "-c", "0", server,
                                       str(port), "2000", "0", "7"]))
        hog = subprocess.Popen(["taskset", "-c", "1", sys.executable, "-c",
                                "import time\nend = time.time() + 40\nwhile time.time() < end: pass"])
        procs.append(hog)
        time.sleep(0.3)
        addr = "127.0.0.1:%d" % port
        for attempt in range(3):
            server_truth(addr)  # from nothing: what a disturbed try left is not this one's
            done = probe_and_load(addr, tmp, 1.5 * (attempt + 1))
            if done is not None:
                break
        check(done is not None, "the busy host kept a host from its part in 3 tries")
        runs, outs = [path for path, _ in done], [out for _, out in done]
        merged = os.path.join(tmp, "merged.json")
        r = merge(runs, "--json", merged)
        check(r.returncode == 0, "merge: %d %s" % (r.returncode, r.stderr))
        load_ops = sum(run_line(out)[1] for out in outs[:2])
        check(run_line(r.stdout)[1] == load_ops,
              "the merged Ops %d are not the load hosts' %d: the probe's %d were added"
              % (run_line(r.stdout)[1], load_ops, run_line(outs[2])[1]))
        config = json.load(open(runs[2]))["config"]
        check(config["probe"] is True and config["tps"] == 100 and config["threads"] == 1 and
              config["concurrency"] == 2, "the probe's config: %r" % config)
        probe = re.search(r"^1 +(\d+) +(\d+) +(\d+) +(\d+) +(\d+) +(\d+)  probe$", r.stdout, re.M)
        check(probe is not None and "Probe latency" in r.stdout, "no probe line: %s" % r.stdout)
        probe_p50 = int(probe.group(3))
        probes = json.load(open(merged)).get("probes")
        check(probes and probes[0]["label"] == "probe" and
              round(probes[0]["p50_us"]) == probe_p50 and
              probes[0]["requests"] == int(probe.group(1)),
              "the merged JSON's probes %r, the probe's line %r" % (probes, probe.group(0)))
        again = merge([merged])  # a merge's file reads back, its probe kept apart
        check(again.returncode == 0 and "probe" in again.stdout,
              "the merged file with its probe: %d %s" % (again.returncode, again.stderr))
        load_p50 = block_stat(r.stdout, "Total", "P50")
        truth = server_truth(addr)  # every answer of the run, the load's and the probe's
        probe_excess, load_excess = probe_p50 - truth["p50"], load_p50 - truth["p50"]
        print("probe p50 %d us, the load hosts' %.0f us; the server's own p50 %.0f us "
              "(%d answers; its delay 2000 us): the probe's excess %.0f us, the load's %.0f us"
              % (probe_p50, load_p50, truth["p50"], truth["count"], probe_excess, load_excess))
        check(probe_p50 >= 2000, "the probe's p50 %d us, below the server's delay 2000 us"
              % probe_p50)
        # loopback and the probe's wake-up on a CPU it shares with the server and the harness;
        # a server held up answers unevenly, and the probe's 300 requests are not the load's
        # tens of thousands: a fifth of the server's p50 when that is more
        allowed = max(1000, 0.2 * truth["p50"])
        check(probe_excess <= allowed, "the probe's p50 %d us is more than %.0f us over the "
              "server's own p50 %.0f us: the probe measured a wait of its own"
              % (probe_p50, allowed, truth["p50"]))
        check(load_excess > 1000 and load_excess > 2 * probe_excess,
              "the load hosts were not saturated (p50 %.0f us, the server's own %.0f us, the "
              "probe's %d us): the case shows nothing" % (load_p50, truth["p50"], probe_p50))
        check(re.search(r"^\d+ +\d+ +\d+ +\d+ +\d+ +\S+  (client|both) +load1$", r.stdout, re.M),
              "the load hosts' verdict is not their own CPU: %s" % r.stdout[-600:])
    finally:
        for p in procs:
            p.kill()
            p.wait()
        shutil.rmtree(tmp)


def case_merge_of_short_runs_is_judged(mc):
    """Two hosts' 3 s runs (no -S): each document keeps 0.1 s periods (30), so their merge has
    the periods to judge steadiness and the percentiles' intervals as each run did; a 1 s
    period for each would leave the merge 'unknown (3 periods, ...)'."""
    tmp = tempfile.mkdtemp(prefix="slap-short-")
    try:
        at = "%.3f" % (time.time() + 1.5)
        procs = []
        for i in (1, 2):
            path = os.path.join(tmp, "h%d.json" % i)
            procs.append((path, subprocess.Popen(
                [PATHS.slap, "-s", mc.addr, "-t", "3s", "-c", "2", "-P", "2000", "--start_at", at,
                 "--label", "h%d" % i, "--json", path, "-q"], stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, text=True)))
        for path, p in procs:
            _, err = p.communicate(timeout=60)
            check(p.returncode == 0, "%s: %s" % (path, err))
            doc = json.load(open(path))
            ends = [q["elapsed_s"] for q in doc["periods"]]
            check(doc["period_s"] == 0.1 and len(ends) == 30 and ends[2] == 0.3,
                  "a 3 s run's document: period_s %r, %d periods ending %r"
                  % (doc["period_s"], len(ends), ends[:4]))
        r = merge([path for path, _ in procs])
        check(r.returncode == 0, "merge: %s" % r.stderr)
        batches = re.search(r"^percentile intervals: 95%, batch means of (\d+) batches", r.stdout,
                            re.M)
        steady = re.search(r"^steady: (.*)$", r.stdout, re.M)
        check(batches is not None and int(batches.group(1)) >= 20,
              "the merge's intervals: %r" % (batches and batches.group(0)))
        check(steady is not None and "periods," not in steady.group(1),
              "the merge could not judge steadiness: %r" % (steady and steady.group(0)))
    finally:
        shutil.rmtree(tmp)


@no_time
def case_merge_lists_old_hosts_figures():
    """Two files of schema 1 (a fixture of 1d77c31 and a copy under another label: no runs[]
    in them) merged: the merged runs[] holds each host's label, requests and errors, taken
    from each file, as a merge of today's files does from theirs."""
    fixture = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "results",
                           "1d77c31-run.json")
    tmp = tempfile.mkdtemp(prefix="slap-oldhosts-")
    try:
        doc = json.load(open(fixture))
        check("runs" not in doc and doc["schema"] == 1, "the fixture is no longer schema 1")
        other = os.path.join(tmp, "other.json")
        doc["label"] = "other-host"
        with open(other, "w") as f:
            json.dump(doc, f)
        merged = os.path.join(tmp, "m.json")
        r = merge([fixture, other], "--json", merged)
        check(r.returncode == 0, "merge: %d %s" % (r.returncode, r.stderr))
        runs = json.load(open(merged))["runs"]
        ops = doc["run"]["ops"]
        check([run["label"] for run in runs] == [json.load(open(fixture))["label"], "other-host"]
              and all(run["requests"] == ops and run["errors"] == 0 for run in runs),
              "the merged runs[] of two schema-1 files: %r (each file's ops %d)" % (runs, ops))
    finally:
        shutil.rmtree(tmp)
