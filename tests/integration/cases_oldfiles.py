"""Results files written by earlier slaps (tests/fixtures/results, one generation per commit that
changed the format) read by today's slap merge, slap compare and slap plot; and slap merge's
text, JSON and CSV of some of them byte for byte against goldens, so that a change to the
writer or the reader that alters an output is seen."""
import glob
import json
import os
import re
import shutil
import tempfile
import xml.dom.minidom

from harness import check, run_slap, run_line
from harness import no_time

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(os.path.dirname(HERE), "fixtures", "results")
GOLDEN = os.path.join(FIXTURES, "golden")
# The fixtures whose merge is kept byte for byte: the first format, one of each kind, today's.
GOLDEN_FILES = ["1d77c31-run.json", "315d188-open.json", "79ea331-sweep.json",
                "967cda0-rounds.json", "6fd5366-run.json", "3861f7f-search.json",
                "4004912-run.json", "4004912-open.json", "4004912-sweep.json"]


def fixtures():
    found = sorted(glob.glob(os.path.join(FIXTURES, "*.json")))
    check(len(found) >= 40, "only %d fixtures in %s" % (len(found), FIXTURES))
    return found


def sweep_rows(out):
    """The sweep table's rows: (target, achieved) of each."""
    rows = []
    lines = out.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("Target(ops/s)"):
            for row in lines[i + 1:]:
                m = re.match(r"^(\d+)\s+(\d+)\s", row)
                if not m:
                    break
                rows.append((int(m.group(1)), int(m.group(2))))
    return rows


def check_merge(d, path, doc):
    """slap merge of one file: exit 0, its figures the file's."""
    name = os.path.basename(path)
    mj, mc = os.path.join(d, "m.json"), os.path.join(d, "m.csv")
    rc, out, err = run_slap(["merge", path, "--json", mj, "--csv", mc])
    check(rc == 0 and err == "", "merge %s: exit %d: %s" % (name, rc, err))
    if not doc["steps"]:
        _, ops, _, _ = run_line(out)
        check(ops == doc["run"]["ops"], "merge %s: Ops %d, the file's %d" %
              (name, ops, doc["run"]["ops"]))
    merged = json.load(open(mj))
    check(merged["run"]["ops"] == doc["run"]["ops"] and
          merged["types"]["total"]["count"] == doc["types"]["total"]["count"],
          "merge %s: the merged JSON's requests are not the file's" % name)
    for key in ("cmd_get", "cmd_set", "get_misses", "written_bytes", "read_bytes"):
        check(merged["counters"][key] == doc["counters"][key],
              "merge %s: counters.%s %r, the file's %r" % (name, key, merged["counters"][key],
                                                          doc["counters"][key]))
    check(len(merged["periods"]) == len(doc["periods"]) and
          len(merged["steps"]) == len(doc["steps"]),
          "merge %s: %d periods and %d steps, the file's %d and %d" %
          (name, len(merged["periods"]), len(merged["steps"]), len(doc["periods"]),
           len(doc["steps"])))
    if doc["steps"]:
        rows = sweep_rows(out)
        want = [int(s["target_tps"]) for s in doc["steps"]]
        check([r[0] for r in rows] == want, "merge %s: sweep rows %r, the file's %r" %
              (name, rows, want))
    csv = open(mc).read().splitlines()
    check(len(csv) > 1 and csv[0].count(",") > 5, "merge %s: CSV %r" % (name, csv[:2]))
    os.unlink(mj)
    os.unlink(mc)


@no_time
def case_old_results_files_read():
    """Every fixture, each written by the slap of its commit, is read by slap merge (its report
    names the file's request count, its JSON the file's counters and periods or steps, a sweep's
    table the file's rates), slap compare (runs only: a sweep is refused by design, naming it)
    and slap plot (a well-formed SVG)."""
    d = tempfile.mkdtemp(prefix="slap-oldfiles-")
    try:
        for path in fixtures():
            name = os.path.basename(path)
            doc = json.load(open(path))
            check_merge(d, path, doc)
            rc, out, err = run_slap(["compare", path, path])
            if doc["steps"]:
                check(rc == 2 and "is a sweep" in err, "compare %s: exit %d: %s" % (name, rc, err))
            else:
                check(rc == 0 and err == "" and re.search(r"^p99\s+us\s", out, re.M),
                      "compare %s: exit %d: %s" % (name, rc, err))
            svg = os.path.join(d, "p.svg")
            rc, _, err = run_slap(["plot", path, "-o", svg])
            check(rc == 0 and err == "", "plot %s: exit %d: %s" % (name, rc, err))
            xml.dom.minidom.parse(svg)
            os.unlink(svg)
    finally:
        shutil.rmtree(d)


