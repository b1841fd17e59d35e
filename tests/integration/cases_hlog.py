"""--hlog: HdrHistogram's interval log, read by HdrHistogram's own reader (Debian's
libhdrhistogram-java, HistogramLogProcessor): the counts are slap's, the whole run's, each
period's and each type's percentiles are its JSON's within a bucket, and slap merge's log holds
the sum of its runs."""
import json
import math
import os
import re
import shutil
import subprocess
import tempfile
import time

from harness import Skip, check, no_time, run_slap

# Where Debian's libhdrhistogram-java puts its jar (the first found is used).
JARS = ("/usr/share/java/hdrhistogram.jar", "/usr/share/java/HdrHistogram.jar")
PROCESSOR = "org.HdrHistogram.HistogramLogProcessor"
PERCENTILES = ("50", "90", "99", "99.9")
HIST_MAX_NS = 3600 * 10**9


def bucket(ns):
    """slap's bucket of ns (base/hist.c): exact below 256, then 128 per power of two."""
    v = min(ns, HIST_MAX_NS)
    if v < 256:
        return v
    shift = v.bit_length() - 1 - 7
    return (shift + 1) * 128 + (v >> shift) - 128


def bucket_high(i):
    """The highest value of slap's bucket i (HdrHistogram's highest equivalent value)."""
    if i < 256:
        return i
    shift = (i >> 7) - 1
    return (((i & 127) + 128) << shift) + (1 << shift) - 1


def at_rank_values(hist, p):
    """What HdrHistogram gives for percentile p of slap's histogram (a JSON "hist"): the
    highest value of the bucket at rank ceil(p * n) (its newer versions) or round(p * n)
    (older ones), at least 1."""
    n = hist["count"]
    ranks = {max(1, math.ceil(p / 100.0 * n - 1e-9)), max(1, int(p / 100.0 * n + 0.5))}
    values, seen = set(), 0
    for index, count in hist["buckets"]:
        seen += count
        for r in list(ranks):
            if seen >= r:
                values.add(bucket_high(index))
                ranks.discard(r)
    return values


def reader():
    """java and the jar, or Skip saying which is missing."""
    java = shutil.which("java")
    if java is None:
        raise Skip("no java (Debian's default-jre-headless) to run HdrHistogram's reader")
    for jar in JARS:
        if os.path.isfile(jar):
            return java, jar
    raise Skip("no HdrHistogram jar (Debian's libhdrhistogram-java): none of %s" % ", ".join(JARS))


def process(tool, path, *args):
    """HistogramLogProcessor's CSV of the log at path (values in ns): one dict per interval
    line it prints, its columns by the header's names, numbers as floats."""
    java, jar = tool
    prefix = path + ".out%d" % int(time.monotonic() * 1e6)
    cmd = [java, "-cp", jar, PROCESSOR, "-i", path, "-csv", "-o", prefix,
           "-outputValueUnitRatio", "1"] + list(args)
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    check(r.returncode == 0, "%s: exit %d: %s" % (" ".join(cmd), r.returncode, r.stderr[-2000:]))
    with open(prefix) as f:
        lines = [line for line in f.read().splitlines() if line and not line.startswith("#")]
    check(len(lines) >= 2, "%s printed no interval: %r" % (" ".join(cmd), lines))
    names = [n.strip('"') for n in lines[0].split(",")]
    return [dict(zip(names, (float(x) for x in line.split(",")))) for line in lines[1:]]


def tags(tool, path):
    java, jar = tool
    r = subprocess.run([java, "-cp", jar, PROCESSOR, "-i", path, "-listtags"],
                       capture_output=True, text=True, timeout=120)
    check(r.returncode == 0, "-listtags: exit %d: %s" % (r.returncode, r.stderr[-2000:]))
    return r.stdout


def slap_ns(us):
    return int(round(us * 1000))


def agree(what, theirs_ns, ours_us):
    """The reader's value and slap's are in one bucket or neighbouring ones (the reader gives a
    bucket's highest value at rank round(p * n), slap its middle at rank ceil(p * n))."""
    a, b = bucket(int(theirs_ns)), bucket(slap_ns(ours_us))
    check(abs(a - b) <= 1, "%s: the reader says %d ns (bucket %d), slap %.3f us (bucket %d)"
          % (what, theirs_ns, a, ours_us, b))
    print("  %s: reader %.3f us, slap %.3f us" % (what, theirs_ns / 1000.0, ours_us))


def agree_total(what, row, figures):
    """The reader's Total_ columns against a JSON type's figures: its count, its percentiles
    within a bucket of slap's and exactly what HdrHistogram makes of slap's buckets (so a
    bucket written at the wrong index shows), its max in the bucket of slap's."""
    check(int(row["Total_Count"]) == figures["count"], "%s: the reader counts %d, slap %d"
          % (what, row["Total_Count"], figures["count"]))
    for p in PERCENTILES:
        theirs = row["Total_%s%%" % p]
        if figures["percentiles"][p] is not None:  # null: too few requests to estimate it
            agree("%s p%s" % (what, p), theirs, figures["percentiles"][p])
        want = at_rank_values(figures["hist"], float(p))
        check(int(theirs) in want, "%s p%s: the reader says %d ns, slap's buckets give %r"
              % (what, p, theirs, sorted(want)))
    agree("%s max" % what, row["Total_Max"], figures["max_us"])
    check(int(row["Total_Max"]) == bucket_high(bucket(figures["hist"]["max_ns"])),
          "%s max: the reader says %d ns, slap's max is %d ns" % (what, row["Total_Max"],
                                                                 figures["hist"]["max_ns"]))


