#!/usr/bin/env python3
"""trace-gen.py: write a synthetic cache trace in Twitter's format from slap-like workload options.

Each line is `timestamp,key,key size,value size,client id,operation,TTL`, the format that
`slap trace-stats` reads (and `--trace` replays). The same options and seed give the same
file, byte for byte, so a workload can be shared as a trace. Python 3 standard library only.

    trace-gen.py --rate 5000 --time 60s --keys 100k --key_dist zipf:0.99 \\
                 --mix get=90,set=10 --key_size 16-64 --value_size 100-1000 -o t.csv
    trace-gen.py --rate 5000 --time 60s | zstd > t.csv.zst

What it writes:
- rate: each second of the trace holds floor((i+1)*R) - floor(i*R) requests (R may be
  fractional), timestamps from --start;
- operations: the --mix shares, deterministically (an operation is written whenever its
  share adds up to a whole request), so each count is within one of share * requests;
- keys: --keys of them; with --key_dist zipf:S the key of popularity rank r (from 1) is
  drawn with weight 1/r^S, uniform otherwise; a key is "k", its number in hex, then '.'
  up to its size; each key has one size, drawn from --key_size;
- values: each key has one value size, drawn from --value_size; writes (set, add,
  replace, cas, append, prepend) carry it, as do reads (get, gets); others carry 0;
- TTL: --ttl for writes, 0 for the rest; client ids uniform in [0, --clients).
"""
import argparse
import bisect
import itertools
import random
import re
import sys

OPS = ("get", "gets", "set", "add", "replace", "cas", "append", "prepend", "delete", "incr",
       "decr")
WRITES = {"set", "add", "replace", "cas", "append", "prepend"}
READS = {"get", "gets"}
KEY_MAX = 250


def fail(message):
    sys.stderr.write("trace-gen: %s\n" % message)
    sys.exit(2)


def parse_count(text, what, unit=1000):
    """A whole number with an optional k, m or g (k = unit)."""
    m = re.fullmatch(r"(\d+)([kKmMgG]?)", text)
    if m is None:
        fail("%s: '%s' is not a whole number (k, m, g allowed)" % (what, text))
    scale = {"": 1, "k": unit, "m": unit ** 2, "g": unit ** 3}[m.group(2).lower()]
    return int(m.group(1)) * scale


def parse_duration(text):
    """Whole seconds: a number with s, m, h or d (seconds when bare)."""
    m = re.fullmatch(r"(\d+)([smhd]?)", text)
    if m is None:
        fail("--time: '%s' is not a whole number of seconds (s, m, h, d allowed)" % text)
    return int(m.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}[m.group(2)]


def parse_sizes(text, what, lo, hi):
    """N, MIN-MAX or MIN-MAX:SHARE,...: a list of (min, max, share)."""
    parts = []
    for part in text.split(","):
        rng, _, share = part.partition(":")
        low, _, high = rng.partition("-")
        low = parse_count(low, what, 1024)
        high = parse_count(high, what, 1024) if high else low
        weight = float(share) if share else 1.0
        if not lo <= low <= high <= hi or weight <= 0:
            fail("%s: '%s' must be sizes from %d to %d with a share above 0" % (what, part, lo, hi))
        parts.append((low, high, weight))
    return parts


def parse_mix(text):
    shares = {}
    for part in text.split(","):
        name, _, share = part.partition("=")
        if name not in OPS:
            fail("--mix: unknown operation '%s' (%s)" % (name, ", ".join(OPS)))
        try:
            shares[name] = float(share)
        except ValueError:
            fail("--mix: '%s' needs a share, as in get=90" % part)
        if shares[name] < 0:
            fail("--mix: the share of %s is negative" % name)
    total = sum(shares.values())
    if total <= 0:
        fail("--mix: the shares add up to nothing")
    return [(name, share / total) for name, share in shares.items() if share > 0]


def parse_key_dist(text):
    """uniform, or zipf[:S]: the exponent (0 for uniform)."""
    if text == "uniform":
        return 0.0
    m = re.fullmatch(r"zipf(?::([0-9.]+))?", text)
    if m is None:
        fail("--key_dist: '%s' is not uniform or zipf[:S]" % text)
    s = float(m.group(1)) if m.group(1) else 0.99
    if not 0 < s <= 10:
        fail("--key_dist: the exponent must be above 0 and at most 10")
    return s


