"""--auth (issue 35): each connection authenticates before its first request, SASL PLAIN over
the binary protocol (memcached -S, a sasldb made by saslpasswd2) or memcached's ASCII
authentication (-Y); the counters are the server's, a refusal is a clear error, and the
password is never printed."""
import json
import os
import shutil
import socket
import struct
import subprocess
import tempfile
import time
from harness import check, counters, make_certs, Memcached, PATHS, run_slap
from harness import no_time

USER, PASSWORD = "alice", "s3cret:with-colon"


def header(op, key=b"", value=b""):
    return struct.pack(">BBHBBHIIQ", 0x80, op, len(key), 0, 0, 0, len(key) + len(value), 0,
                       0) + key + value


def binary_answers(s, until_empty_key):
    """The binary answers on s: one, or (STAT) up to the one with an empty key."""
    data, pos, out = b"", 0, []
    while True:
        while len(data) - pos < 24:
            chunk = s.recv(65536)
            check(chunk != b"", "the server closed the connection")
            data += chunk
        _, op, klen, _, _, status, body, _, _ = struct.unpack(">BBHBBHIIQ", data[pos:pos + 24])
        while len(data) - pos < 24 + body:
            data += s.recv(65536)
        key = data[pos + 24:pos + 24 + klen]
        out.append((status, key, data[pos + 24 + klen:pos + 24 + body]))
        pos += 24 + body
        if not until_empty_key or klen == 0:
            return out


def sasl_stats(mc):
    """The server's stats over a binary connection that authenticates first (its own
    auth_cmds counts one)."""
    with socket.create_connection((mc.host, mc.port), timeout=5) as s:
        s.sendall(header(0x21, b"PLAIN", b"\0%s\0%s" % (USER.encode(), PASSWORD.encode())))
        status, _, said = binary_answers(s, False)[0]
        check(status == 0, "the test's own SASL authentication: %r" % said)
        s.sendall(header(0x10))
        return {k.decode(): int(v) for st, k, v in binary_answers(s, True)
                if k and v.isdigit()}


def ascii_stats(mc):
    """The server's stats over an ASCII connection that authenticates first (to the plain
    listener of a TLS server)."""
    with socket.create_connection((mc.host, mc.stats_port), timeout=5) as s:
        data = ("%s %s" % (USER, PASSWORD)).encode()
        s.sendall(b"set auth 0 0 %d\r\n%s\r\nstats\r\n" % (len(data), data))
        text = b""
        while not text.endswith(b"END\r\n"):
            chunk = s.recv(65536)
            check(chunk != b"", "stats: the server closed the connection: %r" % text)
            text += chunk
    check(text.startswith(b"STORED\r\n"), "the test's own ASCII authentication: %r" % text[:80])
    return {l.split()[1]: int(l.split()[2]) for l in text.decode().splitlines()
            if l.startswith("STAT ") and l.split()[2].isdigit()}


def credentials(tmp, password=PASSWORD):
    path = os.path.join(tmp, "credentials")
    with open(path, "w") as f:
        f.write("%s:%s\n" % (USER, password))
    os.chmod(path, 0o600)
    return path


def sasl_server(tmp):
    """memcached -S with a sasldb holding USER (saslpasswd2, Debian's sasl2-bin)."""
    saslpasswd2 = shutil.which("saslpasswd2") or "/usr/sbin/saslpasswd2"
    db = os.path.join(tmp, "sasldb2")
    subprocess.run([saslpasswd2, "-p", "-a", "memcached", "-f", db, "-c", USER],
                   input=PASSWORD + "\n", text=True, check=True, timeout=30)
    with open(os.path.join(tmp, "memcached.conf"), "w") as f:
        f.write("mech_list: plain\nsasldb_path: %s\n" % db)
    os.environ["SASL_CONF_PATH"] = tmp  # this case's process only: memcached reads it
    return Memcached(extra=("-S",))


