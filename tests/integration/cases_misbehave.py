"""Numbers that stay true when the server misbehaves: stalls, silence, interrupted warm-ups."""
import os
import re
import signal
import tempfile

from fakemc import FakeMemcached
from harness import block_stat, check, counters, Memcached, run_line, run_slap, sweep_rows
from harness import no_time, threads


def events(out, block):
    m = re.search(r"^%s Statistics \((\d+) events\)$" % block, out, re.M)
    check(m is not None, "no final %s block" % block)
    return int(m.group(1))


def stall_first_conn_after(n):
    """The first connection stops answering after n requests; the others answer."""
    return lambda conn_no, req_no: "stall" if conn_no == 0 and req_no >= n else None


def case_stall_not_in_run_time():
    """A stalled connection: the wait for its answer after the end is not measured time, and
    the request never answered is in no latency (counted, and named on standard error)."""
    fake = FakeMemcached(behave=stall_first_conn_after(100))
    try:
        rc, out, err = run_slap(["-s", fake.addr, "-T", "1", "-c", "4", "-t", "2s"], timeout=30)
        secs, ops, tps, _ = run_line(out)
        check(secs == 2.0, "Run time %.1fs for -t 2s: the wait after the end was measured" % secs)
        check(abs(tps - ops / 2.0) <= 1, "TPS %d is not Ops / 2 s" % tps)
        c = counters(out)
        check(c.get("unanswered") == 1, "the stalled request must be counted: %r" % c)
        check("1 request unanswered" in err and fake.addr in err and "1 of 4 connections" in err,
              "stderr should say what is unanswered and where: %r" % err)
        check(block_stat(out, "Total", "Max") < 1.5e6,
              "the stalled request, never answered, is in the latency (Max %d us)"
              % block_stat(out, "Total", "Max"))
        check(rc == 0, "one request in 10k unanswered is within the tolerance: exit %d" % rc)
    finally:
        fake.stop()


def case_stall_open_loop_counts_due():
    """Open loop: requests that fell due behind a stalled connection count, sent or not, as
    unanswered, and in no latency: the events (and the histogram file) are the answered ones,
    answered and unanswered together the requests due; the run fails and gets no verdict (it
    measured a server that stopped answering, not a limit)."""
    fake = FakeMemcached(behave=stall_first_conn_after(100))
    hgrm = tempfile.mktemp(suffix=".hgrm")
    try:
        rc, out, err = run_slap(["-s", fake.addr, "-T", "1", "-c", "4", "-P", "4k", "-t", "3s",
                                 "--hdr-out", hgrm], timeout=30)
        due = 4000 * 3
        total = events(out, "Total")
        c = counters(out)
        unanswered = c.get("unanswered", 0)
        check(abs(total + unanswered - due) <= due * 0.02, "%d events and %d unanswered of %d "
              "due: the stalled lane's requests must count whether sent or not"
              % (total, unanswered, due))
        check(unanswered >= due // 5 and c.get("unsent", 0) >= due // 5,
              "a quarter of the requests were never answered: %r" % c)
        check(block_stat(out, "Total", "P99") < 1.0e6,
              "the unanswered requests' waits are in the latency: P99 %d us"
              % block_stat(out, "Total", "P99"))
        with open(hgrm) as f:
            m = re.search(r"Total count    =\s+(\d+)\]", f.read())
        check(m and int(m.group(1)) == total, "the histogram file holds the answered ones")
        check(rc == 1, "a quarter unanswered is above the tolerance: exit %d" % rc)
        check("more than 1%" in err, "stderr should say why the run failed: %r" % err)
        check(re.search(r"^limited_by: unknown \(the server left \d+ of the \d+ requests due "
                        r"unanswered(, [^:]* at the end)?: it stopped answering", out,
                    re.M),
              "a run whose server stopped answering got a verdict:\n" + out)
    finally:
        fake.stop()
        if os.path.exists(hgrm):
            os.unlink(hgrm)


