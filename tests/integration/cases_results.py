"""Results as data: --json (checked against its JSON Schema, the text report and the server's
stats), --csv, --samples, --svg (parsed as XML and rendered), --start_at with slap merge,
slap plot, --max_errors, -q, the progress line on a terminal."""
import copy
import json
import os
import pty
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

from fakemc import FakeMemcached
from harness import (check, check_agree, counters, measured, free_port, Memcached, PATHS,
                     run_line, run_slap, server_delta, sweep_rows, block_stat)
from harness import VALGRIND_OR_MEMORY, no_time, release_only, threads

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCHEMA = os.path.join(TOP, "schema", "slap-results.schema.json")
SVG_NS = "{http://www.w3.org/2000/svg}"


def tmpdir():
    return tempfile.mkdtemp(prefix="slap-results-")


def validate(doc):
    """The document against the shipped JSON Schema (python3-jsonschema)."""
    import jsonschema
    with open(SCHEMA) as f:
        schema = json.load(f)
    try:
        jsonschema.Draft202012Validator(schema).validate(doc)
    except jsonschema.ValidationError as e:
        check(False, "the document does not follow the schema: %s at %s" % (e.message,
                                                                            list(e.absolute_path)))


def load(path):
    with open(path) as f:
        return json.load(f)


def close(a, b, rel=1e-6):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-9)


@no_time
def case_json_agrees_with_report_and_server(mc):
    d = tmpdir()
    path = os.path.join(d, "run.json")
    rc, out, err, delta, _ = measured([mc], ["-s", mc.addr, "-t", "2s", "-T", "2", "-c", "16",
                                             "-w", "1k", "--json", path, "--label", "box-1"])
    check(rc == 0, "exit status %d" % rc)
    doc = load(path)
    validate(doc)
    text = counters(out)
    check_agree(text, delta)  # slap's own two `stats` requests allowed for by measured()
    section = out[out.index("\ncmd_get:"):out.index("\nRun time:")]
    printed = re.findall(r"^([a-z_]+): (\d+)$", section, re.M)
    check(len(printed) >= 6, "counter lines %r" % printed)
    for name, value in ((n, int(v)) for n, v in printed):
        check(doc["counters"].get(name) == value,
              "JSON %s=%r, report %d" % (name, doc["counters"].get(name), value))
    check(doc["label"] == "box-1" and doc["kind"] == "run" and doc["exit_status"] == 0,
          "label, kind or exit status")
    secs, ops, tps, _ = run_line(out)
    check(doc["run"]["ops"] == ops and round(doc["run"]["tps"]) == tps, "run line figures")
    check(abs(doc["seconds"] - secs) < 0.05, "seconds %r vs %r" % (doc["seconds"], secs))
    check(abs(doc["end_ms"] - doc["start_ms"] - 1000 * doc["seconds"]) <= 1, "start/end ms")
    check(abs(doc["start_ms"] / 1000 - time.time()) < 30, "start_ms is not now")
    for pct in ("50", "99", "99.9"):
        check(round(doc["types"]["total"]["percentiles"][pct]) ==
              block_stat(out, "Total", "P" + pct), "P%s differs from the report" % pct)
    check(doc["types"]["get"]["count"] + doc["types"]["set"]["count"] ==
          doc["types"]["total"]["count"], "total is not get + set")
    # Every option of --help is in the configuration, with its effective value.
    _, help_text, _ = run_slap(["--help"])
    names = set(re.findall(r"^\s+(?:-\w, )?--([a-z0-9_]+)", help_text, re.M)) - {"help", "version"}
    check(names == set(doc["config"]), "config keys differ from --help: %r" %
          (names ^ set(doc["config"])))
    check(doc["config"]["threads"] == 2 and doc["config"]["time"] == 2 and
          doc["config"]["win_size"] == 1024 and doc["config"]["servers"] == mc.addr,
          "config values")
    # The periods add up to the whole run; the server's own stats agree with slap's.
    periods = doc["periods"]
    check(len(periods) >= 2, "expected a period a second, got %d" % len(periods))
    check(sum(p["types"]["total"]["count"] for p in periods) == doc["types"]["total"]["count"],
          "periods do not add up")
    srv = doc["servers"][0]
    check(srv["note"] is None and srv["name"] == mc.addr, "server entry %r" % srv)
    for mine, theirs in (("cmd_get", "cmd_get"), ("cmd_set", "cmd_set"),
                         ("get_misses", "get_misses")):
        check(srv["delta"][theirs] == doc["counters"][mine],
              "server delta %s=%r, slap %d" % (theirs, srv["delta"][theirs], doc["counters"][mine]))
    # memcached counts a connection when one of its worker threads takes it: slap's stats
    # connection comes after its 16 (accepted in order, dealt to the harness's 2 threads in
    # turn), so the thread that answers it has counted its 8 first; the other thread may lag
    # on a busy host (9 where 17 is usual, in 2 runs of 25 beside four CPU hogs). Had slap read
    # its stats before it connected, the server would count its listener and that read alone.
    check(srv["before"]["curr_connections"] >= 8,
          "stats read before slap had connected: %r" % srv["before"]["curr_connections"])
    shutil.rmtree(d)


@no_time
def case_json_to_stdout(mc):
    rc, out, err = run_slap(["-s", mc.addr, "-x", "2000", "-c", "4", "--json", "-"])
    check(rc == 0, "exit status %d" % rc)
    doc = json.loads(out)  # standard output holds the document alone
    validate(doc)
    check("Run time:" in err and "cmd_get:" in err, "the text report is not on standard error")
    check(doc["run"]["ops"] == 2000, "-x 2000 ran %d" % doc["run"]["ops"])


@no_time
def case_csv_rows_match_json(mc):
    d = tmpdir()
    j, c = os.path.join(d, "r.json"), os.path.join(d, "r.csv")
    rc, out, err = run_slap(["-s", mc.addr, "-t", "3s", "-S", "1s", "-c", "8", "--json", j,
                             "--csv", c])
    check(rc == 0, "exit status %d" % rc)
    doc = load(j)
    with open(c) as f:
        lines = f.read().splitlines()
    check(lines[0] == "elapsed_s,type,ops,tps,net_mib_s,misses,errors,min_us,max_us,avg_us,"
                      "std_us,p50_us,p90_us,p99_us,p99.9_us", "CSV header: %r" % lines[0])
    rows = [l.split(",") for l in lines[1:]]
    check(len(rows) == 3 * len(doc["periods"]) and len(doc["periods"]) >= 3,
          "%d rows for %d periods" % (len(rows), len(doc["periods"])))
    for i, p in enumerate(doc["periods"]):
        for k, t in enumerate(("get", "set", "total")):
            row = rows[3 * i + k]
            check(row[1] == t and int(row[2]) == p["types"][t]["count"], "row %r" % row)
            check(abs(float(row[13]) - p["types"][t]["percentiles"]["99"]) < 0.001, "p99 of %r" % row)
        check(int(rows[3 * i + 2][6]) == p["errors"], "errors column")
    # The -S tables' Period rows are the JSON periods; the last period holds besides the answers
    # that came after the end (its table was printed before they came).
    tables = [int(n) for n in re.findall(r"^Period\s+1\s+(\d+)\s", out, re.M)[2::3]]
    counts = [p["types"]["total"]["count"] for p in doc["periods"]]
    check(len(tables) == len(counts) and tables[:-1] == counts[:-1] and tables[-1] <= counts[-1],
          "Total Period rows %r differ from the periods %r" % (tables, counts))
    shutil.rmtree(d)


