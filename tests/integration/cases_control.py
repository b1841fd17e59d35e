"""--control: the run's rate set, paused, resumed and the run stopped over HTTP while it goes on,
against a real memcached: every change in the periods, the report, JSON, CSV and /metrics, the
requests slap sent true to the server's own counts, latency still counted from each request's
intended time across a change (slap stopped in a burst at the change), and the endpoint under
malformed, hostile and ill-timed requests changing nothing."""
import json
import os
import re
import signal
import socket
import tempfile
import time
import urllib.error
import urllib.request

from harness import PATHS, Failure, check, run_line, run_slap
from harness import TIMING_STATISTICS, no_time, release_only, threads
from cases_metrics import Slap, address_in_use_fails, samples
from cases_results import svg_series


class Controlled(Slap):
    """slap with --control: the control's address, said on standard error, read as it comes."""

    def control_url(self, timeout=10):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in list(self.err_lines):
                m = re.search(r"^slap: control at (http://\S+)/$", line)
                if m:
                    return m.group(1)
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        raise Failure("slap did not say its control address: %r" % self.err_lines)


def call(url, method="GET", data=None, timeout=2.0):
    """(status, JSON or text) of a request to the control."""
    req = urllib.request.Request(url, method=method, data=data)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            status, body = r.status, r.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as e:
        status, body = e.code, e.read().decode("utf-8", "replace")
    try:
        return status, json.loads(body)
    except ValueError:
        return status, body


def post(base, path):
    return call(base + path, method="POST", data=b"")


def planned(changes, first_tps, end_s):
    """The requests a run at first_tps changed by changes meant to send over [0, end_s]."""
    count, rate, since = 0.0, first_tps, 0.0
    for c in changes:
        if c["action"] == "stop":
            continue
        at = max(c["at_s"], 0.0)
        count += rate * (at - since)
        rate, since = c["tps"], at
    return count + rate * (end_s - since)


