"""Workload fidelity: config files, multi-gets, verification, expiry,
replication, key distribution, flush and preload, evictions."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from cases_ketama import Nutcracker
from cases_results import validate
from harness import (slap_protocols, check, check_agree, counters, DelayProxy, free_port, measured, Memcached,
                     named, PATHS, raw_command, run_line, run_slap, server_delta, write_file)
from harness import no_time


@no_time
def case_cfg_file(mc):
    path = write_file("# sizes\nkey\n16 32 0.5\n40 40 0.5\n\nvalue\n100 200 1\ncmd\n1 0.5\n0 0.5\n")
    try:
        rc, out, err, delta, _ = measured([mc], ["-s", mc.addr, "-F", path, "-t", "2s", "-c", "4"])
    finally:
        os.unlink(path)
    check(rc == 0, "exit status %d" % rc)
    c = counters(out)
    check_agree(c, delta)
    check("set proportion: set_prop=0.50" in out, "the cmd section's set share")
    check(abs(c["cmd_set"] - c["cmd_get"]) <= 8, "0.5/0.5 mix: %d sets, %d gets" % (c["cmd_set"], c["cmd_get"]))
    per_set = c["object_bytes"] / c["cmd_set"]
    check(16 + 100 <= per_set <= 40 + 200, "object bytes per set %.1f outside the sizes" % per_set)
    items = raw_command(mc, b"stats items\r\n").decode()
    check("STAT items:" in items, "no items stored")


@no_time
def case_cfg_file_bad(mc):
    path = write_file("key\n64 64 1\nvalue\n1024 x 1\n")
    try:
        rc, out, err = run_slap(["-s", mc.addr, "-F", path, "-t", "1s"])
    finally:
        os.unlink(path)
    check(rc == 2, "exit status %d for a bad config file" % rc)
    check("'%s':4:" % path in err, "the error should name the file and line 4: %r" % err)


@no_time
def case_multiget(mc):
    rc, out, err, delta, _ = measured([mc], ["-s", mc.addr, "-d", "10", "-t", "2s", "-c", "8"])
    check(rc == 0, "exit status %d" % rc)
    c = counters(out)
    check_agree(c, delta)
    check(delta["get_hits"] == c["cmd_get"] - c["get_misses"], "server hits vs slap's")
    events = re.search(r"^Get Statistics \((\d+) events\)$", out, re.M)
    check(events and int(events.group(1)) * 10 == c["cmd_get"], "a multi-get is one event of 10 keys")
    ratio = c["cmd_get"] / max(c["cmd_set"], 1)
    check(7 <= ratio <= 11, "with -d 10 the mix counts keys: %.1f gets per set" % ratio)
    kps = named(out, "keys_per_sec")
    secs, _, _, _ = run_line(out)
    check(abs(kps - c["cmd_get"] / secs) <= 0.02 * kps + 1, "keys_per_sec")


@no_time
def case_multiget_two_servers(mc):
    other = Memcached()
    try:
        rc, out, err, total, deltas = measured([mc, other], ["-s", "%s,%s" % (mc.addr, other.addr),
                                                             "-d", "10", "-x", "5000",
                                                             "-c", "4", "-w", "500", "-v", "1"])
        check(rc == 0, "exit status %d" % rc)
        c = counters(out)
        check_agree(c, total)
        check(c["get_misses"] == 0 and c["verify_failed"] == 0,
              "every key of a multi-get must go to its own server: %r" % c)
        for d in deltas:
            check(d["cmd_get"] > 0, "a server got no gets")
    finally:
        other.stop()


@no_time
def case_verify(mc):
    rc, out, err = run_slap(["-s", mc.addr, "-v", "1", "-o", "0.5", "-t", "2s", "-c", "8", "-w", "100",
                             "--pipeline", "4", "-n", "2"])
    check(rc == 0, "exit status %d" % rc)
    c = counters(out)
    check(c.get("verify_failed", -1) == 0 and c.get("verify_misses", -1) == 0,
          "false verification failures with -o: %r" % c)
    check(out.index("get_misses:") < out.index("verify_misses:") < out.index("written_bytes:"),
          "verify lines in memaslap's place")
    # how many answers -v checked: every get but those a set of the same key crossed
    check(0.5 * c["cmd_get"] <= c.get("verify_checked", -1) <= c["cmd_get"],
          "verify_checked %r of %d gets" % (c.get("verify_checked"), c["cmd_get"]))
    check(out.index("object_bytes:") < out.index("verify_checked:"),
          "verify_checked after memaslap's lines")


@no_time
def case_verify_detects(mc):
    import asyncio
    proxy = DelayProxy(mc.port, 0)
    orig_put = asyncio.Queue.put

    async def corrupting_put(queue, item):
        due, data = item
        if data:  # values only: 'k' is in no key (the filler from 'p' on) and in no command
            data = data.replace(b"k", b"j")
        await orig_put(queue, (due, data))
    asyncio.Queue.put = corrupting_put
    try:
        rc, out, err = run_slap(["-s", proxy.addr, "-v", "1", "-b", "-x", "2000", "-c", "2",
                                 "-w", "50", "-X", "2000"])
    finally:
        asyncio.Queue.put = orig_put
    c = counters(out)
    check(c.get("verify_failed", 0) > 0, "a corrupted value went unnoticed: %r" % c)
    check("verify failed" in err and "differs from byte" in err, "-b details: %r" % err)
    check(err.count("verify failed") <= 10, "-b must bound its details")
    check(rc == 1 and "found a value other than the one stored (verify_failed)" in err,
          "a run that read wrong values passed: exit %d" % rc)


def bend_values(answer):
    """A get's answer with the last byte of each value changed (values are letters and
    digits: '#' is never one of them)."""
    out, at = b"", 0
    while answer.startswith(b"VALUE ", at):
        eol = answer.index(b"\r\n", at)
        n = int(answer[at:eol].split()[3])
        data = answer[eol + 2:eol + 2 + n]
        out += answer[at:eol + 2] + data[:-1] + b"#\r\n"
        at = eol + 2 + n + 2
    return out + answer[at:]


@no_time
def case_verify_checks_every_key_size():
    """-v reads each value's key back (its client, its slot, its length) to know what the value
    must be. At the least key size, the most, sizes that vary and in multi-gets: a server that
    keeps what it is sent passes the checks of nearly every get (none failed, exit 0), and one
    that changes the last byte of every value it sends back fails every check
    (verify_failed == verify_checked, exit 1). A key the verifier misread would check nothing."""
    from fakemc import FakeMemcached
    for sizes, extra in (("16", []), ("250", []), ("16-250", []), ("16-250", ["-d", "5"])):
        for bent in (False, True):
            fake = FakeMemcached(rewrite=lambda req, ans, bent=bent: (
                bend_values(ans) if bent and req[0] == "get" else None))
            try:
                rc, out, err = run_slap(["-s", fake.addr, "-v", "1", "-x", "1500", "-c", "2",
                                         "-w", "40", "--key_size", sizes] + extra)
            finally:
                fake.stop()
            c = counters(out)
            what = "--key_size %s %s%s" % (sizes, " ".join(extra), " bent" if bent else "")
            check(c["verify_checked"] >= 0.5 * c["cmd_get"],  # cmd_get counts keys read
                  "%s: %d values checked of %d keys read" % (what, c["verify_checked"],
                                                             c["cmd_get"]))
            if bent:
                check(c["verify_failed"] == c["verify_checked"] and rc == 1,
                      "%s: %d of %d wrong values failed, exit %d"
                      % (what, c["verify_failed"], c["verify_checked"], rc))
            else:
                check(c["verify_failed"] == 0 and rc == 0,
                      "%s: %d failed, exit %d: %s" % (what, c["verify_failed"], rc, err))


@no_time
def case_verify_failures_are_errors(mc):
    """verify_failed counts among the errors: without --max_errors any fails the run (exit 1);
    --max_errors decides otherwise, and the JSON's errors.total counts them."""
    import asyncio
    proxy = DelayProxy(mc.port, 0)
    orig_put = asyncio.Queue.put

    async def corrupting_put(queue, item):
        due, data = item
        if data:
            data = data.replace(b"k", b"j")  # a byte of values only, never of keys
        await orig_put(queue, (due, data))
    asyncio.Queue.put = corrupting_put
    path = tempfile.mktemp(suffix=".json")
    try:
        args = ["-s", proxy.addr, "-v", "1", "-x", "2000", "-c", "2", "-w", "50", "-X", "2000"]
        for limit, want in ((None, 1), ("100%", 0), ("1", 1)):
            extra = ["--max_errors", limit] if limit else []
            rc, out, err = run_slap(args + extra + ["--json", path])
            c = counters(out)
            check(c.get("verify_failed", 0) > 0, "nothing failed verification: %r" % c)
            check(rc == want, "--max_errors %s: exit %d, not %d: %s" % (limit, rc, want, err))
            with open(path) as f:
                doc = json.load(f)
            total = doc["errors"]["total"]
            check(total >= c["verify_failed"], "errors.total %d leaves out verify_failed %d"
                  % (total, c["verify_failed"]))
    finally:
        asyncio.Queue.put = orig_put
        if os.path.exists(path):
            os.unlink(path)


