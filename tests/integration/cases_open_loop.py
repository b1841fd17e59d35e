"""Open loop (-P): rates, arrivals, corrected latency; warm-up, pipelining,
sweeps and .hgrm output."""
import json
import os
import re
import shutil
import tempfile

from harness import (block_stat, check, check_agree, counters, DelayProxy, measured, named,
                     run_line, run_slap, stall_later, sweep_rows)
from harness import no_time, threads


def case_open_loop_rate(mc):
    rc, out, err, delta, _ = measured([mc], ["-s", mc.addr, "-P", "2000", "-t", "3s", "-c", "8"])
    check(rc == 0, "exit status %d" % rc)
    check("target rate: 2000 ops/s, uniform arrivals" in out, "header lacks the target rate")
    c = counters(out)
    check_agree(c, delta)
    achieved = named(out, "achieved_tps")
    check(abs(achieved - 2000) <= 20, "achieved %.0f ops/s for a 2000 target (1%%)" % achieved)
    _, ops, _, _ = run_line(out)
    check(abs(ops - 6000) <= 60, "%d operations in 3 s at 2000/s" % ops)
    check(named(out, "target_tps") == 2000, "target_tps line")


def case_open_loop_poisson(mc):
    rc, out, err = run_slap(["-s", mc.addr, "-P", "2000", "--arrival=poisson", "-t", "3s", "-c", "8"])
    check(rc == 0, "exit status %d" % rc)
    achieved = named(out, "achieved_tps")
    check(abs(achieved - 2000) <= 80, "poisson: achieved %.0f ops/s for 2000 (4%%)" % achieved)


def case_known_delay(mc):
    proxy = DelayProxy(mc.port, 0.020)
    # 16 lanes at 200/s: each lane sends every 80 ms, well above the delay.
    rc, out, err = run_slap(["-s", proxy.addr, "-P", "200", "-t", "2s", "-c", "16"])
    check(rc == 0, "exit status %d" % rc)
    p50 = block_stat(out, "Total", "P50")
    check(20000 <= p50 <= 26000, "p50 %d us behind a 20 ms delay" % p50)
    check(block_stat(out, "Total", "Min") >= 19800, "a latency below the 20 ms delay")


def case_stall_open_vs_closed(mc):
    # 6000 requests: enough for a p99 (5000 are needed for its interval)
    rc, out, err = run_slap(["-s", mc.addr, "-P", "2000", "-t", "3s", "-c", "4"],
                            during=stall_later(mc, 1.0, 0.2))
    check(rc == 0, "open loop: exit status %d" % rc)
    p99 = block_stat(out, "Total", "P99")
    check(p99 >= 100000, "open loop: a 200 ms stall must show in the corrected p99 (%d us)" % p99)
    raw_p99 = block_stat(out, "Uncorrected_Total", "P99")
    check(raw_p99 < p99, "uncorrected p99 %d should hide the stall the corrected %d shows" % (raw_p99, p99))
    rc, out, err = run_slap(["-s", mc.addr, "-t", "3s", "-c", "4"], during=stall_later(mc, 1.0, 0.2))
    check(rc == 0, "closed loop: exit status %d" % rc)
    p50 = block_stat(out, "Total", "P50")
    check(p50 < 10000, "closed loop: p50 %d us should not show the stall" % p50)


def case_warmup(mc):
    rc, out, err = run_slap(["-s", mc.addr, "-P", "1000", "--warmup=1s", "-t", "2s", "-c", "4"])
    check(rc == 0, "exit status %d" % rc)
    check("warmup: 1s" in out, "header lacks the warm-up")
    secs, ops, _, _ = run_line(out)
    check(1.9 <= secs <= 2.2, "Run time %.1f should exclude the warm-up" % secs)
    check(abs(ops - 2000) <= 40, "%d operations measured in 2 s at 1000/s" % ops)


@no_time
@threads
def case_pipeline(mc):
    rc, out, err, delta, _ = measured([mc], ["-s", mc.addr, "--pipeline=8", "-x", "20000", "-c", "4",
                                             "-T", "2"])
    check(rc == 0, "exit status %d" % rc)
    check("pipeline: 8" in out, "header lacks the pipeline depth")
    c = counters(out)
    check_agree(c, delta)
    check(c["cmd_get"] + c["cmd_set"] == 20000, "-x 20000 with --pipeline 8")


