"""Confidence (issue 21): percentile intervals, not estimable, steady, --precision."""
import re

from harness import check, DelayProxy, run_slap


def interval(out, block, name):
    """(value, low, high) of a percentile line of a final block."""
    m = re.search(r"^%s Statistics \(\d+ events\)\n((?:   .*\n|       .*\n)+)" % block, out, re.M)
    check(m is not None, "no final %s block" % block)
    v = re.search(r"^   %s:\s+(\d+)  \[(\d+), (\d+)\]" % re.escape(name), m.group(1), re.M)
    check(v is not None, "no interval on %s of %s:\n%s" % (name, block, m.group(1)))
    return tuple(int(x) for x in v.groups())


def case_confidence_not_estimable(mc):
    rc, out, err = run_slap(["-s", mc.addr, "-x", "1000", "-c", "4", "-T", "1",
                             "--percentiles", "50,99.99"])
    check(rc == 0, "exit status %d: %s" % (rc, err))
    check(re.search(r"^   P99\.99: not estimable \(1000 requests; about 500000 needed\)$", out,
                    re.M) is not None, "no 'not estimable' P99.99 line:\n" + out)
    check("percentile intervals: 95%" in out, "the method is not named")


def case_confidence_steady(mc):
    """A steady memcached run is steady; a run through a proxy whose added delay grows across
    the run (0.2 ms to 8 ms in 4 s: the median grows fourfold, far beyond any noise) is not,
    for its latency. A neighbour that takes the CPU halfway makes a run unsteady, as the
    verdict should say: on a busy host memcached gets three tries to be judged steady once."""
    outs = []
    for _ in range(3):
        rc, out, _ = run_slap(["-s", mc.addr, "-P", "1000", "-c", "8", "-T", "1", "-t", "3s"])
        check(rc == 0, "exit status %d:\n%s" % (rc, out))
        outs.append(re.search(r"^steady: .*$", out, re.M).group(0))
        if outs[-1].startswith("steady: yes ("):
            break
    check(outs[-1].startswith("steady: yes ("), "memcached not steady in 3 runs:\n" +
          "\n".join(outs))
    proxy = DelayProxy(mc.port, lambda t: 0.0002 + 0.002 * t)
    rc, out, _ = run_slap(["-s", proxy.addr, "-P", "400", "-c", "16", "-T", "1", "-t", "4s"])
    check(rc == 0 and re.search(r"^steady: no \(.*median latency rose", out, re.M),
          "a growing delay judged steady:\n" + out)


def case_confidence_precision(mc):
    rc, out, _ = run_slap(["-s", mc.addr, "-P", "2000", "-c", "8", "-T", "1", "-t", "20s",
                           "--precision", "p50=10%"])
    m = re.search(r"^precision: p50 within ([\d.]+)% after (\d+) s$", out, re.M)
    check(rc == 0 and m is not None, "precision not reached:\n" + out)
    check(float(m.group(1)) <= 10 and int(m.group(2)) < 10, "stopped late: " + m.group(0))
    rc, out, _ = run_slap(["-s", mc.addr, "-P", "1000", "-c", "8", "-T", "1", "-t", "2s",
                           "--precision", "p99=0.1%"])
    check(re.search(r"^precision: p99 not reached within -t 2 s: ", out, re.M) is not None,
          "no 'not reached':\n" + out)
    rc, _, err = run_slap(["-s", mc.addr, "--precision", "p100=5%"])
    check(rc == 2 and "--precision" in err, "p100 accepted")