def case_requests_behind_reconnect():
    """Open loop with -R: requests due while a connection is being reopened count too."""
    # the first connection closes after 100 requests; every later one closes at once
    fake = FakeMemcached(behave=lambda conn_no, req_no: "close" if conn_no == 0 and req_no >= 100
                         else None,
                         on_accept=lambda conn_no: b"" if conn_no >= 4 else None)
    try:
        rc, out, err = run_slap(["-s", fake.addr, "-T", "1", "-c", "4", "-P", "2k", "-t", "2s", "-R"],
                                timeout=30)
        due = 2000 * 2
        total = events(out, "Total")
        c = counters(out)
        check(abs(total + c.get("unanswered", 0) - due) <= due * 0.02,
              "%d events and %d unanswered of %d due" % (total, c.get("unanswered", 0), due))
        check(c.get("unanswered", 0) >= due // 5, "the lane behind the reconnects: %r" % c)
        check(rc == 1, "exit %d" % rc)
    finally:
        fake.stop()


@no_time
def case_every_connection_silent():
    """A server that stops answering on every connection fails the run, and says so."""
    fake = FakeMemcached(behave=lambda conn_no, req_no: "stall" if req_no >= 10 else None)
    try:
        rc, out, err = run_slap(["-s", fake.addr, "-T", "1", "-c", "4", "-t", "2s"], timeout=30)
        check(rc == 1, "every connection silent: exit %d, expected 1" % rc)
        check("every connection stopped answering" in err, "stderr: %r" % err)
        check("%s: 4 of 4 connections stopped answering, the first" % fake.addr in err,
              "stderr should name the server, the connections and since when: %r" % err)
        secs, ops, _, _ = run_line(out)
        check(secs == 2.0 and ops == 40, "Run time %.1f, Ops %d" % (secs, ops))
    finally:
        fake.stop()


def case_warmup_interrupted(mc):
    """Ctrl-C during the warm-up: nothing was measured, and no rate comes from zero time."""
    rc, out, err = run_slap(["-s", mc.addr, "--warmup", "5s", "-t", "5s", "-c", "4"],
                            interrupt_after=1.5, timeout=30)
    check(rc == -signal.SIGINT, "slap should die of SIGINT, returncode %d" % rc)
    check("Run time: 0.0s Ops: 0 TPS: 0 Net_rate: 0.0M/s" in out, "rates from zero time: %r"
          % out[-300:])
    check("interrupted: SIGINT" in out, "the report is marked as interrupted")
    check("nothing was measured" in err, "stderr should say nothing was measured: %r" % err)
    check("no request succeeded" not in err, "the warm-up's requests did succeed: %r" % err)


@threads
def case_many_threads_common_end():
    """Every thread stops at the common end, however late it started."""
    server = Memcached(extra=["-c", "4096"])
    try:
        rc, out, err = run_slap(["-s", server.addr, "-T", "512", "-c", "512", "-t", "1s"],
                                timeout=60)
        check(rc == 0, "exit status %d" % rc)
        secs, ops, tps, _ = run_line(out)
        check(secs == 1.0, "Run time %.1fs for -t 1s with 512 threads" % secs)
        check(tps == ops, "TPS %d for %d ops in 1 s" % (tps, ops))
    finally:
        server.stop()


@no_time
def case_sweep_warns_in_every_step():
    """A server that answers SERVER_ERROR now and then in every step of a --sweep: each step is a
    run of its own and says so on stderr once, not only the first (the kinds already shown belong
    to the run, not to the process)."""
    fake = FakeMemcached(behave=lambda conn, req: b"SERVER_ERROR busy\r\n" if req % 5 == 4
                         else None)
    try:
        rc, out, err = run_slap(["-s", fake.addr, "-T", "1", "-c", "2", "--sweep", "200:600:200",
                                 "--step_time", "1s"], timeout=60)
        rows = sweep_rows(out, 4)
        check([r[0] for r in rows] == [200, 400, 600], "sweep targets %r: %s" % (rows, err))
        shown = err.count("%s: SERVER_ERROR: busy" % fake.addr)
        check(shown == 3, "SERVER_ERROR shown %d times for 3 steps, each erring: %r" % (shown, err))
    finally:
        fake.stop()
