"""Rounds and comparisons: --rounds in the report and the JSON; slap compare --live against a
delay proxy and against the same server; results files compared one or several a side; the
refusals."""
import json
import os
import re
import tempfile
import time

from fakemc import FakeMemcached
from harness import (check, check_agree, counters, measured, DelayProxy, PATHS, run_slap)
from harness import TIMING_STATISTICS, no_time, release_only, set_aside, threads

# An open-loop rate both sides keep easily: latencies are the server's, not a queue's.
LOAD = ["-c", "4", "--tps", "2000"]


def tmpdir():
    return tempfile.mkdtemp(prefix="slap-compare-")


def run_json(addr, path, extra, load=LOAD):
    rc, out, err = run_slap(["-s", addr, "--json", path] + load + extra)
    check(rc == 0, "slap exit status %d: %s" % (rc, err))
    return out


def rows_of(out, block=0):
    """The table rows of a compare block (the first: 0), by figure name."""
    blocks = ("\n" + out).split("\nA = ")
    check(len(blocks) > block + 1, "no comparison block %d:\n%s" % (block, out))
    text = blocks[block + 1]
    rows = {}
    for line in text.splitlines():
        fields = line.split()
        if fields and re.match(r"^(tps|p[\d.]+)$", fields[0]) and len(fields) > 6:
            rows[fields[0]] = line
    return rows


# A 10 ms delay is above what a busy host adds by itself: with two CPU hogs per core, a
# direct run's p90 is a few ms of waiting for a CPU. -c 4 through the proxy gives about 400
# requests a second, so a round of 0.5 s holds the 100 requests a p90 needs.
LIVE = ["-T", "1", "-c", "4", "-t", "500ms", "--percentiles", "50,90"]


@threads
def case_compare_live_finds_a_delay(mc):
    """--live against memcached direct and through a proxy adding 10 ms: p50 significant in
    the paired rounds, --fail-if exits 1 and says which threshold, the JSON says the design;
    each round measures both sides in an order drawn from the seed (both orders appear)."""
    d = tmpdir()
    proxy = DelayProxy(mc.port, 0.010)
    table = os.path.join(d, "c.json")
    rc, out, err = run_slap(["compare", "--live", "--rounds", "6", "--seed", "3"] + LIVE +
                            ["direct=" + mc.addr, "proxied=" + proxy.addr,
                             "--fail-if", "p50>+5%", "--json", table], timeout=60)
    check(rc == 1, "compare --live exit status %d, not 1:\n%s%s" % (rc, out, err))
    rounds = re.findall(r"^round (\d)/6: (\w+) .*, then (\w+) ", out, re.M)
    check([r[0] for r in rounds] == ["1", "2", "3", "4", "5", "6"], "round lines: %r" % rounds)
    firsts = set(r[1] for r in rounds)
    check(firsts == {"direct", "proxied"}, "every round in one order (%r):\n%s" % (firsts, out))
    rows = rows_of(out)
    check(rows["p50"].rstrip().endswith("yes"), "p50 not significant:\n" + out)
    check("6 pairs of rounds" in out and "Wilcoxon" in out, "the method is not said:\n" + out)
    check("--fail-if p50" in err and "significant at 95%" in err,
          "stderr does not say which threshold: %r" % err)
    doc = json.load(open(table))
    check(doc["mode"] == "paired" and doc["judged"] is True, "JSON mode %r" % doc.get("mode"))
    p50 = doc["comparisons"][0]["figures"]["p50"]
    check(p50["significant"] is True and p50["diff_ci"][0] > 8000 and p50["achieved"] > 0.95,
          "JSON p50: %r" % p50)
    check(doc["runs"][1]["replicates"] == 6, "JSON runs: %r" % doc["runs"])


