"""The Grafana dashboard slap ships (share/grafana/slap.json, installed as
/usr/share/slap/grafana/slap.json): every metric it names is one slap exports, and every query
it holds (each panel's, each template variable's, each annotation's) answers from a real
Prometheus that scraped a slap --metrics and a Pushgateway that a slap --push fed, with the
template variables put in as Grafana puts them; its rate and p99 agree with slap's own."""
import json
import math
import os
import re
import tempfile
import time
import urllib.parse

from harness import Skip, check, free_port, no_time, release_only
from harness import SAME_IN_EVERY_BUILD, TIMING_STATISTICS
from cases_metrics import PROMETHEUS, PUSHGATEWAY, Daemon, Slap, http_get, start_pushgateway
from cases_control import Controlled, post

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DASHBOARD = os.path.join(TOP, "share", "grafana", "slap.json")
METRICS_C = os.path.join(TOP, "src", "output", "metrics.c")
HISTOGRAM_SUFFIXES = ("_bucket", "_sum", "_count")


def dashboard():
    with open(DASHBOARD) as f:
        return json.load(f)


def panel_targets(d):
    """(panel title, target) of every panel's query."""
    return [(p["title"], t) for p in d["panels"] for t in p.get("targets", [])]


def variable_queries(d):
    return [(v["name"], v["query"] if isinstance(v["query"], str) else v["query"]["query"])
            for v in d["templating"]["list"] if v["type"] == "query"]


def annotation_queries(d):
    return [a for a in d["annotations"]["list"] if a.get("datasource", {}).get("type") ==
            "prometheus"]


def every_expr(d):
    """Every PromQL text of the dashboard, with where it is."""
    found = [("panel %r %s" % (title, t["refId"]), t["expr"]) for title, t in panel_targets(d)]
    found += [("variable %s" % name, q) for name, q in variable_queries(d)]
    found += [("annotation %r" % a["name"], a["expr"]) for a in annotation_queries(d)]
    return found


def exported_names():
    """The metric families metrics.c writes: the slap_ names quoted in it."""
    with open(METRICS_C) as f:
        return set(re.findall(r'"(slap_[a-z0-9_]+)"', f.read()))


# ---------------------------------------------------------------- the file itself

@no_time
@release_only(SAME_IN_EVERY_BUILD)
def case_grafana_dashboard_names_exported():
    """share/grafana/slap.json is a dashboard Grafana imports asking for a Prometheus data
    source (__inputs DS_PROMETHEUS, used by every panel and query), every panel placed
    (gridPos), every panel query filtered by both template variables ($label, $host); and every
    slap_ metric a query names is one metrics.c writes (a histogram's by its _bucket, _sum or
    _count), so that a series renamed in slap fails here, by name."""
    d = dashboard()
    inputs = [i for i in d.get("__inputs", []) if i.get("name") == "DS_PROMETHEUS"]
    check(len(inputs) == 1 and inputs[0].get("type") == "datasource" and
          inputs[0].get("pluginId") == "prometheus",
          "%s: no __inputs DS_PROMETHEUS of a Prometheus data source" % DASHBOARD)
    ds = {"type": "prometheus", "uid": "${DS_PROMETHEUS}"}
    check(d["panels"], "no panels")
    for p in d["panels"]:
        g = p.get("gridPos", {})
        check(all(isinstance(g.get(k), int) for k in "xywh") and g["x"] + g["w"] <= 24,
              "panel %r: gridPos %r" % (p.get("title"), g))
        check(p.get("datasource") == ds and p.get("targets"),
              "panel %r: not on ${DS_PROMETHEUS}, or no query" % p.get("title"))
    for title, t in panel_targets(d):
        check(t.get("datasource") == ds, "panel %r %s: datasource %r" % (title, t["refId"],
                                                                         t.get("datasource")))
        check('label=~"$label"' in t["expr"] and 'instance=~"$host"' in t["expr"],
              "panel %r %s does not take both variables: %s" % (title, t["refId"], t["expr"]))
    names = [v["name"] for v in d["templating"]["list"]]
    check(names == ["label", "host"], "template variables %r, not label and host" % names)
    for a in annotation_queries(d):
        check(a.get("datasource") == ds and '$label' in a["expr"] and '$host' in a["expr"],
              "annotation %r: not on ${DS_PROMETHEUS} or not filtered: %s" % (a["name"],
                                                                              a["expr"]))
    exported = exported_names()
    check("slap_request_duration_seconds" in exported, "%s: no families found" % METRICS_C)
    used = set()
    for where, expr in every_expr(d):
        for name in re.findall(r"\bslap_[a-z0-9_]+", expr):
            family = name
            for suffix in HISTOGRAM_SUFFIXES:
                if name.endswith(suffix) and name[:-len(suffix)] in exported:
                    family = name[:-len(suffix)]
            check(family in exported, "%s names %s, which metrics.c does not write" % (where, name))
            used.add(family)
    print("%d metric families used, all written by metrics.c: %s" % (len(used),
                                                                     ", ".join(sorted(used))))


