"""--metrics and --push against the real things: Prometheus scraping slap, a Pushgateway kept by
slap's pushes, both from Debian's packages, started on free loopback ports with throwaway data
directories and stopped by pid; and the metrics endpoint under hostile clients."""
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

from harness import PATHS, Failure, check, free_port, run_line, run_slap
from harness import TIMING_STATISTICS, no_time, release_only, threads

PROMETHEUS = "/usr/bin/prometheus"
PUSHGATEWAY = "/usr/bin/prometheus-pushgateway"


def need(path):
    check(os.access(path, os.X_OK),
          "%s is not installed: scripts/deps.sh prometheus prometheus-pushgateway" % path)


def http_get(url, timeout=2.0):
    """(status, body) of a GET; status 0 when nothing answered."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status, r.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode("utf-8", "replace")
    except (OSError, urllib.error.URLError):
        return 0, ""


class Daemon:
    """A server of the test's own (Prometheus, the Pushgateway), on a free loopback port with a
    temporary directory, ready when its ready URL answers 200; stopped by pid."""

    def __init__(self, name, cmd_of, ready_path):
        self.dir = tempfile.mkdtemp(prefix="slap-%s-" % name)
        self.port = free_port()
        self.base = "http://127.0.0.1:%d" % self.port
        self.log = open(os.path.join(self.dir, "log"), "w+")
        self.proc = subprocess.Popen(cmd_of(self), stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 20
        while http_get(self.base + ready_path, timeout=0.5)[0] != 200:
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.log.seek(0)
                tail = self.log.read()[-2000:]
                self.stop()
                raise Failure("%s did not start:\n%s" % (name, tail))
            time.sleep(0.1)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def start_pushgateway():
    need(PUSHGATEWAY)
    # Debian's build keeps its groups in /var/lib/prometheus by default: in memory only here,
    # so that no run sees another's groups
    return Daemon("pushgateway", lambda d: [PUSHGATEWAY, "--web.listen-address=127.0.0.1:%d"
                                            % d.port, "--persistence.file="], "/-/ready")


class Slap:
    """slap started in the background: its standard error read as it comes (the metrics
    address is said there first), its standard output too, each line with when it came."""

    def __init__(self, args):
        self.args = args
        self.proc = subprocess.Popen([PATHS.slap] + args, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        self.err_lines = []
        self.out_lines = []  # (time.monotonic(), line)
        self.addr = None
        self.seen = threading.Event()
        self.readers = [threading.Thread(target=self._read_err, daemon=True),
                        threading.Thread(target=self._read_out, daemon=True)]
        for t in self.readers:
            t.start()

    def _read_err(self):
        for line in self.proc.stderr:
            self.err_lines.append(line)
            m = re.search(r"^slap: metrics at (http://\S+)/metrics$", line)
            if m and self.addr is None:
                self.addr = m.group(1)
                self.seen.set()
        self.seen.set()

    def _read_out(self):
        for line in self.proc.stdout:
            self.out_lines.append((time.monotonic(), line))

    def metrics_url(self, timeout=10):
        self.seen.wait(timeout)
        check(self.addr is not None, "slap did not say its metrics address: %r" % self.err_lines)
        return self.addr + "/metrics"

    def finish(self, timeout=60):
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise Failure("slap did not finish within %ds" % timeout)
        for t in self.readers:
            t.join(5)
        out = "".join(line for _, line in self.out_lines)
        err = "".join(self.err_lines)
        print("$ slap %s  -> %d\n%s%s" % (" ".join(self.args), self.proc.returncode, out, err))
        return self.proc.returncode, out, err


def samples(text, name):
    """{labels text: value} of the samples of name in a Prometheus text."""
    found = {}
    for m in re.finditer(r"^%s(\{[^}]*\})? (\S+)$" % re.escape(name), text, re.M):
        found[m.group(1) or ""] = float(m.group(2))
    return found


def query(prom, expr, at):
    """The value of an instant PromQL query at a time (one series expected)."""
    url = "%s/api/v1/query?%s" % (prom.base, urllib.parse.urlencode({"query": expr, "time": at}))
    status, body = http_get(url, timeout=5)
    check(status == 200, "query %s: HTTP %d %s" % (expr, status, body[:300]))
    result = json.loads(body)["data"]["result"]
    check(len(result) == 1, "query %s: %r" % (expr, result))
    return float(result[0]["value"][1])


# ---------------------------------------------------------------- Prometheus scrapes slap

# ---------------------------------------------------------------- the Pushgateway

def gateway_group(gw, instance):
    """The Pushgateway's text for job slap, instance: {metric: {labels: value}} of it."""
    status, body = http_get(gw.base + "/metrics")
    check(status == 200, "pushgateway /metrics: %d" % status)
    mine = {}
    for m in re.finditer(r"^(slap_\w+)\{([^}]*)\} (\S+)$", body, re.M):
        labels = m.group(2)
        if 'job="slap"' in labels and 'instance="%s"' % instance in labels:
            mine.setdefault(m.group(1), {})[labels] = float(m.group(3))
    return mine