@threads
def case_samples_every_request(mc):
    d = tmpdir()
    s, j = os.path.join(d, "s.csv"), os.path.join(d, "r.json")
    rc, out, err = run_slap(["-s", mc.addr, "-x", "3001", "-c", "4", "--samples", s, "--json", j])
    check(rc == 0, "exit status %d" % rc)
    with open(s) as f:
        lines = f.read().splitlines()
    check(lines[0] == "intended_s,sent_s,latency_us,type,outcome", "header %r" % lines[0])
    rows = [l.split(",") for l in lines[1:]]
    check(len(rows) == 3001, "%d samples for -x 3001" % len(rows))
    doc = load(j)
    check(doc["samples"] == {"written": 3001, "dropped": 0}, "JSON samples %r" % doc["samples"])
    kinds = {(r[3], r[4]) for r in rows}
    check(kinds <= {("get", "hit"), ("set", "stored")}, "outcomes %r" % kinds)
    gets = sum(1 for r in rows if r[3] == "get")
    check(gets == doc["counters"]["cmd_get"], "%d get samples, cmd_get %d" %
          (gets, doc["counters"]["cmd_get"]))
    for r in rows:
        check(0 <= float(r[0]) <= float(r[1]) < doc["seconds"] + 1 and float(r[2]) > 0,
              "sample %r" % r)
    rc, out, err = run_slap(["-s", mc.addr, "-x", "20000", "-c", "4", "--samples", s,
                             "--sample_rate", "0.1"])
    with open(s) as f:
        n = sum(1 for _ in f) - 1
    check(rc == 0 and 1400 < n < 2600, "--sample_rate 0.1 kept %d of 20000" % n)
    rc, out, err = run_slap(["-s", mc.addr, "-x", "10", "--sample_rate", "0.5"])
    check(rc == 2 and "--sample_rate needs --samples" in err, "--sample_rate alone accepted")
    shutil.rmtree(d)


def svg_series(path):
    root = ET.parse(path).getroot()
    check(root.tag == SVG_NS + "svg", "not an SVG document")
    found = {}
    for g in root.iter(SVG_NS + "g"):
        if g.get("class") == "series" and g.get("data-x") is not None:
            xs = [float(v) for v in g.get("data-x").split()]
            ys = [float(v) for v in g.get("data-y").split()]
            found.setdefault(g.get("data-metric"), []).append((g.get("data-label"), xs, ys))
    return root, found


def render_png(svg):
    png = svg + ".png"
    r = subprocess.run(["rsvg-convert", "-o", png, svg], capture_output=True, text=True)
    check(r.returncode == 0 and r.stderr == "", "rsvg-convert failed: %s" % r.stderr)
    with open(png, "rb") as f:
        check(f.read(8) == b"\x89PNG\r\n\x1a\n", "rsvg-convert wrote no PNG")


@no_time
def case_svg_holds_the_json_numbers(mc):
    d = tmpdir()
    j, v, s = (os.path.join(d, n) for n in ("r.json", "r.svg", "s.csv"))
    rc, out, err = run_slap(["-s", mc.addr, "-t", "3s", "-c", "8", "--json", j, "--svg", v,
                             "--samples", s, "--sample_rate", "0.05", "--label", "svg-run"])
    check(rc == 0, "exit status %d" % rc)
    doc = load(j)
    root, series = svg_series(v)
    texts = " ".join(t.text or "" for t in root.iter(SVG_NS + "text"))
    for words in ("Throughput over time", "Latency over time", "Every sample over time",
                  "requests per second", "latency (\u00b5s", "time since the start (s)", "svg-run"):
        check(words in texts, "the picture lacks '%s'" % words)
    (label, xs, ys), = series["rate"]
    check(label == "svg-run", "series label %r" % label)
    check(xs == [p["elapsed_s"] for p in doc["periods"]], "rate x %r" % xs)
    for y, p in zip(ys, doc["periods"]):
        check(close(y, p["types"]["total"]["rate"]), "rate %r vs %r" % (y, p["types"]["total"]))
    for metric, pct in (("p50_us", "50"), ("p99_us", "99"), ("p99.9_us", "99.9")):
        (_, xs, ys), = series[metric]
        want = [p["types"]["total"]["percentiles"][pct] for p in doc["periods"]]
        check(all(close(a, b) for a, b in zip(ys, want)) and len(ys) == len(want),
              "%s %r vs JSON %r" % (metric, ys, want))
    dots = [g for g in root.iter(SVG_NS + "g") if g.get("data-label") == "samples"]
    shown = sum(int(g.get("data-count")) for g in dots)
    check(shown == doc["samples"]["written"] > 0, "scatter %d of %d samples" %
          (shown, doc["samples"]["written"]))
    render_png(v)
    shutil.rmtree(d)


def case_sweep_json_csv_svg(mc):
    d = tmpdir()
    j, c, v = (os.path.join(d, n) for n in ("r.json", "r.csv", "r.svg"))
    rc, out, err = run_slap(["-s", mc.addr, "--sweep", "2k:4k:2k", "--step_time", "1s", "-c", "4",
                             "--json", j, "--csv", c, "--svg", v])
    check(rc == 0, "exit status %d" % rc)
    doc = load(j)
    validate(doc)
    check(doc["kind"] == "sweep" and [s["target_tps"] for s in doc["steps"]] == [2000, 4000],
          "steps %r" % [s["target_tps"] for s in doc["steps"]])
    rows = sweep_rows(out, 4)
    check(len(rows) == 2, "sweep rows %r" % rows)
    for row, step in zip(rows, doc["steps"]):
        check(row[0] == step["target_tps"] and row[1] == round(step["achieved_tps"]),
              "sweep row %r vs step" % (row,))
        total = step["types"]["total"]
        for i, key in enumerate(("50", "90", "99", "99.9")):
            p, ci = total["percentiles"][key], total["percentile_ci"][key]
            check((p is None) == (row[2][i] is None) == (ci is None),
                  "p%s of %r: the JSON's %r %r" % (key, row, p, ci))
            if p is not None:
                check(row[2][i] == round(p) and
                      row[5][i] == "[%d,%d]" % (round(ci[0]), round(ci[1])),
                      "p%s of %r vs %r %r" % (key, row, p, ci))
    with open(c) as f:
        lines = f.read().splitlines()
    check(lines[0].startswith("target_tps,achieved_tps,") and len(lines) == 3, "CSV %r" % lines)
    head = lines[0].split(",")
    for line, step in zip(lines[1:], doc["steps"]):
        row = dict(zip(head, line.split(",")))
        total = step["types"]["total"]
        for key in ("50", "90", "99", "99.9"):
            p, ci = total["percentiles"][key], total["percentile_ci"][key]
            got = [row["p%s_us" % key], row["p%s_low_us" % key], row["p%s_high_us" % key]]
            want = ["", "", ""] if p is None else ["%.3f" % x for x in [p] + ci]
            check(got == want, "CSV p%s %r, JSON %r %r" % (key, got, p, ci))
    _, series = svg_series(v)
    (_, xs, ys), = series["p99_us"]
    check([round(x) for x in xs] == [round(s["achieved_tps"]) for s in doc["steps"]],
          "latency-by-rate x %r" % xs)
    check(doc["servers"][0]["delta"]["cmd_get"] == doc["counters"]["cmd_get"],
          "a sweep's server stats cover every step")
    render_png(v)
    shutil.rmtree(d)


