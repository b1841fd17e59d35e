"""Traces without a server: `slap trace-stats` against what scripts/trace-gen.py wrote, computed
again here from the file itself; malformed lines; zstd, plain and standard input alike."""
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

from harness import PATHS, check, run_slap
from harness import no_time

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TRACE_GEN = os.path.join(TOP, "scripts", "trace-gen.py")
WRITES = {"set", "add", "replace", "cas", "append", "prepend"}


class TempDir:
    def __enter__(self):
        self.path = tempfile.mkdtemp(prefix="slap-trace-")
        return self.path

    def __exit__(self, *exc):
        shutil.rmtree(self.path, ignore_errors=True)


def generate(path, *args):
    subprocess.run([sys.executable, TRACE_GEN, "-o", path] + list(args), check=True, timeout=90)


def read_trace(path):
    """The file's requests as (second, key, key size, value size, client, op, ttl)."""
    requests = []
    with open(path) as f:
        for line in f:
            first, rest = line.rstrip("\n").split(",", 1)
            key, size, value, client, op, ttl = rest.rsplit(",", 5)
            requests.append((int(first), key, int(size), int(value), int(client), op, int(ttl)))
    return requests


def percentile(values, pct):
    """Nearest rank: the least value with ceil(pct% of n) values at or below it."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(pct / 100 * len(ordered)) - 1)]


def stats(path, *extra):
    """Run trace-stats; its report as a dict of figures (it must succeed)."""
    rc, out, err = run_slap(["trace-stats"] + list(extra) + [path], timeout=90)
    check(rc == 0, "trace-stats exit status %d: %s" % (rc, err))
    return parse_report(out)


def parse_report(out):
    r = {"ops": {}, "rows": []}
    m = re.search(r"^requests: (\d+)(?: \(lines (\d+) to (\d+)\))?$", out, re.M)
    check(m is not None, "no requests line")
    r["requests"] = int(m.group(1))
    r["lines"] = (int(m.group(2)), int(m.group(3))) if m.group(2) else None
    r["skipped"] = int(re.search(r"^skipped: (\d+) malformed lines$", out, re.M).group(1))
    m = re.search(r"^seconds: (\d+) to (\d+) \((\d+) s\)$", out, re.M)
    if m is None:
        return r
    r["seconds"] = tuple(int(g) for g in m.groups())
    m = re.search(r"^rate: mean ([\d.]+)/s, peak (\d+)/s at second (\d+)$", out, re.M)
    r["mean"], r["peak"] = float(m.group(1)), int(m.group(2))
    for m in re.finditer(r"^(\d+)(?:-(\d+))? +(\d+) +([\d.]+)$", out, re.M):
        r["rows"].append((int(m.group(1)), int(m.group(2) or m.group(1)), int(m.group(3)),
                          float(m.group(4))))
    for m in re.finditer(r"^([a-z]+) +(\d+) +([\d.]+)%$", out, re.M):
        r["ops"][m.group(1)] = int(m.group(2))
    for name in ("key", "value"):
        m = re.search(r"^%s(?:\(writes\))? +(\d+) +(\d+) +(\d+) +(\d+) +(\d+)$" % name, out, re.M)
        r[name] = tuple(int(g) for g in m.groups()) if m else None
    m = re.search(r"^distinct keys: (\d+) \((exact|estimate)", out, re.M)
    r["distinct"], r["distinct_exact"] = int(m.group(1)), m.group(2) == "exact"
    m = re.search(r"^zipf exponent: ([\d.]+) ", out, re.M)
    r["zipf"] = float(m.group(1)) if m else None
    return r


def check_against_file(r, requests):
    """Every figure of the report against the same figure computed here from the file."""
    n = len(requests)
    check(r["requests"] == n and r["lines"] == (1, n), "requests %r lines %r, the file has %d"
          % (r["requests"], r["lines"], n))
    first, last = requests[0][0], requests[-1][0]
    check(r["seconds"] == (first, last, last - first + 1), "seconds %r" % (r["seconds"],))
    per_second = {}
    ops = {}
    for req in requests:
        per_second[req[0]] = per_second.get(req[0], 0) + 1
        ops[req[5]] = ops.get(req[5], 0) + 1
    check(r["peak"] == max(per_second.values()), "peak %d" % r["peak"])
    check(abs(r["mean"] - n / (last - first + 1)) <= 0.05, "mean rate %.1f" % r["mean"])
    check(r["ops"] == ops, "operations %r, the file has %r" % (r["ops"], ops))
    check(sum(row[2] for row in r["rows"]) == n, "the rate table does not add up to %d" % n)
    for lo, hi, count, _ in r["rows"]:
        want = sum(c for s, c in per_second.items() if lo <= s <= hi)
        check(count == want, "seconds %d-%d: %d requests, the file has %d" % (lo, hi, count, want))
    keys = [req[2] for req in requests]
    want = (n, percentile(keys, 50), percentile(keys, 90), percentile(keys, 99), max(keys))
    check(r["key"] == want, "key sizes %r, the file's %r" % (r["key"], want))
    values = [req[3] for req in requests if req[5] in WRITES]
    want = (len(values), percentile(values, 50), percentile(values, 90), percentile(values, 99),
            max(values))
    check(r["value"][0] == want[0] and r["value"][4] == want[4],
          "value sizes %r, the file's %r" % (r["value"], want))
    for got, exact in zip(r["value"][1:4], want[1:4]):  # a log-linear histogram: within 1%
        check(abs(got - exact) <= 0.01 * exact, "value sizes %r, the file's %r" % (r["value"], want))
    distinct = len(set(req[1] for req in requests))
    check(r["distinct_exact"] and r["distinct"] == distinct,
          "distinct keys %d, the file has %d" % (r["distinct"], distinct))


@no_time
def case_trace_stats_recovers_generator():
    """A trace of known rate, mix and sizes: trace-stats gives them back, figure for figure
    with the file and within sampling of the generator's parameters."""
    with TempDir() as tmp:
        path = os.path.join(tmp, "t.csv")
        generate(path, "--rate", "5000", "--time", "40s", "--start", "1000", "--keys", "20000",
                 "--mix", "get=80,set=15,delete=5", "--key_size", "20-60",
                 "--value_size", "100-1100", "--seed", "7")
        requests = read_trace(path)
        r = stats(path)
        check_against_file(r, requests)
        check(r["seconds"] == (1000, 1039, 40), "seconds %r" % (r["seconds"],))
        check(abs(r["mean"] - 5000) <= 50 and r["peak"] == 5000, "rate %r" % r["mean"])
        check(len(r["rows"]) == 10 and all(row[3] == 5000.0 for row in r["rows"]),
              "rate over time %r" % r["rows"])
        for op, share in (("get", 0.80), ("set", 0.15), ("delete", 0.05)):
            check(abs(r["ops"][op] - share * 200000) <= 1, "%s: %d" % (op, r["ops"][op]))
        # sizes drawn uniformly per key, keys read uniformly: percentiles of the ranges
        for got, want in zip(r["key"][1:4], (40, 56, 60)):
            check(abs(got - want) <= 1, "key size percentiles %r" % (r["key"],))
        for got, want in zip(r["value"][1:4], (600, 1000, 1090)):
            check(abs(got - want) <= 0.03 * want, "value size percentiles %r" % (r["value"],))
        check(abs(r["distinct"] - 20000) <= 20, "distinct keys %d of 20000" % r["distinct"])