@release_only(TIMING_STATISTICS)
def case_compare_live_identical_not_significant(mc):
    """--live with both sides the same memcached: the gate of two thresholds passes (exit 0),
    every figure 'cannot tell', with what the rounds would have found. Identical sides are called significant at most 5% of the time per
    figure (docs/comparing.md: measured), so the case gets three tries to pass once; a compare that
    always found a difference fails all three."""
    found = []
    for _ in range(3):
        rc, out, err = run_slap(["compare", "--live", "--rounds", "8", "-T", "1", "-c", "8",
                                 "-t", "300ms", "A=" + mc.addr, "B=" + mc.addr,
                                 "--fail-if", "p50>+5%,tps<-5%"], timeout=60)
        check(rc in (0, 1), "exit status %d: %s" % (rc, err))
        rows = rows_of(out)
        if rc == 0 and all(rows[n].rstrip().endswith("cannot tell") for n in ("tps", "p50")):
            check("8 pairs of rounds" in out, "the design is not said:\n" + out)
            # what the rounds could have found is said, and that chance over five figures
            # and rounds of 0.3 s are named
            check(re.search(r"^\* p50: no change found at 8 pairs of rounds; one of \+-[0-9.]+ us"
                            r" \(\+-[0-9.]+%\) would have been found", out, re.M),
                  "what could have been found is not said:\n" + out)
            check(re.search(r"^together: 5 figures judged at 95% each: .* up to 25% of", out,
                            re.M), "chance over five figures is not said:\n" + out)
            check(re.search(r"^short: rounds of 0\.[0-9]+ s: connections opening", out, re.M),
                  "rounds of 0.3 s not named short:\n" + out)
            return
        found.append("exit status %d:\n%s%s" % (rc, out, err))
        set_aside("a server compared with itself: exit status %d, a figure not 'cannot tell'"
                  % rc)
    check(False, "three comparisons of a server with itself found a difference:\n" +
          "\n".join(found))


@threads
def case_compare_live_rounds_take_latency_apart(mc):
    """An open loop's round lines give its parts' own P99 (slap late to send, held by the
    server) beside the round's P99, each no more than the P99 it is a part of; a closed loop's
    give none, and rounds of different lengths are said side by side."""
    rc, out, err = run_slap(["compare", "--live", "--rounds", "6", "-T", "1", "-c", "4",
                             "-P", "2000", "-t", "300ms", "A=" + mc.addr, "B=" + mc.addr],
                            timeout=60)
    check(rc == 0, "exit status %d: %s" % (rc, err))
    sides = re.findall(r"(?:: |, then )(\w+) \d+ ops/s, p99 (\d+) us \(p99 of slap late to send "
                       r"(\d+) us, of held (\d+) us\)", out)
    check(len(sides) == 12, "not every round's side gives its parts (%d of 12):\n%s" %
          (len(sides), out))
    for name, p99, late, held in sides:
        check(int(late) <= int(p99) + 1 and int(held) <= int(p99) + 1,
              "a part above its P99 (%s: p99 %s, late %s, held %s):\n%s" %
              (name, p99, late, held, out))
    rc, out, err = run_slap(["compare", "--live", "--rounds", "6", "-T", "1", "-c", "4",
                             "A=" + mc.addr + " -x 2000", "B=" + mc.addr + " -t 200ms"],
                            timeout=60)
    check(rc == 0 and "round 6/6" in out and "slap late to send" not in out,
          "a closed loop's rounds: exit %d\n%s" % (rc, out))
    # rounds of different lengths (-x on one side): each side's line says its own
    check("6 rounds of each side (their lengths differ: below)" in out and
          re.search(r"^A: .* \(a round: 2000 requests, or [0-9.]+s if that comes first\)$",
                    out, re.M) and
          re.search(r"^B: .* \(a round: 0\.2s\)$", out, re.M),
          "the header does not give each side's round:\n" + out)
    # a side's -x never makes a round longer than -t (-x 1g ran for hours)
    began = time.time()
    rc, out, err = run_slap(["compare", "--live", "--rounds", "2", "-T", "1", "-c", "1",
                             "-t", "300ms", "A=" + mc.addr + " -x 1g", "B=" + mc.addr],
                            timeout=60)
    took = time.time() - began
    check(rc == 0 and "round 2/2" in out and took < 20,
          "a side's -x 1g with -t 300ms: exit %d after %.1f s\n%s%s" % (rc, took, out, err))


