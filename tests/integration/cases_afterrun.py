"""After the run: a stop signal ends slap within about 2 s in any phase, writing the outputs
and waiting for their readers included, and slap dies of it; a FIFO, pipe or socket whose
reader takes nothing fails its output after 5 s (exit 1); a stalled --samples reader and a
silent Pushgateway (or its resolver) cost samples and pushes, never the periods."""
import fcntl
import json
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

from harness import PATHS, Failure, Skip, check
from harness import no_time, threads

STOP_S = 3.0    # "about 2 s" after a signal, with room for a busy 2-core host
STALL_S = 5.0   # OUTFILE_STALL_MS
F_SETPIPE_SZ = 1031  # fcntl.F_SETPIPE_SZ (Python 3.10+ names it)


def start(args, **kw):
    return subprocess.Popen([PATHS.slap] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, **kw)


def finish(proc, timeout):
    """(returncode, stdout, stderr) once it ends; a failure (and the process killed by pid)
    when it does not within timeout s."""
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        raise Failure("slap did not end within %.0f s\nstdout:\n%s\nstderr:\n%s"
                      % (timeout, out[-2000:], err))
    sys.stdout.write("$ %s  -> %d\n%s%s" % (" ".join(proc.args), proc.returncode,
                                                 out[-1500:], err))
    return proc.returncode, out, err


def stop_and_time(proc, sig, timeout=30):
    """Send sig; (returncode, stdout, stderr, seconds from the signal to the end)."""
    sent = time.monotonic()
    proc.send_signal(sig)
    rc, out, err = finish(proc, timeout)
    return rc, out, err, time.monotonic() - sent


def stalled_reader(path):
    """Open the FIFO at path for reading and never read: its pipe shrunk to a page, so the
    first few KiB written fill it. The descriptor, to close afterwards."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    fcntl.fcntl(fd, F_SETPIPE_SZ, 4096)
    return fd


def wait_readable(fd, timeout, what):
    check(select.select([fd], [], [], timeout)[0], "%s within %.0f s" % (what, timeout))


def died_of(rc, out, err, took, sig, what):
    check(rc == -sig, "%s: exit status %d, not death by signal %d" % (what, rc, sig))
    check(took < STOP_S, "%s: %.1f s from the signal to the end" % (what, took))
    check("Run time" in out, "%s: no report" % what)


def periods_total_ops(out):
    """The Period rows of the Total tables' ops."""
    rows, in_total = [], False
    for line in out.splitlines():
        if line.startswith("Total Statistics"):
            in_total = True
        elif in_total and line.startswith("Period"):
            rows.append(int(line.split()[2]))
            in_total = False
    return rows


def check_periods(out, expected, what):
    rows = periods_total_ops(out)
    check(len(rows) >= expected, "%s: %d periods, not %d: %r" % (what, len(rows), expected, rows))
    check(all(n > 0 for n in rows[:expected]), "%s: empty periods: %r" % (what, rows))
    return rows


def json_into_a_stalled_fifo(mc, d):
    """A run whose --json is a FIFO in d, its reader there and taking nothing once the JSON
    began: (the FIFO, slap's process, the reader's descriptor)."""
    fifo = os.path.join(d, "f")
    os.mkfifo(fifo)
    proc = start(["-s", mc.addr, "-t", "1s", "-S", "0.5s", "--json", fifo])
    fd = stalled_reader(fifo)
    wait_readable(fd, 20, "the JSON began")
    return fifo, proc, fd


