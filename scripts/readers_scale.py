#!/usr/bin/env python3
"""How the results readers' cost grows with their input, one dimension at a time: a benchmark,
not a test (docs/faults.md: results files from other hosts).

For each dimension below, a valid results file (made from the committed fixture
tests/fixtures/results/81896e4-run.json, schema 3) is grown to sizes N, 4N and 16N in that
dimension alone, and read by `slap merge` (or compare, or plot) under valgrind's callgrind,
whose instruction counts repeat where timings do not. The growth exponent

    log4((Ir(16N) - Ir(4N)) / (Ir(4N) - Ir(N)))

is 1 for a reader linear in that dimension and 2 for a quadratic one (the fixed cost of
starting slap and reading the rest of the file cancels). The script prints a line per
dimension and exits 1 when one exceeds --limit (1.25: N log N from a sort stays under it).

  periods     periods of a run (merge: read twice, a period at a time)
  periods-cmp the same, read whole by slap compare (neighbouring periods joined past 2000)
  rounds      --rounds' rounds (config.rounds follows)
  steps       a sweep's steps
  runs        the runs a merged file holds, in each of two files merged
  servers     the servers' entries (and limits' servers) of each of two files merged
  probes      a merged file's probes
  files       files merged, each a host's run (distinct pids)
  shares      files merged, each a --share part I/N of N = the number of files
  buckets     the histogram buckets of a period's types (up to 4608, the histogram's)
  members     members of a period object unknown to slap (a newer slap's fields)
  duplicate   the same, the last one's name given twice (refused: exit 2)
  whitespace  spaces between a period's tokens
  escapes     \\u00e9 escapes in a string member
  string      bytes of a string member
  digits      digits of a number (seconds: 1.000...)
  config      servers in config.servers (one host, many ports)

Usage: scripts/readers_scale.py [--slap build/slap] [--only DIM,...] [--scale K]
                                [--limit 1.25] [--keep DIR]
--scale multiplies every dimension's N (default 1: about a minute for all of them on a
2-core host). Needs valgrind.
"""
import argparse
import copy
import json
import math
import os
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(TOP, "tests", "fixtures", "results")


def load_base(kind="run"):
    """The fixture of that kind, every histogram's counts in its first bucket (one_bucket), so
    that what grows is what is measured."""
    with open(os.path.join(FIXTURES, "81896e4-%s.json" % kind)) as f:
        return trim(json.load(f))


def trim(v):
    if isinstance(v, dict):
        if "buckets" in v and "count" in v:
            return one_bucket(v)
        return {k: trim(x) for k, x in v.items()}
    if isinstance(v, list):
        return [trim(x) for x in v]
    return v


def dump(doc, path):
    with open(path, "w") as f:
        f.write(text_of(doc))


def text_of(doc):
    """Compact, a period a line: the readers' work is in the values, not the layout."""
    periods = doc.get("periods") or []
    head = dict(doc, periods=[])
    text = json.dumps(head, separators=(",", ":"))
    lines = ",\n".join(json.dumps(p, separators=(",", ":")) for p in periods)
    return text.replace('"periods":[]', '"periods":[\n' + lines + "]", 1) + "\n"


def one_bucket(h):
    """h with its count in its first bucket (and log2 bucket): within its min and max, as
    hist.h holds, and its sums still count latencies from min to max; a short text."""
    h = copy.deepcopy(h)
    h["buckets"] = [[h["buckets"][0][0], h["count"]]] if h["count"] else []
    if "log2_us" in h:
        h["log2_us"] = [[h["log2_us"][0][0], h["count"]]] if h["count"] else []
    return h


def scale_hist(h, k):
    """A histogram of k times h's latencies (each bucket k times as full)."""
    h = copy.deepcopy(h)
    h["count"] *= k
    for name in ("sum_us", "sumsq_us", "sumlog_us"):
        h[name] *= k
    h["buckets"] = [[i, c * k] for i, c in h["buckets"]]
    if "log2_us" in h:
        h["log2_us"] = [[i, c * k] for i, c in h["log2_us"]]
    return h


def with_periods(doc, n):
    """doc's two periods repeated to n (n even), the run's types scaled to hold them all."""
    doc = copy.deepcopy(doc)
    two = doc["periods"]
    assert len(two) == 2 and n % 2 == 0
    periods = []
    for i in range(n):
        p = copy.deepcopy(two[i % 2])
        p["elapsed_s"] = float(i + 1)
        periods.append(p)
    doc["periods"] = periods
    k = n // 2
    for t in doc["types"].values():
        t["hist"] = scale_hist(t["hist"], k)
    doc["seconds"] = float(n)
    return doc


def with_pid(doc, pid):
    doc = copy.deepcopy(doc)
    for r in doc["runs"]:
        r["pid"] = pid
    return doc


# ---- the dimensions: each makes the input files of size n in dir, and says the command ------



def merge_of(d, name, text):
    """slap merge's command line for text written to d/name."""
    path = os.path.join(d, name)
    with open(path, "w") as f:
        f.write(text)
    return ["merge", path]