def case_expiry(mc):
    rc, out, err, delta, _ = measured([mc], ["-s", mc.addr, "-e", "1", "--exp-time=1s", "-t", "4s",
                                             "-c", "2", "-w", "20"])
    check(rc == 0, "exit status %d" % rc)
    c = counters(out)
    check_agree(c, delta)
    check(c.get("expired_get", -1) == 0 and c.get("unexpired_unget", -1) == 0,
          "memcached expires correctly, slap must agree: %r" % c)
    st, _ = mc.stats()
    check(int(st.get("get_expired", "0")) > 0 or c["get_misses"] > 0, "nothing expired in 4 s")


@no_time
def case_expiry_over_30_days(mc):
    """--exp_time above 30 days goes as the Unix time that far ahead (memcached would read 31d,
    2678400, as a time in 1970 and drop every item at once): the gets hit, in every protocol,
    and touch and gat keep the items too."""
    for proto in slap_protocols():
        for mix in ("set=1,get=9", "set=2,touch=1,gat=1,get=4"):
            rc, out, err, delta, _ = measured([mc], ["-s", mc.addr, "-e", "1", "--exp-time=31d",
                                                     "--protocol=" + proto, "--mix=" + mix,
                                                     "-x", "2000", "-c", "2", "-w", "20"])
            c = counters(out)
            check(rc == 0, "%s %s: exit status %d: %s" % (proto, mix, rc, err))
            check(c["get_misses"] == 0 and delta["get_misses"] == 0 and delta["get_hits"] > 0,
                  "%s %s: items set for 31 days were gone: %r" % (proto, mix, c))
            check(c.get("expired_get", -1) == 0 and c.get("unexpired_unget", -1) == 0,
                  "%s %s: %r" % (proto, mix, c))
    rc, out, err = run_slap(["-s", mc.addr, "--exp-time=1000000000", "-x", "10"])
    check(rc == 2 and "past the latest the ascii protocol carries" in err,
          "a TTL past 2038 in ascii: %d %r" % (rc, err))


