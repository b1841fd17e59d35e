"""memslap's face (slap memslap, or slap under the name memslap or memcslap): memslap's
command line, the work memslap does, its report's lines, checked against a real memcached's
stats and against Debian's memcslap itself."""
import collections
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading

from harness import check, free_port, measured, PATHS, raw_command, run_slap
from harness import no_time

# memslap's own output (libmemcached 1.1.4's memcslap --flush --binary -c 4 -e 10000 against
# memcached 1.6.18; shared/reference/memslap-c4-e10000-flush-binary.txt).
MEMSLAP_REFERENCE = """\
Time to flush             1 servers:                  0.000 seconds.
Time to generate      10000 test keys:                0.021 seconds.
Time to start             4 threads:                  0.000 seconds.
--------------------------------------------------------------------
Time to set           40000 keys by    4 threads:     0.487 seconds.
--------------------------------------------------------------------
Time total:                                           0.509 seconds.
"""

SECONDS = re.compile(r"^\d+\.\d{3}$")


def layout(text):
    """Each line of memslap's part of a report as (word or <seconds>, the column it ends at):
    the words, the counts and where everything stands, whatever the times were."""
    lines = []
    for line in text.splitlines():
        tokens = [(("<seconds>" if SECONDS.match(m.group()) else m.group()), m.end())
                  for m in re.finditer(r"\S+", line)]
        lines.append(tokens)
        if line.startswith("Time total:"):
            return lines
    raise AssertionError("no Time total: line in %r" % text)


def memslap_part(out):
    check("Time total:" in out, "no Time total: line")
    return out[:out.index("\n", out.index("Time total:")) + 1]


def items(mc):
    return int(mc.stats()[0]["curr_items"])


def printed(out, what):
    """The count of a "Time to WHAT N keys" line."""
    m = re.search(r"^Time to %s +(\d+) keys" % what, out, re.M)
    check(m is not None, "no 'Time to %s' line" % what)
    return int(m.group(1))


@no_time
def case_memslap_seed_loop(mc):
    """The seed script in miniature: concurrency 4 and 8, binary and ASCII, --flush and
    --initial-load; the server's counts are the printed ones, the lines memslap's."""
    for threads in (4, 8):
        for binary in (True, False):
            raw_command(mc, b"set slap-marker 0 0 1\r\nx\r\n")
            args = ["memslap", "--server=%s" % mc.addr, "--concurrency=%d" % threads,
                    "--execute-number=1000", "--initial-load=50000", "--flush"]
            rc, out, err, delta, _ = measured([mc], args + (["--binary"] if binary else []))
            what = "c%d %s" % (threads, "binary" if binary else "ascii")
            check(rc == 0, "%s: exit status %d" % (what, rc))
            check(printed(out, "set") == threads * 1000 == delta["cmd_set"],
                  "%s: printed %d sets, the server counted %d" % (what, printed(out, "set"),
                                                                 delta["cmd_set"]))
            check(delta["cmd_get"] == 0, "%s: a set test reads nothing" % what)
            check(items(mc) == 1000, "%s: the threads share 1000 keys, the server holds %d"
                  % (what, items(mc)))
            mine, ref = layout(memslap_part(out)), layout(MEMSLAP_REFERENCE)
            check(len(mine) == len(ref), "%s: %d lines, memslap prints %d" % (what, len(mine), len(ref)))
            for got, want in zip(mine, ref):
                shape = [(w if not w.isdigit() else "<n>", col) for w, col in got]
                want_shape = [(w if not w.isdigit() else "<n>", col) for w, col in want]
                check(shape == want_shape, "%s: line %r laid out unlike memslap's %r"
                      % (what, got, want))


