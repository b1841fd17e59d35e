"""Keys placed as twemproxy places them: slap's --distribution=ketama against a real
nutcracker (Debian's twemproxy) in front of three memcached, two of them on memcached's
default port 11211 (on 127.0.0.2 and 127.0.0.3), whose point names leave ":11211" out."""
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse

import ketama_ref
from harness import (check, counters, Failure, free_port, Memcached, PATHS, raw_command,
                     run_slap)
from harness import no_time

CLIENTS, WINDOW = 4, 500


def find_nutcracker():
    path = shutil.which("nutcracker") or shutil.which("nutcracker", path="/usr/sbin:/usr/bin")
    check(path is not None, "nutcracker is not installed (scripts/deps.sh nutcracker installs it)")
    return path


class Nutcracker:
    """A throwaway nutcracker with one ketama pool per key hash, stopped by pid."""

    def __init__(self, servers, hashes, extra=()):
        self.dir = tempfile.mkdtemp(prefix="slap-nutcracker-")
        self.ports = {h: free_port() for h in hashes}
        conf = os.path.join(self.dir, "nutcracker.yml")
        with open(conf, "w") as f:
            for h, port in self.ports.items():
                f.write("pool_%s:\n  listen: 127.0.0.1:%d\n  hash: %s\n  distribution: ketama\n"
                        "  auto_eject_hosts: false\n  timeout: 5000\n  servers:\n" % (h, port, h))
                for s in servers:
                    f.write("   - %s:%d:1\n" % (s.host, s.port))
        self.stats_port = free_port()
        cmd = [find_nutcracker(), "-c", conf, "-s", str(self.stats_port), "-a", "127.0.0.1",
               "-p", os.path.join(self.dir, "pid"), "-o", os.path.join(self.dir, "log")]
        cmd += list(extra)
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 5
        for port in self.ports.values():
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                    break
                except OSError:
                    if self.proc.poll() is not None or time.monotonic() > deadline:
                        self.stop()
                        raise Failure("nutcracker did not start (%r)" % cmd)
                    time.sleep(0.02)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def stored_keys(mc):
    """Every key the server holds (lru_crawler metadump)."""
    with mc.connect() as s:
        s.sendall(b"lru_crawler metadump all\r\n")
        data = b""
        while not data.endswith(b"END\r\n"):
            chunk = s.recv(65536)
            check(chunk, "metadump: connection closed")
            data += chunk
    keys = []
    for line in data.decode().split("\n"):
        if line.startswith("key="):
            keys.append(urllib.parse.unquote(line.split(" ", 1)[0][4:]))
    return keys


def items(mc):
    return int(mc.stats()[0]["curr_items"])


def check_hash(servers, proxy_port, hash_name):
    direct = ",".join(s.addr for s in servers)
    for s in servers:
        raw_command(s, b"flush_all\r\n")
    total = CLIENTS * WINDOW
    rc, out, err = run_slap(["-s", "127.0.0.1:%d" % proxy_port, "--ratio", "1:0", "-x", str(total),
                             "-c", str(CLIENTS), "-w", str(WINDOW)])
    check(rc == 0, "%s: writing through nutcracker: exit status %d" % (hash_name, rc))
    check(counters(out)["cmd_set"] == total, "%s: every set answered" % hash_name)
    # Where twemproxy put each key is where the reference continuum (hashlib) says.
    points = ketama_ref.continuum([ketama_ref.point_name(s.host, s.port) for s in servers])
    held = [stored_keys(s) for s in servers]
    check(sum(len(k) for k in held) == total, "%s: the servers hold %r keys, not %d"
          % (hash_name, [len(k) for k in held], total))
    for index, keys in enumerate(held):
        check(len(keys) > total // 10, "%s: server %d got only %d keys" % (hash_name, index, len(keys)))
        wrong = [k for k in keys if ketama_ref.pick(points, ketama_ref.key_hash(k, hash_name)) != index]
        check(not wrong, "%s: twemproxy and the reference disagree on %d keys" % (hash_name, len(wrong)))
    # slap, directly: filling its windows again overwrites every key in place (a key it placed
    # elsewhere would be a second copy), and then every get finds its key.
    before = [items(s) for s in servers]
    rc, out, err = run_slap(["-s", direct, "--distribution", "ketama", "--hash", hash_name,
                             "--ratio", "0:1", "-x", "4000", "-c", str(CLIENTS), "-w", str(WINDOW)])
    check(rc == 0, "%s: reading directly: exit status %d" % (hash_name, rc))
    c = counters(out)
    check(c["cmd_get"] == 4000 and c["get_misses"] == 0, "%s: direct gets missed: %r" % (hash_name, c))
    after = [items(s) for s in servers]
    check(after == before, "%s: slap put keys elsewhere than twemproxy: items %r, then %r"
          % (hash_name, before, after))
    # And libmemcached's weighted ketama (libketama's continuum) finds every key too.
    res = subprocess.run([PATHS.lmc_check, direct, "ketama", hash_name, str(CLIENTS), str(WINDOW),
                          "64"], capture_output=True, text=True, timeout=60)
    sys.stdout.write("lmc_check ketama %s: %s%s" % (hash_name, res.stdout, res.stderr))
    check(res.returncode == 0, "%s: libmemcached did not find every key: %s" % (hash_name, res.stdout))


@no_time
def case_ketama_as_twemproxy():
    """Through nutcracker (ketama, md5 and fnv1a_64), then directly with slap's ketama."""
    find_nutcracker()
    started = []
    try:
        for host, port in (("127.0.0.2", 11211), ("127.0.0.3", 11211), ("127.0.0.1", None)):
            started.append(Memcached(port=port, listen=host))
        proxy = Nutcracker(started, ("md5", "fnv1a_64"))
        try:
            for hash_name, port in proxy.ports.items():
                check_hash(started, port, hash_name)
        finally:
            proxy.stop()
    finally:
        for mc in started:
            mc.stop()


@no_time
def case_ketama_not_libmemcached():
    """The old continuum stays reachable as ketama-libmemcached, and it places keys elsewhere:
    writing with one and filling with the other adds copies."""
    started = [Memcached(), Memcached(), Memcached()]
    try:
        direct = ",".join(s.addr for s in started)
        args = ["-s", direct, "-x", str(CLIENTS * WINDOW), "-c", str(CLIENTS), "-w", str(WINDOW)]
        rc, _, _ = run_slap(args + ["--distribution", "ketama", "--ratio", "1:0"])
        check(rc == 0, "exit status %d" % rc)
        before = sum(items(s) for s in started)
        rc, _, _ = run_slap(args + ["--distribution", "ketama-libmemcached", "--ratio", "1:0"])
        check(rc == 0, "exit status %d" % rc)
        after = sum(items(s) for s in started)
        check(before == CLIENTS * WINDOW, "ketama stored %d keys" % before)
        check(after - before > CLIENTS * WINDOW // 3,
              "ketama-libmemcached put only %d keys elsewhere" % (after - before))
    finally:
        for mc in started:
            mc.stop()