def case_sweep_interrupted(mc):
    """SIGINT during a sweep's second step: the table ends with that step's row marked as cut
    short, then `interrupted: SIGINT`; the JSON's steps say which one was cut short."""
    d = tmpdir()
    j = os.path.join(d, "r.json")
    rc, out, err = run_slap(["-s", mc.addr, "--sweep=500:1500:500", "--step-time=2s", "-c", "4",
                             "--json", j], interrupt_after=3.0, timeout=30)
    check(rc == -signal.SIGINT, "exit status %d after SIGINT" % rc)
    check(re.search(r"^interrupted: SIGINT$", out, re.M), "no `interrupted: SIGINT` line")
    full = sweep_rows(out, 4)
    check([r[0] for r in full] == [500], "only the first step is a full row: %r" % full)
    cut = re.search(r"^1000\s.*\sinterrupted after ([\d.]+)s of 2s$", out, re.M)
    check(cut is not None and float(cut.group(1)) < 2, "the cut-short step's row is not marked")
    check(out.index("interrupted after") < out.index("interrupted: SIGINT"),
          "`interrupted: SIGINT` comes after the table")
    doc = load(j)
    validate(doc)
    check(doc["interrupted"] is True and doc["signal"] == "SIGINT", "the document's signal")
    check([s.get("interrupted") for s in doc["steps"]] == [False, True],
          "steps' interrupted %r" % [s.get("interrupted") for s in doc["steps"]])
    check(doc["steps"][1]["seconds"] < 2, "the cut-short step's seconds")
    shutil.rmtree(d)