class Fetches:
    """The keys memcached is asked for, and by which connection, from its `watch fetchers`
    log (memcached 1.6), while the block runs."""

    def __init__(self, mc):
        self.sock = socket.create_connection((mc.host, mc.port), timeout=5)
        self.sock.sendall(b"watch fetchers\r\n")
        data = b""
        while not data.endswith(b"OK\r\n"):
            data += self.sock.recv(100)
        self.data = b""
        self.done = False
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        """Until the block is done and the log has been quiet for 1.5 s: memcached's logger
        thread writes the lines late when the machine is busy (0.5 s lost 83 keys once)."""
        self.sock.settimeout(0.5)
        quiet = 0
        while True:
            try:
                chunk = self.sock.recv(65536)
            except socket.timeout:
                quiet = quiet + 1 if self.done else 0  # quiet counts after the block only
                if quiet >= 3:
                    return
                continue
            if not chunk:
                return
            quiet = 0
            self.data += chunk

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.done = True
        self.reader.join(10)
        self.sock.close()

    def by_connection(self):
        """{connection's fd in the server: [key, ...]}: keys found, in the order asked (a set
        looks its key up too, but on a fresh server finds nothing)."""
        keys = collections.defaultdict(list)
        for line in self.data.decode(errors="replace").splitlines():
            fields = dict(f.split("=", 1) for f in line.split(" ") if "=" in f)
            if fields.get("type") == "item_get" and fields.get("status") == "found":
                keys[fields["cfd"]].append(fields["key"])
        return keys


@no_time
def case_memslap_mget_every_key(mc):
    """mget asks each thread for every key of the shared set once: the server counts 600 hits
    and its watch log shows each of the 200 keys once on each connection. 200 keys, not 400:
    memcached's logger drops the lines of a burst past its buffer without saying so (of 400
    keys asked in one request, 318 lines came, on one connection of three, every time)."""
    before = mc.stats()[0]
    with Fetches(mc) as fetches:
        rc, out, err = run_slap(["memslap", "-s", mc.addr, "-t", "mget", "-c", "3", "-e", "200"])
        check(rc == 0, "exit status %d" % rc)
    hits = int(mc.stats()[0]["get_hits"]) - int(before["get_hits"])
    check(hits == 600, "the server counted %d hits, not 3 threads x 200 keys" % hits)
    log = fetches.data.decode(errors="replace")
    check("skipped" not in log, "the watch log lost lines")
    by_conn = fetches.by_connection()
    keys = [k for c in by_conn.values() for k in c]
    times = collections.Counter(keys)
    check(len(by_conn) == 3 and all(len(c) == 200 == len(set(c)) for c in by_conn.values())
          and len(times) == 200 and set(times.values()) == {3},
          "3 threads asked for %d keys, %d distinct, each %r times, by connection %r: every one "
          "of 200 keys once a thread" % (len(keys), len(times), sorted(set(times.values())),
                                          {fd: len(c) for fd, c in by_conn.items()}))


def case_memslap_get_mget(mc):
    """get: one load of the keys, then random gets; mget: one multi-get of every key a thread.
    The load's line and the tests' counts are the server's."""
    for test, requests in (("get", 2000), ("mget", 4)):
        rc, out, err, delta, _ = measured([mc], ["memslap", "-s", mc.addr, "-t", test, "-c", "4",
                                                 "-e", "500", "--flush"])
        check(rc == 0, "%s: exit status %d" % (test, rc))
        check(printed(out, "set") == 500 == delta["cmd_set"],
              "%s: loaded %d keys, the server counted %d sets" % (test, printed(out, "set"),
                                                                  delta["cmd_set"]))
        check(printed(out, test) == 2000 == delta["cmd_get"],
              "%s: printed %d keys, the server counted %d" % (test, printed(out, test),
                                                              delta["cmd_get"]))
        check(delta["get_misses"] == 0 and "\nget_misses: 0\n" in out, "%s: no misses" % test)
        m = re.search(r"^Latency\(us\): min \d+ avg [\d.]+ p50 \d+ p90 \d+ p99 \d+ p99\.9 \d+ "
                      r"max \d+ requests (\d+)$", out, re.M)
        check(m is not None and int(m.group(1)) == requests,
              "%s: the latency line counts %d requests" % (test, requests))
        check(out.index("Latency") > out.index("Time total:"), "additions come after Time total:")


def find_memcslap():
    path = shutil.which("memcslap")
    check(path is not None, "memcslap is not installed (scripts/deps.sh libmemcached-tools)")
    return path