@no_time
def case_trace_stats_zipf_skew():
    """The Zipf exponent estimate lands within 0.05 of the generator's, for 0.8 and 1.2 (the issue
    asks for 0.1; the fit is within 0.01 on these traces)."""
    with TempDir() as tmp:
        for s in (0.8, 1.2):
            path = os.path.join(tmp, "zipf.csv")
            generate(path, "--rate", "10000", "--time", "40s", "--keys", "100000",
                     "--key_dist", "zipf:%s" % s, "--mix", "get=90,set=10",
                     "--key_size", "16", "--value_size", "10-20")
            r = stats(path)
            check(r["zipf"] is not None and abs(r["zipf"] - s) <= 0.05,
                  "zipf %s estimated as %r" % (s, r["zipf"]))
            check_against_file(r, read_trace(path))


@no_time
def case_trace_stats_estimates_many_keys():
    """Beyond --exact-keys the distinct keys are estimated (HyperLogLog), within 3%."""
    with TempDir() as tmp:
        path = os.path.join(tmp, "t.csv")
        generate(path, "--rate", "5000", "--time", "10s", "--keys", "30000", "--key_size", "16")
        distinct = len(set(req[1] for req in read_trace(path)))
        r = stats(path, "--exact-keys", "1k")
        check(not r["distinct_exact"], "distinct keys said to be exact beyond --exact-keys")
        check(abs(r["distinct"] - distinct) <= 0.03 * distinct,
              "estimated %d distinct keys of %d" % (r["distinct"], distinct))
        check(r["requests"] == 50000, "requests %d" % r["requests"])