@threads
def case_compare_live_keeps_rounds_done(mc):
    """A side whose server dies during the rounds: the rounds every side completed are still
    compared (their table printed), the round line says which side failed, a last line says
    why the rounds stopped, and the exit status is 1. A side over UDP against a server without
    it gets the hint a plain run gives."""
    import threading
    from harness import Memcached
    other = Memcached()
    timer = threading.Timer(3.0, other.stop)
    timer.start()
    try:
        rc, out, err = run_slap(["compare", "--live", "--rounds", "40", "-T", "1", "-c", "2",
                                 "-t", "300ms", "A=" + mc.addr, "B=" + other.addr], timeout=90)
    finally:
        timer.cancel()
        other.stop()
    stopped = re.search(r"^stopped: side B failed in round (\d+) of 40 \(its message above\): "
                        r"the table holds the rounds every side completed$", out, re.M)
    check(rc == 1 and stopped is not None, "exit %d, no 'stopped' line:\n%s%s" % (rc, out, err))
    done = int(stopped.group(1)) - 1
    check(re.search(r"^round %d/40:.*\bB failed$" % (done + 1), out, re.M),
          "the round line does not say B failed:\n" + out)
    check("A = A (%d rounds)" % done in out and "B = B (%d rounds)" % done in out,
          "no table of the %d rounds done:\n%s" % (done, out))
    check("slap compare: side B, round %d:" % (done + 1) in err,
          "the failing side's message is missing: %r" % err)
    # a side over UDP against a server without it: the hint a plain run gives
    rc, out, err = run_slap(["compare", "--live", "--rounds", "6", "-T", "1", "-c", "2",
                             "-t", "300ms", "A=" + mc.addr, "B=" + mc.addr + " -U"], timeout=60)
    check(rc == 1 and "nothing answered over UDP; is the server started with UDP" in err and
          re.search(r"^stopped: side B failed in round 1 of 6 \(its message above\)$", out,
                    re.M), "a UDP side without UDP: exit %d\n%s%s" % (rc, out, err))


@no_time
def case_compare_live_refusals(mc):
    """What --live cannot do is refused before any round runs (exit 2, the reason named)."""
    base = ["compare", "--live", "-t", "300ms", "A=" + mc.addr]
    cases = [
        (["B=" + mc.addr, "--fail-if", "p95>+5%"], "p95 is not a figure of every side"),
        (["B=" + mc.addr, "--rounds", "6", "--fail-if", "p50>+5%,tps<-5%"],
         "need 7 rounds a side at least, not 6"),
        (["B=" + mc.addr + " -S 1s"], "--live cannot take -S"),
        (["B=" + mc.addr + " --ramp=1k:2k/1s"], "--live cannot take --ramp"),
        (["B=--json x.json"], "--live cannot take --json"),
        ([], "--live needs two sides or more"),
        (["A=" + mc.addr], "two sides have one name"),
        (["B=" + mc.addr, "--rounds", "1"], "--rounds needs 2 to 256"),
        (["B=" + mc.addr + " --no_such_option"], "side B: its options"),
        (["B=" + mc.addr + ",--distribution=ketama"],
         "an option after a comma is taken for a server: separate options from the list"),
    ]
    for extra, said in cases:
        rc, out, err = run_slap(base + extra, timeout=10)
        check(rc == 2 and said in err, "%r: exit %d, %r" % (extra, rc, err))
        check("round 1/" not in out, "%r ran rounds before refusing:\n%s" % (extra, out))