def load(path):
    with open(path) as f:
        return json.load(f)


def run_logged(mc, d, name, extra=()):
    """A run of 3 periods of 1 s, gets and sets, with its JSON and its interval log."""
    j, h = os.path.join(d, name + ".json"), os.path.join(d, name + ".hlog")
    rc, out, err = run_slap(["-s", mc.addr, "-t", "3s", "-S", "1s", "-T", "1", "-c", "4",
                             "--ratio", "1:3", "--json", j, "--hlog", h] + list(extra))
    check(rc == 0, "exit status %d: %s" % (rc, err))
    return load(j), h


@no_time
def case_hlog_read_by_hdrhistogram(mc):
    """A run's log as HdrHistogram's reader takes it: its header, a line of all types and a
    Tag= line per type each period; the reader's whole-run count is the JSON's and its p50,
    p90, p99, p99.9 and max within a bucket of the JSON's; the period chosen with -start/-end
    is that period's; -tag get is the gets' alone and -tag set the sets'."""
    tool = reader()
    d = tempfile.mkdtemp(prefix="slap-hlog-")
    try:
        doc, h = run_logged(mc, d, "r")
        with open(h) as f:
            text = f.read()
        check(text.startswith("#[Histogram log format version 1.3]\n#[StartTime: %.3f "
                              % (doc["start_ms"] / 1000.0)), "the header: %r" % text[:200])
        check('\n"StartTimestamp","Interval_Length","Interval_Max",'
              '"Interval_Compressed_Histogram"\n' in text, "no legend: %r" % text[:400])
        untagged = re.findall(r"^([0-9.]+),([0-9.]+),[0-9.]+,HISTF", text, re.M)
        periods = doc["periods"]
        check(len(periods) == 3 and
              [float(s) for s, _ in untagged] == [p["elapsed_s"] - p["seconds"] for p in periods],
              "the intervals start at %r, the periods end at %r"
              % (untagged, [p["elapsed_s"] for p in periods]))
        for t in ("get", "set"):
            check(len(re.findall(r"^Tag=%s,[0-9.]+,[0-9.]+,[0-9.]+,HISTF" % t, text, re.M)) == 3,
                  "not a Tag=%s line per period" % t)
        listed = tags(tool, h)
        check("get" in listed.split() and "set" in listed.split(), "-listtags: %r" % listed)

        rows = process(tool, h)
        check(len(rows) == 3, "the reader read %d intervals, not 3" % len(rows))
        for row, p in zip(rows, periods):
            check(int(row["Int_Count"]) == p["types"]["total"]["count"],
                  "an interval counts %d, its period %d" % (row["Int_Count"],
                                                            p["types"]["total"]["count"]))
        agree_total("whole run", rows[-1], doc["types"]["total"])

        # the second period alone: it starts at 1 s
        one = process(tool, h, "-start", "0.5", "-end", "1.5")
        check(len(one) == 1, "-start 0.5 -end 1.5 read %d intervals" % len(one))
        agree_total("period 2", one[0], periods[1]["types"]["total"])
        agree("period 2 interval p50", one[0]["Int_50%"],
              periods[1]["types"]["total"]["percentiles"]["50"])

        for t in ("get", "set"):
            typed = process(tool, h, "-tag", t)
            agree_total("-tag " + t, typed[-1], doc["types"][t])
    finally:
        shutil.rmtree(d)


@no_time
def case_hlog_of_a_merge(mc):
    """slap merge of two runs' JSON writes a log the reader takes, whose count is the sum of
    the runs' and whose percentiles are the merged JSON's within a bucket."""
    tool = reader()
    d = tempfile.mkdtemp(prefix="slap-hlog-")
    try:
        docs = [run_logged(mc, d, "r%d" % i, ["--label", "host%d" % i])[0] for i in range(2)]
        m, mj = os.path.join(d, "m.hlog"), os.path.join(d, "m.json")
        rc, out, err = run_slap(["merge", os.path.join(d, "r0.json"), os.path.join(d, "r1.json"),
                                 "--hlog", m, "--json", mj])
        check(rc == 0, "merge: exit status %d: %s" % (rc, err))
        merged = load(mj)
        rows = process(tool, m)
        total = docs[0]["types"]["total"]["count"] + docs[1]["types"]["total"]["count"]
        check(int(rows[-1]["Total_Count"]) == total == merged["types"]["total"]["count"],
              "the merged log counts %d, the runs %d" % (rows[-1]["Total_Count"], total))
        agree_total("merged", rows[-1], merged["types"]["total"])
        gets = process(tool, m, "-tag", "get")
        check(int(gets[-1]["Total_Count"]) ==
              docs[0]["types"]["get"]["count"] + docs[1]["types"]["get"]["count"],
              "the merged gets: %d" % gets[-1]["Total_Count"])
    finally:
        shutil.rmtree(d)