# ---------------------------------------------------------------- every query answers

def substitute(expr, values):
    """expr with Grafana's variables put in (longest names first: $__range before $__r...)."""
    for name in sorted(values, key=len, reverse=True):
        expr = expr.replace("${%s}" % name, values[name]).replace("$" + name, values[name])
    check("$" not in expr, "a variable left unknown in %s" % expr)
    return expr


def api(prom, path, params):
    url = "%s/api/v1/%s?%s" % (prom.base, path, urllib.parse.urlencode(params, doseq=True))
    status, body = http_get(url, timeout=10)
    check(status == 200, "%s %r: HTTP %d %s" % (path, params, status, body[:300]))
    return json.loads(body)["data"]


def label_values(prom, query, start, end):
    """Grafana's label_values(METRIC{...}, LABEL), as Grafana asks Prometheus for it."""
    m = re.fullmatch(r"label_values\((.*),\s*(\w+)\)", query.strip())
    check(m is not None, "not a label_values query: %s" % query)
    return api(prom, "label/%s/values" % m.group(2),
               {"match[]": m.group(1), "start": start, "end": end})


def series_of(result, **labels):
    """The one series of a query's result whose labels are these."""
    mine = [r for r in result if all(r["metric"].get(k) == v for k, v in labels.items())]
    check(len(mine) == 1, "one series with %r expected: %r" % (labels, result))
    return mine[0]


def slap_bucket_width_s(value_s):
    """The width of the histogram bucket slap exports that holds value_s: 1/8 of its octave."""
    ns = value_s * 1e9
    return 2.0 ** math.floor(math.log2(ns)) / 8 / 1e9


def start_prometheus(live_port, gw_port):
    """Prometheus scraping slap --metrics as job slap-live every second, and the Pushgateway
    with honor_labels (the jobs of docs/metrics.md)."""
    if not os.access(PROMETHEUS, os.X_OK) or not os.access(PUSHGATEWAY, os.X_OK):
        raise Skip("%s or %s is not installed: scripts/deps.sh prometheus "
                   "prometheus-pushgateway" % (PROMETHEUS, PUSHGATEWAY))

    def cmd(d):
        path = os.path.join(d.dir, "prometheus.yml")
        with open(path, "w") as f:
            f.write("global:\n  scrape_interval: 1s\n  scrape_timeout: 900ms\n"
                    "scrape_configs:\n"
                    "  - job_name: slap-live\n    static_configs:\n"
                    "      - targets: ['127.0.0.1:%d']\n"
                    "  - job_name: pushgateway\n    honor_labels: true\n    static_configs:\n"
                    "      - targets: ['127.0.0.1:%d']\n" % (live_port, gw_port))
        return [PROMETHEUS, "--config.file=" + path, "--storage.tsdb.path=" + d.dir + "/data",
                "--web.listen-address=127.0.0.1:%d" % d.port]
    return Daemon("prometheus", cmd, "/-/ready")