def case_compare_files_by_design(mc):
    """Results files: one a side is shown, not judged, and --fail-if on it exits 2; several a
    side (a comma list or a quoted glob), made alternately, find a 10 ms delay by ranks and say
    so; runs made one side after the other are warned of; a figure the runs lack exits 2 and
    is named; sides that differ in workload are compared and the difference said, while merge
    still refuses them."""
    d = tmpdir()
    proxy = DelayProxy(mc.port, 0.010)
    load = ["-T", "1", "-c", "4", "--percentiles", "50,90"]
    direct, slowed = [], []
    for k in range(4):  # alternately: direct, proxied, proxied, direct, ...
        pair = [(mc.addr, direct, "d"), (proxy.addr, slowed, "s")]
        for addr, files, name in (pair if k % 2 == 0 else pair[::-1]):
            path = os.path.join(d, "%s-%d.json" % (name, k))
            run_json(addr, path, ["-t", "500ms", "-q"], load)
            files.append(path)
    # one run a side: shown, not judged
    rc, out, err = run_slap(["compare", direct[0], slowed[0]])
    check(rc == 0 and "not judged" in out and "one run: intervals within it" in out,
          "one run a side: %d\n%s%s" % (rc, out, err))
    check(all(r.rstrip().endswith("not judged") for r in rows_of(out).values()),
          "a row judged with one run a side:\n" + out)
    rc, out, err = run_slap(["compare", direct[0], slowed[0], "--fail-if", "p50>+5%"])
    check(rc == 2 and "cannot be judged from one run a side" in err,
          "--fail-if on one run a side: %d %r" % (rc, err))
    # several a side: judged
    rc, out, err = run_slap(["compare", ",".join(direct), os.path.join(d, "s-*.json"),
                             "--fail-if", "p50>+5%"])
    check(rc == 1, "replicates: exit status %d:\n%s%s" % (rc, out, err))
    check("(4 runs)" in out and "Mann-Whitney" in out, "the design is not said:\n" + out)
    check(rows_of(out)["p50"].rstrip().endswith("yes"), "p50 not significant:\n" + out)
    check("made before those of the other" not in out, "alternate runs warned of:\n" + out)
    # a figure the runs lack
    rc, out, err = run_slap(["compare", ",".join(direct), ",".join(slowed),
                             "--fail-if", "p95>+5%"])
    check(rc == 2 and "p95 is not a figure of every run" in err,
          "a missing figure: %d %r" % (rc, err))
    # one side's runs all before the other's: said
    late = []
    for k in range(4):
        path = os.path.join(d, "late-%d.json" % k)
        run_json(mc.addr, path, ["-t", "300ms", "-q"], load)
        late.append(path)
    rc, out, err = run_slap(["compare", ",".join(direct), ",".join(late)])
    check(rc == 0 and "not judged: the runs of one side were all made before" in out,
          "runs made apart not said: %d\n%s%s" % (rc, out, err))
    check(all(r.rstrip().endswith("not judged") for r in rows_of(out).values()),
          "runs made apart judged:\n" + out)
    rc, out, err = run_slap(["compare", ",".join(direct), ",".join(late), "--fail-if", "tps<-5%"])
    check(rc == 2 and "made before those of the other" in err,
          "a gate on runs made apart: %d %r" % (rc, err))
    # text against binary: compared, the difference said; merge refuses them
    binary = os.path.join(d, "udp.json")
    run_json(mc.addr, binary, ["-t", "300ms", "-q", "-B"], load)
    rc, out, err = run_slap(["compare", direct[0], binary])
    check(rc == 0 and "B differs from A in: --protocol (ascii in A, binary in B)" in out,
          "text against binary: %d\n%s%s" % (rc, out, err))
    rc, _, err = run_slap(["merge", direct[0], binary, "--json", os.path.join(d, "m.json")])
    check(rc == 2 and "the workloads differ: --protocol" in err,
          "merge of text and binary: %d %r" % (rc, err))


@no_time
def case_compare_refusals(mc):
    """Bad thresholds, unreadable files, sweeps, a side whose runs differ: exit 2."""
    d = tmpdir()
    a, b = os.path.join(d, "a.json"), os.path.join(d, "b.json")
    for path, size in ((a, "64"), (b, "128")):
        rc, _, err = run_slap(["-s", mc.addr, "-x", "400", "-c", "2", "-q", "--key_size", size,
                               "--json", path])
        check(rc == 0, "slap exit status %d: %s" % (rc, err))
    rc, out, err = run_slap(["compare", a, b])
    check(rc == 0 and "B differs from A in: --key_size (64 in A, 128 in B)" in out,
          "differing sides: %d %r" % (rc, out))
    rc, out, err = run_slap(["compare", a + "," + b, a + "," + a])
    check(rc == 2 and "are not one workload: the workloads differ: --key_size" in err,
          "a side whose runs differ: %d %r" % (rc, err))
    rc, _, err = run_slap(["compare", a, a, "--fail-if", "p99>5%"])
    check(rc == 2 and "sign" in err, "a threshold without its sign: %d %r" % (rc, err))
    check(err.startswith("slap compare: --fail-if 'p99>5%': the change needs its sign") and
          "''" not in err, "the rule quoted once: %r" % err)
    rc, _, err = run_slap(["compare", a])
    check(rc == 2, "one file: %d %r" % (rc, err))
    rc, _, err = run_slap(["compare", a, os.path.join(d, "missing.json")])
    check(rc == 2 and "missing.json" in err, "a missing file: %d %r" % (rc, err))
    rc, _, err = run_slap(["compare", a, os.path.join(d, "none-*.json")])
    check(rc == 2 and "no results file matches" in err, "a glob matching nothing: %d %r" %
          (rc, err))
    rc, _, err = run_slap(["compare", a, b, "--rounds", "3"])
    check(rc == 2 and "goes with --live" in err, "--rounds without --live: %d %r" % (rc, err))
    rc, out, _ = run_slap(["compare", "--help"])
    check(rc == 0 and "--live" in out and "--fail-if" in out, "compare --help: %d" % rc)
    rc, _, err = run_slap(["-s", mc.addr, "-x", "100", "--rounds", "2"])
    check(rc == 2 and "--rounds" in err, "--rounds with -x: %d %r" % (rc, err))
    rc, _, err = run_slap(["-s", mc.addr, "-t", "1s", "--rounds", "2", "--precision", "p99=5%"])
    check(rc == 2 and "--precision cannot be used with --rounds" in err,
          "--rounds with --precision: %d %r" % (rc, err))