def case_sweep(mc):
    d = tempfile.mkdtemp(prefix="slap-sweep-")
    path = os.path.join(d, "sweep.json")
    rc, out, err = run_slap(["-s", mc.addr, "--sweep=500:1500:500", "--step-time=1s", "-c", "4",
                             "--json", path])
    check(rc == 0, "exit status %d" % rc)
    rows = sweep_rows(out, 4)
    check([r[0] for r in rows] == [500, 1000, 1500], "sweep targets %r" % rows)
    # Each step met its rate, so the rate is what limited it, unless slap's own thread waited
    # for a CPU (a busy host: then client or both, its figures saying so). (In the sanitizers'
    # build beside another case, a step once said `client`: its counters say how many requests
    # slap held.)
    with open(path) as f:
        steps = json.load(f)["steps"]
    shutil.rmtree(d)
    for r, s in zip(rows, steps):
        waited = s["limits"]["client"]["cpu_wait_max"] if s.get("limits") else 0
        check(r[4] == "rate" or (r[4] in ("client", "both") and waited >= 0.05),
              "sweep Limited_by %r (slap's CPU wait %r); client_lag, unsent %r"
              % ([r[4] for r in rows], [t.get("limits", {}).get("client", {}).get("cpu_wait_max")
                                          for t in steps],
                 [(t["counters"]["client_lag"], t["counters"]["unsent"]) for t in steps]))
    for target, achieved, pct, mx, _, _ in rows:
        check(abs(achieved - target) <= target * 0.02, "achieved %d for %d" % (achieved, target))
        # p99 and p99.9 of a second's requests are not estimable: "-", never a number
        check(pct[0] is not None and pct[2:] == [None, None], "estimable %r" % (pct,))
        shown = [p for p in pct if p is not None] + [mx]
        check(shown == sorted(shown), "percentiles out of order %r" % (pct,))


@no_time
def case_sweep_preloads_once(mc):
    """--sweep with --flush and --preload: the windows are flushed and loaded once, before the
    first step, and the preload is said once; the later steps' gets find what it stored. The
    table's percentile columns follow --percentiles."""
    before, _ = mc.stats()
    rc, out, err = run_slap(["-s", mc.addr, "--sweep=500:1500:500", "--step-time=1s", "-c", "4",
                             "-w", "500", "--flush", "--preload", "--percentiles=50,99.99"])
    after, _ = mc.stats()
    check(rc == 0, "exit status %d" % rc)
    preloads = re.findall(r"^preload: (\d+) sets in [\d.]+s$", out, re.M)
    check(preloads == ["2000"], "one preload of 4 clients x 500 keys, said once: %r" % preloads)
    check(out.index("preload:") < out.index("Target(ops/s)"), "the preload is said before the table")
    sets = int(after["cmd_set"]) - int(before["cmd_set"])
    check(sets < 2 * 2000, "%d sets reached the server: the windows were loaded more than once" % sets)
    misses = int(after["get_misses"]) - int(before["get_misses"])
    check(misses == 0, "%d gets missed: a later step flushed or forgot the preloaded windows" % misses)
    head = re.search(r"^Target\(ops/s\).*$", out, re.M)
    check(head and head.group(0).split() == ["Target(ops/s)", "Achieved(ops/s)", "P50(us)",
                                             "P99.99(us)", "Max(us)", "Limited_by",
                                             "Late99(us)", "Held99(us)", "P50_95%(us)",
                                             "P99.99_95%(us)"],
          "the columns do not follow --percentiles: %r" % (head and head.group(0)))
    rows = sweep_rows(out, 2)
    check([r[0] for r in rows] == [500, 1000, 1500], "sweep rows %r" % rows)
    for _, _, pct, mx, _, cells in rows:
        check(pct[0] is not None and pct[0] <= mx, "P50, Max out of order %r" % (pct,))
        check(cells[1] == "needs_500000", "P99.99 of a second's requests: %r" % cells)

@no_time
def case_hdr_out(mc):
    path = "/tmp/slap-test-%d.hgrm" % os.getpid()
    try:
        rc, out, err = run_slap(["-s", mc.addr, "-x", "3000", "-c", "4", "--hdr-out", path,
                                 "--percentiles=50,99.99"])
        check(rc == 0, "exit status %d" % rc)
        text = open(path).read()
        m = re.search(r"Total count    =\s+(\d+)\]", text)
        check(m and int(m.group(1)) == 3000, "hgrm total count")
        last = [l for l in text.splitlines() if l.strip() and not l.startswith("#")][-1].split()
        check(float(last[1]) == 1.0 and int(last[2]) == 3000, "hgrm last line %r" % last)
        check("P99.99(us)" not in out and re.search(r"^   P99\.99:", out, re.M), "--percentiles")
    finally:
        if os.path.exists(path):
            os.unlink(path)