def run_both(mc, port, gw, tmp):
    """slap at 2000/s for 14 s, scraped (--metrics, --timestamps=kernel for its own delay),
    then paused for 2.5 s over --control (so that the scrapes see every request it measured)
    and stopped; beside it from its 6th second a short slap with --push -S 1s whose
    connections are made again every 200 answers: their --json documents."""
    live_json = os.path.join(tmp, "live.json")
    push_json = os.path.join(tmp, "push.json")
    live = Controlled(["-s", mc.addr, "-t", "40s", "-c", "4", "-T", "2", "-P", "2000",
                       "--timestamps=kernel", "--metrics", "127.0.0.1:%d" % port,
                       "--control", "0", "--label", "grafana-live", "--json", live_json])
    pushed = None
    try:
        live.metrics_url()
        control = live.control_url()
        began = time.monotonic()
        time.sleep(6)
        pushed = Slap(["-s", mc.addr, "-t", "4s", "-c", "2", "-T", "1", "-P", "1500", "-S", "1s",
                       "--reconnect_every", "200", "--label", "grafana-push",
                       "--push", gw.base, "--json", push_json])
        rc, _, err = pushed.finish()
        check(rc == 0, "slap exit %d: %s" % (rc, err))
        time.sleep(max(0.0, 14 - (time.monotonic() - began)))
        check(post(control, "/pause")[0] == 200, "the scraped slap did not pause")
        time.sleep(2.5)
        check(post(control, "/stop")[0] == 200, "the scraped slap did not stop")
        rc, _, err = live.finish()
        check(rc == 0, "slap exit %d: %s" % (rc, err))
    finally:
        for s in (live, pushed):
            if s is not None and s.proc.poll() is None:
                s.proc.kill()
                s.proc.wait()
    with open(live_json) as f, open(push_json) as g:
        return json.load(f), json.load(g)


def grafana_values(start, end, step):
    """What Grafana puts in for the variables: both runs picked ($label, a multi-value as the
    regex (a|b)), every host (All: its allValue .*); $__interval the step, $__rate_interval
    max($__interval + scrape interval, 4 x scrape interval) with the data source's scrape
    interval set to 1s; $__range the dashboard's range (15 minutes)."""
    return {"DS_PROMETHEUS": "prometheus", "label": "(grafana-live|grafana-push)", "host": ".*",
            "__interval": "%ds" % step, "__rate_interval": "%ds" % max(step + 1, 4),
            "__range": "%ds" % math.ceil(end - start)}