def total(group, name):
    return sum(group.get(name, {}).values())


@no_time
@threads
def case_metrics_pushgateway(mc):
    """A run pushed to the Pushgateway is there afterwards with its figures; a second push of
    the same job and instance replaces it (PUT); with -S the periods are pushed too."""
    gw = start_pushgateway()
    try:
        before = time.time()
        rc, out, err = run_slap(["-s", mc.addr, "-t", "1s", "-c", "2", "--ratio", "1:1",
                                 "--label", "night", "--push", gw.base])
        after = time.time()
        check(rc == 0, "exit %d" % rc)
        _, ops, _, _ = run_line(out)
        group = gateway_group(gw, "night")
        check(total(group, "slap_requests_total") == ops,
              "pushed requests %r, slap's Ops %d" % (group.get("slap_requests_total"), ops))
        check(total(group, "slap_run_finished") == 1, "the final figures are marked finished")
        check(len(group.get("slap_limited_by_info", {})) == 1, "the verdict is pushed")
        # the run's measured second, in Unix time: a dashboard's marks of its start and end
        start = total(group, "slap_run_start_time_seconds")
        end = total(group, "slap_run_end_time_seconds")
        check(before <= start < end <= after and abs(end - start - 1) < 0.2,
              "pushed start %.3f and end %.3f of a 1 s run between %.3f and %.3f"
              % (start, end, before, after))
        check(any('type="get"' in k for k in group["slap_request_duration_seconds_count"]),
              "gets were pushed")
        # the same group again, from a run that measured nothing (its server never answers):
        # no verdict in it, so PUT leaves none in the group (POST would keep the first one's)
        with socket.socket() as silent:
            silent.bind(("127.0.0.1", 0))
            silent.listen(16)  # connections are taken by the kernel, never answered
            rc, out, err = run_slap(["-s", "127.0.0.1:%d" % silent.getsockname()[1], "-t",
                                     "1s", "-c", "2", "--label", "night", "--push",
                                     gw.base + "/"])
        check(rc == 1, "a run nothing answered: exit %d" % rc)
        group = gateway_group(gw, "night")
        check(total(group, "slap_run_finished") == 1, "the second push is there")
        check(total(group, "slap_requests_sent_total") > 0, "its requests were sent")
        check("slap_limited_by_info" not in group,
              "the first push's verdict remains: the group was not replaced")
        check(total(group, "slap_requests_total") == 0 and
              total(group, "slap_unanswered_requests_total") > 0,
              "the second push's requests: none answered, all unanswered (in no latency)")
        # a run cut short by a signal pushes what it measured, then dies of the signal
        rc, out, err = run_slap(["-s", mc.addr, "-t", "20s", "-c", "2", "--label", "cut",
                                 "--push", gw.base], interrupt_after=1.5)
        check(rc == -signal.SIGINT, "an interrupted run dies of SIGINT: %d" % rc)
        group = gateway_group(gw, "cut")
        check(total(group, "slap_run_finished") == 1 and
              total(group, "slap_requests_total") == run_line(out)[1],
              "the interrupted run's figures were not pushed: %r" % group.get("slap_requests_total"))
        # -S: each period pushed while the run goes on, the final one after it
        seen = []
        slap = Slap(["-s", mc.addr, "-t", "3s", "-c", "2", "-S", "1s", "--label", "periods",
                     "--push", gw.base])
        deadline = time.monotonic() + 10
        while slap.proc.poll() is None and time.monotonic() < deadline:
            g = gateway_group(gw, "periods")
            if g.get("slap_run_finished") is not None:
                seen.append((total(g, "slap_run_finished"), total(g, "slap_requests_total")))
            time.sleep(0.2)
        rc, out, err = slap.finish()
        check(rc == 0, "exit %d" % rc)
        check(any(f == 0 and n > 0 for f, n in seen),
              "no period's push was seen during the run: %r" % seen)
        check(total(gateway_group(gw, "periods"), "slap_run_finished") == 1, "final push")
    finally:
        gw.stop()