def case_ramp(mc):
    """--ramp=500:3000/3s -S 0.5s: each period's target the ramp's (rising by 417/s a period),
    achieved within 10% of it, in the JSON, the CSV, the text table and the SVG alike; slap's
    counts the server's; the CSV's rows give the latency's parts."""
    from cases_results import close, load, svg_series, validate
    d = tempfile.mkdtemp(prefix="slap-ramp-")
    j, c, v = (os.path.join(d, n) for n in ("r.json", "r.csv", "r.svg"))
    # --pipeline 4: a lane keeps sending while it awaits an answer, so that a stall of this
    # shared host's leaves no requests unsent at the end
    rc, out, err, delta, _ = measured([mc], ["-s", mc.addr, "--ramp=500:3000/3s", "-S", "0.5s",
                                             "-c", "8", "--pipeline", "4", "--json", j, "--csv",
                                             c, "--svg", v])
    check(rc == 0, "exit status %d: %s" % (rc, err))
    check("target rate: a ramp from 500 to 3000 ops/s over 3s (1750 ops/s on average), uniform "
          "arrivals" in out, "the header lacks the ramp")
    check_agree(counters(out), delta)
    _, ops, _, _ = run_line(out)
    check(abs(ops - 5250) <= 55, "%d operations over the ramp, its count is 5250" % ops)
    doc = load(j)
    validate(doc)
    check(doc["config"]["ramp"] == "500:3000/3s", "config's ramp %r" % doc["config"].get("ramp"))
    whole = [p for p in doc["periods"] if p["seconds"] > 0.45]
    check(len(whole) >= 5, "%d periods of 0.5 s" % len(whole))
    for p in whole:
        start = p["elapsed_s"] - p["seconds"]
        want = 500 + 2500 / 3 * (start + p["seconds"] / 2)  # the ramp's rate at the middle
        check(close(p["target_rate"], want, 1e-6), "period %.1f: target %r, the ramp's %.1f"
              % (start, p["target_rate"], want))
        achieved = p["ops"] / p["seconds"]
        check(abs(achieved - want) <= 0.1 * want, "period %.1f: achieved %.0f for %.0f"
              % (start, achieved, want))
    rows = re.findall(r"^(\d+\.\d{3})\s+(\d+)\s+(\d+)\s+\d+\s+\d+\s+\d+\s+\d+\s+\d+\s+"
                      r"\d+\.\d%( \*)?$", out, re.M)
    check(re.search(r"^Start\(s\)\s+Target\(ops/s\)\s+Achieved\(ops/s\)\s+P50\(us\)", out, re.M),
          "no ramp table")
    check(len(rows) == len(doc["periods"]), "table rows %r" % rows)
    for row, p in zip(rows, doc["periods"]):
        check(int(row[1]) == round(p["target_rate"]), "row %r vs target %r" % (row,
                                                                             p["target_rate"]))
    with open(c) as f:
        lines = f.read().splitlines()
    check(lines[0].endswith(",p99.9_us,target_rate,late_to_send_p99_us,held_by_server_p99_us"),
          "CSV header %r" % lines[0])
    totals = [line.split(",") for line in lines[1:] if line.split(",")[1] == "total"]
    check([round(float(t[-3]), 1) for t in totals] ==
          [round(p["target_rate"], 1) for p in doc["periods"]], "CSV targets %r" % totals)
    # each period's latency parts: their own P99, none above the row's P99 (a part of each
    # request's latency is no more than it)
    for t in totals:
        p99, late, held = float(t[13]), float(t[-2]), float(t[-1])
        check(late <= p99 * 1.01 and held <= p99 * 1.01, "CSV parts above the P99: %r" % t)
    root, series = svg_series(v)
    texts = " ".join(t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text"))
    check("Latency against target rate" in texts, "the picture lacks latency against the rate")
    by_rate = [xs for _, xs, _ in series["p99_us"] if xs[0] > 100]
    check(len(by_rate) == 1 and all(close(x, p["target_rate"], 1e-3)
                                    for x, p in zip(by_rate[0], doc["periods"])),
          "latency-by-rate x %r" % by_rate)
    shutil.rmtree(d)
