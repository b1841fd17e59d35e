"""Every fault a benchmark meets: a hostile server, limits, signals, lost output, bad lists."""
import os
import resource
import signal
import subprocess
import time

from fakemc import FakeMemcached, FakeUdpMemcached, answer_of, frame
from harness import PATHS, check, counters, free_port, Memcached, run_line, run_slap
from harness import VALGRIND_OR_MEMORY, no_time, release_only, threads


def slap_cmd(args, preexec=None, stdout=subprocess.PIPE, env=None, timeout=60):
    """Run slap with more control than run_slap: limits, where stdout goes, the environment."""
    proc = subprocess.run([PATHS.slap] + args, stdout=stdout, stderr=subprocess.PIPE, text=True,
                          preexec_fn=preexec, env=env, timeout=timeout)
    print("$ slap %s  -> %d\n%s%s" % (" ".join(args), proc.returncode, proc.stdout or "",
                                      proc.stderr))
    return proc.returncode, proc.stdout or "", proc.stderr


# ---------------------------------------------------------------- replies

@no_time
def case_truncated_reply():
    """A server that closes in the middle of a value: the request is unanswered, run reported."""
    seen = {"requests": 0, "cut": False}

    def cut_short(request, answer):  # the first get from the 20th request on, cut short
        kind, keys, _ = request
        seen["requests"] += 1
        if kind != "get" or seen["cut"] or seen["requests"] < 20:
            return None
        seen["cut"] = True
        return (b"VALUE %s 0 10\r\nabc" % keys[0], "close")
    fake = FakeMemcached(rewrite=cut_short)
    try:
        rc, out, err = run_slap(["-s", fake.addr, "-t", "2s", "-c", "2", "--ratio=1:1"])
        c = counters(out)
        secs, ops, _, _ = run_line(out)
        check(ops >= 30, "what was measured before the fault is reported: %d ops" % ops)
        check(c.get("conn_closed", 0) >= 1 and c.get("unanswered", 0) >= 1,
              "the truncated answer ended its connection: %r" % c)
        check("connection closed by the server" in err, "stderr: %r" % err)
        check(rc == 1, "exit %d" % rc)
    finally:
        fake.stop()


@no_time
def case_oversized_reply():
    """A line longer than any memcached reply, or a VALUE of 2 GiB, is garbage, said once."""
    for reply in (b"VALUE k 0 2147483648\r\n", b"X" * 5000 + b"\r\n"):
        fake = FakeMemcached(behave=lambda c, r, reply=reply: reply if r >= 5 else None)
        try:
            rc, out, err = run_slap(["-s", fake.addr, "-t", "1s", "-c", "2"])
            c = counters(out)
            check(c.get("protocol_error", 0) >= 1, "oversized reply not counted: %r" % c)
            check(err.count("not a memcached response") == 1, "said once: %r" % err)
            check(rc == 1, "exit %d" % rc)
        finally:
            fake.stop()


@no_time
def case_unsolicited_reply():
    """An answer to no request (two ENDs for one get) is a protocol error, not a miss."""
    fake = FakeMemcached(behave=lambda c, r: b"END\r\nEND\r\n" if c == 0 and r == 10 else None)
    try:
        rc, out, err = run_slap(["-s", fake.addr, "-x", "200", "-c", "1", "-R"])
        c = counters(out)
        check(c.get("protocol_error", 0) == 1, "one unsolicited answer: %r" % c)
        check("answered a request that was not sent" in err or
              "a reply that does not answer the request sent" in err, "stderr: %r" % err)
    finally:
        fake.stop()


