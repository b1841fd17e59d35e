"""What the integration cases share: the programs under test, a throwaway memcached
stopped by its pid, running slap, reading its report and the server's stats, and
fake servers (a silent or garbage listener, a proxy that delays or rewrites answers).
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