@no_time
def case_signal_while_writing_to_a_stalled_fifo(mc):
    """SIGTERM while --json is written to a FIFO whose reader never reads, and SIGINT while it
    is written to a pipe given as /dev/fd/N: the report, then death by the signal at once."""
    d = tempfile.mkdtemp(prefix="slap-afterrun-")
    try:
        fifo, proc, fd = json_into_a_stalled_fifo(mc, d)
        time.sleep(0.5)
        rc, out, err, took = stop_and_time(proc, signal.SIGTERM)
        os.close(fd)
        died_of(rc, out, err, took, signal.SIGTERM, "a FIFO")
        check("--json" in err and fifo in err and "interrupted" in err,
              "a FIFO: standard error does not name the output and the stop: %r" % err)

        r, w = os.pipe()
        fcntl.fcntl(r, F_SETPIPE_SZ, 4096)
        proc = start(["-s", mc.addr, "-t", "1s", "-S", "0.5s", "--json", "/dev/fd/%d" % w],
                     pass_fds=(w,))
        os.close(w)
        wait_readable(r, 20, "the JSON began")
        time.sleep(0.5)
        rc, out, err, took = stop_and_time(proc, signal.SIGINT)
        os.close(r)
        died_of(rc, out, err, took, signal.SIGINT, "a pipe")
    finally:
        shutil.rmtree(d)


@no_time
def case_stalled_fifo_fails_its_output(mc):
    """A FIFO whose reader takes nothing fails --json after 5 s: exit 1, the report printed,
    standard error naming the option, the file and the stall."""
    d = tempfile.mkdtemp(prefix="slap-afterrun-")
    try:
        fifo, proc, fd = json_into_a_stalled_fifo(mc, d)
        began = time.monotonic()
        rc, out, err = finish(proc, 40)
        took = time.monotonic() - began
        os.close(fd)
        check(rc == 1, "exit status %d, not 1" % rc)
        check(STALL_S - 0.5 < took < STALL_S + 5, "%.1f s after the JSON began" % took)
        check("Run time" in out, "no report")
        check("--json: cannot write '%s': its reader took nothing for 5 s" % fifo in err,
              "standard error: %r" % err)
    finally:
        shutil.rmtree(d)


@no_time
def case_signal_while_waiting_for_a_fifo_reader(mc):
    """A FIFO nobody opens: a signal during the wait for its reader (up to 10 s) ends slap at
    once, dying of it, after the run (--json) and before it (--samples, opened first)."""
    d = tempfile.mkdtemp(prefix="slap-afterrun-")
    try:
        fifo = os.path.join(d, "f")
        os.mkfifo(fifo)
        proc = start(["-s", mc.addr, "-t", "1s", "--json", fifo])
        time.sleep(3)  # the run is over; slap waits for the reader
        rc, out, err, took = stop_and_time(proc, signal.SIGTERM)
        died_of(rc, out, err, took, signal.SIGTERM, "--json")
        check("interrupted" in err, "--json: standard error does not say why: %r" % err)

        proc = start(["-s", mc.addr, "-t", "1s", "--samples", fifo])
        time.sleep(1)
        rc, out, err, took = stop_and_time(proc, signal.SIGHUP)
        check(rc == -signal.SIGHUP, "--samples: exit status %d" % rc)
        check(took < STOP_S, "--samples: %.1f s from the signal to the end" % took)
        check("Run time" not in out, "--samples: a run after the signal: %r" % out)
    finally:
        shutil.rmtree(d)


@no_time
def case_unix_socket_that_never_accepts(mc):
    """A unix socket whose listener never accepts. Its backlog full: --hdr-out waits for it,
    and a signal ends the wait at once. Its backlog free: --samples connects, fills the
    socket's buffer, and a signal after the run ends slap at once."""
    d = tempfile.mkdtemp(prefix="slap-afterrun-")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    waiting = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        path = os.path.join(d, "sock")
        listener.bind(path)
        listener.listen(0)
        waiting.setblocking(False)
        waiting.connect(path)  # takes the backlog's one place
        proc = start(["-s", mc.addr, "-t", "1s", "--hdr-out", path])
        time.sleep(3)
        rc, out, err, took = stop_and_time(proc, signal.SIGTERM)
        died_of(rc, out, err, took, signal.SIGTERM, "a full backlog")
        check("--hdr-out" in err and "interrupted" in err, "standard error: %r" % err)

        waiting.close()
        listener.close()
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        os.unlink(path)
        listener.bind(path)
        listener.listen(4)
        proc = start(["-s", mc.addr, "-t", "1s", "-S", "0.25s", "--samples", path])
        time.sleep(2.5)
        rc, out, err, took = stop_and_time(proc, signal.SIGHUP)
        died_of(rc, out, err, took, signal.SIGHUP, "a socket never read")
        check_periods(out, 4, "a socket never read")
    finally:
        waiting.close()
        listener.close()
        shutil.rmtree(d)