@no_time
def case_error_replies_by_kind():
    """SERVER_ERROR, CLIENT_ERROR and ERROR are the server talking: counted by kind, shown once
    each with the server's words, never as garbage; the run goes on."""
    replies = {2: b"SERVER_ERROR \x1b[2J\x1b]0;owned\x07 " + b"x" * 300 + b"\r\n",
               3: b"SERVER_ERROR out of memory storing object\r\n",
               4: b"CLIENT_ERROR bad data chunk\r\n", 5: b"ERROR\r\n"}
    fake = FakeMemcached(behave=lambda c, r: replies.get(r % 10))
    try:
        rc, out, err = run_slap(["-s", fake.addr, "-x", "1000", "-c", "2"])
        c = counters(out)
        check("\x1b" not in err and "\x07" not in err and "?[2J" in err,
              "a server's bytes are never printed raw: %r" % err)
        check(c.get("server_error") == 200 and c.get("client_error") == 100 and
              c.get("error_reply") == 100, "counted by kind: %r" % c)
        check(c.get("protocol_error", 0) == 0, "not garbage: %r" % c)
        check(err.count("SERVER_ERROR: ") == 1 and err.count("CLIENT_ERROR: bad data chunk") == 1,
              "the server's words, once a kind: %r" % err)
        check("ERROR\n" in err and "ERROR: \n" not in err, "a bare ERROR shows bare: %r" % err)
        check(c["cmd_get"] + c["cmd_set"] == 600, "the other requests counted: %r" % c)
        check(rc == 0, "exit %d" % rc)
    finally:
        fake.stop()


@no_time
def case_connection_limit():
    """memcached -c 64 with 200 clients: its refusal is relayed, the rest run and are reported."""
    server = Memcached(extra=["-c", "64"])
    try:
        rc, out, err = run_slap(["-s", server.addr, "-t", "2s", "-c", "200"], timeout=30)
        c = counters(out)
        check("Too many open connections" in err, "relay the server's words: %r" % err)
        check(c.get("protocol_error", 0) == 0, "the refusal is not garbage: %r" % c)
        check(c.get("conn_refused", 0) >= 100, "refused connections counted: %r" % c)
        check("closed before their first answer" in err, "say how many: %r" % err)
        secs, ops, _, _ = run_line(out)
        check(ops > 1000, "the run goes on with the clients that got a connection")
        check(rc == 1, "clients stopped early: exit %d" % rc)
    finally:
        server.stop()


def case_reconnect_backoff():
    """-R against a server that accepts and closes at once: backed off, not hammered."""
    fake = FakeMemcached(on_accept=lambda n: b"" if n >= 4 else None,
                         behave=lambda c, r: "close" if r >= 5 else None)
    try:
        rc, out, err = run_slap(["-s", fake.addr, "-t", "2s", "-c", "4", "-R"], timeout=30)
        check(fake.accepted <= 4 + 4 * 10, "%d connections in 2 s: the back-off did not apply"
              % fake.accepted)
        c = counters(out)
        check(c.get("conn_closed", 0) >= 4, "the closes are counted: %r" % c)
    finally:
        fake.stop()


def case_request_timeout():
    """--timeout fails a connection whose answer does not come; -R opens it again."""
    for reconnect in ([], ["-R"]):
        fake = FakeMemcached(behave=lambda c, r: "stall" if c == 0 and r == 50 else None)
        try:
            rc, out, err = run_slap(["-s", fake.addr, "-t", "2s", "-c", "2", "--timeout=300ms"]
                                    + reconnect)
            c = counters(out)
            check("no answer within --timeout" in err, "stderr: %r" % err)
            check(c.get("conn_closed") == 1 and c.get("unanswered") == 1, "%r" % c)
            if reconnect:
                check(c.get("reconnects") == 1 and rc == 0, "-R goes on: exit %d, %r" % (rc, c))
            else:
                check(c.get("clients_stopped") == 1 and rc == 1, "stopped: exit %d %r" % (rc, c))
        finally:
            fake.stop()


# ---------------------------------------------------------------- UDP

def udp_case(reply, what, args=("-t", "1s", "-c", "1")):
    fake = FakeUdpMemcached(reply=reply)
    try:
        rc, out, err = run_slap(["-s", fake.addr, "-U", "--udp-timeout=50ms"] + list(args))
        c = counters(out)
        check(err.count(what) == 1, "say once what was wrong (%r): %r" % (what, err))
        return rc, c, err
    finally:
        fake.stop()


def case_udp_wrong_id():
    rc, c, err = udp_case(lambda rid, p: [frame(rid ^ 0x5555, 0, 1) + answer_of(p)],
                          "unknown request id")
    check(c["udp_timeout"] >= 5 and c.get("unanswered", 0) >= 5, "timed out, not answered: %r" % c)