def arguments():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="\n".join(__doc__.split("\n")[2:]))
    p.add_argument("-o", "--output", default="-", help="file to write (default: standard output)")
    p.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    p.add_argument("--rate", "--tps", "-P", default="1000",
                   help="requests per second, k = 1000 (default 1000); a fraction is fine")
    p.add_argument("--time", "-t", default="10s", help="length of the trace (default 10s)")
    p.add_argument("--start", type=int, default=0, help="first timestamp (default 0)")
    p.add_argument("--mix", default="set=10,get=90", help="OP=SHARE,... (default set=10,get=90)")
    p.add_argument("--keys", "-w", "--win_size", "--win-size", default="10000",
                   help="number of distinct keys, k = 1000 (default 10000)")
    p.add_argument("--key_dist", "--key-dist", default="uniform",
                   help="uniform or zipf[:S] (default uniform; S defaults to 0.99)")
    p.add_argument("--key_size", "--key-size", default="64",
                   help="key sizes: N, MIN-MAX or MIN-MAX:SHARE,... (default 64)")
    p.add_argument("--value_size", "--value-size", default="1024",
                   help="value sizes, same forms, k = 1024 (default 1024)")
    p.add_argument("--ttl", type=int, default=0, help="TTL of writes in seconds (default 0)")
    p.add_argument("--clients", "-c", "--concurrency", type=int, default=16,
                   help="number of client ids (default 16)")
    a = p.parse_args()
    try:
        a.rate = float(a.rate[:-1]) * 1000 if a.rate.endswith("k") else float(a.rate)
    except ValueError:
        fail("--rate: '%s' is not a number" % a.rate)
    a.time = parse_duration(a.time)
    a.mix = parse_mix(a.mix)
    a.keys = parse_count(a.keys, "--keys")
    a.zipf = parse_key_dist(a.key_dist)
    a.key_size = parse_sizes(a.key_size, "--key_size", 1, KEY_MAX)
    a.value_size = parse_sizes(a.value_size, "--value_size", 0, 1 << 30)
    if a.rate <= 0 or a.time <= 0 or a.keys <= 0 or a.clients <= 0 or a.ttl < 0 or a.start < 0:
        fail("--rate, --time, --keys and --clients must be above 0; --ttl and --start not negative")
    if len("k%x" % (a.keys - 1)) > min(low for low, _, _ in a.key_size):
        fail("--key_size: keys of %d bytes cannot name %d keys" % (
            min(low for low, _, _ in a.key_size), a.keys))
    return a


def size_sampler(parts, rnd):
    cumulative = list(itertools.accumulate(w for _, _, w in parts))

    def sample():
        low, high, _ = parts[bisect.bisect_right(cumulative, rnd.random() * cumulative[-1])
                             if len(parts) > 1 else 0]
        return rnd.randint(low, high)
    return sample


class Keys:
    """Every key's name, size and value size, and its popularity rank (drawn per request)."""

    def __init__(self, a):
        rnd = random.Random(a.seed * 7919 + 1)
        key_size, value_size = size_sampler(a.key_size, rnd), size_sampler(a.value_size, rnd)
        self.names = []
        self.value_sizes = []
        for key in range(a.keys):
            name = "k%x" % key
            size = key_size()
            self.names.append("%s%s,%d" % (name, "." * (size - len(name)), size))
            self.value_sizes.append(value_size())
        self.by_rank = list(range(a.keys))
        rnd.shuffle(self.by_rank)  # popularity is not the order of the names
        weights = (1.0 / (rank + 1) ** a.zipf for rank in range(a.keys))
        self.cumulative = list(itertools.accumulate(weights))

    def draw(self, rnd, n):
        return [self.by_rank[i] for i in
                (bisect.bisect_right(self.cumulative, rnd.random() * self.cumulative[-1])
                 for _ in range(n))]


def mix_schedule(mix):
    """The operations in order: each whenever its share adds up to a whole request."""
    credit = {name: 0.0 for name, _ in mix}
    while True:
        for name, share in mix:
            credit[name] += share
        name = max(credit, key=credit.get)
        credit[name] -= 1.0
        yield name


def write_trace(a, out):
    rnd = random.Random(a.seed)
    keys = Keys(a)
    ops = mix_schedule(a.mix)
    for second in range(a.time):
        n = int((second + 1) * a.rate) - int(second * a.rate)
        lines = []
        for key in keys.draw(rnd, n):
            op = next(ops)
            value = keys.value_sizes[key] if op in WRITES or op in READS else 0
            lines.append("%d,%s,%d,%d,%s,%d\n" % (
                a.start + second, keys.names[key], value, rnd.randrange(a.clients), op,
                a.ttl if op in WRITES else 0))
        out.write("".join(lines))


def main():
    a = arguments()
    try:
        if a.output == "-":
            write_trace(a, sys.stdout)
            sys.stdout.flush()
        else:
            with open(a.output, "w") as out:
                write_trace(a, out)
    except (OSError, BrokenPipeError) as e:
        fail("cannot write %s: %s" % (a.output, e))
    return 0


if __name__ == "__main__":
    sys.exit(main())