@no_time
@threads
def case_stalled_samples_reader_costs_samples_not_periods(mc):
    """--samples to a FIFO whose reader never reads: every -S period is still collected and
    printed, the samples that did not fit are counted as dropped, and the file fails (exit 1)
    5 s after it stalled, not never."""
    d = tempfile.mkdtemp(prefix="slap-afterrun-")
    try:
        fifo = os.path.join(d, "s")
        doc_path = os.path.join(d, "r.json")
        os.mkfifo(fifo)
        proc = start(["-s", mc.addr, "-t", "2s", "-S", "0.25s", "--samples", fifo, "--json",
                      doc_path])
        fd = stalled_reader(fifo)
        rc, out, err = finish(proc, 30)
        os.close(fd)
        check(rc == 1, "exit status %d, not 1" % rc)
        check_periods(out, 8, "the periods")
        check("samples were dropped (the file stopped taking them)" in err,
              "no drops counted, or blamed on the rate: %r" % err)
        with open(doc_path) as f:
            doc = json.load(f)
        samples, count = doc["samples"], doc["types"]["total"]["count"]
        check(samples["written"] + samples["dropped"] == count and samples["written"] < 1000,
              "every request's sample written (into a stalled FIFO's page) or dropped: %r of %d"
              % (samples, count))
        check("--samples: cannot write '%s': its reader took nothing for 5 s" % fifo in err,
              "standard error: %r" % err)
    finally:
        shutil.rmtree(d)