@no_time
def case_rep_write(mc):
    other = Memcached()
    try:
        rc, out, err, total, deltas = measured([mc, other], ["-s", "%s,%s" % (mc.addr, other.addr),
                                                             "-p", "2", "-x", "2000", "-c", "4"])
        check(rc == 0, "exit status %d" % rc)
        c = counters(out)
        check_agree(c, total)
        check(deltas[0]["cmd_set"] == deltas[1]["cmd_set"] > 0, "every set goes to both: %r" % deltas)
        check(c["get_misses"] == 0, "gets read from a server that holds every key")
    finally:
        other.stop()


@no_time
def case_distribution_hash(mc):
    other = Memcached()
    try:
        for dist, hsh, sizes in (("ketama", "md5", "64"), ("modula", "crc", "64"),
                                 ("ketama", "murmur", "16-64"), ("modula", "default", "16-64"),
                                 ("ketama-libmemcached", "md5", "64"), ("ketama", "default", "64")):
            raw_command(mc, b"flush_all\r\n")
            raw_command(other, b"flush_all\r\n")
            servers = "%s,%s" % (mc.addr, other.addr)
            rc, out, err = run_slap(["-s", servers, "--distribution", dist, "--hash", hsh,
                                     "--key-size", sizes, "--ratio", "1:0", "-x", "800", "-c", "4",
                                     "-w", "200"])
            check(rc == 0, "%s/%s: exit status %d" % (dist, hsh, rc))
            res = subprocess.run([PATHS.lmc_check, servers, dist, hsh, "4", "200", sizes],
                                 capture_output=True, text=True, timeout=60)
            sys.stdout.write("lmc_check %s %s: %s%s" % (dist, hsh, res.stdout, res.stderr))
            check(res.returncode == 0, "%s/%s: libmemcached did not find every key where slap "
                  "put it: %s" % (dist, hsh, res.stdout.strip()))
            for m in (mc, other):
                check(int(m.stats()[0]["curr_items"]) > 100, "%s/%s: a server got few keys" % (dist, hsh))
    finally:
        other.stop()