def check_run(mc, stats, args, conns, env=None, own_stats=False):
    """slap with args against mc: exit 0, -x 3000 by its count and the server's, conns
    authentications and no failure by the server's, and the password in none of its output.
    own_stats: slap reads the server's stats itself (in clear), authenticating before and after
    the run, and its JSON holds the server's counts."""
    before = stats(mc)
    tmp = tempfile.mkdtemp(prefix="slap-auth-")
    try:
        path = os.path.join(tmp, "run.json")
        proc = subprocess.run([PATHS.slap, "-s", mc.addr, "-x", "3000", "-c", str(conns),
                               "--json", path] + args, capture_output=True, text=True,
                              timeout=60, env=env)
        print(proc.stdout[-600:], proc.stderr)
        check(proc.returncode == 0, "%s: exit status %d: %s" % (args, proc.returncode,
                                                                 proc.stderr))
        after = stats(mc)
        c = counters(proc.stdout)
        served = (after["cmd_get"] - before["cmd_get"]) + (after["cmd_set"] - before["cmd_set"])
        check(c["cmd_get"] + c["cmd_set"] == 3000 and served == 3000,
              "%s: slap counted %d, the server served %d of -x 3000"
              % (args, c["cmd_get"] + c["cmd_set"], served))
        auths = after["auth_cmds"] - before["auth_cmds"] - 1  # less the test's own
        auths -= 2 if own_stats else 0  # slap's stats, before and after
        check(auths == conns and after["auth_errors"] == before["auth_errors"],
              "%s: the server saw %d authentications (%d failed) of %d connections"
              % (args, auths, after["auth_errors"] - before["auth_errors"], conns))
        with open(path) as f:
            text = f.read()
        doc = json.loads(text)
        if own_stats:
            srv = doc["servers"][0]
            check(srv["note"] is None and srv["delta"]["cmd_get"] + srv["delta"]["cmd_set"] ==
                  served, "%s: slap's reading of the server's stats: %r" % (args, srv))
        for where, what in (("stdout", proc.stdout), ("stderr", proc.stderr), ("JSON", text)):
            check(PASSWORD not in what, "%s: the password is in its %s" % (args, where))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def check_refused(mc, args, said):
    """A wrong password: exit 1 at once, naming the server and what it said."""
    start = time.monotonic()
    rc, out, err = run_slap(["-s", mc.addr, "-x", "100", "-c", "2"] + args, timeout=30)
    check(rc == 1 and "authentication" in err and said in err and mc.addr in err,
          "%s with a wrong password: %d %r" % (args, rc, err))
    check(time.monotonic() - start < 15, "a refusal must not wait out a time-out")
    check("wrong-password" not in out + err, "the wrong password printed")


@no_time
def case_auth_sasl_binary():
    """SASL PLAIN over the binary protocol against memcached -S: every connection
    authenticates once (auth_cmds), the requests are the server's count, the password is in
    no output; a wrong password is refused by the server and said (exit 1); ASCII
    authentication against it says that SASL takes the binary protocol."""
    tmp = tempfile.mkdtemp(prefix="slap-sasl-")
    mc = None
    try:
        mc = sasl_server(tmp)
        check_run(mc, sasl_stats, ["-B", "--auth", credentials(tmp)], 4, own_stats=True)
        check_run(mc, sasl_stats, ["--protocol=binary", "--auth", credentials(tmp), "-T", "2"], 6,
                  own_stats=True)
        before = sasl_stats(mc)
        check_refused(mc, ["-B", "--auth", credentials(tmp, "wrong-password")],
                      '"Auth failure."')
        after = sasl_stats(mc)
        check(after["auth_errors"] - before["auth_errors"] >= 1,
              "the server saw no failed authentication")
        # ASCII authentication against SASL: the server closes; the hint names the protocol
        rc, _, err = run_slap(["-s", mc.addr, "-x", "10", "-c", "1", "--auth",
                               credentials(tmp)], timeout=30)
        check(rc == 1 and "takes only the binary protocol: --protocol=binary" in err,
              "ASCII --auth against SASL: %d %r" % (rc, err))
    finally:
        if mc is not None:
            mc.stop()
        shutil.rmtree(tmp, ignore_errors=True)


@no_time
def case_auth_ascii():
    """memcached's ASCII authentication (-Y) for the ascii and meta protocols, the credentials
    from a file and from the environment, and over TLS: counters the server's, one
    authentication per connection, a wrong password refused and said (exit 1)."""
    tmp = tempfile.mkdtemp(prefix="slap-auth-")
    mc = None
    try:
        mc = Memcached(extra=("-Y", credentials(tmp)))
        check_run(mc, ascii_stats, ["--auth", credentials(tmp)], 4, own_stats=True)
        env = dict(os.environ, SLAP_AUTH_USER=USER, SLAP_AUTH_PASSWORD=PASSWORD)
        check_run(mc, ascii_stats, ["--protocol=meta", "--auth", "env"], 3, env=env,
                  own_stats=True)
        check_refused(mc, ["--auth", credentials(tmp, "wrong-password")],
                      '"CLIENT_ERROR authentication failure"')
        rc, _, err = run_slap(["-s", mc.addr, "-x", "100", "-c", "2"], timeout=30)
        check(rc != 0 and ("unauthenticated" in err or "authentication" in err),
              "no --auth to a -Y server: %d %r"
              % (rc, err))
        mc.stop()
        ca, crt, key = make_certs(tmp)
        mc = Memcached(tls=(crt, key), extra=("-Y", credentials(tmp)))
        check_run(mc, ascii_stats, ["--tls", "--tls_ca", ca, "--auth", credentials(tmp)], 2)
    finally:
        if mc is not None:
            mc.stop()
        shutil.rmtree(tmp, ignore_errors=True)