class SilentGateway:
    """A Pushgateway that accepts connections and never answers (nor reads)."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.url = "http://127.0.0.1:%d" % self.sock.getsockname()[1]
        self.conns = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.conns.append(conn)

    def close(self):
        self.sock.close()
        for conn in self.conns:
            conn.close()


@no_time
@threads
def case_silent_pushgateway_costs_pushes_not_periods(mc):
    """--push with -S 0.25s to a gateway that accepts and never answers: every period is
    collected and printed with its requests, the failed pushes are counted, the final push
    gives up after 5 s; and a signal during the final push ends slap at once."""
    gw = SilentGateway()
    try:
        began = time.monotonic()
        rc, out, err = finish(start(["-s", mc.addr, "-t", "2s", "-S", "0.25s", "--push",
                                     gw.url]), 40)
        took = time.monotonic() - began
        check(rc == 0, "exit status %d: a failed push leaves it as the run made it" % rc)
        check_periods(out, 8, "the periods")  # a collector held by the pushes leaves some empty
        check("of 8 period pushes failed" in err, "the failures not counted: %r" % err)
        check("did not answer within the timeout" in err, "the final push: %r" % err)
        check(took < 2 + 1 + 5 + 8, "%.1f s for a 2 s run" % took)

        accepted = len(gw.conns)
        proc = start(["-s", mc.addr, "-t", "1s", "--push", gw.url])  # only the final push
        deadline = time.monotonic() + 20
        while len(gw.conns) == accepted and time.monotonic() < deadline:
            time.sleep(0.05)
        check(len(gw.conns) > accepted, "the final push never came")
        time.sleep(0.5)  # in the final push's 5 s
        rc, out, err, took = stop_and_time(proc, signal.SIGTERM)
        died_of(rc, out, err, took, signal.SIGTERM, "the final push")
    finally:
        gw.close()


@no_time
@threads
def case_push_resolver_that_never_answers(mc):
    """--push to a name whose resolver never answers (a nameserver on 127.0.0.0/8 that takes
    the queries and says nothing, through a resolv.conf of slap's own mount namespace): the
    pushes give up at their time limit (1 s a period, 5 s the last) off the collecting
    thread, so every period is there and the run ends in seconds, not the resolver's 30 s."""
    if shutil.which("unshare") is None:
        raise Skip("no unshare: a resolv.conf of slap's own cannot be mounted")
    d = tempfile.mkdtemp(prefix="slap-afterrun-")
    dns = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        addr = None
        for last in range(53, 250):
            try:
                dns.bind(("127.0.31.%d" % last, 53))
                addr = "127.0.31.%d" % last
                break
            except OSError:
                continue
        if addr is None:
            raise Skip("no free 127.0.31.X:53 to listen on")
        conf = os.path.join(d, "resolv.conf")
        with open(conf, "w") as f:
            f.write("nameserver %s\noptions timeout:30 attempts:1\n" % addr)
        probe = subprocess.run(["unshare", "-m", "sh", "-c",
                                "mount --bind %s /etc/resolv.conf" % conf],
                               capture_output=True, text=True)
        if probe.returncode != 0:
            raise Skip("unshare -m cannot bind-mount a resolv.conf here: %s"
                       % probe.stderr.strip())
        script = 'mount --bind "$0" /etc/resolv.conf && exec "$@"'
        proc = subprocess.Popen(["unshare", "-m", "sh", "-c", script, conf, PATHS.slap,
                                 "-s", mc.addr, "-t", "2s", "-S", "0.25s", "--push",
                                 "http://gateway.slap-test.example:9091"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        began = time.monotonic()
        rc, out, err = finish(proc, 60)
        took = time.monotonic() - began
        check(rc == 0, "exit status %d" % rc)
        check_periods(out, 8, "the periods")
        check("cannot resolve gateway.slap-test.example: no answer within the timeout" in err,
              "standard error: %r" % err)
        check(took < 2 + 1 + 5 + 8, "%.1f s for a 2 s run" % took)
    finally:
        dns.close()
        shutil.rmtree(d)


@no_time
def case_unsent_counted_at_a_gigarequest_rate(mc):
    """-c 2 -P 1g: the requests the run's end leaves unsent (about a billion a second) are
    counted in a few steps, not one by one: slap ends within seconds of the run, counts them
    all as never sent, and its workers, not held up counting, trip no --timeout."""
    began = time.monotonic()
    rc, out, err = finish(start(["-s", mc.addr, "-c", "2", "-P", "1g", "-t", "1s",
                                 "--timeout", "0.3s"]), 60)
    took = time.monotonic() - began
    m = re.search(r"(\d+) requests unanswered at the end of the run \((\d+) of them never sent\)",
                  err)
    check(m, "no count of the unanswered: %r" % err)
    seconds = float(re.search(r"^Run time: ([0-9.]+)s", out, re.M).group(1))
    check(int(m.group(2)) >= 0.9e9 * seconds, "%s never sent in %.1f s at 1e9 a second"
          % (m.group(2), seconds))
    check(took < 1 + 2 + 6, "%.1f s for a 1 s run" % took)
    check("stopped answering" not in err, "a --timeout tripped: %r" % err)


@no_time
@threads
def case_signal_while_standard_output_is_stalled(mc):
    """Standard output a pipe whose reader never reads: the -S tables fill it and slap's main
    thread blocks writing them, where nothing looks for a signal. SIGTERM still ends slap,
    dying of it, within the watchdog's 3 s (the report it could not write is lost)."""
    r, w = os.pipe()
    fcntl.fcntl(r, F_SETPIPE_SZ, 4096)
    try:
        proc = subprocess.Popen([PATHS.slap, "-s", mc.addr, "-t", "5s", "-S", "0.1s"], stdout=w,
                                stderr=subprocess.PIPE, text=True)
        os.close(w)
        w = None
        wait_readable(r, 20, "the tables began")
        time.sleep(1.5)  # the pipe is full, the tables blocked
        sent = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        try:
            _, err = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            raise Failure("slap did not end within 30 s of SIGTERM")
        took = time.monotonic() - sent
        sys.stdout.write("-> %d after %.1f s\n%s" % (proc.returncode, took, err))
        check(proc.returncode == -signal.SIGTERM, "exit status %d" % proc.returncode)
        check(took < 3 + STOP_S, "%.1f s from the signal to the end" % took)
    finally:
        os.close(r)
        if w is not None:
            os.close(w)