@no_time
def case_flush_preload(mc):
    raw_command(mc, b"set slap-marker 0 0 1\r\nx\r\n")
    before = mc.stats()
    rc, out, err = run_slap(["-s", mc.addr, "--flush", "--preload", "-x", "1000", "-c", "4",
                             "-w", "100", "--key-dist=zipf:1.1"])
    delta = server_delta(before, mc.stats(), 3)  # slap's stats: before the preload, the run, after
    check(rc == 0, "exit status %d" % rc)
    check(raw_command(mc, b"get slap-marker\r\n") == b"END\r\n", "--flush left the marker")
    m = re.search(r"^preload: (\d+) sets in [\d.]+s$", out, re.M)
    check(m and int(m.group(1)) == 400, "preload line: 4 clients x 100 keys")
    c = counters(out)
    check(delta["cmd_set"] == c["cmd_set"] + 400, "preload sets are excluded from the report")
    check(c["get_misses"] == 0, "after the preload every get hits")


@no_time
def case_get_only_warmup(mc):
    rc, out, err = run_slap(["-s", mc.addr, "--ratio", "0:1", "-x", "1000", "-c", "2", "-w", "50"])
    check(rc == 0, "exit status %d" % rc)
    c = counters(out)
    check(c["cmd_set"] == 0 and c["cmd_get"] == 1000 and c["get_misses"] == 0,
          "a get-only run warms its windows first: %r" % c)
    check("preload: 100 sets" in out, "the warm-up is reported")


@no_time
def case_evictions():
    small = Memcached(extra=["-m", "8"])
    try:
        rc, out, err, delta, _ = measured([small], ["-s", small.addr, "-w", "20k", "-c", "4",
                                                    "-t", "3s", "--key-dist=gaussian",
                                                    "--ratio=1:1", "-X", "20000"])
        check(rc == 0, "exit status %d" % rc)
        c = counters(out)
        check_agree(c, delta)
        st, _ = small.stats()
        check(int(st["evictions"]) > 0, "an 8 MB cache under 1.6 GB of windows must evict")
        check(c["get_misses"] > 0, "evicted keys must show as misses")
    finally:
        small.stop()