@no_time
def case_auth_bad_options():
    """--auth refuses what it cannot use, naming it (exit 2), and never echoes a password."""
    tmp = tempfile.mkdtemp(prefix="slap-auth-")
    try:
        def refused(args, said, env=None, content=None):
            if content is not None:
                with open(os.path.join(tmp, "c"), "w") as f:
                    f.write(content)
            r = subprocess.run([PATHS.slap, "-x", "1"] + args, capture_output=True, text=True,
                               timeout=30, env=env)
            check(r.returncode == 2 and said in r.stderr and "pw-secret" not in r.stderr,
                  "%s: %d %r" % (args, r.returncode, r.stderr))
        path = os.path.join(tmp, "c")
        refused(["--auth", os.path.join(tmp, "missing")], "No such file")
        refused(["--auth", path], "is not USER:PASSWORD", content="alice pw-secret\n")
        refused(["--auth", path], "the user name is empty", content=":pw-secret\n")
        refused(["--auth", path], "the password is empty", content="alice:\n")
        refused(["--auth", path], "longer than", content="alice:" + "x" * 600 + "\n")
        refused(["--auth", path], "no space in the user name", content="al ice:pw-secret\n")
        refused(["--auth", path], "the password holds a NUL byte", content="alice:pw\0-secret\n")
        refused(["--auth", path], "the user name holds a NUL byte", content="al\0ice:pw-secret\n")
        env = {k: v for k, v in os.environ.items() if not k.startswith("SLAP_AUTH_")}
        refused(["--auth", "env"], "SLAP_AUTH_USER is not set", env=env)
        refused(["--auth", "env"], "SLAP_AUTH_PASSWORD is not set",
                env=dict(env, SLAP_AUTH_USER="alice"))
        with open(path, "w") as f:
            f.write("alice:pw-secret\n")
        refused(["--auth", path, "-U"], "no UDP")
        refused(["--auth", path, "-a"], "no UDP")
        refused(["--auth", path, "--flush"], "--flush")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


@no_time
def case_auth_hostile_servers():
    """--auth against servers that do not authenticate: one that answers garbage is refused
    naming its words, quoted (exit 1), and so is one whose answer fills slap's buffer without
    an end of line (it crashed slap once); one that drips its answer a byte a second fails at
    the set-up's one deadline; one that never answers fails within the connect
    time-out (exit 1), not a hang; a FIFO as the credentials' file is refused, not waited on
    (exit 2)."""
    from harness import free_port, garbage_server
    tmp = tempfile.mkdtemp(prefix="slap-auth-")
    servers = []
    try:
        path = credentials(tmp)
        port = free_port()
        servers.append(garbage_server(port, b"HELLO \x1b[2J there\r\n"))
        for args in (["--auth", path], ["-B", "--auth", path]):
            start = time.monotonic()
            rc, _, err = run_slap(["-s", "127.0.0.1:%d" % port, "-x", "10", "-c", "1"] + args,
                                  timeout=30)
            check(rc == 1 and "refused: the server said" in err and "\x1b" not in err,
                  "%s against garbage: %d %r" % (args, rc, err))
            check(time.monotonic() - start < 15, "%s against garbage: not at once" % args)
        # an answer that never ends its line: refused naming it (exit 1), never a crash
        port = free_port()
        servers.append(garbage_server(port, b"A" * 1100))
        for args in (["--auth", path], ["--protocol=meta", "--auth", path]):
            rc, _, err = run_slap(["-s", "127.0.0.1:%d" % port, "-x", "10", "-c", "1"] + args,
                                  timeout=30)
            check(rc == 1 and "ran past 1024 bytes without an end of line" in err,
                  "%s against an answer without its end: %d %r" % (args, rc, err))
        # an answer dripped a byte a second: the set-up's one deadline (5 s from the connect)
        # ends it; each byte re-armed the time-out before, and a -t 2s run lasted a minute
        import threading
        drip = socket.socket()
        drip.bind(("127.0.0.1", 0))
        drip.listen(8)
        servers.append(drip)

        def dripping():
            try:
                conn, _ = drip.accept()
                conn.recv(4096)
                for _ in range(30):
                    conn.sendall(b"S")
                    time.sleep(1.0)
            except OSError:
                pass
        threading.Thread(target=dripping, daemon=True).start()
        start = time.monotonic()
        rc, _, err = run_slap(["-s", "127.0.0.1:%d" % drip.getsockname()[1], "-t", "2s",
                               "-c", "1", "--auth", path], timeout=60)
        took = time.monotonic() - start
        check(rc == 1 and "no answer to its authentication within the connect time-out" in err
              and took < 12, "a dripping server: exit %d after %.1f s: %r" % (rc, took, err))
        silent = socket.socket()
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        servers.append(silent)
        start = time.monotonic()
        rc, _, err = run_slap(["-s", "127.0.0.1:%d" % silent.getsockname()[1], "-x", "10",
                               "-c", "1", "--auth", path], timeout=30)
        check(rc == 1 and "authentication" in err, "a silent server: %d %r" % (rc, err))
        check(time.monotonic() - start < 15, "a silent server: %.1f s" %
              (time.monotonic() - start))
        fifo = os.path.join(tmp, "fifo")
        os.mkfifo(fifo)
        r = subprocess.run([PATHS.slap, "-x", "1", "--auth", fifo], capture_output=True,
                           text=True, timeout=30)
        check(r.returncode == 2 and "not a regular file" in r.stderr,
              "a FIFO: %d %r" % (r.returncode, r.stderr))
    finally:
        for s in servers:
            s.close()
        shutil.rmtree(tmp, ignore_errors=True)