@no_time
def case_old_results_generation_of_today():
    """The results format of today (the schema slap writes, as slap merge writes it) has its
    generation of fixtures, each listed in the fixtures' README: raising RESULTS_SCHEMA without
    adding files written at it fails here, and a field added without raising it fails
    old_results_files_read (a file of today's schema lacks it and is refused)."""
    found = fixtures()
    d = tempfile.mkdtemp(prefix="slap-oldfiles-")
    try:
        out = os.path.join(d, "m.json")
        rc, _, err = run_slap(["merge", found[0], "--json", out])
        check(rc == 0, "merge %s: exit %d: %s" % (found[0], rc, err))
        with open(out) as f:
            today = json.load(f)["schema"]
    finally:
        shutil.rmtree(d)
    schemas = {}
    for path in found:
        with open(path) as f:
            schemas.setdefault(json.load(f).get("schema"), []).append(os.path.basename(path))
    check(today in schemas, "slap writes schema %s, and no fixture in %s was written at it: add a "
          "generation (its README says how)" % (today, FIXTURES))
    newest = max(k for k in schemas if isinstance(k, int))
    check(newest == today, "fixtures of schema %d, above the %d slap writes" % (newest, today))
    with open(os.path.join(FIXTURES, "README.md")) as f:
        listed = f.read()
    unlisted = [os.path.basename(p) for p in found if "`%s`" % os.path.basename(p) not in listed]
    check(not unlisted, "fixtures not in %s/README.md: %s" % (FIXTURES, ", ".join(unlisted)))


def merged_outputs(d, path):
    """slap merge's text, JSON and CSV of path."""
    mj, mc = os.path.join(d, "m.json"), os.path.join(d, "m.csv")
    rc, out, err = run_slap(["merge", path, "--json", mj, "--csv", mc])
    check(rc == 0, "merge %s: exit %d: %s" % (path, rc, err))
    with open(mj) as f:
        js = f.read()
    with open(mc) as f:
        csv = f.read()
    return {"txt": out, "json": js, "csv": csv}


@no_time
def case_old_results_golden():
    """slap merge of each of GOLDEN_FILES prints, byte for byte, the text, JSON and CSV in
    tests/fixtures/results/golden/ (made by HEAD 4004912 before the reader learnt the older
    formats, their "schema" then 1, now 2; 1d77c31's and 315d188's, which 4004912 refused, by
    the first slap that read them). No output of merge holds the
    host or the time of the merge itself: nothing is masked. SLAP_UPDATE_GOLDENS=1 writes them
    anew (then review the diff)."""
    d = tempfile.mkdtemp(prefix="slap-golden-")
    update = os.environ.get("SLAP_UPDATE_GOLDENS") == "1"
    try:
        for name in GOLDEN_FILES:
            outs = merged_outputs(d, os.path.join(FIXTURES, name))
            for ext, text in outs.items():
                golden = os.path.join(GOLDEN, name[:-len(".json")] + ".merge." + ext)
                if update:
                    os.makedirs(GOLDEN, exist_ok=True)
                    with open(golden, "w") as f:
                        f.write(text)
                    continue
                check(os.path.exists(golden), "no golden %s" % golden)
                with open(golden) as f:
                    want = f.read()
                if text != want:
                    a, b = want.splitlines(), text.splitlines()
                    at = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]),
                              min(len(a), len(b)))
                    check(False, "merge of %s: %s differs from %s at line %d:\n want %r\n got  %r"
                          % (name, ext, os.path.basename(golden), at + 1,
                             a[at] if at < len(a) else None, b[at] if at < len(b) else None))
    finally:
        shutil.rmtree(d)
