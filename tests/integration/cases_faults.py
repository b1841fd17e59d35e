"""Servers that refuse, die, come back, run out of memory or answer garbage."""
import time

from harness import (check, counters, free_port, garbage_server, Memcached, run_line, run_slap)
from harness import no_time


@no_time
def case_dead_port():
    port = free_port()
    rc, out, err = run_slap(["-s", "127.0.0.1:%d" % port, "-t", "2s"], timeout=20)
    check(rc == 1, "exit status %d, expected 1" % rc)
    lines = err.strip().splitlines()
    check(len(lines) == 1, "expected one error line, got %r" % lines)
    check("127.0.0.1:%d" % port in lines[0] and "refused" in lines[0].lower(),
          "error line should name the server and the reason: %r" % lines[0])


def case_server_dies(mc):
    def kill_later():
        time.sleep(1.0)
        mc.stop()
    rc, out, err = run_slap(["-s", mc.addr, "-t", "20s", "-c", "4"], during=kill_later, timeout=30)
    check(rc == 1, "exit status %d, expected 1" % rc)
    c = counters(out)
    check(c.get("conn_closed", 0) >= 1 and c.get("clients_stopped", 0) == 4, "closed connections not reported")
    secs, ops, _, _ = run_line(out)
    check(secs < 5 and ops > 0, "run should end soon after the server died (%.1fs)" % secs)


def case_reconnect(mc):
    port = mc.port
    box = {}

    def bounce():
        time.sleep(1.0)
        mc.stop()
        time.sleep(0.5)
        box["new"] = Memcached(port=port)
    rc, out, err = run_slap(["-s", mc.addr, "-t", "4s", "-c", "4", "-R"], during=bounce, timeout=30)
    try:
        check(rc == 0, "exit status %d with -R, expected 0" % rc)
        c = counters(out)
        check(c.get("reconnects", 0) >= 4, "reconnects not reported")
        st, _ = box["new"].stats()
        check(int(st["cmd_get"]) > 0, "no traffic after the reconnect")
    finally:
        if "new" in box:
            box["new"].stop()


def case_reconnect_server_never_back(mc):
    """-R and a server that dies for good a second into a 3 s run: slap keeps trying, and
    ends saying each server's connections still down; exit 1, since the server never
    answered again (0 only once it does, as in reconnect)."""
    def kill_later():
        time.sleep(1.0)
        mc.stop()
    rc, out, err = run_slap(["-s", mc.addr, "-t", "3s", "-c", "4", "-R"], during=kill_later,
                            timeout=30)
    check(rc == 1, "exit status %d with -R and a server never back, expected 1: %s" % (rc, err))
    check("%s: 4 of 4 connections were lost and not open again when the run ended: the server "
          "did not answer again (-R kept trying)" % mc.addr in err, "%r" % err)
    secs, ops, _, _ = run_line(out)
    check(secs >= 2.9 and ops > 0, "-R keeps the run going: %.1fs, %d ops" % (secs, ops))


@no_time
def case_server_error():
    small = Memcached(extra=["-I", "1k", "-o", "slab_chunk_max=1024", "-m", "8"])
    try:
        rc, out, err = run_slap(["-s", small.addr, "-t", "1s", "-c", "2", "-X", "2000"])
        check(rc == 1, "exit status %d: no request succeeded, expected 1" % rc)
        check(err.count("SERVER_ERROR") == 1, "the error should be shown once: %r" % err)
        c = counters(out)
        check(c.get("server_error", 0) > 0, "SERVER_ERROR replies not counted")
        check("SERVER_ERROR" not in out, "server errors printed per request on stdout")
        check(c["cmd_set"] == 0, "a refused set was counted as a set")
    finally:
        small.stop()


@no_time
def case_garbage():
    port = free_port()
    srv = garbage_server(port, b"HELLO WORLD\r\n")
    try:
        rc, out, err = run_slap(["-s", "127.0.0.1:%d" % port, "-t", "5s", "-c", "2"], timeout=20)
        check(rc == 1, "exit status %d, expected 1" % rc)
        c = counters(out)
        check(c.get("protocol_error", 0) >= 1 and c.get("conn_closed", 0) >= 1, "garbage not reported")
        check("not a memcached response" in err, "stderr should say what was wrong: %r" % err)
    finally:
        srv.close()