def dim_periods(base, n, d):
    path = os.path.join(d, "p.json")
    dump(with_periods(base, n), path)
    return ["merge", path]


def dim_periods_cmp(base, n, d):
    a, b = os.path.join(d, "a.json"), os.path.join(d, "b.json")
    doc = with_periods(base, n)
    dump(doc, a)
    dump(with_pid(doc, 7), b)
    return ["compare", a, b]


def dim_rounds(base, n, d):
    base = load_base("rounds")  # two rounds of a period each
    doc = with_periods(base, n)
    rounds = []
    for i in range(n):
        r = copy.deepcopy(base["rounds"][i % 2])
        r["round"] = i + 1
        r["elapsed_s"] = float(i + 1)
        rounds.append(r)
    doc["rounds"] = rounds
    doc["config"]["rounds"] = n
    path = os.path.join(d, "r.json")
    dump(doc, path)
    return ["merge", path]


def dim_steps(base, n, d):
    base = load_base("sweep")  # two steps
    doc = copy.deepcopy(base)
    steps = []
    for i in range(n):
        s = copy.deepcopy(base["steps"][i % 2])
        s["target_tps"] = 300.0 * (i + 1)
        steps.append(s)
    doc["steps"] = steps
    doc["config"]["sweep"] = "300:%d:300" % (300 * n)
    path = os.path.join(d, "s.json")
    dump(doc, path)
    return ["merge", path]


def two_files(doc, d):
    a, b = os.path.join(d, "a.json"), os.path.join(d, "b.json")
    dump(doc, a)
    other = copy.deepcopy(doc)
    for r in other["runs"]:
        r["pid"] += 1000000
    dump(other, b)
    return ["merge", a, b]


def dim_runs(base, n, d):
    doc = copy.deepcopy(base)
    run = doc["runs"][0]
    doc["runs"] = []
    for i in range(n):
        r = dict(run)
        r["pid"] = i + 1
        r["host"] = "h%d" % i
        doc["runs"].append(r)
    return two_files(doc, d)


def dim_servers(base, n, d):
    doc = copy.deepcopy(base)
    srv, lim = doc["servers"][0], doc["limits"]["servers"][0]
    doc["servers"] = [dict(srv, name="127.0.0.1:%d" % (1000 + i)) for i in range(n)]
    doc["limits"]["servers"] = [dict(lim, name="127.0.0.1:%d" % (1000 + i)) for i in range(n)]
    return two_files(doc, d)


def dim_probes(base, n, d):
    doc = copy.deepcopy(base)
    probe = {"label": "probe", "requests": 100, "tps": 50, "p50_us": 40, "p99_us": 80,
             "p99.9_us": 90, "max_us": 100}
    doc["probes"] = [dict(probe, label="probe%d" % i) for i in range(n)]
    return two_files(doc, d)


def hosts(base, n, d, share=False):
    """slap merge of n files of one run each, from hosts h0 .. h(n-1) (with share: as the
    parts 1/n .. n/n of one --share run)."""
    paths = []
    for i in range(n):
        path = os.path.join(d, "f%d.json" % i)
        doc = with_pid(base, i + 1)
        doc["runs"][0]["host"] = "h%d" % i
        if share:
            doc["config"]["share"] = "%d/%d" % (i + 1, n)
        dump(doc, path)
        paths.append(path)
    return ["merge"] + paths


def dim_files(base, n, d):
    return hosts(base, n, d)


def dim_shares(base, n, d):
    return hosts(base, n, d, share=True)