@no_time
def case_udp_bad_headers():
    for dgram, what in ((lambda rid: b"\x00\x01\x00", "shorter than the 8-byte frame header"),
                        (lambda rid: frame(rid, 0, 65535) + b"END\r\n", "more datagrams than"),
                        (lambda rid: frame(rid, 2, 1) + b"END\r\n", "seq not below total"),
                        (lambda rid: frame(rid, 0, 1, 7) + b"END\r\n", "reserved bytes")):
        rc, c, err = udp_case(lambda rid, p, d=dgram: [d(rid)], what)
        check(c.get("protocol_error", 0) >= 5, "bad frames counted: %r" % c)


def case_udp_duplicated_datagrams():
    """Every answer comes twice: the copies are ignored, said once, and every count is true."""
    rc, c, err = udp_case(lambda rid, p: [frame(rid, 0, 1) + answer_of(p)] * 2,
                          "UDP answer to no request", args=("-x", "200", "-c", "1"))
    check(c["cmd_get"] + c["cmd_set"] == 200 and c.get("protocol_error", 0) == 0,
          "duplicates change nothing: %r" % c)
    check(rc == 0, "exit %d" % rc)


def case_udp_truncated_answer():
    """An answer cut short (a value without its data and END) is given up, not waited for."""
    def cut_short(rid, p):  # a get's value cut short (of its own key: any other is refused)
        if not p.startswith(b"get "):
            return [frame(rid, 0, 1) + answer_of(p)]
        return [frame(rid, 0, 1) + b"VALUE %s 0 100\r\nabc" % p[4:].split()[0]]
    rc, c, err = udp_case(cut_short, "not whole within --udp_timeout",
                          args=("-x", "20", "-c", "1"))
    check(c["udp_timeout"] >= 1, "given up after --udp_timeout: %r" % c)


# ---------------------------------------------------------------- limits

def soft_limit(n):
    return lambda: resource.setrlimit(resource.RLIMIT_NOFILE,
                                      (n, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))


def both_limits(n):
    return lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (n, n))


@no_time
def case_descriptor_limits():
    server = Memcached(extra=["-c", "4096"])
    try:
        # a low soft limit under a high hard one: raised, and the run goes
        rc, out, err = slap_cmd(["-s", server.addr, "-c", "1000", "-t", "1s"],
                                preexec=soft_limit(256))
        check(rc == 0, "the soft limit should be raised to the hard one: exit %d %r" % (rc, err))
        # too low even for the hard limit: refused, naming both, before any libevent error
        rc, out, err = slap_cmd(["-s", server.addr, "-T", "300", "-c", "300", "-t", "1s"],
                                preexec=both_limits(1024))
        check(rc == 1, "exit %d" % rc)
        check("open file limit is 1024, and its hard limit 1024" in err and "300 threads" in err,
              "name both limits and what needs them: %r" % err)
        check("[err]" not in err and "[warn]" not in err, "libevent must not be the one to fail")
    finally:
        server.stop()


# ---------------------------------------------------------------- signals and output