@no_time
def case_memslap_as_memcslap(mc):
    """Debian's memcslap and slap memslap, same command lines: the same lines, words, counts
    and columns (the times aside), and the same server counts."""
    memcslap = find_memcslap()
    for extra in (["--flush"], ["-t", "get"], ["-t", "mget", "--binary"], ["-t", "get", "-b"]):
        args = ["-s", mc.addr, "-c", "2", "-e", "300"] + extra
        before = mc.stats()
        theirs = subprocess.run([memcslap] + args, capture_output=True, text=True, timeout=60)
        sys.stdout.write("$ memcslap %s -> %d\n%s%s" % (" ".join(args), theirs.returncode,
                                                        theirs.stdout, theirs.stderr))
        their_sets = int(mc.stats()[0]["cmd_set"]) - int(before[0]["cmd_set"])
        rc, out, err, delta, _ = measured([mc], ["memslap"] + args)
        check(rc == 0 and theirs.returncode == 0, "%r: exit statuses %d and %d"
              % (extra, rc, theirs.returncode))
        check(layout(memslap_part(out)) == layout(theirs.stdout),
              "%r: slap's lines differ from memcslap's:\n%s\n%s" % (extra, out, theirs.stdout))
        check(delta["cmd_set"] == their_sets, "%r: %d sets, memcslap's %d"
              % (extra, delta["cmd_set"], their_sets))


@no_time
def case_memslap_dead_server():
    """memcslap prints 'Time to set 0 keys' and exits 0; slap says why and exits 1."""
    port = free_port()
    rc, out, err = run_slap(["memslap", "-s", "127.0.0.1:%d" % port, "-e", "10"])
    check(rc == 1, "exit status %d against a dead server" % rc)
    check("cannot connect to 127.0.0.1:%d" % port in err, "stderr: %r" % err)
    check("Time to set" not in out, "no figures for a test that did not run")


@no_time
def case_memslap_speaks_memslap():
    """A lost connection says so in memslap's words: no slap-only option (--preload, -R) in
    what a memslap user reads; slap's own face still names them."""
    from fakemc import FakeMemcached
    slap_only = re.compile(r"--(preload|timeout|udp_timeout|max_errors)|-R\b|-w\b|\(-c\)|\(-n\)")
    for test, at, when in (("get", 20, "while loading the keys"),
                           ("set", 500, "threads stopped early")):  # 1 unanswered below 1%
        fake = FakeMemcached(behave=lambda conn, req, at=at: "close" if req == at else None)
        try:
            rc, out, err = run_slap(["memslap", "-s", fake.addr, "-t", test, "-e", "1000"])
        finally:
            fake.stop()
        check(rc == 1 and when in err, "memslap -t %s: exit %d, %r" % (test, rc, err))
        check(not slap_only.search(err), "memslap -t %s names slap's options: %r" % (test, err))
    fake = FakeMemcached(behave=lambda conn, req: "close" if req == 20 else None)
    try:
        rc, out, err = run_slap(["-s", fake.addr, "--mix", "get=1", "-w", "100", "-c", "1",
                                 "-x", "100"])
    finally:
        fake.stop()
    check(rc == 1 and "a connection was lost during the preload" in err, "slap: %r" % err)


@no_time
def case_memslap_invocations(mc):
    """By a link's name (memslap, memcslap), MEMCACHED_SERVERS, usage errors, --help."""
    tmp = tempfile.mkdtemp(prefix="slap-memslap-")
    try:
        for name in ("memslap", "memcslap"):
            link = os.path.join(tmp, name)
            os.symlink(os.path.abspath(PATHS.slap), link)
            env = dict(os.environ, MEMCACHED_SERVERS=mc.addr)
            res = subprocess.run([link, "-e", "50", "-c", "2"], capture_output=True, text=True,
                                 env=env, timeout=60)
            sys.stdout.write("$ %s -e 50 -c 2 -> %d\n%s%s" % (name, res.returncode, res.stdout,
                                                            res.stderr))
            check(res.returncode == 0, "%s: exit status %d" % (name, res.returncode))
            check(printed(res.stdout, "set") == 100, "%s: 2 threads of 50 sets" % name)
            res = subprocess.run([link, "--test=put"], capture_output=True, text=True, timeout=60)
            check(res.returncode == 2 and "Try '%s --help'" % name in res.stderr,
                  "%s --test=put: %d %r" % (name, res.returncode, res.stderr))
    finally:
        shutil.rmtree(tmp)
    rc, out, err = run_slap(["memslap", "-s", mc.addr, "--noreply"])
    check(rc == 2 and "--noreply" in err and "Try 'slap memslap --help'" in err,
          "--noreply with sets is refused: %r" % err)
    rc, out, err = run_slap(["memslap", "--help"])
    check(rc == 0 and "--execute-number=N" in out and "--initial-load=N" in out, "memslap's --help")
    rc, out, err = run_slap(["-s", mc.addr, "--execute-number", "10", "-c", "1", "-T", "1"])
    check(rc == 0 and "Run time:" in out, "slap's own options are untouched")