class FakeGateway:
    """A listener that answers every request with reply (bytes) and closes."""

    def __init__(self, reply):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.port = self.sock.getsockname()[1]
        self.reply = reply
        self.requests = 0
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        for _ in range(1000):  # until stop() closes the listener
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            with c:
                c.settimeout(2)
                data = b""
                try:
                    for _ in range(1000):  # the headers, then the answer
                        chunk = c.recv(65536)
                        data += chunk
                        if not chunk or b"\r\n\r\n" in data:
                            break
                    self.requests += 1
                    c.sendall(self.reply)
                except OSError:
                    pass

    def stop(self):
        self.sock.close()


@no_time
@threads
def case_metrics_push_failures(mc):
    """An unreachable Pushgateway, or one answering 500, is said (URL and reason, printable)
    and loses neither the report nor the files nor the exit status."""
    closed = free_port()
    tmp = tempfile.mkdtemp(prefix="slap-push-")
    try:
        out_json = os.path.join(tmp, "r.json")
        url = "http://127.0.0.1:%d" % closed
        rc, out, err = run_slap(["-s", mc.addr, "-t", "1s", "-c", "2", "--json", out_json,
                                 "--push", url])
        check(rc == 0, "a failed push changed the exit status: %d" % rc)
        check(re.search(r"^slap: --push %s: the final figures were not pushed: cannot connect "
                        r"to 127\.0\.0\.1:%d: Connection refused" % (re.escape(url), closed),
                        err, re.M), "stderr: %r" % err)
        check(run_line(out)[1] > 0, "the report is there")
        with open(out_json) as f:
            check(json.load(f)["counters"]["cmd_get"] >= 0, "the JSON file is written")
        fake = FakeGateway(b"HTTP/1.1 500 Internal Server Error\r\nContent-Length: 13\r\n\r\n"
                           b"boom\x1b[2J\x07done")
        try:
            url = "http://127.0.0.1:%d" % fake.port
            rc, out, err = run_slap(["-s", mc.addr, "-t", "2s", "-c", "2", "-S", "1s",
                                     "--push", url])
        finally:
            fake.stop()
        check(rc == 0, "exit %d" % rc)
        check("\x1b" not in err and "\x07" not in err, "the server's bytes printed raw: %r" % err)
        check(re.search(r"^slap: --push %s: the server answered HTTP 500 Internal Server Error: "
                        r"boom\?\[2J\?done \(the run goes on" % re.escape(url), err, re.M),
              "the first period's failure: %r" % err)
        check(re.search(r"^slap: --push %s: \d+ of \d+ period pushes failed$" % re.escape(url),
                        err, re.M), "the count of failed period pushes: %r" % err)
        check(re.search(r"^slap: --push %s: the final figures were not pushed: the server "
                        r"answered HTTP 500" % re.escape(url), err, re.M), "final: %r" % err)
        check(fake.requests >= 2, "periods and the final figures pushed: %d" % fake.requests)
        # a status of more than three digits is no HTTP status, not a 2xx success
        fake = FakeGateway(b"HTTP/1.1 2000000 OK\r\nContent-Length: 0\r\n\r\n")
        try:
            url = "http://127.0.0.1:%d" % fake.port
            rc, out, err = run_slap(["-s", mc.addr, "-t", "1s", "-c", "2", "--push", url])
        finally:
            fake.stop()
        check(rc == 0 and fake.requests >= 1, "exit %d, %d pushes" % (rc, fake.requests))
        check(re.search(r"^slap: --push %s: the final figures were not pushed: not an HTTP "
                        r"answer: \"HTTP/1\.1 2000000 OK" % re.escape(url), err, re.M),
              "a 7-digit status taken as success: %r" % err)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def scrape_until_done(slap):
    """/metrics' bodies, scraped 0.1 s apart until the run ends (at most 40)."""
    url = slap.metrics_url()
    bodies = []
    for _ in range(40):
        status, body = http_get(url, timeout=1)
        if status != 200:
            break
        bodies.append(body)
        time.sleep(0.1)
    return bodies