def case_merge_two_hosts_started_together(mc):
    """Two slap processes, one --start_at: the merged counters equal the server's."""
    d = tmpdir()
    start = time.time() + 2.5
    before = mc.stats()
    procs = []
    for i in range(2):
        path = os.path.join(d, "h%d.json" % i)
        procs.append(subprocess.Popen([PATHS.slap, "-s", mc.addr, "-t", "2s", "-c", "8",
                                       "--start_at", "%.3f" % start, "--label", "host%d" % i,
                                       "--json", path, "-q"],
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    outs = [p.communicate(timeout=30) for p in procs]
    delta = server_delta(before, mc.stats())
    # Two `stats` requests more: each process reads before and after over its own connection.
    for p, (out, err) in zip(procs, outs):
        check(p.returncode == 0, "a host failed: %s" % err)
        check(out.startswith("Run time:") and out.count("\n") == 1, "-q printed %r" % out)
    docs = [load(os.path.join(d, "h%d.json" % i)) for i in range(2)]
    for doc in docs:
        check(abs(doc["start_ms"] - start * 1000) < 100, "started at %d, not %d" %
              (doc["start_ms"], start * 1000))
    merged_json = os.path.join(d, "merged.json")
    rc, out, err = run_slap(["merge", os.path.join(d, "h0.json"), os.path.join(d, "h1.json"),
                             "--json", merged_json, "--svg", os.path.join(d, "m.svg")])
    check(rc == 0, "merge exit status %d: %s" % (rc, err))
    merged = counters(out)
    for name in ("cmd_get", "cmd_set", "get_misses"):
        check(merged[name] == delta[name] == docs[0]["counters"][name] + docs[1]["counters"][name],
              "merged %s=%d, server %d" % (name, merged[name], delta[name]))
    check("concurrency: 16" in out and "threads count: 2" in out, "merged header")
    doc = load(merged_json)
    validate(doc)
    check(doc["label"] == "host0+host1" and len(doc["servers"]) == 2, "merged label, servers")
    check(doc["types"]["total"]["count"] == sum(x["types"]["total"]["count"] for x in docs),
          "merged events")
    _, ops, _, _ = run_line(out)
    check(ops == merged["cmd_get"] + merged["cmd_set"], "merged run line")
    shutil.rmtree(d)


@no_time
def case_merge_percentiles_exact_and_refusals(mc):
    d = tmpdir()
    paths = [os.path.join(d, n) for n in ("a.json", "b.json", "c.json")]
    for path, extra in zip(paths, ([], [], ["-X", "100"])):
        rc, _, _ = run_slap(["-s", mc.addr, "-x", "3000", "-c", "4", "--json", path] + extra)
        check(rc == 0, "exit status %d" % rc)
    rc, out, err = run_slap(["merge", paths[0], paths[1], "--json", os.path.join(d, "m.json")])
    check(rc == 0, "merge failed: %s" % err)
    a, b, m = load(paths[0]), load(paths[1]), load(os.path.join(d, "m.json"))
    # One histogram of every sample: the buckets of both, added.
    buckets = {}
    for doc in (a, b):
        for t in ("get", "set"):
            for i, n in doc["types"][t]["hist"]["buckets"]:
                buckets[i] = buckets.get(i, 0) + n
    merged = {}
    for i, n in m["types"]["total"]["hist"]["buckets"]:
        merged[i] = n
    check(merged == buckets, "merged buckets are not the sum")
    check(m["types"]["total"]["count"] == 6000, "merged count")
    for pct in ("50", "90", "99", "99.9"):
        p = m["types"]["total"]["percentiles"][pct]  # null where not estimable, as the text
        check((p if p is None else round(p)) == block_stat(out, "Total", "P" + pct),
              "merged text P%s" % pct)
    rc, out, err = run_slap(["merge", paths[0], paths[2]])
    check(rc == 2 and "--value_size" in err and out == "", "different -X merged: %d %s" % (rc, err))
    with open(os.path.join(d, "bad.json"), "w") as f:
        f.write('{"schema": 1, "kind": "run"')
    rc, out, err = run_slap(["merge", os.path.join(d, "bad.json")])
    check(rc == 2 and "bad.json': line 1" in err, "a broken file: %d %s" % (rc, err))
    rc, out, err = run_slap(["merge"])
    check(rc == 2 and "at least one" in err, "merge of nothing: %d" % rc)
    rc, out, err = run_slap(["plot", paths[0], paths[1], "-o", os.path.join(d, "p.svg")])
    check(rc == 0, "plot failed: %s" % err)
    _, series = svg_series(os.path.join(d, "p.svg"))
    check(len(series["p99_us"]) == 2, "plot overlays %d runs" % len(series["p99_us"]))
    render_png(os.path.join(d, "p.svg"))
    shutil.rmtree(d)


@no_time
def case_start_at_checked():
    rc, out, err = run_slap(["-s", "127.0.0.1:1", "--start_at", "%d" % (time.time() - 10)])
    check(rc == 2 and "in the past" in err, "a start 10 s ago: %d %s" % (rc, err))
    rc, out, err = run_slap(["-s", "127.0.0.1:1", "--start_at", "2026-13-01T00:00:00Z"])
    check(rc == 2 and "RFC 3339" in err, "a bad date: %d %s" % (rc, err))
    # Half a second late is taken (the hosts' clocks differ a little): it connects, then fails.
    rc, out, err = run_slap(["-s", "127.0.0.1:%d" % free_port(), "-t", "1s",
                             "--start_at", "%.3f" % (time.time() - 0.5)])
    check(rc == 1 and "cannot connect" in err, "half a second late: %d %s" % (rc, err))


def case_start_at_waits(mc):
    start = int(time.time()) + 3  # a whole second: RFC 3339 without a fraction
    rc, out, err = run_slap(["-s", mc.addr, "-t", "1s", "--json", "-", "--start_at",
                             time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(start)) + "Z"])
    ended = time.time()
    check(rc == 0, "exit status %d" % rc)
    doc = json.loads(out)
    check(abs(doc["start_ms"] - start * 1000) < 100, "measured from %d, not %d" %
          (doc["start_ms"], start * 1000))
    check(ended >= start + 1, "ended %.2f s before the start plus the run" % (start + 1 - ended))


def case_nutcracker_refuses_stats(mc):
    """Behind twemproxy, which refuses `stats`: the run goes on, the JSON says why."""
    nutcracker = shutil.which("nutcracker") or "/usr/sbin/nutcracker"
    check(os.path.exists(nutcracker), "nutcracker is not installed (scripts/deps.sh)")
    d = tmpdir()
    port = free_port()
    conf = os.path.join(d, "nc.yml")
    with open(conf, "w") as f:
        f.write("pool:\n  listen: 127.0.0.1:%d\n  hash: fnv1a_64\n  distribution: ketama\n"
                "  timeout: 2000\n  servers:\n    - %s:1\n" % (port, mc.addr))
    proxy = subprocess.Popen([nutcracker, "-c", conf, "-s", str(free_port()), "-o",
                              os.path.join(d, "nc.log")], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 5
        while subprocess.run(["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/%d" % port],
                             capture_output=True).returncode != 0:
            check(time.monotonic() < deadline and proxy.poll() is None, "nutcracker did not start")
            time.sleep(0.05)
        j = os.path.join(d, "r.json")
        rc, out, err, delta, _ = measured([mc], ["-s", "127.0.0.1:%d" % port, "-t", "2s", "-c", "4",
                                                 "--json", j])
        check(rc == 0, "exit status %d through nutcracker" % rc)
        doc = load(j)
        validate(doc)
        srv = doc["servers"][0]
        check(srv["note"] is not None and "stats" in srv["note"] and "delta" not in srv,
              "no note for a proxy refusing stats: %r" % srv)
        check(doc["counters"]["cmd_get"] == delta["cmd_get"], "counters through the proxy")
    finally:
        proxy.terminate()
        proxy.wait(timeout=5)
        shutil.rmtree(d)


@no_time
def case_max_errors():
    """Every third request answered SERVER_ERROR: --max_errors decides the exit status."""
    fake = FakeMemcached(behave=lambda conn, req: b"SERVER_ERROR busy\r\n" if req % 3 == 2 else None)
    try:
        addr = "127.0.0.1:%d" % fake.port
        for limit, want in ((None, 0), ("10", 1), ("100000", 0), ("20%", 1), ("40%", 0)):
            args = ["-s", addr, "-x", "900", "-c", "3", "-T", "1"]
            rc, out, err = run_slap(args + (["--max_errors", limit] if limit else []))
            c = counters(out)
            check(c.get("server_error", 0) == 300, "server_error %r" % c.get("server_error"))
            check(rc == want, "--max_errors %s: exit %d, not %d" % (limit, rc, want))
            check((want == 1) == ("more than --max_errors allows" in err), "message: %s" % err)
        rc, out, err = run_slap(["-s", addr, "--max_errors", "1x"])
        check(rc == 2 and "--max_errors" in err, "a bad limit: %d %s" % (rc, err))
    finally:
        fake.stop()


@no_time
def case_quiet(mc):
    rc, out, err = run_slap(["-s", mc.addr, "-t", "1s", "-q"])
    check(rc == 0, "exit status %d" % rc)
    check(re.fullmatch(r"Run time: [\d.]+s Ops: \d+ TPS: \d+ Net_rate: [\d.]+M/s\n", out),
          "-q printed more than the Run time line: %r" % out)
    rc, out, err = run_slap(["-s", "127.0.0.1:%d" % free_port(), "-t", "1s", "-q"])
    check(rc == 1 and "cannot connect" in err, "-q hides errors: %d %r" % (rc, err))
    rc, out, err = run_slap(["-s", mc.addr, "-q", "-S", "1s"])
    check(rc == 2, "-q with -S accepted")


def read_pty(fd, proc, timeout):
    data, deadline = b"", time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            data += chunk
        elif proc.poll() is not None:
            break
    return data


def case_progress_line_on_a_terminal(mc):
    master, slave = pty.openpty()
    proc = subprocess.Popen([PATHS.slap, "-s", mc.addr, "-t", "3s", "-c", "4"],
                            stdout=subprocess.PIPE, stderr=slave, text=True)
    os.close(slave)
    shown = read_pty(master, proc, 20).decode(errors="replace")
    out, _ = proc.communicate(timeout=10)
    os.close(master)
    check(proc.returncode == 0, "exit status %d" % proc.returncode)
    lines = re.findall(r"\r\x1b\[Kslap: (\d+)s elapsed, (\d+)s left, (\d+) ops/s, p99 (\d+) us, "
                       r"(\d+) errors", shown)
    check(len(lines) >= 2, "no progress lines on the terminal: %r" % shown)
    check([int(l[0]) for l in lines][:2] == [1, 2] and int(lines[0][2]) > 0, "progress %r" % lines)
    check(shown.endswith("\r\x1b[K"), "the progress line is not erased at the end: %r" % shown[-40:])
    # (the report may say "ops/s" itself: "steady: no (the rate fell 12% ... (A to B ops/s))")
    check(not re.search(r"\d+s elapsed", out) and "\x1b" not in out,
          "progress on standard output: %r" % out[-800:])
    # In a pipe, nothing of it.
    rc, out, err = run_slap(["-s", mc.addr, "-t", "2s", "-c", "4"])
    check(not re.search(r"\d+s elapsed", err) and "\x1b" not in err,
          "progress into a pipe: %r" % err)
    # With -S, the tables instead.
    master, slave = pty.openpty()
    proc = subprocess.Popen([PATHS.slap, "-s", mc.addr, "-t", "2s", "-S", "1s", "-c", "4"],
                            stdout=subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    shown = read_pty(master, proc, 20).decode(errors="replace")
    proc.wait(timeout=10)
    os.close(master)
    check(not re.search(r"\d+s elapsed", shown), "progress line with -S: %r" % shown)


def case_results_files_written_whole(mc):
    """An unwritable path fails the run (1) with the reason; an interrupted run still writes."""
    d = tmpdir()
    rc, out, err = run_slap(["-s", mc.addr, "-t", "1s", "--json", "/nonexistent/dir/r.json"])
    check(rc == 1 and "cannot write '/nonexistent/dir/r.json'" in err, "bad path: %d %s" % (rc, err))
    check("Run time:" in out, "the text report was lost")
    j = os.path.join(d, "r.json")
    rc, out, err = run_slap(["-s", mc.addr, "-t", "30s", "--json", j], interrupt_after=1.5)
    check(rc == -signal.SIGINT, "exit status %d after SIGINT" % rc)
    doc = load(j)
    check(doc["interrupted"] is True and doc["signal"] == "SIGINT" and doc["seconds"] < 5,
          "interrupted run: %r" % {k: doc[k] for k in ("interrupted", "signal", "seconds")})
    check(not [n for n in os.listdir(d) if ".tmp." in n], "temporary files left: %r" % os.listdir(d))
    rc, out, err = run_slap(["-s", mc.addr, "--csv", "-"])
    check(rc == 2 and "only --json" in err, "--csv - accepted")
    shutil.rmtree(d)


@no_time
def case_json_every_command(mc):
    """A mix of other commands: each has its type in the document (counts as the report's blocks,
    exact bytes adding up to the run's), its rows in the CSV and its samples; merged twice, it
    doubles."""
    d = tmpdir()
    path, csv, samples = (os.path.join(d, n) for n in ("run.json", "run.csv", "samples.csv"))
    rc, out, err = run_slap(["-s", mc.addr, "-t", "2s", "-c", "8", "--mix",
                             "get=50,set=20,delete=10,incr=10,touch=10", "--json", path, "--csv",
                             csv, "--samples", samples])
    check(rc == 0, "exit status %d: %s" % (rc, err))
    doc = load(path)
    validate(doc)
    types = doc["types"]
    check(set(types) == {"get", "set", "delete", "incr", "touch", "total"},
          "types %r" % sorted(types))
    for name, title in (("delete", "Delete"), ("incr", "Incr"), ("touch", "Touch")):
        events = int(re.search(r"^%s Statistics \((\d+) events\)" % title, out, re.M).group(1))
        check(types[name]["count"] == events, "%s: JSON %d, report %d" % (name,
                                                                          types[name]["count"],
                                                                          events))
    c = counters(out)
    parts = sum(types[t]["net_bytes"] for t in types if t != "total")
    check(parts == types["total"]["net_bytes"] == c["written_bytes"] + c["read_bytes"],
          "bytes: types %d, total %d, report %d" % (parts, types["total"]["net_bytes"],
                                                    c["written_bytes"] + c["read_bytes"]))
    check(types["delete"]["misses"] == c.get("delete_misses", 0), "delete misses")
    check(doc["run"]["ops"] == run_line(out)[1], "ops as the run line's")
    with open(csv) as f:
        rows = [line.split(",") for line in f.read().splitlines()[1:]]
    check({r[1] for r in rows} == set(types), "CSV types %r" % {r[1] for r in rows})
    with open(samples) as f:
        kinds = {tuple(line.split(",")[3:5]) for line in f.read().splitlines()[1:]}
    check(("incr", "hit") in kinds and ("delete", "hit") in kinds and ("touch", "hit") in kinds,
          "samples of every command: %r" % sorted(kinds))
    # A second host's run of the same workload: the same document from another process.
    other = os.path.join(d, "other.json")
    copy = load(path)
    copy["runs"][0]["pid"] += 1
    with open(other, "w") as f:
        json.dump(copy, f)
    merged = os.path.join(d, "merged.json")
    rc, out2, err = run_slap(["merge", path, other, "--json", merged])
    check(rc == 0, "merge: %d %s" % (rc, err))
    m = load(merged)
    validate(m)
    check(all(m["types"][t]["net_bytes"] == 2 * types[t]["net_bytes"] for t in types),
          "merged bytes double")
    check(re.search(r"^Incr Statistics \(%d events\)" % (2 * types["incr"]["count"]), out2, re.M),
          "the merged report has the incr block")
    shutil.rmtree(d)


@no_time
def case_json_trace(mc):
    """A replay's document has its trace figures, as the report's lines."""
    d = tmpdir()
    trace, path = os.path.join(d, "t.csv"), os.path.join(d, "run.json")
    with open(trace, "w") as f:
        for i in range(2000):
            f.write("%d,k%d,10,100,%d,%s,0\n" % (1 + i // 1000, i % 300, i % 7,
                                                 "set" if i % 4 == 0 else "get"))
    rc, out, err = run_slap(["-s", mc.addr, "--trace", trace, "-c", "4", "--json", path])
    check(rc == 0, "exit status %d: %s" % (rc, err))
    doc = load(path)
    validate(doc)
    t = doc["trace"]
    check(t["lines"] == [1, 2000] and t["requests"] == 2000, "lines and requests %r" % t)
    for name in ("trace_tps", "target_tps", "achieved_tps", "miss_ratio"):
        text = float(re.search(r"^%s: ([\d.]+)$" % name, out, re.M).group(1))
        check(abs(t[name] - text) <= max(0.5, 1e-4 * text), "%s: JSON %r, report %r"
              % (name, t[name], text))
    shutil.rmtree(d)


@no_time
def case_total_min_is_the_types_min(mc):
    """The total's minimum is the smallest of get's and set's, not 0 from types with no events:
    in the CSV's total rows and in the periods' total histograms of the JSON."""
    d = tmpdir()
    j, c = os.path.join(d, "r.json"), os.path.join(d, "r.csv")
    rc, out, err = run_slap(["-s", mc.addr, "-t", "2s", "-S", "1s", "-c", "4", "--json", j,
                             "--csv", c])
    check(rc == 0, "exit status %d: %s" % (rc, err))
    doc = load(j)
    for p in doc["periods"]:
        types = p["types"]
        want = min(types[t]["hist"]["min_ns"] for t in ("get", "set") if types[t]["count"] > 0)
        check(types["total"]["hist"]["min_ns"] == want > 0,
              "period total min_ns %d, get/set %d" % (types["total"]["hist"]["min_ns"], want))
    total = doc["types"]["total"]["hist"]["min_ns"]
    check(total == min(doc["types"][t]["hist"]["min_ns"] for t in ("get", "set")) > 0,
          "run total min_ns %d" % total)
    with open(c) as f:
        rows = [line.split(",") for line in f.read().splitlines()[1:]]
    by_period = {}
    for r in rows:
        by_period.setdefault(r[0], {})[r[1]] = float(r[7])
    for when, mins in by_period.items():
        check(mins["total"] == min(mins["get"], mins["set"]) > 0,
              "CSV at %s: total min_us %r, get %r, set %r" % (when, mins["total"], mins["get"],
                                                             mins["set"]))
    shutil.rmtree(d)


@no_time
def case_merge_refuses_a_run_twice_and_sums_sweeps(mc):
    """The same run given twice (the same file, or a copy) is refused, naming the files; two
    hosts' sweeps merge into one header and Target summed like Achieved."""
    d = tmpdir()
    a, b, m = (os.path.join(d, n) for n in ("a.json", "b.json", "m.json"))
    rc, _, err = run_slap(["-s", mc.addr, "-x", "2000", "-c", "4", "--json", a, "-q"])
    check(rc == 0, "exit status %d: %s" % (rc, err))
    shutil.copy(a, b)
    for pair in ((a, a), (a, b)):
        rc, out, err = run_slap(["merge", pair[0], pair[1], "--json", m])
        check(rc == 2 and out == "" and "'%s' and '%s'" % pair in err and "same run" in err,
              "merge %s %s: exit %d, %r" % (pair[0], pair[1], rc, err))
        check(not os.path.exists(m), "a merged file was written")
    check(load(a)["runs"][0]["pid"] > 0, "runs %r" % load(a)["runs"])
    hosts = [os.path.join(d, "h%d.json" % i) for i in range(2)]
    for i, path in enumerate(hosts):
        rc, out, err = run_slap(["-s", mc.addr, "--sweep", "1k:2k:1k", "--step_time", "1s",
                                 "-c", "4", "--label", "h%d" % i, "--json", path])
        check(rc == 0, "sweep %d: exit %d: %s" % (i, rc, err))
    rc, out, err = run_slap(["merge"] + hosts + ["--json", m, "--csv", os.path.join(d, "m.csv")])
    check(rc == 0, "merged sweeps: exit %d: %s" % (rc, err))
    check(out.count("servers: ") == 1 and out.count("Target(ops/s)") == 1,
          "the header is printed more than once: %r" % out)
    check("run time: 600s" not in out and "run time: 1s\n" in out, "run time in %r" % out)
    check("sweep: 2000 to 4000 ops/s by 2000," in out, "sweep line in %r" % out)
    rows = sweep_rows(out, 4)
    steps = [load(p)["steps"] for p in hosts]
    check([int(r[0]) for r in rows] == [2000, 4000], "Target column %r" % rows)
    for r, s0, s1 in zip(rows, *steps):
        check(abs(int(r[1]) - (s0["achieved_tps"] + s1["achieved_tps"])) <= 1,
              "Achieved %s is not the sum of %r and %r" % (r[1], s0["achieved_tps"],
                                                          s1["achieved_tps"]))
    merged = load(m)
    validate(merged)
    check([s["target_tps"] for s in merged["steps"]] == [2000, 4000],
          "merged JSON targets %r" % [s["target_tps"] for s in merged["steps"]])
    check(len(merged["runs"]) == 2, "merged runs %r" % merged["runs"])
    rc, out, err = run_slap(["merge", m, hosts[0]])
    check(rc == 2 and "same run" in err, "a merged file and one of its parts: %d %r" % (rc, err))
    shutil.rmtree(d)


def save(doc, path):
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


@no_time
def case_merge_refuses_corrupt_numbers(mc):
    """A number out of range in a results file (buckets of 2^63 that wrap to the count, sum_us
    1e308, max_ns 2^64-1, a counter near 2^64, a count below min_ns's bucket), or files each in
    range whose sum is not, are
    refused: exit 2 naming the file and the field, no report."""
    d = tmpdir()
    a, b = os.path.join(d, "a.json"), os.path.join(d, "b.json")
    for path in (a, b):
        rc, _, err = run_slap(["-s", mc.addr, "-x", "500", "-c", "2", "--json", path, "-q"])
        check(rc == 0, "exit status %d: %s" % (rc, err))
    big = 2 ** 63

    def wrap(doc):
        doc["types"]["get"]["hist"]["buckets"][:0] = [[0, big], [1, big]]

    def huge_sum(doc):
        doc["types"]["get"]["hist"]["sum_us"] = 1e308

    def huge_max(doc):
        doc["types"]["set"]["hist"]["max_ns"] = 2 ** 64 - 1

    def huge_counter(doc):
        doc["counters"]["cmd_get"] = 2 ** 64 - 1

    def huge_period(doc):
        doc["periods"][0]["counters"]["cmd_set"] = 2 ** 64 - 2

    def outside(doc):  # the counts must lie between min's bucket and max's (hist.h)
        h = doc["types"]["get"]["hist"]
        h["min_ns"] = h["max_ns"]

    for edit, field in ((wrap, "buckets"), (huge_sum, "sum_us"), (huge_max, "max_ns"),
                        (huge_counter, "cmd_get"), (huge_period, "cmd_set"),
                        (outside, "outside min_ns..max_ns")):
        doc = load(a)
        edit(doc)
        bad = save(doc, os.path.join(d, "bad-%s.json" % edit.__name__))
        rc, out, err = run_slap(["merge", bad, b])
        check(rc == 2 and out == "" and bad in err and field in err.replace(bad, ""),
              "%s: exit %d, %r" % (edit.__name__, rc, err))
    # Each file in range, their sum not: the file that passes 2^53 is named.
    docs = [load(a), load(b)]
    for doc in docs:
        doc["counters"]["unanswered"] = 2 ** 53 - 5
    paths = [save(doc, os.path.join(d, "near-%d.json" % i)) for i, doc in enumerate(docs)]
    for path in paths:
        rc, _, err = run_slap(["merge", path])
        check(rc == 0, "one file near 2^53 alone: %d %r" % (rc, err))
    rc, out, err = run_slap(["merge", paths[0], paths[1], "--json", os.path.join(d, "m.json")])
    check(rc == 2 and out == "" and paths[1] in err and "unanswered" in err,
          "a sum past 2^53: exit %d, %r" % (rc, err))
    check(not os.path.exists(os.path.join(d, "m.json")), "a merged file was written")
    shutil.rmtree(d)


@no_time
def case_label_written_is_read_back(mc):
    """--label takes only what slap merge reads back: a control character or more than 255
    bytes is refused at once (exit 2, the reason); 255 bytes of UTF-8 run and merge."""
    d = tmpdir()
    path = os.path.join(d, "run.json")
    for label, why in (("ab\x1bcd", "control character"), ("tab\there", "control character"),
                       ("x" * 256, "longer than 255 bytes"), ("", "empty")):
        rc, out, err = run_slap(["-s", mc.addr, "-x", "100", "--label", label, "--json", path])
        check(rc == 2 and "--label" in err and why in err and out == "",
              "--label %r: exit %d, %r" % (label, rc, err))
        check(not os.path.exists(path), "a run was made with --label %r" % label)
    label = "\u00e9" * 127 + "x"  # 255 bytes
    rc, _, err = run_slap(["-s", mc.addr, "-x", "100", "--label", label, "--json", path, "-q"])
    check(rc == 0, "--label of 255 bytes: exit %d, %r" % (rc, err))
    rc, out, err = run_slap(["merge", path])
    check(rc == 0 and load(path)["label"] == label, "merge of it: exit %d, %r" % (rc, err))
    shutil.rmtree(d)


MAXRSS = ("import resource, subprocess, sys\n"
          "rc = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL)\n"
          "sys.stderr.write('maxrss_kb %d\\n' % resource.getrusage(resource.RUSAGE_CHILDREN)"
          ".ru_maxrss)\n"
          "sys.exit(rc)\n")


def scale_totals(doc, period, n, seconds):
    """The run's get and set histograms and counters made n times period's, its seconds these:
    the totals of n such periods (a file must add up: slap refuses periods that do not)."""
    for t in ("get", "set"):
        h = dict(period["types"][t]["hist"])
        for k in ("count", "sum_us", "sumsq_us", "sumlog_us"):
            h[k] = h[k] * n
        h["buckets"] = [[i, c * n] for i, c in h["buckets"]]
        doc["types"][t]["hist"] = h
    doc["counters"] = {k: v * n for k, v in period["counters"].items()}
    doc["seconds"] = seconds
    return doc


def periods_file(doc, n, path):
    """doc with n periods, each doc's first period (a second long), a second apart, and the
    run's totals theirs; written a period at a time."""
    first = doc["periods"][0]
    lean = dict(first, seconds=1.0)  # every field a period holds: a file of its schema is whole
    doc = scale_totals(copy.deepcopy(doc), first, n, float(n))
    head, tail = json.dumps(dict(doc, periods="@")).split('"@"')
    with open(path, "w") as f:
        f.write(head + "[")
        for i in range(n):
            f.write(("," if i else "") + json.dumps(dict(lean, elapsed_s=i + 1.0)))
        f.write("]" + tail)
    return path


def merge_peak_kb(paths, extra):
    """slap merge's peak resident memory (its own, through a wrapper that waits for it)."""
    rc, _, err = run_slap(["merge"] + paths + extra, timeout=300,
                          prefix=("python3", "-c", MAXRSS))
    check(rc == 0, "merge: exit %d, %r" % (rc, err[-500:]))
    return int(re.search(r"maxrss_kb (\d+)", err).group(1))


@no_time
@release_only(VALGRIND_OR_MEMORY)
def case_merge_memory_bounded_by_histograms(mc):
    """slap merge of a long run holds one period at a time: merging two hosts' files of N and of
    4N periods (to JSON, CSV and SVG) peaks at the same memory, within 15%, and the merged JSON
    has every period, summed."""
    d = tmpdir()
    base = os.path.join(d, "base.json")
    rc, _, err = run_slap(["-s", mc.addr, "-x", "2000", "-c", "2", "--json", base, "-q"])
    check(rc == 0, "exit status %d: %s" % (rc, err))
    peaks = {}
    for n in (1000, 4000):
        paths = []
        for host in range(2):
            doc = load(base)
            doc["runs"][0]["pid"] += host  # another run: merge counts a run once
            paths.append(periods_file(doc, n, os.path.join(d, "h%d-%d.json" % (host, n))))
        out = os.path.join(d, "m-%d.json" % n)
        peaks[n] = merge_peak_kb(paths, ["--json", out, "--csv", os.path.join(d, "m.csv"),
                                         "--svg", os.path.join(d, "m.svg")])
        sys.stdout.write("%d periods, %d bytes a file: peak %d kB\n"
                         % (n, os.path.getsize(paths[0]), peaks[n]))
        merged = load(out)
        check(len(merged["periods"]) == n, "merged periods: %d" % len(merged["periods"]))
        one = load(paths[0])["periods"][n - 1]["counters"]["cmd_get"]
        check(merged["periods"][n - 1]["counters"]["cmd_get"] == 2 * one,
              "the last period is not the sum of the hosts'")
        os.unlink(out)
        for path in paths:
            os.unlink(path)
    check(peaks[4000] <= peaks[1000] * 1.15,
          "peak memory grows with the periods: %d kB for 1000, %d kB for 4000"
          % (peaks[1000], peaks[4000]))
    shutil.rmtree(d)


def refit_totals(doc):
    """The run's get and set histograms and counters made the sums of its periods' again (a
    file must add up: slap refuses periods that do not), after periods were cut from it."""
    for t in ("get", "set"):
        hists = [p["types"][t]["hist"] for p in doc["periods"] if t in p["types"]]
        buckets = {}
        for h in hists:
            for i, n in h["buckets"]:
                buckets[i] = buckets.get(i, 0) + n
        used = [h for h in hists if h["count"] > 0]
        doc["types"][t]["hist"] = {
            "count": sum(h["count"] for h in hists),
            "min_ns": min([h["min_ns"] for h in used] or [0]),
            "max_ns": max([h["max_ns"] for h in used] or [0]),
            "sum_us": sum(h["sum_us"] for h in hists),
            "sumsq_us": sum(h["sumsq_us"] for h in hists),
            "sumlog_us": sum(h["sumlog_us"] for h in hists),
            "buckets": sorted([i, n] for i, n in buckets.items())}
    for name in doc["counters"]:
        doc["counters"][name] = sum(p["counters"][name] for p in doc["periods"])
    return doc


@no_time
def case_merge_streams_uneven_periods(mc):
    """slap merge reads its files a period at a time: files of 3, 2 and no periods (runs that
    started apart) merge period by period, each merged period the sum of the files that have it,
    timed as the first of them; the JSON, CSV and SVG all have every period."""
    d = tmpdir()
    base = os.path.join(d, "base.json")
    rc, _, err = run_slap(["-s", mc.addr, "-t", "3s", "-S", "1s", "-c", "2", "--json", base])
    check(rc == 0, "exit status %d: %s" % (rc, err))
    paths = []
    for host, (keep, shift) in enumerate(((2, 0.25), (3, 0.0), (0, 0.0))):
        doc = load(base)
        check(len(doc["periods"]) == 3, "the run has %d periods" % len(doc["periods"]))
        doc["runs"][0]["pid"] += host + 1
        doc["periods"] = doc["periods"][:keep]
        for p in doc["periods"]:
            p["elapsed_s"] += shift
        refit_totals(doc)
        paths.append(save(doc, os.path.join(d, "h%d.json" % host)))
    j, c, v = (os.path.join(d, "m." + ext) for ext in ("json", "csv", "svg"))
    rc, out, err = run_slap(["merge"] + paths + ["--json", j, "--csv", c, "--svg", v])
    check(rc == 0, "merge: exit %d, %r" % (rc, err))
    docs = [load(path) for path in paths]
    merged = load(j)
    validate(merged)
    got = [(p["elapsed_s"], p["counters"]["cmd_get"]) for p in merged["periods"]]
    want = [(docs[0]["periods"][i]["elapsed_s"] if i < 2 else docs[1]["periods"][i]["elapsed_s"],
             sum(x["periods"][i]["counters"]["cmd_get"] for x in docs if i < len(x["periods"])))
            for i in range(3)]
    check(got == want, "merged periods %r, want %r" % (got, want))
    with open(c) as f:
        rows = [line.split(",") for line in f.read().splitlines()[1:]]
    check(sorted(set(float(r[0]) for r in rows)) == sorted(w[0] for w in want),
          "CSV periods %r" % sorted(set(r[0] for r in rows)))
    with open(v) as f:
        svg = f.read()
    xs = re.search(r'data-metric="rate" data-x="([^"]*)"', svg).group(1).split()
    check([float(x) for x in xs] == [w[0] for w in want], "SVG points at %r" % xs)
    shutil.rmtree(d)


@no_time
def case_sizes_in_header_and_config(mc):
    """The header says the key and value sizes when they are not memaslap's 64 and 1024 (a run
    with those keeps memaslap's seven lines), and the JSON config says the sizes used: no
    "fixed_size": 1024 when --value_size or -F set them."""
    d = tmpdir()
    j = os.path.join(d, "r.json")
    cfg = os.path.join(d, "sizes.cfg")
    with open(cfg, "w") as f:
        f.write("key\n32 32 1\nvalue\n500 600 1\ncmd\n0 0.1\n1 0.9\n")
    base = ["-s", mc.addr, "-x", "500", "-c", "2", "--json", j]
    for extra, key, value, fixed in ((["--value_size", "300"], "64", "300", 300),
                                     (["-X", "200"], "64", "200", 200),
                                     (["-F", cfg], "32", "500-600:1", None),
                                     (["--value_size", "10-20:0.5,30-40:0.5", "--key_size", "20"],
                                      "20", "10-20:0.5,30-40:0.5", None)):
        rc, out, err = run_slap(base + extra)
        check(rc == 0, "%r: exit %d: %s" % (extra, rc, err))
        header = out[:out.index("\n\n") if "\n\n" in out else len(out)]
        lines = header.splitlines()
        check(lines[6].startswith("get proportion:") and lines[7:9] ==
              ["key size: %s" % key, "value size: %s" % value],
              "%r: header %r" % (extra, lines))
        config = load(j)["config"]
        check(config["fixed_size"] == fixed and config["value_size"] == value and
              config["key_size"] == key, "%r: config sizes %r" % (extra, {
                  k: config[k] for k in ("fixed_size", "value_size", "key_size")}))
        validate(load(j))
    rc, out, err = run_slap(base)
    check(rc == 0 and "key size:" not in out and "value size:" not in out,
          "memaslap's sizes printed in the header: %r" % out[:400])
    check(load(j)["config"]["fixed_size"] == 1024, "default fixed_size")
    shutil.rmtree(d)


@no_time
def case_multiget_keys_per_second(mc):
    """-d 10: the Get and Total tables, and the CSV's get and total rows, end with the keys a
    second (what the run line's TPS counts) besides the requests; -d 1 keeps them as they were."""
    d = tmpdir()
    j, c = os.path.join(d, "r.json"), os.path.join(d, "r.csv")
    rc, out, err = run_slap(["-s", mc.addr, "-d", "10", "-t", "3s", "-S", "1s", "-c", "4",
                             "--json", j, "--csv", c])
    check(rc == 0, "exit status %d: %s" % (rc, err))
    doc = load(j)
    tables = re.findall(r"^(Get|Set|Total) Statistics\nType (.*)\nPeriod (.*)\nGlobal (.*)\n", out,
                        re.M)
    check(len(tables) == 9, "%d tables" % len(tables))
    for n, (title, header, period, _) in enumerate(tables):
        keys = title != "Set"
        check(header.split()[-1] == "Keys/s" if keys else "Keys/s" not in header,
              "%s header %r" % (title, header))
        check(header.split()[:10] == ["Time(s)", "Ops", "TPS(ops/s)", "Net(M/s)", "Get_miss",
                                      "Min(us)", "Max(us)", "Avg(us)", "Std_dev", "Geo_dist"],
              "the columns moved: %r" % header)
        p = doc["periods"][n // 3]
        if not keys or n // 3 == len(doc["periods"]) - 1:
            continue  # the last period holds besides the answers that came after its table
        want = p["counters"]["cmd_get"] if title == "Get" else p["ops"]
        check(int(period.split()[-1]) == round(want / p["seconds"]),
              "%s Keys/s %s, the period's keys %d" % (title, period.split()[-1], want))
        check(int(period.split()[-1]) > 5 * int(period.split()[2]), "%s: keys %s, TPS %s"
              % (title, period.split()[-1], period.split()[2]))
    with open(c) as f:
        lines = f.read().splitlines()
    check(lines[0].endswith(",p99.9_us,keys_per_s"), "CSV header %r" % lines[0])
    for line in lines[1:]:
        row = line.split(",")
        p = next(x for x in doc["periods"] if abs(x["elapsed_s"] - float(row[0])) < 0.001)
        want = {"get": p["counters"]["cmd_get"], "total": p["ops"]}.get(row[1])
        check(len(row) == 16 and (row[15] == "" if want is None else
                                  abs(float(row[15]) - want / p["seconds"]) < 0.1),
              "CSV row %r, keys %r" % (row, want))
    rc, out, err = run_slap(["-s", mc.addr, "-t", "1s", "-S", "1s", "-c", "4", "--csv", c])
    check(rc == 0 and "Keys/s" not in out, "-d 1 shows Keys/s")
    with open(c) as f:
        check(not f.readline().rstrip().endswith("keys_per_s"), "-d 1 CSV has keys_per_s")
    shutil.rmtree(d)


@no_time
def case_merge_reads_pipes(mc):
    """slap merge reads its inputs more than once (to check them, then per output): inputs
    that are pipes (`<(ssh host cat r.json)`) are copied aside first, so merging them gives the
    same report and document as merging the files, and no copy is left behind."""
    d = tmpdir()
    try:
        paths = [os.path.join(d, "h%d.json" % i) for i in range(2)]
        for i, path in enumerate(paths):
            rc, out, err = run_slap(["-s", mc.addr, "-t", "2s", "-c", "4",
                                     "--label", "pipe%d" % i, "--json", path, "-q"])
            check(rc == 0, "run %d: %s" % (i, err))
        rc, files_out, err = run_slap(["merge"] + paths + ["--json", os.path.join(d, "f.json")])
        check(rc == 0, "merge of files: %s" % err)
        tmp = os.path.join(d, "tmp")
        os.mkdir(tmp)
        cmd = "%s merge <(cat %s) <(cat %s) --json %s" % (PATHS.slap, paths[0], paths[1],
                                                           os.path.join(d, "p.json"))
        r = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, timeout=60,
                           env=dict(os.environ, TMPDIR=tmp))
        check(r.returncode == 0, "merge of pipes: exit %d: %s" % (r.returncode, r.stderr))
        check(r.stdout == files_out, "the report of pipes differs from the files'")
        check(load(os.path.join(d, "p.json")) == load(os.path.join(d, "f.json")),
              "the document of pipes differs from the files'")
        check(os.listdir(tmp) == [], "copies left behind: %r" % os.listdir(tmp))
    finally:
        shutil.rmtree(d)
