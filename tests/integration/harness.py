"""What the integration cases share: the programs under test, a throwaway memcached
stopped by its pid, running slap, reading its report and the server's stats, and
fake servers (a silent or garbage listener, a proxy that delays or rewrites answers), and a
throwaway PostgreSQL for the results store (postgres_server()).
"""
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import types

# The programs and files under test; run.py sets them from its arguments.
PATHS = types.SimpleNamespace(slap="slap", memcached="memcached", lmc_check="lmc_check",
                              man=None, readme=None)


def man_page(subcommand=None):
    """The path of slap's man page (PATHS.man, the one the build makes), or of a subcommand's,
    slap-NAME.1 beside it."""
    if subcommand is None:
        return PATHS.man
    return os.path.join(os.path.dirname(PATHS.man), "slap-%s.1" % subcommand)


COUNTERS = ("cmd_get", "cmd_set", "get_misses", "written_bytes", "read_bytes", "object_bytes")


class Failure(Exception):
    pass


class Skip(Exception):
    """The machine cannot run the case (a limit outside slap): it is reported as skipped,
    with the reason, and neither passes nor fails."""


# ---------------------------------------------------------------- a case's properties
#
# Declared on the case itself, as decorators; run.py --list-properties gives them to ctest
# (tests/CMakeLists.txt), so a new case needs no line anywhere else. A case with none runs
# alone in both builds, with the default time limit.

NEEDS = {  # what a case may need of the machine: the ctest label, and how run.py checks it
    "root": ("needs_root", lambda: os.geteuid() == 0, "needs root"),
    "two_cpus": ("needs_two_cpus", lambda: (os.cpu_count() or 1) >= 2,
                 "one CPU: slap and the server cannot be pinned apart"),
    "netns": ("needs_netns", None, None),  # checked by the case: ip netns must work
    "cgroup": ("needs_cgroup", None, None),  # checked by the case: a CPU quota cgroup
}


def _props(fn):
    if not hasattr(fn, "slap_props"):
        fn.slap_props = {"no_time": False, "release_only": None, "needs": [], "timeout": 120,
                        "threads": False}
    return fn.slap_props


def no_time(fn):
    """The case measures no time (counts, texts, files, refusals, bounded waits): it may share
    the CPUs with another such case, and it is in the quick tier (ctest -L quick)."""
    _props(fn)["no_time"] = True
    return fn


# Why a case runs in the release build only. The sanitizers' build is run for memory errors;
# the code each such case drives runs under the sanitizers in a sibling case.
VALGRIND_OR_MEMORY = ("valgrind (memcheck, callgrind's counts) and memory growth measure the "
                      "release build, not the sanitizers'")
SAME_IN_EVERY_BUILD = ("the scripts', packages' and documents' checks are the same whichever "
                       "way slap was built")
TIMING_STATISTICS = ("it judges timing statistics (an interval's coverage, two sets alike, a "
                     "capacity found, a starved CPU, which side was saturated, whose the tail "
                     "was) at the release build's speed; its siblings run the same code under "
                     "the sanitizers")


def release_only(why):
    """The case runs in the release build only (not the sanitizers'), for the reason given:
    it judges timing statistics, measures memory or counts instructions, or checks scripts
    and documents that are the same whichever way slap was built."""
    def mark(fn):
        _props(fn)["release_only"] = why
        return fn
    return mark


def needs(*what):
    """The case needs this of the machine (NEEDS); without it the case is skipped, saying why."""
    for w in what:
        if w not in NEEDS:
            raise SystemExit("needs(%r): not one of %s" % (w, ", ".join(sorted(NEEDS))))

    def mark(fn):
        _props(fn)["needs"].extend(what)
        return fn
    return mark


def threads(fn):
    """The case runs slap's threads beside its main one (several -T workers, the samples'
    writer, the pusher and its resolver, /metrics, the watchdog, the trace reader, runs of
    runs): scripts/tsan.sh runs it under ThreadSanitizer (ctest label `threads`)."""
    _props(fn)["threads"] = True
    return fn


def timeout(seconds):
    """The case's time limit in ctest, when 120 s is not enough."""
    def mark(fn):
        _props(fn)["timeout"] = seconds
        return fn
    return mark


def props(fn):
    return _props(fn)