def case_sighup(mc):
    proc = subprocess.Popen([PATHS.slap, "-s", mc.addr, "-t", "60s", "-c", "4"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1.5)
    proc.send_signal(signal.SIGHUP)
    out, err = proc.communicate(timeout=20)
    check(proc.returncode == -signal.SIGHUP, "dies of SIGHUP: %d" % proc.returncode)
    check("interrupted: SIGHUP" in out and "Run time:" in out, "the report: %r" % out[-300:])


def case_signal_during_preload(mc):
    server = Memcached(extra=["-m", "4096"])
    try:
        start = time.monotonic()
        rc, out, err = run_slap(["-s", server.addr, "-w", "4g", "--preload", "-c", "4", "-t", "5s"],
                                interrupt_after=1.5, timeout=30)
        check(time.monotonic() - start < 4.0, "the preload must stop within 2 s of the signal")
        check(rc == -signal.SIGINT, "dies of SIGINT: %d" % rc)
        check("interrupted: SIGINT" in out and "nothing was measured" in err, "%r %r" % (out, err))
    finally:
        server.stop()


@threads
def case_signal_during_connect():
    """A TLS handshake that never ends is interrupted within 2 s, with the (empty) report."""
    import socket
    port = free_port()
    listener = socket.socket()
    listener.bind(("127.0.0.1", port))
    listener.listen(16)
    try:
        start = time.monotonic()
        rc, out, err = run_slap(["-s", "127.0.0.1:%d" % port, "--tls", "--tls-skip-verify", "-t",
                                 "5s"], interrupt_after=1.0, timeout=30)
        check(time.monotonic() - start < 3.0, "set-up must stop within 2 s of the signal")
        check(rc == -signal.SIGINT and "Run time: 0.0s" in out, "%d %r" % (rc, out))
    finally:
        listener.close()


def case_output_reader_gone(mc):
    """slap | head: slap ends when its reader is gone, says why, and exits non-zero."""
    start = time.monotonic()
    proc = subprocess.run("'%s' -s %s -t 30s | (sleep 1; head -3)" % (PATHS.slap, mc.addr),
                          shell=True, executable="/bin/bash", capture_output=True, text=True,
                          timeout=60)
    took = time.monotonic() - start
    print(proc.stdout, proc.stderr)
    check(took < 5, "slap ran on for %.1fs after its reader left" % took)
    check("cannot write to standard output" in proc.stderr, "stderr: %r" % proc.stderr)
    rc = subprocess.run("'%s' -s %s -t 30s | true; echo ${PIPESTATUS[0]}" % (PATHS.slap, mc.addr),
                        shell=True, executable="/bin/bash", capture_output=True, text=True,
                        timeout=60).stdout.strip()
    check(rc != "0", "exit status %s after losing the reader" % rc)


@no_time
def case_output_fails(mc):
    with open("/dev/full", "w") as full:
        rc, out, err = slap_cmd(["-s", mc.addr, "-t", "1s"], stdout=full)
        check(rc == 1 and "No space left on device" in err, "stdout full: %d %r" % (rc, err))
        rc, out, err = slap_cmd(["--help"], stdout=full)
        check(rc == 1 and "cannot write to standard output" in err, "--help: %d %r" % (rc, err))
    rc, out, err = slap_cmd(["-s", mc.addr, "-t", "1s"], preexec=lambda: os.close(1))
    check(rc == 1 and "standard output is closed" in err, "stdout closed: %d %r" % (rc, err))
    with open("/dev/full", "w") as full:
        rc, out, err = slap_cmd(["-s", mc.addr, "-t", "1s", "--hdr-out", "/dev/full"])
        check(rc == 1 and "--hdr-out" in err, "a full disk for a results file: %d %r" % (rc, err))


def case_outputs_over_the_file_size_limit(mc):
    """Under a file size limit (ulimit -f) smaller than the JSON: the write fails with its
    reason and slap goes on (it was killed by SIGXFSZ, exit 153, its files half written): the
    report is printed whole, the output named, no temporary file left, exit 1."""
    import tempfile
    d = tempfile.mkdtemp(prefix="slap-fsize-")

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, resource.RLIM_INFINITY))
    rc, out, err = slap_cmd(["-s", mc.addr, "-t", "1s", "--json", os.path.join(d, "r.json")],
                            preexec=limit)
    left = sorted(os.listdir(d))
    check(rc == 1 and "--json" in err and "File too large" in err and "Run time:" in out,
          "exit %d, stderr %r" % (rc, err))
    check(left == [], "files left behind: %r" % left)
    os.rmdir(d)


# ---------------------------------------------------------------- server lists

@no_time
def case_server_list_checked():
    """A mistyped or overlong list is refused (exit 2, naming the entry), never guessed at."""
    long_entry = "h" * 1100 + ":11211"
    for bad, what in (("127.0.0.1:70000", "port"), (",127.0.0.1:1", "entry 1 is empty"),
                      ("127.0.0.1:1:1", "nothing may follow the port"), ("[::1", "']'"),
                      (long_entry, "longer than 253"), ("/" + "p" * 200, "at most 107"),
                      ("x" * 100000, "longer than 253")):
        rc, out, err = slap_cmd(["-s", bad, "-x", "10"])
        check(rc == 2 and what in err and out == "", "%.40r: exit %d, %r" % (bad, rc, err))
        env = dict(os.environ, MEMCACHED_SERVERS=bad)
        rc, out, err = slap_cmd(["-x", "10"], env=env)
        check(rc == 2 and "MEMCACHED_SERVERS" in err, "from the environment: %d %r" % (rc, err))