@no_time
@threads
def case_every_thread_at_once(mc):
    """Runs with every thread slap has at once: two workers, the --samples writer, the pusher
    (-S 0.1s to a gateway that answers 200) and /metrics scraped while it runs; four runs of
    1 s. Each output tells the same run: the samples file holds what the JSON says was written,
    nothing dropped, each a get or a set answered within the run; the scrapes during the run
    and the pushes name the request types (as the samples thread names them in its rows); the
    last scrape's requests are at most the report's. scripts/tsan.sh runs it under
    ThreadSanitizer. The low --sample_rate is for that: a worker's sample is then often the
    only one in a period, so the samples thread names a type with no later sample to order it
    before the main thread's push of the period: a table filled lazily from both threads (the
    race of issue 43) was reported in about two runs of three there, so four runs miss it
    rarely."""
    tmp = tempfile.mkdtemp(prefix="slap-threads-")
    gw = FakeGateway(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
    try:
        rows_path, doc_path = os.path.join(tmp, "s.csv"), os.path.join(tmp, "r.json")
        for run in range(4):
            pushes = gw.requests
            slap = Slap(["-s", mc.addr, "-t", "1s", "-T", "2", "-c", "4", "-S", "0.1s",
                         "--samples", rows_path, "--sample_rate", "0.0002", "--json", doc_path,
                         "--metrics", "0", "--push", "http://127.0.0.1:%d" % gw.port,
                         "--label", "threads"])
            try:
                scraped = scrape_until_done(slap)
            finally:
                rc, out, err = slap.finish()
            check(rc == 0, "run %d: exit %d: %s" % (run, rc, err))
            with open(doc_path) as f:
                doc = json.load(f)
            with open(rows_path) as f:
                rows = [line.split(",") for line in f.read().splitlines()[1:]]
            answered = [r for r in rows if r[4] in ("hit", "miss", "stored")]
            print("run %d: %d samples (%d answered), %d scrapes, %d pushes; %d requests"
                  % (run, len(rows), len(answered), len(scraped), gw.requests - pushes,
                     doc["types"]["total"]["count"]))
            check(doc["samples"] == {"written": len(rows), "dropped": 0},
                  "the JSON's samples %r, the file's %d rows" % (doc["samples"], len(rows)))
            check(len(answered) <= doc["types"]["total"]["count"] and
                  {r[3] for r in rows} <= {"get", "set"} and
                  all(0 <= float(r[0]) < doc["seconds"] + 1 for r in rows),
                  "the samples %r, of %d requests" % (rows, doc["types"]["total"]["count"]))
            requests = [samples(body, "slap_requests_total") for body in scraped]
            typed = [r for r in requests if set(r) >= {'{label="threads",type="get"}',
                                                         '{label="threads",type="set"}'}]
            check(len(typed) >= 3, "scrapes naming both types during the run: %d of %d"
                  % (len(typed), len(requests)))
            check(sum(typed[-1].values()) <= run_line(out)[1],
                  "the last scrape's requests %r, the report's %d" % (typed[-1],
                                                                     run_line(out)[1]))
            check(gw.requests - pushes >= 3, "the periods' pushes and the final one: %d"
                  % (gw.requests - pushes))
    finally:
        gw.stop()
        shutil.rmtree(tmp, ignore_errors=True)


@no_time
def case_metrics_bad_options():
    """Addresses and URLs --metrics and --push do not take are bad usage (2), said clearly;
    an address in use fails the run (1) before it starts."""
    for args, says in ((["--metrics", "example.com:9100"], "numeric IPv4 address"),
                       (["--metrics", "127.0.0.1:70000"], "port must be a number"),
                       (["--metrics", "[::1]9100"], "[ADDRESS]:PORT"),
                       (["--push", "https://127.0.0.1:9091"], "https is not supported"),
                       (["--push", "127.0.0.1:9091"], "must start http://"),
                       (["--push", "http://h:9091/x?y"], "the path holds"),
                       (["--push", "http://user:pass@h:9/"], "credentials (USER:PASSWORD@) are "
                        "not supported"),
                       (["--push", "http://[ ::1 ]:9/"], "the host in [ ] is not an IPv6 "
                        "address"),
                       (["--push", "http://[::1%]:9/"], "not an IPv6 address"),
                       (["--metrics", "0", "--sweep", "1000:2000:1000"], "cannot be used with")):
        rc, out, err = run_slap(["-s", "127.0.0.1:1", "-t", "1s"] + args)
        check(rc == 2, "%r: exit %d" % (args, rc))
        check(says in err and err.startswith("slap: "), "%r: %r" % (args, err))
        check("pass@" not in err, "the password shown: %r" % err)
    address_in_use_fails("--metrics")


def address_in_use_fails(option):
    """An option's port that another socket holds fails the run (1) before it starts, said."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        rc, out, err = run_slap(["-s", "127.0.0.1:1", "-t", "1s", option, str(port)])
        check(rc == 1, "%s: an address in use: exit %d" % (option, rc))
        check("%s: cannot listen on 127.0.0.1 port %d: Address already in use" % (option, port)
              in err, "stderr: %r" % err)


# ---------------------------------------------------------------- the endpoint itself

@threads
def case_metrics_served_during_run(mc):
    """/metrics answers during the run, updated at least once a second even with -S 3s;
    other paths are 404, HEAD has no body, other methods are refused."""
    slap = Slap(["-s", mc.addr, "-t", "4s", "-c", "2", "-S", "3s", "--metrics", "0",
                 "--label", "live"])
    try:
        url = slap.metrics_url()
        seen = []
        deadline = time.monotonic() + 3.5
        while time.monotonic() < deadline:
            status, body = http_get(url)
            check(status == 200, "GET /metrics: %d" % status)
            seen.append((time.monotonic(), samples(body, "slap_elapsed_seconds")['{label="live"}'],
                         sum(samples(body, "slap_requests_total").values())))
            time.sleep(0.25)
        base = url[:-len("/metrics")]
        check(http_get(base + "/")[0] == 404, "/ is not found")
        check(http_get(base + "/metricsx")[0] == 404, "/metricsx is not found")
        check(http_get(url + "?x=1")[0] == 200, "a query string is ignored")
        req = urllib.request.Request(url, method="HEAD")
        with urllib.request.urlopen(req, timeout=2) as r:
            check(r.status == 200 and r.read() == b"", "HEAD")
        req = urllib.request.Request(url, data=b"x", method="POST")
        try:
            urllib.request.urlopen(req, timeout=2)
            raise Failure("POST was served")
        except urllib.error.HTTPError as e:
            check(e.code >= 400, "POST: %d" % e.code)
    finally:
        rc, out, err = slap.finish()
    check(rc == 0, "exit %d" % rc)
    print("scrapes (time, elapsed, requests): %r" % seen)
    elapsed = sorted(set(e for _, e, _ in seen if e > 0))
    check(len(elapsed) >= 2, "the figures did not change during the run: %r" % seen)
    check(all(b - a <= 1.0 + 1e-9 for a, b in zip(elapsed, elapsed[1:])),
          "updated less than once a second with -S 3s: %r" % elapsed)
    check(seen[-1][2] > seen[0][2], "requests did not grow: %r" % seen)


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        return int(re.search(r"^VmRSS:\s+(\d+) kB$", f.read(), re.M).group(1))


def open_fds(pid):
    return len(os.listdir("/proc/%d/fd" % pid))


@threads
def case_metrics_hostile_clients(mc):
    """Slowloris, huge request lines and hundreds of connections at /metrics: the run keeps
    its rate every second, slap holds at most 16 of them (its memory does not grow), a
    slowloris is cut off, and the endpoint answers again once they leave."""
    slap = Slap(["-s", mc.addr, "-t", "7s", "-c", "2", "-P", "2000", "-S", "1s",
                 "--metrics", "0"])
    socks, cut, huge_answers = [], [], []
    stop = threading.Event()
    try:
        host, port = slap.metrics_url().split("/")[2].split(":")
        port = int(port)
        time.sleep(0.5)
        pid = slap.proc.pid
        rss_before, fds_before = rss_kib(pid), open_fds(pid)
        attack = time.monotonic()

        def slowloris():  # a header line every 0.3 s: never idle, never done
            try:
                s = socket.create_connection((host, port), timeout=2)
            except OSError:
                return
            socks.append(s)
            s.setblocking(False)  # recv must not wait: it only looks for slap's close
            try:
                s.sendall(b"GET /metrics HTTP/1.1\r\n")
                for tick in range(100):
                    if stop.is_set():
                        return
                    try:
                        if s.recv(1, socket.MSG_DONTWAIT) == b"":
                            break  # slap closed it
                    except BlockingIOError:
                        pass
                    if tick % 3 == 0:
                        s.sendall(b"X-a: b\r\n")
                    time.sleep(0.1)
                else:
                    return
            except OSError:
                pass
            cut.append(time.monotonic() - attack)

        def huge():
            try:
                with socket.create_connection((host, port), timeout=3) as s:
                    s.sendall(b"GET /" + b"a" * 200000)
                    huge_answers.append(s.recv(100))
            except OSError as e:
                huge_answers.append(repr(e).encode())
        threads = [threading.Thread(target=slowloris, daemon=True) for _ in range(20)]
        threads += [threading.Thread(target=huge, daemon=True) for _ in range(5)]
        for t in threads:
            t.start()
        for _ in range(300):  # connections that say nothing (beyond the queue: never accepted)
            s = socket.socket()
            s.setblocking(False)
            s.connect_ex((host, port))
            socks.append(s)
        time.sleep(1.0)
        rss_during, fds_during = rss_kib(pid), open_fds(pid)
        time.sleep(max(0.0, 4.2 - (time.monotonic() - attack)))
        stop.set()
        for s in socks:
            s.close()
        deadline = time.monotonic() + 1.5
        status = 0
        while time.monotonic() < deadline and status != 200:
            status = http_get(slap.metrics_url(), timeout=1)[0]
        check(status == 200, "the endpoint did not answer again after the clients left")
    finally:
        stop.set()
        for s in socks:
            s.close()
        rc, out, err = slap.finish()
    check(rc == 0, "exit %d" % rc)
    print("under attack: RSS %d -> %d KiB, descriptors %d -> %d; slowloris cut at %r; huge "
          "lines got %r" % (rss_before, rss_during, fds_before, fds_during, cut, huge_answers))
    check(fds_during - fds_before <= 16 + 1,
          "slap held %d more descriptors: more clients than its cap" % (fds_during - fds_before))
    check(rss_during - rss_before < 4096, "slap's memory grew %d KiB" % (rss_during - rss_before))
    check(cut and min(cut) <= 4.0, "no slowloris was cut off within its lifetime: %r" % cut)
    check(not any(a.startswith(b"HTTP/1.1 200") for a in huge_answers),
          "a huge request line was served: %r" % huge_answers)
    # the main thread kept its schedule: a period's tables every second, the attack or not
    tables = [t for t, line in slap.out_lines if line.startswith("Total Statistics")]
    gaps = [round(b - a, 2) for a, b in zip(tables, tables[1:])]
    print("periods' tables came %r s apart" % gaps)
    check(len(tables) >= 6 and max(gaps) <= 2.0,
          "the run stalled under the hostile clients: tables %r s apart" % gaps)
    secs, ops, tps, _ = run_line(out)
    check(tps >= 1800, "the run fell behind its 2000/s under the hostile clients: %d" % tps)


# ---------------------------------------------------------------- a fleet: scraped and pushed

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# the guide's chapter that holds the fleet's recipe
METRICS_CHAPTER = os.path.join(TOP, "docs", "metrics.md")


def readme_fleet_recipe():
    """The guide's 'A fleet in Prometheus' (docs/metrics.md): its scrape configuration and its
    queries."""
    with open(METRICS_CHAPTER) as f:
        text = f.read()
    m = re.search(r"^#{2,3} A fleet in Prometheus\n(.*?)(?=^#{2,3} |\Z)", text, re.M | re.S)
    check(m is not None, "%s: no section 'A fleet in Prometheus'" % METRICS_CHAPTER)
    section = m.group(1)
    yml = re.search(r"```yaml\n(.*?)```", section, re.S)
    promql = re.search(r"```promql\n(.*?)```", section, re.S)
    check(yml is not None and promql is not None,
          "%s's fleet recipe: no yaml or promql block" % METRICS_CHAPTER)
    queries = [q for q in promql.group(1).splitlines() if q.strip() and not q.startswith("#")]
    return yml.group(1), queries


# No time measured: what is checked is which series each query adds (two slaps at 1500/s
# read as 3000/s, not 6000/s), within 20%; the release build only, for Prometheus' scrapes.
@no_time
@release_only(TIMING_STATISTICS)
def case_prometheus_fleet_total_counts_once(mc):
    """Two slaps, each scraped by Prometheus (--metrics) and pushing its periods to a
    Pushgateway (--push -S 1s), with the guide's fleet recipe (docs/metrics.md): each of its queries of the
    fleet's rate reads the two slaps' rates added once, not twice."""
    config, queries = readme_fleet_recipe()
    ports = [free_port(), free_port()]
    gw = start_pushgateway()
    config = config.replace('["load1:9100", "load2:9100"]',
                            '["127.0.0.1:%d", "127.0.0.1:%d"]' % tuple(ports))
    config = config.replace('["pushgateway.example:9091"]', '["127.0.0.1:%d"]' % gw.port)
    check("127.0.0.1:%d" % gw.port in config and "127.0.0.1:%d" % ports[1] in config,
          "the fleet recipe of docs/metrics.md no longer names load1:9100, load2:9100 and "
          "pushgateway.example:9091:\n" + config)

    def cmd(d):
        path = os.path.join(d.dir, "prometheus.yml")
        with open(path, "w") as f:
            f.write("global:\n  scrape_interval: 1s\n  scrape_timeout: 900ms\n" + config)
        return [PROMETHEUS, "--config.file=" + path, "--storage.tsdb.path=" + d.dir + "/data",
                "--web.listen-address=127.0.0.1:%d" % d.port]
    need(PROMETHEUS)
    prom = Daemon("prometheus", cmd, "/-/ready")
    slaps = []
    try:
        for i, port in enumerate(ports):
            slaps.append(Slap(["-s", mc.addr, "-t", "14s", "-c", "2", "-T", "1", "-P", "1500",
                               "-S", "1s", "--metrics", "127.0.0.1:%d" % port,
                               "--label", "host%d" % (i + 1), "--push", gw.base]))
        # the last seconds of the run: both jobs scraped by then (Prometheus hands its targets
        # to its scrapers about 5 s after it starts)
        time.sleep(12)
        for s in slaps:
            check(s.proc.poll() is None, "a slap ended early: %s" % "".join(s.err_lines))
        at = time.time()
        sent = 0.0
        for q in queries:
            if "by (label)" in q:
                continue
            # a window of 30 s needs 30 s of samples: this run's are read over its last 5 s,
            # what is checked being which series each query adds
            q = q.replace("[30s]", "[5s]")
            url = "%s/api/v1/query?%s" % (prom.base, urllib.parse.urlencode({"query": q,
                                                                             "time": at}))
            status, body = http_get(url, timeout=5)
            check(status == 200, "query %s: HTTP %d %s" % (q, status, body[:300]))
            result = json.loads(body)["data"]["result"]
            check(len(result) == 1, "docs/metrics.md's query %s: %r" % (q, result))
            value = float(result[0]["value"][1])
            print("%s = %.0f" % (q, value))
            check(2 * 1500 * 0.8 <= value <= 2 * 1500 * 1.2,
                  "docs/metrics.md's query %s reads %.0f where two slaps sent 1500/s each"
                  % (q, value))
            sent += 1
        check(sent >= 2, "docs/metrics.md's fleet recipe has no scraped and pushed query: %r" % queries)
        naive = query(prom, "sum(rate(slap_requests_total[5s]))", at)
        print("without job: %.0f (both series of each run)" % naive)
        for s in slaps:
            rc, out, err = s.finish()
            check(rc == 0, "exit %d: %s" % (rc, err))
    finally:
        for s in slaps:
            if s.proc.poll() is None:
                s.proc.kill()
                s.proc.wait()
        prom.stop()
        gw.stop()