@release_only(TIMING_STATISTICS)
@threads
def case_control_changes_the_rate(mc):
    """-P 2000, then 6000, a pause, a resume and a stop over --control: the periods' target
    rates follow each change and the achieved rate each target; JSON, CSV, the report and
    /metrics hold the changes; slap stopped (SIGSTOP) for 300 ms just after the change to 6000
    sends every request due meanwhile late, its latency counted from its intended time (the
    requests sent are the plan's count, and the max latency holds the stop); the server's own
    counts are slap's."""
    before = mc.stats()[0]
    with tempfile.TemporaryDirectory() as d:
        js, csv = os.path.join(d, "r.json"), os.path.join(d, "r.csv")
        svg = os.path.join(d, "r.svg")
        slap = Controlled(["-s", mc.addr, "-t", "8s", "-P", "2000", "-c", "4", "-T", "1",
                           "-S", "1s", "--control", "0", "--metrics", "0", "--json", js,
                           "--csv", csv, "--svg", svg])
        try:
            base = slap.control_url()
            metrics = slap.metrics_url()
            status, st = call(base + "/")
            check(status == 200 and st["open_loop"] and st["target_tps"] == 2000,
                  "GET / before a change: %d %r" % (status, st))
            time.sleep(1.4)
            status, st = post(base, "/rate?to=6k")
            check(status == 200 and st["target_tps"] == 6000 and st["changes"] == 1,
                  "POST /rate?to=6k: %d %r" % (status, st))
            os.kill(slap.proc.pid, signal.SIGSTOP)  # slap late at the step: no omission
            time.sleep(0.3)
            os.kill(slap.proc.pid, signal.SIGCONT)
            time.sleep(1.6)
            with urllib.request.urlopen(metrics, timeout=2) as r:
                text = r.read().decode()
            check(list(samples(text, "slap_control_target_requests_per_second").values()) ==
                  [6000.0], "/metrics' control target: %r" %
                  samples(text, "slap_control_target_requests_per_second"))
            check(list(samples(text, "slap_control_changes_total").values()) == [1.0],
                  "/metrics' changes")
            status, st = post(base, "/pause")
            check(status == 200 and st["paused"] and st["target_tps"] == 0,
                  "POST /pause: %d %r" % (status, st))
            time.sleep(0.6)
            status, st = post(base, "/resume")
            check(status == 200 and not st["paused"] and st["target_tps"] == 6000,
                  "POST /resume: %d %r" % (status, st))
            time.sleep(1.2)
            status, st = post(base, "/stop")
            check(status == 200 and st["stopped"], "POST /stop: %d %r" % (status, st))
        finally:
            rc, out, err = slap.finish()
        with open(js) as f:
            doc = json.load(f)
        with open(csv) as f:
            rows = [line.split(",") for line in f.read().splitlines()]
        _, series = svg_series(svg)
    after = mc.stats()[0]
    check(rc == 0, "exit %d" % rc)
    changes = doc["control"]
    check([c["action"] for c in changes] == ["rate", "pause", "resume", "stop"],
          "the changes kept: %r" % changes)
    check([c["tps"] for c in changes] == [6000, 0, 6000, 0], "their rates: %r" % changes)
    check(doc["seconds"] < 7.0, "the stop did not end the run: %.2f s" % doc["seconds"])
    for c in changes:
        check(re.search(r"^control: %.3f s %s" % (c["at_s"], c["action"]), out, re.M),
              "the report does not say %r" % c)
    # the periods: each its target, as the plan computes it, and the rate achieved
    for p in doc["periods"]:
        start = p["elapsed_s"] - p["seconds"]
        want = planned([c for c in changes if c["at_s"] < p["elapsed_s"]], 2000, p["elapsed_s"])
        want -= planned([c for c in changes if c["at_s"] < start], 2000, start)
        want /= p["seconds"]
        check(abs(p["target_rate"] - want) <= 0.5, "period %r: target %r, the plan %r" %
              (p["elapsed_s"], p["target_rate"], want))
    whole = [p for p in doc["periods"] if p["target_rate"] in (2000, 6000) and p["seconds"] == 1]
    print("periods (end, target, achieved): %r" % [
        (p["elapsed_s"], round(p["target_rate"]), p["ops"] / p["seconds"]) for p in doc["periods"]])
    check(len(whole) >= 2, "no whole period at one rate")
    for p in doc["periods"]:
        if p["seconds"] == 1 and p["target_rate"] > 0:
            achieved = p["ops"] / p["seconds"]
            check(abs(achieved - p["target_rate"]) <= 0.05 * p["target_rate"],
                  "period %r achieved %.0f/s of its target %.0f/s" %
                  (p["elapsed_s"], achieved, p["target_rate"]))
    # the CSV's total rows carry the same targets
    header = rows[0]
    col = header.index("target_rate")
    csv_targets = [float(r[col]) for r in rows[1:] if r[1] == "total"]
    check(len(csv_targets) == len(doc["periods"]) and
          all(abs(a - p["target_rate"]) < 0.1 for a, p in zip(csv_targets, doc["periods"])),
          "the CSV's targets %r" % csv_targets)
    # the SVG's target line: -P, then a step at each change (a stop changes no rate)
    check(len(series.get("target_tps", [])) == 1, "the SVG's target lines: %r" %
          series.get("target_tps"))
    _, xs, ys = series["target_tps"][0]
    steps = [(round(x, 2), y) for x, y in zip(xs, ys)]
    want = [(0.0, 2000)] + [p for c in changes[:3] for p in (
        (round(c["at_s"], 2), None), (round(c["at_s"], 2), c["tps"]))]
    check(len(steps) == len(want) + 1 and all(
        s[0] == w[0] and (w[1] is None or s[1] == w[1]) for s, w in zip(steps, want)) and
        steps[-1][1] == 6000, "the SVG's target %r, the changes %r" % (steps, changes))
    # nothing omitted: every request the plan meant to send was sent, the stopped ones late
    sent = doc["counters"]["cmd_get"] + doc["counters"]["cmd_set"]
    plan = planned(changes, 2000, doc["seconds"])
    print("requests sent %d, the plan's %.0f; max latency %.1f ms" %
          (sent, plan, doc["types"]["total"]["max_us"] / 1000 if "total" in doc["types"] else -1))
    check(abs(sent - plan) <= 0.01 * plan + 20, "sent %d, the plan meant %.0f" % (sent, plan))
    max_us = max(t["max_us"] for t in doc["types"].values())
    check(max_us >= 250000, "the 300 ms stop is not in the latency (max %.0f us): omitted" %
          max_us)
    # the server's own counts
    gets = int(after["cmd_get"]) - int(before["cmd_get"])
    sets = int(after["cmd_set"]) - int(before["cmd_set"])
    check(gets == doc["counters"]["cmd_get"] and sets == doc["counters"]["cmd_set"],
          "memcached counted %d gets, %d sets; slap %d, %d" %
          (gets, sets, doc["counters"]["cmd_get"], doc["counters"]["cmd_set"]))