# ---------------------------------------------------------------- the suite's record
#
# Every failure, skip and try again of a case is a line of the file $SLAP_TEST_RECORD (when
# set: scripts/test.sh sets it for each pass), so that the suite's summary names each case
# that needed another try, with its first failure, and each skip with its reason.

CASE = types.SimpleNamespace(name=None)


def record(kind, text):
    path = os.environ.get("SLAP_TEST_RECORD")
    if not path or CASE.name is None:
        return
    line = "%s %s: %s\n" % (kind, CASE.name, " ".join(str(text).split())[:300])
    with open(path, "a") as f:  # one write of one short line: whole among the cases' writes
        f.write(line)


def set_aside(why):
    """A try within a case is set aside, not judged (the busy host disturbed it; another try
    follows while any is left): said on the case's output, and counted in the suite's
    summary with the reason."""
    print("set aside: %s" % why)
    record("ASIDE", why)


def check(cond, what):
    if not cond:
        raise Failure(what)


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---------------------------------------------------------------- servers

class Memcached:
    """A throwaway memcached, stopped by pid. Plain-text stats go to stats_port
    (the port itself, a second notls listener for TLS, or the unix socket)."""

    def __init__(self, port=None, extra=(), listen="127.0.0.1", unix=None, tls=None, udp=False):
        for attempt in range(3):
            try:
                return self._start(port, extra, listen, unix, tls, udp)
            except Failure as f:
                # a port found free can be taken by a neighbouring test before memcached binds it
                if port is not None or unix is not None or attempt == 2:
                    raise
                set_aside("memcached did not start on a port found free: %s" % f)

    def _start(self, port, extra, listen, unix, tls, udp):
        self.own_extra = [0, 0, 0]  # stats(): bytes read, written, connections of extra reads
        self.port = port or free_port()
        self.binary = "binary" in extra
        self.unix = unix
        self.host = listen
        self.stats_port = self.port
        cmd = [PATHS.memcached, "-U", str(self.port) if udp else "0", "-t", "2"]
        if unix:
            cmd += ["-s", unix]
        elif tls:
            self.stats_port = free_port()
            cmd += ["-Z", "-o", "ssl_chain_cert=%s,ssl_key=%s" % tls, "-p", str(self.port),
                    "-l", "%s,notls:%s:%d" % (listen, listen, self.stats_port)]
        else:
            cmd += ["-l", listen, "-p", str(self.port)]
        if os.geteuid() == 0:
            cmd += ["-u", "root"]
        self.proc = subprocess.Popen(cmd + list(extra), stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 5
        while True:
            try:
                self.connect(timeout=0.2).close()
                return
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise Failure("memcached did not start (%r)" % cmd)
                time.sleep(0.02)

    def connect(self, timeout=5):
        if self.unix:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.settimeout(timeout)
            s.connect(self.unix)
            return s
        return socket.create_connection((self.host, self.stats_port), timeout=timeout)

    @property
    def addr(self):
        if self.unix:
            return self.unix
        if ":" in self.host:
            return "[%s]:%d" % (self.host, self.port)
        return "%s:%d" % (self.host, self.port)

    def binary_stats(self):
        """STAT over the binary protocol (a -B binary server knows no other)."""
        import struct
        with self.connect() as s:
            s.sendall(struct.pack(">BBHBBHIIQ", 0x80, 0x10, 0, 0, 0, 0, 0, 0, 0))
            data, values, pos = b"", {}, 0
            while True:
                while len(data) - pos < 24:
                    chunk = s.recv(65536)
                    if not chunk:
                        raise Failure("binary stats: connection closed")
                    data += chunk
                _, _, klen, _, _, _, body, _, _ = struct.unpack(">BBHBBHIIQ", data[pos:pos + 24])
                while len(data) - pos < 24 + body:
                    data += s.recv(65536)
                key = data[pos + 24:pos + 24 + klen].decode()
                values[key] = data[pos + 24 + klen:pos + 24 + body].decode()
                pos += 24 + body
                if klen == 0:
                    values["binary_stats"] = "1"
                    return values, len(data)

    def stats(self):
        """The server's stats, and the size of the response (which the server counts), once
        the server has counted all it sent and read. memcached adds what it sent to
        bytes_written after the send returns: a client can read an answer (the test's previous
        `stats`, slap's last get) before the server has counted it, and a snapshot taken
        then, on another of its threads, misses it (seen once: 3746 bytes, one binary `stats`
        answer, in a run's delta). So a snapshot counts when the next one finds only the
        test's own traffic in between (the first's answer, the second's request); the extra
        snapshots' own bytes and connections are taken out of the returned figures, so that a
        caller sees one `stats` exchange, as before."""
        request = stats_request_len(self.binary)
        extra = self.own_extra
        prev = self._stats_once()
        for _ in range(40):
            cur = self._stats_once()
            (p, plen), (c, _) = prev, cur
            settled = (int(c["bytes_read"]) - int(p["bytes_read"]) == request and
                       int(c["bytes_written"]) - int(p["bytes_written"]) == plen)
            # prev's exchange is one more than a caller counts: its request and its answer
            extra = [extra[0] + request, extra[1] + plen, extra[2] + 1]
            prev = cur
            if settled:
                break
            time.sleep(0.01)  # traffic still being counted (or a server still serving others)
        self.own_extra = extra
        values, length = prev
        values["bytes_read"] = str(int(values["bytes_read"]) - extra[0])
        values["bytes_written"] = str(int(values["bytes_written"]) - extra[1])
        if "total_connections" in values:
            values["total_connections"] = str(int(values["total_connections"]) - extra[2])
        return values, length

    def _stats_once(self):
        if self.binary:
            return self.binary_stats()
        with self.connect() as s:
            s.sendall(b"stats\r\n")
            data = b""
            while not data.endswith(b"END\r\n"):
                chunk = s.recv(65536)
                if not chunk:
                    raise Failure("stats: connection closed")
                data += chunk
        values = {}
        for line in data.decode().split("\r\n"):
            parts = line.split(" ")
            if len(parts) == 3 and parts[0] == "STAT":
                values[parts[1]] = parts[2]
        return values, len(data)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


# ------------------------------------------------------ slap and its report

def run_slap(args, timeout=60, interrupt_after=None, during=None, prefix=()):
    """Run slap (through prefix, commands that exec it); return (returncode, stdout, stderr)."""
    proc = subprocess.Popen(list(prefix) + [PATHS.slap] + args, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    if during is not None:
        threading.Thread(target=during, daemon=True).start()
    if interrupt_after is not None:
        time.sleep(interrupt_after)
        proc.send_signal(signal.SIGINT)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        raise Failure("slap did not finish within %ds\nstdout:\n%s\nstderr:\n%s" % (timeout, out, err))
    sys.stdout.write("$ slap %s  -> %d\n%s%s" % (" ".join(args), proc.returncode, out, err))
    return proc.returncode, out, err



def slap_protocols():
    """The protocols slap takes (its codec table's names, from its message for one it does not),
    so that no case keeps its own list."""
    rc, _, err = run_slap(["--protocol=no-such-protocol", "--version"])
    m = re.search(r"is not one of (.*)$", err, re.M)
    check(rc == 2 and m is not None, "slap's protocols: %d %r" % (rc, err))
    return m.group(1).split(", ")

def counters(out):
    found = {}
    for line in out.splitlines():
        m = re.match(r"^([a-z_]+): (\d+)$", line)
        if m:
            found[m.group(1)] = int(m.group(2))
    for name in COUNTERS:
        check(name in found, "counter %s missing from the report" % name)
    return found


def run_line(out):
    m = re.search(r"^Run time: ([\d.]+)s Ops: (\d+) TPS: (\d+) Net_rate: ([\d.]+)M/s$", out, re.M)
    check(m is not None, "no Run time line")
    return float(m.group(1)), int(m.group(2)), int(m.group(3)), float(m.group(4))


class SlapReads(int):
    """A number of slap's own `stats` requests, and whether they are in the binary protocol."""
    def __new__(cls, n, binary=False):
        self = super().__new__(cls, n)
        self.binary = binary
        return self


def slap_stats_reads(args, server=None):
    """How many `stats` requests slap itself sends server around a run (for its server_cpu_s
    lines): one before and one after for each of its addresses in -s (a memcached listening
    on two addresses is asked twice), and one more before a --preload or --warmup (for the
    evictions they cause; a mix without sets preloads too: not told here), none with its
    memslap face or --tls; in the run's protocol, so binary with the binary protocol."""
    if args and args[0] == "memslap":
        return SlapReads(0)
    if "--tls" in args:
        return SlapReads(0)
    binary = any(a in ("-B", "--binary", "--protocol=binary") for a in args) or \
        any(a == "--protocol" and b == "binary" for a, b in zip(args, args[1:]))
    listed = [args[i + 1] for i, a in enumerate(args[:-1]) if a in ("-s", "--servers")]
    listed += [a.split("=", 1)[1] for a in args if a.startswith("--servers=")]
    each = 3 if any(a == "--preload" or a.startswith("--warmup") for a in args) else 2
    if server is None or not listed or server.unix:
        return SlapReads(each, binary)
    port = ":%d" % server.port
    return SlapReads(each * sum(1 for a in listed[-1].split(",") if a.endswith(port)) or each,
                     binary)


def stats_request_len(binary):
    """The bytes of one `stats` request, which the server counts as read."""
    return 24 if binary else len(b"stats\r\n")


def server_delta(before, after, slap_reads=0):
    """The server's counters over slap's run, less the test's own `stats` traffic, and less
    slap's (slap_reads requests): their answers' exact length is not known, only a window
    (stats_answers), which check_agree allows for."""
    (b, before_len), (a, after_len) = before, after
    d = {k: int(a[k]) - int(b[k]) for k in ("cmd_get", "cmd_set", "get_misses", "get_hits",
                                            "bytes_read", "bytes_written")}
    # The second `stats` request is read before its snapshot; the first one's
    # answer is written after its snapshot. Neither is slap's traffic.
    d["bytes_read"] -= stats_request_len("binary_stats" in b)
    d["bytes_written"] -= before_len
    slap_binary = getattr(slap_reads, "binary", False)
    d["bytes_read"] -= slap_reads * stats_request_len(slap_binary)
    if slap_binary and "binary_stats" not in b:
        # slap's answers in binary, the test's in text: each STAT line (5 + name + 1 + value
        # + 2 bytes) is a packet of 24 + name + value, and END's 5 a header of 24
        before_len += 16 * len(b) + 19
        after_len += 16 * len(a) + 19
    # slap's answers were written between the test's two: as long as those, give or take
    # a few digits of counters that shrank (curr_connections) or grew.
    d["stats_answers"] = (slap_reads * (before_len - 8), slap_reads * (after_len + 8))
    return d


def check_agree(slap, delta):
    pairs = (("cmd_get", "cmd_get"), ("cmd_set", "cmd_set"), ("get_misses", "get_misses"),
             ("written_bytes", "bytes_read"), ("read_bytes", "bytes_written"))
    low, high = delta.get("stats_answers", (0, 0))
    # slap said it could not read a server's stats (no answer in 2 s: a stalled server): of its
    # `stats` requests, fewer may have reached the server, and fewer been answered
    unsure = delta.get("stats_unsure", 0)
    for mine, theirs in pairs:
        if theirs == "bytes_read" and unsure > 0:
            short = slap[mine] - delta[theirs]
            check(short % len(b"stats\r\n") == 0 and 0 <= short // len(b"stats\r\n") <= unsure,
                  "slap %s=%d but the server counted %s=%d: not up to %d `stats` requests "
                  "short" % (mine, slap[mine], theirs, delta[theirs], unsure))
            continue
        if theirs == "bytes_written" and high > 0:
            extra = delta[theirs] - slap[mine]
            low = 0 if unsure > 0 else low
            check(low <= extra <= high,
                  "slap %s=%d but the server counted %s=%d: %d more, not slap's `stats` "
                  "answers (%d to %d bytes)" % (mine, slap[mine], theirs, delta[theirs], extra,
                                                low, high))
            continue
        check(slap[mine] == delta[theirs],
              "slap %s=%d but the server counted %s=%d" % (mine, slap[mine], theirs, delta[theirs]))


def measured(servers, args, **kw):
    befores = [s.stats() for s in servers]
    rc, out, err = run_slap(args, **kw)
    deltas = []
    for b, s in zip(befores, servers):
        reads = slap_stats_reads(args, s)
        deltas.append(server_delta(b, s.stats(), reads))
        said = re.search(r"^server_cpu_(?:s|unknown): %s .*stats not read (?:before|after) the "
                         r"run: " % re.escape(s.addr), out, re.M)
        deltas[-1]["stats_unsure"] = reads if said else 0
    total = {k: sum(d[k] for d in deltas) for k in deltas[0] if k != "stats_answers"}
    total["stats_answers"] = tuple(sum(d["stats_answers"][i] for d in deltas) for i in (0, 1))
    return rc, out, err, total, deltas


def block_stat(out, block, name):
    """A figure of a final block, e.g. block_stat(out, "Total", "P99"); a percentile's interval
    may follow it. None for a percentile the block says is not estimable."""
    m = re.search(r"^%s Statistics \(\d+ events\)\n((?:   .*\n|       .*\n)+)" % re.escape(block),
                  out, re.M)
    check(m is not None, "no final %s block" % block)
    if re.search(r"^   %s: not estimable \(\d+ requests; " % re.escape(name), m.group(1), re.M):
        return None
    v = re.search(r"^   %s:\s+([\d.]+)(?:  \[\d+, \d+\](?: \(.+\))?)?$" % re.escape(name),
                  m.group(1), re.M)
    check(v is not None, "no %s line in the %s block" % (name, block))
    return float(v.group(1))


def sweep_rows(out, npct):
    """The sweep table's full rows, each (target, achieved, [percentiles], max, limited_by,
    [interval cells]), with npct percentiles. A percentile is None ("-") exactly where its cell
    says how many requests it needs; a cut-short row does not match."""
    pattern = (r"^(\d+)\s+(\d+)" + r"\s+(\d+|-)" * npct + r"\s+(\d+)\s+([a-z-]+)" +
               r"\s+(\d+|-)\s+(\d+|-)" +  # Late99(us), Held99(us): checked here, not returned
               r"\s+(\[\d+,\d+\]|needs_\d+|never)" * npct + r"[ ]*$")
    rows = []
    for g in re.findall(pattern, out, re.M):
        pct = [None if x == "-" else int(x) for x in g[2:2 + npct]]
        most = int(g[2 + npct])
        for part in g[4 + npct:6 + npct]:  # "-": not kept (a merged or read-back step)
            check(part == "-" or int(part) <= most + 1,
                  "a latency part's P99 above the step's Max in %r" % (g,))
        cells = list(g[6 + npct:])
        for p, c in zip(pct, cells):
            check((p is None) == (not c.startswith("[")),
                  "a percentile and its interval disagree in %r" % (g,))
        rows.append((int(g[0]), int(g[1]), pct, int(g[2 + npct]), g[3 + npct], cells))
    return rows


def named(out, name):
    m = re.search(r"^%s: ([\d.]+)$" % name, out, re.M)
    check(m is not None, "no %s line" % name)
    return float(m.group(1))


# ------------------------------------------------- fixtures and fake servers

def raw_command(mc, command):
    with mc.connect() as s:
        s.sendall(command)
        data = b""
        while not (data.endswith(b"\r\n") and (b"END" in data or b"STORED" in data or
                                               b"OK" in data or b"ERROR" in data)):
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
        return data


def write_file(text):
    path = "/tmp/slap-test-%d-%d.cfg" % (os.getpid(), int(time.monotonic() * 1e6))
    with open(path, "w") as f:
        f.write(text)
    return path


def stall_later(mc, at, length):
    def stall():
        time.sleep(at)
        mc.proc.send_signal(signal.SIGSTOP)
        time.sleep(length)
        mc.proc.send_signal(signal.SIGCONT)
    return stall


def garbage_server(port, reply):
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", port))
    srv.listen(16)

    def serve():
        srv.settimeout(10)
        try:
            while True:
                conn, _ = srv.accept()
                conn.recv(4096)
                conn.sendall(reply)
        except OSError:
            pass
    threading.Thread(target=serve, daemon=True).start()
    return srv


class DelayProxy:
    """Forwards to a server and delivers its answers `delay` seconds after they come. delay is
    a number, or a function of the seconds since the proxy started giving the delay then (an
    added delay that grows, or one drawn from a distribution)."""

    def __init__(self, upstream_port, delay):
        import asyncio
        self.port = free_port()
        self.delay = delay if callable(delay) else (lambda elapsed: delay)
        self.upstream = upstream_port
        self.ready = threading.Event()
        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self._run, daemon=True).start()
        check(self.ready.wait(5), "proxy did not start")

    def _run(self):
        import asyncio
        asyncio.set_event_loop(self.loop)
        start = self.loop.time()

        async def pump(reader, writer, delay):
            queue = asyncio.Queue()

            async def deliver():
                while True:
                    due, data = await queue.get()
                    if data is None:
                        break
                    wait = due - self.loop.time()
                    if wait > 0:
                        await asyncio.sleep(wait)
                    writer.write(data)
                    await writer.drain()
            task = self.loop.create_task(deliver())
            while True:
                data = await reader.read(65536)
                if not data:
                    break
                now = self.loop.time()
                await queue.put((now + delay(now - start), data))
            await queue.put((0, None))
            await task
            writer.close()

        async def handle(creader, cwriter):
            sreader, swriter = await asyncio.open_connection("127.0.0.1", self.upstream)
            self.loop.create_task(pump(creader, swriter, lambda elapsed: 0))
            await pump(sreader, cwriter, self.delay)

        async def main():
            server = await asyncio.start_server(handle, "127.0.0.1", self.port)
            self.ready.set()
            async with server:
                await server.serve_forever()
        try:
            self.loop.run_until_complete(main())
        except Exception:
            pass

    @property
    def addr(self):
        return "127.0.0.1:%d" % self.port


def make_certs(tmp):
    def run(*args):
        subprocess.run(["openssl"] + list(args), cwd=tmp, check=True, capture_output=True)
    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.crt",
        "-days", "1", "-subj", "/CN=slap test CA")
    run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "srv.key", "-out", "srv.csr",
        "-subj", "/CN=127.0.0.1")
    with open(os.path.join(tmp, "ext.cnf"), "w") as f:
        f.write("subjectAltName=IP:127.0.0.1\n")
    run("x509", "-req", "-in", "srv.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
        "-out", "srv.crt", "-days", "1", "-extfile", "ext.cnf")
    return [os.path.join(tmp, n) for n in ("ca.crt", "srv.crt", "srv.key")]