def case_rounds_flawed_left_out(mc):
    """--rounds: a round cut short by a signal, the round where a server stalled for good and
    those after it, are each marked on their line and left out of the figures over the rounds
    (a round with no answers has no percentiles); fewer than two rounds left have no
    spread; slap compare of such a file leaves them out too. Requests never answered are in
    no latency (a round without answers has none in the JSON) and the run gets no verdict."""
    d = tmpdir()
    path, cmp_path = os.path.join(d, "cut.json"), os.path.join(d, "c.json")
    rc, out, err = run_slap(["-s", mc.addr, "-t", "1s", "-c", "4", "--rounds", "3",
                             "--json", path], interrupt_after=1.5, timeout=30)
    # the signal lands in round 2, or in round 1 when slap started late on a busy host
    lines = re.findall(r"^round \d+: .*$", out, re.M)
    m = re.search(r"\(cut short: ([\d.]+) s of 1 s: left out below\)$", lines[-1] if lines else "")
    check(m is not None and float(m.group(1)) < 0.9, "the last round cut short, unmarked:\n" + out)
    check(all(re.match(r"^round \d+: \d+ ops/s, p50 [\d.]+ us, .*us$", l) for l in lines[:-1]),
          "the rounds before it are whole:\n" + out)
    whole = len(lines) - 1
    spread = "%d round%s to judge, no spread" % (whole, "" if whole == 1 else "s")
    check("rounds tps: " + spread in out and "rounds p50: " + spread in out,
          "the spread of %d whole round%s:\n%s" % (whole, "" if whole == 1 else "s", out))
    # slap compare of that file leaves the cut round out too: one whole round is no batches,
    # so its intervals come from the periods
    rc, out, err = run_slap(["compare", path, path, "--json", cmp_path])
    check(rc == 0, "compare: exit %d: %s" % (rc, err))
    runs = json.load(open(cmp_path))["runs"]
    check(all(r["intervals_from"] == "periods" for r in runs), "compare's batches: %r" % runs)
    start = []

    def behave(conn_no, req_no):
        start.append(time.time())
        return "stall" if time.time() - start[0] > 1.3 else None
    fake = FakeMemcached(behave=behave)
    stalled = os.path.join(d, "stalled.json")
    try:
        rc, out, err = run_slap(["-s", fake.addr, "-t", "1s", "-c", "2", "-T", "1",
                                 "--rounds", "3", "--json", stalled], timeout=30)
    finally:
        fake.stop()
    # the requests never answered are in no latency, in any output: round 3 (none answered)
    # has no percentiles in the JSON, the steadiness does not read the waits as a median that
    # rose, and the run gets no verdict about slap (it measured a server that stopped)
    doc = json.load(open(stalled))
    third = doc["rounds"][2]["types"]["total"]
    check(third["count"] == 0 and all(v is None for v in third["percentiles"].values()),
          "round 3, no answers, has latencies: %r" % third)
    check(doc["types"]["total"]["count"] == doc["run"]["ops"],
          "the run's latency counts %d, its answers %d" % (doc["types"]["total"]["count"],
                                                          doc["run"]["ops"]))
    # (a rate that fell to nothing is a true "no"; a median that rose by the waits is not)
    check(not re.search(r"^steady: no \(the median latency", out, re.M),
          "steady judged the waits:\n" + out)
    check(re.search(r"^limited_by: unknown \(the server left \d+ of the \d+ requests due "
                    r"unanswered(, [^:]* at the end)?: it stopped answering", out,
                    re.M),
          "a run whose server stopped answering got a verdict:\n" + out)
    check(re.search(r"^round 1: \d+ ops/s, p50 [\d.]+ us, .*us$", out, re.M),
          "round 1 is whole:\n" + out)
    m = re.search(r"^round 2: \d+ ops/s, p50 .* \(the server stopped answering ([\d.]+) s in: "
                  r"left out below\)$", out, re.M)
    check(m is not None and 0.1 <= float(m.group(1)) <= 0.7,
          "round 2, where the server stopped answering 0.3 s in:\n" + out)
    check(re.search(r"^round 3: 0 ops/s \(no answers: left out below\)$", out, re.M),
          "round 3 had no answers:\n" + out)
    check("rounds tps: 1 round to judge, no spread" in out and
          not re.search(r"^rounds p50: .*\d{6,}\.\d us", out, re.M),
          "the rounds' figures left out the stalled and empty rounds:\n" + out)
    check(rc == 1, "a server that stopped answering: exit %d" % rc)