# No time measured: the panels and slap's report read the same requests (the scraped slap
# paused before its end so that the scrapes hold them all), so a busy host moves both alike;
# the release build only, for the rate Prometheus scrapes at.
@no_time
@release_only(TIMING_STATISTICS)
def case_grafana_dashboard_queries(mc):
    """A real Prometheus scrapes a slap --metrics (2000/s for 14 s, then paused) and a Pushgateway fed by a
    second slap's --push -S (1500/s for 4 s: the 5000 requests a P99 needs); every query of
    share/grafana/slap.json, its variables put in as Grafana does, answers at least one
    series through Prometheus' HTTP API (panels by query_range or, instant ones, query;
    variables by the label values Grafana asks; annotations by query_range at their step),
    and the run marks fall on slap's start_ms and end_ms. Prometheus kept a sample of the
    scraped slap every second, and slap_run_info its label and workload. The achieved rate panel reads
    slap's --json TPS within 5%; the p99 of 'Latency percentiles over the run' reads slap's
    P99 within the width of the exported bucket that holds it (histogram_quantile
    interpolates within a bucket of slap's own edges, 1/8 of a power of two wide): for the
    pushed run, whose final histogram is all of it, and for the scraped one, paused over
    --control for its last 2.5 s so that the scrapes saw all of it."""
    d = dashboard()
    port = free_port()
    gw = start_pushgateway() if os.access(PUSHGATEWAY, os.X_OK) else None
    if gw is None:
        raise Skip("%s is not installed: scripts/deps.sh prometheus-pushgateway" % PUSHGATEWAY)
    prom = None
    tmp = tempfile.mkdtemp(prefix="slap-grafana-")
    try:
        prom = start_prometheus(port, gw.port)
        live_doc, push_doc = run_both(mc, port, gw, tmp)
        time.sleep(3)  # the final push scraped from the Pushgateway
        # the dashboard's own range (now-15m to now); its step ($__interval) at a scrape
        # interval of 1s and a panel of a thousand points is 1s
        end = time.time()
        start = end - 15 * 60
        step = 1
        values = grafana_values(start, end, step)
        live_instance = "127.0.0.1:%d" % port
        # the template variables: both runs, the scraped host and the pushed one
        got = {}
        for name, q in variable_queries(d):
            got[name] = label_values(prom, substitute(q, values), start, end)
            print("variable %s: %s -> %r" % (name, q, got[name]))
        check({"grafana-live", "grafana-push"} <= set(got.get("label", [])),
              "$label offers %r" % got.get("label"))
        check({live_instance, "grafana-push"} <= set(got.get("host", [])),
              "$host offers %r" % got.get("host"))
        # every panel's query
        results = {}
        for title, t in panel_targets(d):
            expr = substitute(t["expr"], values)
            if t.get("instant"):
                result = api(prom, "query", {"query": expr, "time": end})["result"]
            else:
                result = api(prom, "query_range", {"query": expr, "start": start, "end": end,
                                                   "step": step})["result"]
            print("panel %r %s: %d series  %s" % (title, t["refId"], len(result), expr))
            check(result, "panel %r query %s answers no series: %s" % (title, t["refId"], expr))
            results[(title, t["legendFormat"].split(" ")[0])] = result
        # every annotation's query: the runs' marks at their Unix times (ms)
        marks = {}
        for a in annotation_queries(d):
            expr = substitute(a["expr"], values)
            # Grafana aligns an annotation's range to its step (60s unless it says)
            a_step = int(a.get("step", "60s").rstrip("s"))
            result = api(prom, "query_range", {"query": expr,
                                               "start": math.floor(start / a_step) * a_step,
                                               "end": math.floor(end / a_step) * a_step,
                                               "step": a_step})["result"]
            print("annotation %r: %d series  %s" % (a["name"], len(result), expr))
            check(result, "annotation %r answers no series: %s" % (a["name"], expr))
            check(a.get("useValueForTime"), "annotation %r: its value is the time" % a["name"])
            marks[a["name"]] = result
        start_mark = float(series_of(marks["Run start"], label="grafana-live",
                                     instance=live_instance)["values"][-1][1]) / 1000
        end_mark = float(series_of(marks["Run end"], label="grafana-push")["values"][-1][1]) / 1000
        print("start mark %.3f, slap's start_ms %.3f; end mark %.3f, slap's end_ms %.3f"
              % (start_mark, live_doc["start_ms"] / 1000, end_mark, push_doc["end_ms"] / 1000))
        check(abs(start_mark - live_doc["start_ms"] / 1000) < 0.5, "the start mark is not the "
              "scraped run's start")
        check(abs(end_mark - push_doc["end_ms"] / 1000) < 0.5, "the end mark is not the pushed "
              "run's end")
        check_scraped_every_second(prom, end)
        check_rate(results, live_doc, live_instance)
        check_p99(results, live_doc, push_doc, live_instance)
    finally:
        if prom is not None:
            prom.stop()
        gw.stop()
        for f in os.listdir(tmp):
            os.unlink(os.path.join(tmp, f))
        os.rmdir(tmp)