def dim_buckets(base, n, d):
    doc = with_periods(base, 2)
    for p in doc["periods"]:
        for t in p["types"].values():
            h = t["hist"]
            c = h["count"]
            # n buckets from index 1000 (about 4.5 us) up, the count spread over them
            idx = list(range(1000, 1000 + n))
            counts = [c // n + (1 if i < c % n else 0) for i in range(n)]
            h["buckets"] = [[i, k] for i, k in zip(idx, counts) if k > 0]
            h["min_ns"] = 1
            h["max_ns"] = 3600 * 10**9
            h["sum_us"] = h["sumsq_us"] = float(c)
            h.pop("log2_us", None)
    # the run's types: its own counts unchanged (only the periods' buckets grow)
    for name, t in doc["types"].items():
        h = t["hist"]
        h["min_ns"], h["max_ns"] = 1, 3600 * 10**9
    path = os.path.join(d, "b.json")
    dump(doc, path)
    return ["merge", path]


def dim_members(base, n, d):
    doc = with_periods(base, 2)
    for p in doc["periods"]:
        for i in range(n):
            p["x%d" % i] = i
    path = os.path.join(d, "m.json")
    dump(doc, path)
    return ["merge", path]


def dim_duplicate(base, n, d):
    """n members, the last one's name given before: refused (exit 2) once it is found."""
    doc = with_periods(base, 2)
    p = doc["periods"][0]
    for i in range(n):
        p["x%d" % i] = i
    text = text_of(doc).replace('"x%d":' % (n - 1), '"x0":', 1)
    return merge_of(d, "m.json", text)


def dim_whitespace(base, n, d):
    doc = with_periods(base, 2)
    text = text_of(doc)
    pad = " " * n
    text = text.replace('"elapsed_s":', '"elapsed_s":' + pad)  # in each period
    return merge_of(d, "w.json", text)


def dim_escapes(base, n, d):
    doc = with_periods(base, 2)
    text = text_of(doc)
    text = text.replace('"tool":"slap 0.1.0"', '"tool":"slap ' + "\\u00e9" * n + '"')
    return merge_of(d, "e.json", text)


def dim_string(base, n, d):
    doc = with_periods(base, 2)
    doc["tool"] = "slap " + "x" * n
    path = os.path.join(d, "t.json")
    dump(doc, path)
    return ["merge", path]


def dim_digits(base, n, d):
    doc = with_periods(base, 2)
    text = text_of(doc)
    text = text.replace('"seconds":2.0,', '"seconds":2.' + "0" * n + "1,", 1)
    return merge_of(d, "n.json", text)


def dim_config(base, n, d):
    doc = with_periods(base, 2)
    servers = ",".join("127.0.0.1:%d" % (1024 + i) for i in range(n))
    doc["config"]["servers"] = servers
    path = os.path.join(d, "c.json")
    dump(doc, path)
    return ["merge", path]


# name: (builder, N)
DIMENSIONS = {
    "periods": (dim_periods, 100),
    "periods-cmp": (dim_periods_cmp, 100),
    "rounds": (dim_rounds, 50),
    "steps": (dim_steps, 50),
    "runs": (dim_runs, 1000),
    "servers": (dim_servers, 100),
    "probes": (dim_probes, 250),
    "files": (dim_files, 8),
    "shares": (dim_shares, 8),
    "buckets": (dim_buckets, 200),
    "members": (dim_members, 250),
    "duplicate": (dim_duplicate, 250),
    "whitespace": (dim_whitespace, 20000),
    "escapes": (dim_escapes, 10000),
    "string": (dim_string, 50000),
    "digits": (dim_digits, 20000),
    "config": (dim_config, 100),
}


# The exit status each dimension's inputs give (0 unless said here).
STATUS = {"duplicate": 2}


def instructions(slap, name, args, work, tag, within=None):
    """slap's instructions running args (only those within the function named, and what it
    calls, when within is given)."""
    out = os.path.join(work, "cg." + tag)
    cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out]
    cmd += ["--collect-atstart=no", "--toggle-collect=" + within] if within else []
    cmd += [slap] + args
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                       timeout=900)
    if p.returncode != STATUS.get(name, 0):
        tail = "\n".join(line for line in p.stderr.splitlines() if not line.startswith("=="))
        raise SystemExit("%s exited %d: %s" % (" ".join(args[:1]), p.returncode, tail[-600:]))
    with open(out) as f:
        for line in f:
            if line.startswith(("summary:", "totals:")):
                return int(line.split()[1])
    raise SystemExit("no totals in " + out)


def measure(slap, name, n, work, factor=4, within=None):
    """Instructions at sizes n, factor n and factor^2 n of dimension name (within a function,
    as instructions()), and the exponent."""
    build = DIMENSIONS[name][0]
    base = load_base()
    ir = []
    for k in (1, factor, factor * factor):
        d = os.path.join(work, "%s-%d" % (name, k))
        os.makedirs(d, exist_ok=True)
        args = build(base, n * k, d)
        ir.append(instructions(slap, name, args, d, str(k), within))
    a, b = ir[1] - ir[0], ir[2] - ir[1]
    exponent = math.log(b / a, factor) if a > 0 and b > 0 else float("nan")
    return ir, exponent


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--slap", default=os.path.join(TOP, "build", "slap"))
    ap.add_argument("--only", default="", help="dimensions, comma-separated")
    ap.add_argument("--scale", type=int, default=1)
    ap.add_argument("--limit", type=float, default=1.25)
    ap.add_argument("--keep", default=None, help="keep the inputs and callgrind files here")
    a = ap.parse_args()
    names = [x for x in a.only.split(",") if x] or list(DIMENSIONS)
    for name in names:
        if name not in DIMENSIONS:
            raise SystemExit("unknown dimension %r: %s" % (name, ", ".join(DIMENSIONS)))
    work = a.keep or tempfile.mkdtemp(prefix="readers-scale-")
    over = []
    print("%-12s %8s %14s %14s %14s %9s" % ("dimension", "N", "Ir(N)", "Ir(4N)", "Ir(16N)",
                                           "exponent"))
    for name in names:
        n = DIMENSIONS[name][1] * a.scale
        ir, e = measure(a.slap, name, n, work)
        flag = "" if e <= a.limit else "  superlinear"
        print("%-12s %8d %14d %14d %14d %9.2f%s" % (name, n, ir[0], ir[1], ir[2], e, flag),
              flush=True)
        if not e <= a.limit:
            over.append(name)
    if a.keep is None:
        subprocess.run(["rm", "-rf", work])
    if over:
        print("above %.2f: %s" % (a.limit, ", ".join(over)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