# ------------------------------------------------------------ a real PostgreSQL

def _postgres_bin():
    """The directory of Debian's PostgreSQL server programs (/usr/lib/postgresql/N/bin, the
    highest N with a postgres in it), or None."""
    import glob
    found = [d for d in glob.glob("/usr/lib/postgresql/*/bin")
             if os.access(os.path.join(d, "postgres"), os.X_OK)]
    numeric = lambda d: [int(p) for p in re.findall(r"\d+", d.split("/")[-2])]  # noqa: E731
    return max(found, key=numeric) if found else None


def pg_env(password=None):
    """The environment of a psql: no PG* variable of the caller's (a PGHOST, PGSERVICE or
    PGPASSFILE would change what it reaches), a bounded connect, and the password if given."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
    env["PGCONNECT_TIMEOUT"] = "10"
    if password is not None:
        env["PGPASSWORD"] = password
    return env


class PostgresServer:
    """A throwaway PostgreSQL (Debian's, the newest /usr/lib/postgresql/N) in a temporary
    directory of its own: a data directory made by initdb, its unix socket, its log
    (postgres.log). Run as nobody when the tests run as root (initdb and postgres refuse
    root), as the caller otherwise; postgres is this process's child, stopped by the pid its
    postmaster.pid gives. It listens on 127.0.0.1 on a free port, where every connection must
    give a password (scram-sha-256); the role `slap`, with a random password, owns the
    database `slap`. Use it through postgres_server(), which removes it after.

    url          postgresql://slap:PASSWORD@127.0.0.1:PORT/slap
    url_socket   the same over the unix socket: postgresql://slap:PASSWORD@/slap?host=DIR&port=PORT
    port, pid    the TCP port, and the postmaster's pid (None once stopped)
    password     the role slap's password
    dir, log     the temporary directory, and the server's log file in it
    psql(sql)    runs sql as slap over TCP (psql -At, ON_ERROR_STOP): its output; Failure if not
                 (psql(sql, url=..., password=...): at another URL, PGPASSWORD another password)
    psql_path    the psql it runs (with pg_env() for its environment)
    stop()       SIGINT (a fast shutdown) to the postmaster, then waits for it to exit
    start()      starts it again, on the same port and data
    """

    START_SECONDS = 30

    def __init__(self):
        import pwd
        import secrets
        import shutil
        import tempfile
        self.bin = _postgres_bin()
        if self.bin is None:
            raise Skip("PostgreSQL cannot start: no /usr/lib/postgresql/*/bin/postgres "
                       "(Debian's postgresql package)")
        self.psql_path = shutil.which("psql") or os.path.join(self.bin, "psql")
        if not os.access(self.psql_path, os.X_OK):
            raise Skip("PostgreSQL cannot start: no psql (postgresql-client)")
        self.as_user = []  # how the server's programs are run: as nobody when we are root
        owner = None
        if os.geteuid() == 0:
            setpriv = shutil.which("setpriv")
            try:
                nobody = pwd.getpwnam("nobody")
            except KeyError:
                nobody = None
            if setpriv is None or nobody is None:
                raise Skip("PostgreSQL cannot start: initdb and postgres refuse root, and %s"
                           % ("there is no setpriv to run them as nobody" if setpriv is None
                              else "there is no account nobody to run them as"))
            # setpriv execs postgres (runuser would fork and wait): postgres is our child
            self.as_user = [setpriv, "--reuid=%d" % nobody.pw_uid, "--regid=%d" % nobody.pw_gid,
                            "--clear-groups", "--"]
            owner = (nobody.pw_uid, nobody.pw_gid)
        self.password = secrets.token_hex(16)
        self.pid = None
        self.proc = None
        self.dir = tempfile.mkdtemp(prefix="slap-pg-")
        try:
            os.chmod(self.dir, 0o755)  # the socket's directory: any user may connect
            self.data = os.path.join(self.dir, "data")
            self.log = os.path.join(self.dir, "postgres.log")
            os.mkdir(self.data, 0o700)
            if owner is not None:
                os.chown(self.dir, *owner)
                os.chown(self.data, *owner)
            self._initdb()
            for attempt in range(3):
                self.port = free_port()
                self._configure()
                try:
                    self.start()
                    break
                except Failure as f:
                    # a port found free can be taken by a neighbouring test before postgres binds it
                    if attempt == 2 or "could not bind" not in str(f):
                        raise
                    set_aside("postgres did not start on a port found free: %s" % f)
            self._superuser("CREATE ROLE slap LOGIN PASSWORD '%s'" % self.password)
            self._superuser("CREATE DATABASE slap OWNER slap")
        except BaseException:
            self.remove()
            raise

    @property
    def url(self):
        return "postgresql://slap:%s@127.0.0.1:%d/slap" % (self.password, self.port)

    @property
    def url_socket(self):
        from urllib.parse import quote
        return "postgresql://slap:%s@/slap?host=%s&port=%d" % (
            self.password, quote(self.dir, safe="/"), self.port)

    def _run(self, cmd, what, timeout=60):
        try:
            r = subprocess.run(self.as_user + cmd, cwd=self.dir, env=pg_env(),
                               capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise Failure("PostgreSQL: %s took more than %d s (%r)" % (what, timeout, cmd))
        if r.returncode != 0:
            raise Failure("PostgreSQL: %s failed (exit %d): %s%s"
                          % (what, r.returncode, r.stdout, r.stderr))
        return r.stdout

    def _initdb(self):
        import pwd
        # the superuser only on the socket, and only for the user running the tests (peer);
        # a password on every other connection, TCP or socket
        self._run([os.path.join(self.bin, "initdb"), "-D", self.data, "-U", "postgres",
                   "-E", "UTF8", "--locale=C", "--no-sync", "--auth=trust"], "initdb")
        with open(os.path.join(self.data, "pg_hba.conf"), "w") as f:
            f.write("local all postgres peer map=fixture\n"
                    "local all all scram-sha-256\n"
                    "host all all 127.0.0.1/32 scram-sha-256\n")
        with open(os.path.join(self.data, "pg_ident.conf"), "w") as f:
            f.write("fixture %s postgres\n" % pwd.getpwuid(os.geteuid()).pw_name)

    def _configure(self):
        with open(os.path.join(self.data, "postgresql.auto.conf"), "w") as f:
            f.write("listen_addresses = '127.0.0.1'\n"
                    "port = %d\n"
                    "unix_socket_directories = '%s'\n"
                    "fsync = off\nsynchronous_commit = off\nfull_page_writes = off\n"
                    "shared_buffers = 16MB\nmax_connections = 40\n"
                    "password_encryption = 'scram-sha-256'\n"
                    "logging_collector = off\nlog_destination = 'stderr'\n"
                    % (self.port, self.dir))

    def _log_text(self, start=0, tail=4000):
        try:
            with open(self.log, errors="replace") as f:
                f.seek(start)
                return f.read()[-tail:]
        except OSError as e:
            return "(no log: %s)" % e

    def _postmaster_pid(self):
        """postmaster.pid's pid and status line ("ready" once it takes connections), or None."""
        try:
            with open(os.path.join(self.data, "postmaster.pid")) as f:
                lines = f.read().split("\n")
        except OSError:
            return None
        if len(lines) < 8 or not lines[0].strip().isdigit():
            return None  # being written
        return int(lines[0]), lines[7].strip()

    def start(self):
        """Starts postgres (postmaster.pid says ready, within START_SECONDS); sets pid."""
        check(self.pid is None, "PostgreSQL: start() while running (pid %s)" % self.pid)
        log = open(self.log, "a")
        since = log.seek(0, os.SEEK_END)  # this start's lines, for its failure
        try:
            self.proc = subprocess.Popen(self.as_user + [os.path.join(self.bin, "postgres"),
                                                         "-D", self.data],
                                         cwd=self.dir, env=pg_env(), stdin=subprocess.DEVNULL,
                                         stdout=log, stderr=subprocess.STDOUT)
        finally:
            log.close()
        deadline = time.monotonic() + self.START_SECONDS
        while True:
            found = self._postmaster_pid()
            if found is not None and found[0] == self.proc.pid and found[1] == "ready":
                self.pid = found[0]
                return
            if self.proc.poll() is not None or time.monotonic() > deadline:
                status = self.proc.poll()
                if status is None:
                    self.proc.send_signal(signal.SIGINT)
                self._end_proc()
                raise Failure("PostgreSQL did not start (%s); %s:\n%s"
                              % ("postgres exited %d" % status if status is not None
                                 else "not ready in %d s" % self.START_SECONDS,
                                 self.log, self._log_text(since)))
            time.sleep(0.05)

    def stop(self):
        """A fast shutdown: SIGINT to the postmaster (the pid postmaster.pid gave, which
        start() found to be its child's), then waits for it to exit (SIGQUIT, then SIGKILL,
        after 30 s each)."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
        self._end_proc()

    def _end_proc(self):
        """Waits for postgres, signalled already, to exit: SIGQUIT (an immediate shutdown)
        after 30 s, SIGKILL after 30 more."""
        proc, self.proc, self.pid = self.proc, None, None
        for sig in (signal.SIGQUIT, signal.SIGKILL):
            try:
                proc.wait(timeout=30)
                return
            except subprocess.TimeoutExpired:
                proc.send_signal(sig)
        proc.wait()

    def psql(self, sql, url=None, password=None):
        """sql run by psql as slap (over TCP; or at url, with password in PGPASSWORD), with
        -At and ON_ERROR_STOP: its standard output. Failure if psql fails."""
        cmd = [self.psql_path, "-X", "-w", "-At", "-v", "ON_ERROR_STOP=1", "-d", url or self.url,
               "-c", sql]
        try:
            r = subprocess.run(cmd, env=pg_env(self.password if password is None else password),
                               capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired:
            raise Failure("psql took more than 60 s: %s" % sql)
        if r.returncode != 0:
            raise Failure("psql failed (exit %d) on %r: %s" % (r.returncode, sql, r.stderr.strip()))
        return r.stdout

    def _superuser(self, sql):
        cmd = [self.psql_path, "-X", "-w", "-At", "-v", "ON_ERROR_STOP=1", "-h", self.dir,
               "-p", str(self.port), "-U", "postgres", "-d", "postgres", "-c", sql]
        r = subprocess.run(cmd, env=pg_env(), capture_output=True, text=True, timeout=60)
        if r.returncode != 0:
            raise Failure("PostgreSQL setup failed (exit %d) on %r: %s"
                          % (r.returncode, sql.replace(self.password, "..."), r.stderr.strip()))
        return r.stdout

    def remove(self):
        """Stops postgres if it runs, and removes its directory."""
        import shutil
        try:
            self.stop()
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)


def postgres_server():
    """A context manager: a throwaway PostgreSQL (PostgresServer) for the block, stopped by
    its pid and removed after, whatever the block did. The case is skipped (Skip, "PostgreSQL
    cannot start: ...") when the machine has no PostgreSQL server or psql, or no way to run
    postgres other than as root; a server that is there but does not start is a Failure,
    with its log."""
    import contextlib

    @contextlib.contextmanager
    def server():
        pg = PostgresServer()
        try:
            yield pg
        finally:
            pg.remove()
    return server()