@no_time
@threads
def case_control_refuses_what_it_cannot_do(mc):
    """A closed-loop run refuses a rate (409) but pauses and resumes: while paused it sends
    nothing. Malformed requests (400), paths not there (404), wrong methods (405), a change out
    of turn (409), a body, huge headers, slow clients and hundreds of connections change
    nothing and the run goes on; the control answers again once they leave."""
    with tempfile.TemporaryDirectory() as d:
        js = os.path.join(d, "r.json")
        slap = Controlled(["-s", mc.addr, "-t", "6s", "-c", "2", "-T", "1", "-S", "1s",
                           "--control", "0", "--json", js])
        socks = []
        try:
            base = slap.control_url()
            host, port = base.split("/")[2].split(":")
            for method, path, code in (
                    ("POST", "/rate?to=5000", 409),  # closed loop
                    ("POST", "/rate", 400), ("POST", "/rate?to=", 400),
                    ("POST", "/rate?to=abc", 400), ("POST", "/rate?to=0", 400),
                    ("POST", "/rate?to=-5", 400), ("POST", "/rate?to=1e99", 400),
                    ("POST", "/rate?to=2g", 400), ("POST", "/rate?to=5&to=6", 400),
                    ("POST", "/rate?to=5%00", 400), ("POST", "/pause?now=1", 400),
                    ("GET", "/rate?to=5", 405), ("GET", "/stop", 405), ("POST", "/", 405),
                    ("POST", "/nope", 404), ("GET", "/%1b[31m", 404), ("POST", "/resume", 409),
                    ("PUT", "/stop", 405), ("DELETE", "/", 405)):
                status, body = call(base + path, method=method,
                                    data=b"" if method in ("POST", "PUT") else None)
                check(status == code, "%s %s: %d, not %d (%r)" % (method, path, status, code,
                                                                  body))
                check("\x1b" not in str(body), "the request's bytes echoed: %r" % body)
            status, body = call(base + "/stop", method="POST", data=b"x" * 100)
            check(status >= 400, "a POST with a body was taken: %d" % status)
            with socket.create_connection((host, int(port)), timeout=3) as s:
                s.sendall(b"POST /stop HTTP/1.1\r\nX: " + b"a" * 100000 + b"\r\n\r\n")
                try:
                    reply = s.recv(100)
                except OSError:
                    reply = b""
            check(not reply.startswith(b"HTTP/1.1 200"), "a huge header was served: %r" % reply)
            for _ in range(20):  # slow senders: a byte now and then, never a whole request
                s = socket.create_connection((host, int(port)), timeout=2)
                s.sendall(b"POST /st")
                socks.append(s)
            for _ in range(200):
                s = socket.socket()
                s.setblocking(False)
                s.connect_ex((host, int(port)))
                socks.append(s)
            time.sleep(0.5)
            for s in socks:
                s.close()
            socks = []
            status, st = call(base + "/")
            check(status == 200 and st["changes"] == 0 and st["running"] and not st["stopped"],
                  "after the bad requests: %d %r" % (status, st))
            status, st = post(base, "/pause")
            check(status == 200 and st["paused"], "pause a closed loop: %d %r" % (status, st))
            check(post(base, "/pause")[0] == 409, "a second pause")
            check(post(base, "/rate?to=100")[0] == 409, "a rate while paused")
            paused_at = time.monotonic()
            time.sleep(1.5)
            status, st = post(base, "/resume")
            check(status == 200 and not st["paused"], "resume: %d %r" % (status, st))
            resumed_at = time.monotonic()
        finally:
            for s in socks:
                s.close()
            rc, out, err = slap.finish()
        with open(js) as f:
            doc = json.load(f)
    check(rc == 0, "exit %d" % rc)
    check([c["action"] for c in doc["control"]] == ["pause", "resume"],
          "the changes kept: %r" % doc.get("control"))
    check(all("target_rate" not in p for p in doc["periods"]),
          "a closed loop's periods got target rates")
    pause, resume = doc["control"][0]["at_s"], doc["control"][1]["at_s"]
    check(resume - pause >= 1.2, "paused %.2f s, not the 1.5 s asked" % (resume - pause))
    inside = [p for p in doc["periods"]
              if p["elapsed_s"] - p["seconds"] >= pause + 0.05 and p["elapsed_s"] <= resume]
    print("paused from %.3f to %.3f s; periods %r" % (
        pause, resume, [(p["elapsed_s"], p["ops"]) for p in doc["periods"]]))
    # a whole period inside the pause sent nothing (requests in flight at the pause excepted)
    check(all(p["ops"] <= 2 for p in inside), "requests sent while paused: %r" % inside)
    secs, ops, tps, _ = run_line(out)
    check(ops > 0 and secs >= 5.9, "the run did not go on to its end: %r s" % secs)


@no_time
def case_control_bad_options():
    """--control takes an address as --metrics does, and changes one run: with --sweep,
    --trace, --rounds, slap search or compare --live it is bad usage (2), said; an address in
    use fails the run (1)."""
    for args, says in ((["--control", "example.com:9101"], "numeric IPv4 address"),
                       (["--control", "127.0.0.1:70000"], "port must be a number"),
                       (["--control", "0", "--sweep", "1000:2000:1000"], "with --sweep"),
                       (["--control", "0", "--rounds", "3"], "with --rounds"),
                       (["--control", "0", "--trace", "/nonexistent.zst"], "--trace")):
        rc, out, err = run_slap(["-s", "127.0.0.1:1", "-t", "1s"] + args)
        check(rc == 2, "%r: exit %d (%r)" % (args, rc, err))
        check(says in err and err.startswith("slap: "), "%r: %r" % (args, err))
    rc, out, err = run_slap(["search", "-s", "127.0.0.1:1", "--slo", "p99<1ms", "--control", "0"])
    check(rc == 2 and "--control" in err, "search: exit %d %r" % (rc, err))
    address_in_use_fails("--control")