@no_time
def case_preload_evictions():
    """A preload that does not fit in the server's memory: the evictions it caused (outside the
    measured run, so not in its delta) are said on standard error, in the report and in the
    JSON; a preload that fits says nothing of them."""
    small = Memcached(extra=["-m", "8"])
    d = tempfile.mkdtemp(prefix="slap-evict-")
    j = os.path.join(d, "r.json")
    try:
        rc, out, err = run_slap(["-s", small.addr, "--preload", "-w", "100", "-c", "4", "-X", "2000",
                                 "-x", "1000", "--json", j])
        check(rc == 0, "exit status %d" % rc)
        check("preload_evictions" not in out and "evict" not in err, "a preload that fits evicted")
        check(load_json(j)["servers"][0].get("preload_evictions") == 0, "JSON: 0 evictions")
        rc, out, err = run_slap(["-s", small.addr, "--preload", "-w", "4k", "-c", "4", "-X", "2000",
                                 "-x", "2000", "--json", j])
        check(rc == 0, "exit status %d" % rc)
        evicted = int(small.stats()[0]["evictions"])
        m = re.search(r"^preload_evictions: (\d+) ", out, re.M)
        check(m is not None and 0 < int(m.group(1)) <= evicted,
              "no preload_evictions line (the server evicted %d)" % evicted)
        check(re.search(r"evict", err) and small.addr in err, "standard error says nothing: %r" % err)
        doc = load_json(j)
        validate(doc)
        check(doc["servers"][0]["preload_evictions"] == int(m.group(1)), "JSON %r" % doc["servers"])
    finally:
        small.stop()
        shutil.rmtree(d)


def load_json(path):
    with open(path) as f:
        return json.load(f)


@no_time
def case_flush_through_nutcracker(mc):
    """--flush through twemproxy, which refuses flush_all: the proxy is named and the refusal
    said in slap's words, not libmemcached's; a server that is not there is told apart."""
    proxy = Nutcracker([mc], ["fnv1a_64"])
    try:
        addr = "127.0.0.1:%d" % proxy.ports["fnv1a_64"]
        rc, out, err = run_slap(["-s", addr, "--flush", "-x", "100", "-c", "2"])
        check(rc == 1, "exit status %d" % rc)
        check("SOME ERRORS" not in err, "libmemcached's words: %r" % err)
        check(re.search(r"%s refused flush_all .*twemproxy" % re.escape(addr), err),
              "the refusal is not said, naming the proxy: %r" % err)
        dead = "127.0.0.1:%d" % free_port()
        rc, out, err = run_slap(["-s", "%s,%s" % (mc.addr, dead), "--flush", "-x", "100", "-c", "2"])
        check(rc == 1, "exit status %d" % rc)
        check("cannot connect to %s" % dead in err and "refused flush_all" not in err,
              "a dead server is not a refusal: %r" % err)
    finally:
        proxy.stop()


def case_verify_that_checked_nothing_fails():
    """A server that answers every set NOT_STORED leaves -v nothing to compare: the report says
    verify_checked: 0 and the run fails (exit 1) saying why, rather than pass on a clean
    verify_failed: 0. A -v share too small to expect a check in a short run passes."""
    from fakemc import FakeMemcached

    def refuse_sets(request, answer):
        return b"NOT_STORED\r\n" if request[0] == "set" else None
    fake = FakeMemcached(rewrite=refuse_sets)
    try:
        rc, out, err = run_slap(["-s", fake.addr, "-v", "1", "-x", "400", "-c", "2", "-w", "20"])
        c = counters(out)
        check(c.get("verify_checked", -1) == 0 and c["cmd_get"] > 20 and c["not_stored"] > 0,
              "a server that stores nothing: %r" % c)
        check(rc == 1 and "-v checked none of" in err and "vouches for nothing" in err,
              "-v that checked nothing passed: exit %d %r" % (rc, err))
        rc, out, err = run_slap(["-s", fake.addr, "-v", "0.01", "-x", "400", "-c", "2",
                                 "-w", "20"])
        check(rc == 0 and "-v checked none" not in err,
              "-v 0.01 of a few hundred gets expects under 20 checks: exit %d %r" % (rc, err))
    finally:
        fake.stop()