@no_time
def case_rounds_counted(mc):
    """--rounds 3: three round lines, three rounds in the JSON adding up to the run, and slap's
    counters still the server's."""
    d = tmpdir()
    path = os.path.join(d, "r.json")
    rc, out, err, delta, _ = measured([mc], ["-s", mc.addr, "-t", "1s", "--rounds", "3",
                                             "--json", path] + LOAD)
    check(rc == 0, "exit status %d: %s" % (rc, err))
    check_agree(counters(out), delta)
    lines = re.findall(r"^round (\d+): (\d+) ops/s, p50 ", out, re.M)
    check([n for n, _ in lines] == ["1", "2", "3"], "round lines: %r" % lines)
    check(re.search(r"^rounds p99: mean .* 95% interval \[", out, re.M), "no spread:\n" + out)
    doc = json.load(open(path))
    rounds = doc["rounds"]
    check(len(rounds) == 3, "%d rounds in the JSON" % len(rounds))
    total = sum(r["types"]["total"]["count"] for r in rounds)
    check(total == doc["types"]["total"]["count"], "rounds count %d, the run %d" %
          (total, doc["types"]["total"]["count"]))
    for c in ("cmd_get", "cmd_set"):
        check(sum(r["counters"][c] for r in rounds) == doc["counters"][c], c + " differs")
    check(all(0.9 < r["seconds"] < 1.1 for r in rounds), "round lengths %r" %
          [r["seconds"] for r in rounds])
    # slap merge adds round k of each host into round k, as long as the longer host's; hosts
    # with different numbers of rounds merge without rounds (compare takes the periods)
    other, merged = os.path.join(d, "r2.json"), os.path.join(d, "m.json")
    run_json(mc.addr, other, ["-t", "1s", "--rounds", "3", "-q"])
    rc, out, err = run_slap(["merge", path, other, "--json", merged])
    check(rc == 0, "merge exit status %d: %s" % (rc, err))
    two = json.load(open(other))["rounds"]
    got = json.load(open(merged)).get("rounds", [])
    check(len(got) == 3, "%d merged rounds" % len(got))
    for k in range(3):
        check(got[k]["types"]["total"]["count"] ==
              rounds[k]["types"]["total"]["count"] + two[k]["types"]["total"]["count"],
              "merged round %d's count" % k)
        check(got[k]["counters"]["cmd_get"] ==
              rounds[k]["counters"]["cmd_get"] + two[k]["counters"]["cmd_get"],
              "merged round %d's gets" % k)
        check(got[k]["seconds"] == max(rounds[k]["seconds"], two[k]["seconds"]),
              "merged round %d lasts %r" % (k, got[k]["seconds"]))
    run_json(mc.addr, other, ["-t", "1s", "--rounds", "2", "-q"])
    rc, out, err = run_slap(["merge", path, other, "--json", merged])
    if rc == 0:
        check("rounds" not in json.load(open(merged)), "3 rounds and 2 merged into rounds")