@no_time
def case_trace_stats_zstd_plain_stdin():
    """The same trace plain, zstd-compressed (also as two frames) and on standard input: the
    same report."""
    with TempDir() as tmp:
        plain = os.path.join(tmp, "t.csv")
        generate(plain, "--rate", "3000", "--time", "20s", "--keys", "5000", "--key_dist",
                 "zipf:1", "--mix", "get=70,set=20,incr=5,delete=5")
        subprocess.run(["zstd", "-q", "-k", plain, "-o", plain + ".zst"], check=True)
        with open(plain, "rb") as f:
            data = f.read()
        half = data.index(b"\n", len(data) // 2) + 1
        frames = b"".join(subprocess.run(["zstd", "-q", "-c"], input=part, check=True,
                                         stdout=subprocess.PIPE).stdout
                          for part in (data[:half], data[half:]))
        with open(plain + ".2.zst", "wb") as f:
            f.write(frames)
        reports = []
        for path in (plain, plain + ".zst", plain + ".2.zst"):
            rc, out, err = run_slap(["trace-stats", path])
            check(rc == 0, "%s: exit status %d: %s" % (path, rc, err))
            reports.append(out.split("\n", 1)[1])  # all but the trace: line
        with open(plain + ".zst", "rb") as f:
            p = subprocess.run([PATHS.slap, "trace-stats", "-"], stdin=f, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, timeout=60)
        check(p.returncode == 0 and p.stdout.startswith("trace: stdin\n"),
              "stdin: exit status %d: %s" % (p.returncode, p.stderr))
        reports.append(p.stdout.split("\n", 1)[1])
        for other in reports[1:]:
            check(other == reports[0], "reports differ:\n%s\n---\n%s" % (reports[0], other))
        check(parse_report(p.stdout)["requests"] == 60000, "not every request read")


MALFORMED = (
    ("5,k,1,1,1,get\n", "6 fields, not 7"),
    ("5,k,2,x1,1,get,0\n", "value size 'x1' is not a whole number"),
    ("5,k,2,1,1,get,99999999999\n", "TTL '99999999999' is too large"),
    ("5,k,2,1,1,fetch,0\n", "unknown operation 'fetch'"),
    ("5,%s,300,1,1,get,0\n" % ("x" * 300), "key size 300 is not 1 to 250 bytes"),
    ("5,%s,30,1,1,get,0\n" % ("x" * 300), "the key is 300 bytes long"),
    ("1,k,1,1,1,get,0\n", "timestamp 1 is before the previous request's 5"),
    ("5,k,1,1,1,get\x1b[2J,0\n", "unknown operation 'get\\x1b[2J'"),
)


@no_time
def case_trace_stats_malformed_lines():
    """Each malformed line: exit 1, FILE:LINE and what is wrong, no raw bytes; with
    --trace-skip-bad it is counted and the rest read."""
    good = "5,a,1,10,1,set,0\n5,b,1,10,1,get,0\n"
    with TempDir() as tmp:
        path = os.path.join(tmp, "bad.csv")
        for line, want in MALFORMED:
            with open(path, "w") as f:
                f.write(good + line + good)
            rc, out, err = run_slap(["trace-stats", path])
            check(rc == 1, "%r: exit status %d" % (line, rc))
            check("'%s':3: %s" % (path, want) in err, "%r: message %r" % (line, err))
            check("\x1b" not in err and out == "", "%r: raw bytes or a report: %r" % (line, err))
        with open(path, "w") as f:
            f.write(good + "".join(line for line, _ in MALFORMED) + good)
        r = stats(path, "--trace-skip-bad")
        check(r["skipped"] == len(MALFORMED) and r["requests"] == 4,
              "skipped %d, requests %d" % (r["skipped"], r["requests"]))
        check(r["lines"] == (1, 4 + len(MALFORMED)), "lines %r" % (r["lines"],))


@no_time
def case_trace_stats_usage():
    """Bad usage exits 2 with a hint; a file that cannot be read or is no trace exits 1."""
    with TempDir() as tmp:
        path = os.path.join(tmp, "t.csv")
        with open(path, "w") as f:
            f.write("1,a,1,1,1,get,0\n")
        for args, want in ((["trace-stats"], "which trace?"),
                           (["trace-stats", "--bogus", path], "unknown option '--bogus'"),
                           (["trace-stats", path, path], "one trace at a time"),
                           (["trace-stats", "--exact-keys", "0", path], "--exact-keys takes"),
                           (["trace-stats", "--exact-keys"], "needs a value")):
            rc, out, err = run_slap(args)
            check(rc == 2 and want in err and "--help" in err, "%r: %d %r" % (args, rc, err))
        rc, out, err = run_slap(["trace-stats", "--help"])
        check(rc == 0 and "--trace-skip-bad" in out and "--exact-keys" in out, "--help: %d" % rc)
        rc, out, err = run_slap(["trace-stats", os.path.join(tmp, "none.csv")])
        check(rc == 1 and "none.csv': cannot open: No such file" in err,
              "missing: %d %r" % (rc, err))
        subprocess.run(["gzip", "-k", path], check=True)
        rc, out, err = run_slap(["trace-stats", path + ".gz"])
        check(rc == 1 and "gzip-compressed" in err, "gzip: %d %r" % (rc, err))
        r = stats(path, "--trace_skip_bad", "--exact_keys=10")  # memaslap-style spellings too
        check(r["requests"] == 1, "requests %d" % r["requests"])


@no_time
def case_trace_gen_deterministic():
    """The generator writes the same file for the same seed, another for another seed, and
    refuses bad options with exit status 2."""
    with TempDir() as tmp:
        files = []
        for i, seed in enumerate(("3", "3", "4")):
            path = os.path.join(tmp, "%d.csv" % i)
            generate(path, "--seed", seed, "--rate", "100", "--time", "5s", "--key_dist", "zipf")
            with open(path, "rb") as f:
                files.append(f.read())
        check(files[0] == files[1], "the same seed wrote different traces")
        check(files[0] != files[2], "another seed wrote the same trace")
        for bad in (["--mix", "fetch=1"], ["--key_size", "300"], ["--keys", "1m", "--key_size", "4"],
                    ["--key_dist", "zipf:0"], ["--time", "x"]):
            p = subprocess.run([sys.executable, TRACE_GEN] + bad, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True, timeout=30)
            check(p.returncode == 2 and p.stderr.startswith("trace-gen: "),
                  "%r: exit status %d %r" % (bad, p.returncode, p.stderr))