def check_scraped_every_second(prom, end):
    """Prometheus kept a sample of the scraped slap every second (its get counter's raw
    samples), and slap_run_info carries the run's label and workload."""
    result = api(prom, "query", {"query": 'slap_requests_total{label="grafana-live",'
                                          'type="get"}[60s]', "time": end})["result"]
    check(len(result) == 1, "one get series of the scraped run: %r" % result)
    points = result[0]["values"]
    gaps = [float(b[0]) - float(a[0]) for a, b in zip(points, points[1:])]
    print("%d scrapes of the scraped run, gaps up to %.2f s" % (len(points), max(gaps or [0])))
    check(len(points) >= 8 and max(gaps) <= 1.5, "not a scrape every second: %d, %r" %
          (len(points), gaps))
    info = api(prom, "query", {"query": 'count(slap_run_info{label="grafana-live",'
                                        'concurrency="4"})', "time": float(points[-1][0])})
    check([float(r["value"][1]) for r in info["result"]] == [1.0],
          "slap_run_info does not carry the label and the workload: %r" % info)


def check_rate(results, live_doc, live_instance):
    """The rate panel's achieved line of the scraped run, its points' median, against slap's
    rate up to its pause; its offered line is -P, then 0 once --control paused it."""
    title = "Requests per second: offered and achieved"
    for key in ((title, "offered"), (title, "achieved")):
        check(key in results, "no %r line in the rate panel" % (key,))
    offered = series_of(results[(title, "offered")], label="grafana-live", instance=live_instance)
    check(float(offered["values"][0][1]) == 2000, "offered %r, -P 2000" % offered["values"][0])
    check(float(offered["values"][-1][1]) == 0, "offered %r once paused" % offered["values"][-1])
    achieved = series_of(results[(title, "achieved")], label="grafana-live",
                         instance=live_instance)
    pause = [c["at_s"] for c in live_doc["control"] if c["action"] == "pause"]
    check(pause, "the scraped run's pause is not in its results: %r" % live_doc.get("control"))
    # the points whose window ($__rate_interval, 4 s) lies within the run before its pause
    begun = live_doc["start_ms"] / 1000
    points = sorted(float(v) for t, v in achieved["values"] if begun + 4 <= t <= begun + pause[0])
    check(points, "no point of the rate panel before the pause: %r" % achieved["values"])
    median = points[len(points) // 2]
    tps = live_doc["run"]["ops"] / pause[0]
    print("rate panel: achieved %.1f/s (median of %d points), slap's TPS %.1f (%+.2f%%)"
          % (median, len(points), tps, 100 * (median - tps) / tps))
    check(len(points) >= 5, "the scraped run is in %d points of the rate panel" % len(points))
    check(abs(median - tps) <= 0.05 * tps, "the rate panel reads %.1f/s, slap's TPS %.1f"
          % (median, tps))


def check_p99(results, live_doc, push_doc, live_instance):
    title = "Latency percentiles over the run"
    check((title, "p99") in results, "no p99 in %r" % title)
    p99 = results[(title, "p99")]
    for doc, labels in ((push_doc, {"label": "grafana-push"}),
                        (live_doc, {"label": "grafana-live", "instance": live_instance})):
        panel_s = float(series_of(p99, **labels)["value"][1])
        slap_s = doc["types"]["total"]["percentiles"]["99"] / 1e6
        width = slap_bucket_width_s(slap_s)
        print("p99 panel %s: %.1f us, slap's P99 %.1f us (bucket width %.1f us)"
              % (labels["label"], panel_s * 1e6, slap_s * 1e6, width * 1e6))
        check(abs(panel_s - slap_s) <= width, "the p99 panel reads %.1f us for %s, slap's P99 "
              "%.1f us: more than a bucket (%.1f us) apart" % (panel_s * 1e6, labels["label"],
                                                               slap_s * 1e6, width * 1e6))
    windowed = results[("Latency percentiles (from slap's histogram)", "p99")]
    last = series_of(windowed, label="grafana-live", instance=live_instance)["values"][-1]
    print("p99 of the last $__rate_interval of the scraped run: %.1f us" % (float(last[1]) * 1e6))