def case_option_errors_quote_control_bytes():
    """The words of an option a user (or a script fed a file's contents) gives come back in its
    error quoted: no control byte of theirs (ESC, BEL, CR) reaches the terminal raw, where it
    could set the title or clear the screen (--ramp, --fail-if, --slo, a compare --live side,
    --servers); exit 2 every time."""
    hostile = "\x1b]0;owned\x07\x1b[2J\r"
    cases = [
        ["-s", "127.0.0.1:1", "--ramp", hostile, "-x", "10"],
        ["-s", "127.0.0.1:1" + hostile, "-x", "10"],
        ["compare", "a.json", "b.json", "--fail-if", "p99>" + hostile],
        ["compare", "a.json", "b.json", "--fail-if", hostile + ">+5%"],
        ["search", "-s", "127.0.0.1:1", "--slo", "p99<" + hostile],
        ["compare", "--live", "A=127.0.0.1:1", "B=127.0.0.1:1 --" + hostile],
    ]
    for args in cases:
        rc, out, err = slap_cmd(args)
        raw = [c for c in err if ord(c) < 0x20 and c != "\n"] + [c for c in err if c == "\x7f"]
        check(rc == 2 and not raw, "%r: exit %d, control bytes %r in %r" % (args, rc, raw, err))


# ---------------------------------------------------------------- memory and descriptors

@no_time
@release_only(VALGRIND_OR_MEMORY)
def case_release_valgrind_clean(mc):
    """valgrind memcheck finds no error and no definite leak in runs that touch every path."""
    import shutil
    check(shutil.which("valgrind") is not None, "valgrind is not installed (scripts/deps.sh)")
    udp = Memcached(udp=True)
    try:
        for args in (["-s", mc.addr, "-x", "3000", "-c", "4", "-T", "2", "-v", "0.5", "-d", "3"],
                     ["-s", mc.addr, "-t", "1s", "-P", "2k", "--pipeline", "2", "-S", "500ms"],
                     ["-s", mc.addr, "-x", "2000", "--protocol=meta", "-e", "0.1"],
                     ["-s", udp.addr, "-U", "-x", "2000", "-c", "2"]):
            proc = subprocess.run(["valgrind", "--error-exitcode=99", "--leak-check=full",
                                   "--errors-for-leak-kinds=definite", "-q", PATHS.slap] + args,
                                  capture_output=True, text=True, timeout=110)
            print("$ valgrind slap %s -> %d\n%s" % (" ".join(args), proc.returncode, proc.stderr))
            check(proc.returncode == 0, "valgrind: exit %d: %s" % (proc.returncode,
                                                                   proc.stderr[-2000:]))
            check("Run time:" in proc.stdout, "no report under valgrind")
    finally:
        udp.stop()


def proc_sample(pid):
    with open("/proc/%d/status" % pid) as f:
        rss = next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
    return rss, len(os.listdir("/proc/%d/fd" % pid))


@no_time
@release_only(VALGRIND_OR_MEMORY)
def case_release_soak_60s(mc):
    """60 s at a moderate rate, with reconnects: resident memory and descriptors stay flat.

    Descriptors from the tenth second, memory from the thirtieth: the intervals keep the run's
    tenths of a second in at most 60 segments, which widen as neighbours merge (at 6, 12, 24
    and 48 s here), each holding the buckets its latencies touched; that cache is bounded by
    the buckets a run's latencies span, not by its length, and a leak grows on past it."""
    fake_close = "-R"
    proc = subprocess.Popen([PATHS.slap, "-s", mc.addr, "-t", "60s", "-c", "32", "-T", "2",
                             "-P", "20k", "-S", "5s", fake_close, "-v", "0.1", "-d", "2"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    samples = []
    try:
        for _ in range(11):
            time.sleep(5)
            samples.append(proc_sample(proc.pid))
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    print("rss KiB, fds every 5 s:", samples)
    check(proc.returncode == 0, "exit %d: %s" % (proc.returncode, err))
    base_fds = samples[1][1]  # after the first 10 s: every connection open
    for _, fds in samples[2:]:
        check(fds == base_fds, "descriptors grew: %r" % samples)
    base_rss = samples[5][0]  # after 30 s: buffers, histograms and most segments in place
    for rss, _ in samples[6:]:
        check(rss <= base_rss * 1.05 + 1024, "resident memory grew: %r" % samples)
