"""Groups (-F with 'group NAME' sections): several workloads in one run, each a slap of its own
started together, checked against each server's own counters; the bad files refused before
anything starts; a group that fails leaves the others' report."""
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time

from harness import PATHS, Memcached, check, free_port, run_line, run_slap
from harness import no_time


def counters(mc):
    """The server's cmd_get and cmd_set (harness's settled snapshot)."""
    s = mc.stats()[0]
    return int(s["cmd_get"]), int(s["cmd_set"])


def write(tmp, name, text):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def blocks(out):
    """Each group's block: label -> (requests, tps, errors, the types' rows)."""
    found = {}
    for m in re.finditer(r"^Group \d+: (\S+)\n  servers: \S+\n  requests: (\d+)  tps: (\d+)  "
                         r"errors: (\d+)  limited_by: \S+\n  Type .*\n((?:  \S+ +\d+.*\n)+)",
                         out, re.M):
        types = {row.split()[0]: [float(x) for x in row.split()[1:]]
                 for row in m.group(5).splitlines()}
        found[m.group(1)] = (int(m.group(2)), int(m.group(3)), int(m.group(4)), types)
    return found


def figure(out, name):
    m = re.search(r"^%s: (\d+)$" % re.escape(name), out, re.M)
    check(m is not None, "no %s line" % name)
    return int(m.group(1))


@no_time
def case_groups_writer_and_reader(mc):
    """A writer group (sets only, -P 500) to one memcached and a reader group (gets only, closed
    loop) to another, in one run of 2 s: each server counts its own group's requests, each
    group's block its own figures, the total their sum; the JSON's runs[] a group each with its
    latency, the CSV rows of both types, and slap merge reads the run's document again. Each
    group's own JSON and CSV lie beside the run's (run-writer.json, run-reader.csv, ...): its
    counts its server's, per type; a stale file of a group's name is replaced, not taken."""
    other = Memcached()
    tmp = tempfile.mkdtemp(prefix="slap-groups-")
    try:
        cfg = write(tmp, "groups.cfg",
                    "# a writer and a reader\n"
                    "group writer\n"
                    "  --servers=%s -T 1 -c 4   # sets only, at a fixed rate\n"
                    "  --ratio=1:0 -P 500\n"
                    "\n"
                    "group reader\n"
                    "  -s %s -c 1 --ratio=0:1 -w 100\n" % (mc.addr, other.addr))
        a0, b0 = counters(mc), counters(other)
        out_json, out_csv = os.path.join(tmp, "run.json"), os.path.join(tmp, "run.csv")
        private = os.path.join(tmp, "tmpdir")  # the groups' private directory goes in here
        os.mkdir(private)
        os.environ["TMPDIR"] = private
        with open(os.path.join(tmp, "run-reader.json"), "w") as f:
            f.write("stale: an earlier run's")
        try:
            rc, out, err = run_slap(["-F", cfg, "-t", "2s", "--label", "box", "--json", out_json,
                                     "--csv", out_csv])
        finally:
            del os.environ["TMPDIR"]
        a1, b1 = counters(mc), counters(other)
        check(rc == 0, "the groups run: exit %d: %s" % (rc, err))
        got = blocks(out)
        check(set(got) == {"box/writer", "box/reader"}, "a block per group: %r" % sorted(got))
        writer, reader = got["box/writer"], got["box/reader"]
        sets, gets = a1[1] - a0[1], b1[0] - b0[0]
        check(a1[0] == a0[0] and b1[1] - b0[1] == 100,
              "the writer's server got %d gets (none due), the reader's %d sets (its preload: a "
              "mix of gets alone fills its window of 100 keys first)"
              % (a1[0] - a0[0], b1[1] - b0[1]))
        check(sets == writer[0] and set(writer[3]) == {"set", "total"},
              "the writer's server counted %d sets, its block %r" % (sets, writer))
        check(gets == reader[0] and set(reader[3]) == {"get", "total"},
              "the reader's server counted %d gets, its block %r" % (gets, reader))
        check(900 <= sets <= 1050 and 450 <= writer[1] <= 525,
              "the writer's -P 500 for 2 s: %d sets at %d/s" % (sets, writer[1]))
        check(reader[0] > sets, "the closed-loop reader sent %d, no more than the writer's %d"
              % (reader[0], sets))
        ops = run_line(out)[1]
        check(ops == sets + gets and figure(out, "cmd_set") == sets and
              figure(out, "cmd_get") == gets,
              "the total: %d ops, its cmd_set %d and cmd_get %d; the servers %d and %d"
              % (ops, figure(out, "cmd_set"), figure(out, "cmd_get"), sets, gets))
        check("servers: %s,%s" % (mc.addr, other.addr) in out, "the total's servers")
        # a closed-loop group among them: the total has no target rate (it said 500 beside the
        # closed loop's thousands achieved)
        check("target_tps:" not in out,
              "the total of a closed and an open group gives a target:\n" + out)
        doc = json.load(open(out_json))
        runs = {run["label"]: run for run in doc["runs"]}
        check(set(runs) == {"box/writer", "box/reader"} and
              runs["box/writer"]["requests"] == sets and runs["box/reader"]["requests"] == gets,
              "runs[]: %r" % doc["runs"])
        for label, run in runs.items():
            block = got[label][3]["total"]
            check(abs(run["p50_us"] - block[1]) <= 1 and abs(run["max_us"] - block[5]) <= 1 and
                  run["p50_us"] <= run["p90_us"] <= run["p99_us"] <= run["p99.9_us"] <= run["max_us"],
                  "%s's runs[] latency %r, its block's %r" % (label, run, block))
        check(doc["label"] == "box/writer+box/reader", "the total's label %r" % doc["label"])
        check(doc["config"]["tps"] is None, "the total's target %r" % doc["config"]["tps"])
        mix = doc["config"]["mix"]
        mix = dict(part.split("=") for part in mix.split(",")) if mix else {}
        check(doc["config"]["ratio"] is None and set(mix) == {"get", "set"} and
              abs(float(mix["set"]) - sets / float(sets + gets)) < 1e-9,
              "the total's mix, what the groups sent: %r %r" % (doc["config"]["ratio"], mix))
        rows = open(out_csv).read().splitlines()
        check({r.split(",")[1] for r in rows[1:]} >= {"get", "set"}, "CSV types: %r" % rows[:3])
        r = subprocess.run([PATHS.slap, "merge", out_json], capture_output=True, text=True,
                           timeout=60)
        check(r.returncode == 0 and run_line(r.stdout)[1] == ops,
              "slap merge of the run's document: %d %s" % (r.returncode, r.stderr))
        check(os.listdir(private) == [], "the groups' files left behind: %r"
              % os.listdir(private))
        # each group's own results, beside the run's
        for name, op, count in (("writer", "set", sets), ("reader", "get", gets)):
            own = json.load(open(os.path.join(tmp, "run-%s.json" % name)))
            check(own["label"] == "box/" + name and own["types"][op]["count"] == count and
                  own["types"]["total"]["count"] == count,
                  "%s's own JSON: %r, its server %d" % (name, own["types"].get(op), count))
            rows = open(os.path.join(tmp, "run-%s.csv" % name)).read().splitlines()
            typed = [r.split(",") for r in rows[1:] if r.split(",")[1] == op]
            check(rows[0].startswith("elapsed_s,type,ops,") and
                  sum(int(r[2]) for r in typed) == count,
                  "%s's own CSV: %d %s rows adding to %d, its server %d"
                  % (name, len(typed), op, sum(int(r[2]) for r in typed), count))
    finally:
        other.stop()
        shutil.rmtree(tmp)


@no_time
def case_groups_bad_files():
    """Bad group files exit 2 before anything starts, naming the file, the line and the group:
    an unknown option, a run's option inside a group, an empty group, a memaslap section beside
    groups, a NUL byte, 65 groups, 257 words, a long or unprintable name (quoted), a byte order
    mark (still a file of groups), a group's -F naming a file of groups or a FIFO no one writes
    to; -F a FIFO, or a pipe of groups (read twice); and a run's option that makes no groups
    run (--sweep) on the command line."""
    tmp = tempfile.mkdtemp(prefix="slap-groups-bad-")
    port = free_port()  # nothing listens: a group that started would fail to connect
    try:
        bad = [
            ("group a\n  -s 127.0.0.1:%d\n  -c 2 --bogus=1\n" % port,
             r":3: group a: unknown option '--bogus'"),
            ("group a\n  -s 127.0.0.1:%d\ngroup b\n  -c 2\n  --json=x.json\n" % port,
             r":5: group b: --json is the run's, not a group's"),
            ("group a\n  -c 2\ngroup empty\n# nothing\ngroup c\n  -c 1\n",
             r":3: group empty holds no options"),
            ("key\n16 16 1\ngroup a\n  -c 2\n", r":3: a file of groups holds only groups"),
            ("group a\n  -c 2 --udp\n  --pipeline=4\n", r":3: group a: --udp sends one request"),
            ("group a\n  -c 1\0garbage\n", r":2: a NUL byte: a file of groups is text"),
            ("".join("group g%d\n  -c 1\n" % i for i in range(65)), r":129: more than 64 groups"),
            ("group a\n" + " -c1" * 257 + "\n", r":2: more than 256 words on a line"),
            ("group %s\n  -c 1\n" % ("n" * 300), r":1: group 'n{40}\.\.\.': a name is at most 63"),
            ("group \x1b[31mred\n  -c 1\n", r":1: group '\\x1b\[31mred': a name holds letters"),
            ("\ufeffgroup a\n  -c 2 --bogus=1\n", r":2: group a: unknown option '--bogus'"),
            ("group#x a\n  -c 2\n", r":1: unknown section 'group'"),
            ("group a\n  -c 2 -F SELF\n", r":2: group a: its -F file holds groups"),
            ("group a\n  -c 2\n  --help\n", r":3: group a: --help and --version print and exit"),
            ("group a\n  -c 2\ngroup b\n  -V\n", r":4: group b: --help and --version print"),
            ("group a\n  -c 2 -F %s\n" % os.path.join(tmp, "fifo"),
             r":2: group a: --cfg_cmd: cannot read .*fifo': a pipe with nothing written to it"),
        ]
        os.mkfifo(os.path.join(tmp, "fifo"))  # no one writes to it: read at once, never waited on
        for i, (text, said) in enumerate(bad):
            path = os.path.join(tmp, "bad%d.cfg" % i)
            write(tmp, "bad%d.cfg" % i, text.replace("SELF", path))  # SELF: the file itself
            rc, out, err = run_slap(["-F", path, "-t", "1s"], timeout=20)
            check(rc == 2 and re.search(re.escape("'%s'" % path) + said, err) and out == "",
                  "bad file %d: exit %d, %r" % (i, rc, err))
        fifo = os.path.join(tmp, "fifo")
        rc, out, err = run_slap(["-F", fifo, "-t", "1s"], timeout=20)
        check(rc == 2 and "cannot read '%s': a pipe with nothing written to it" % fifo in err,
              "-F a FIFO: exit %d, %r" % (rc, err))
        # a pipe of groups is read twice (options, then groups): refused, not run as one run
        rc, out, err = run_slap(["-t", "1s"], timeout=20, prefix=[
            "bash", "-c", 'exec "$0" "$@" -F <(printf "group a\\n  -c 2\\n")'])
        check(rc == 2 and re.search(r"cannot read '/dev/fd/\d+': a pipe with nothing", err),
              "-F a pipe of groups: exit %d, %r" % (rc, err))
        path = write(tmp, "good.cfg", "group a\n  -s 127.0.0.1:%d\n" % port)
        rc, _, err = run_slap(["-F", path, "--sweep=1:2:1"], timeout=20)
        check(rc == 2 and "--sweep makes no groups run" in err, "--sweep: %d %r" % (rc, err))
        # the label a group writes, LABEL/NAME, is one slap merge reads back (255 bytes at most)
        rc, out, err = run_slap(["-F", path, "-t", "1s", "--label", "b" * 254], timeout=20)
        check(rc == 2 and "--label: the group a's label" in err and "longer than 255" in err
              and out == "", "a label too long with the group's name: %d %r" % (rc, err))
        # commands that run one workload take no groups (they loaded 127.0.0.1:11211 instead)
        rc, _, err = run_slap(["compare", "--live", "a=-F %s" % path, "b=-s 127.0.0.1:%d" % port,
                               "-t", "1s"], timeout=20)
        check(rc == 2 and "side a: --live cannot take -F with groups" in err,
              "compare --live of a groups file: %d %r" % (rc, err))
        rc, _, err = run_slap(["search", "-F", path, "--slo", "p99<1ms"], timeout=20)
        check(rc == 2 and "-F with groups cannot be searched" in err,
              "search of a groups file: %d %r" % (rc, err))
        # the files a group writes beside the run's are checked against the run's others and
        # its inputs: nothing overwritten (the groups file was, with exit 0)
        groups_file = write(tmp, "r-a.json", "group a\n  -s 127.0.0.1:%d\n" % port)
        for args, said in (
                (["-F", groups_file, "--json", os.path.join(tmp, "r.json")],
                 "group a's --json '%s' and the run's -F '%s' are the same file: it would be "
                 "written over" % (groups_file, groups_file)),
                (["-F", path, "--json", os.path.join(tmp, "good.json"), "--csv",
                  os.path.join(tmp, "good-a.json")],
                 "the run's --csv '%s' and group a's --json '%s' are the same file: give each "
                 "output a file of its own" % (os.path.join(tmp, "good-a.json"),
                                               os.path.join(tmp, "good-a.json")))):
            before = open(groups_file).read()
            rc, out, err = run_slap(args + ["-t", "1s"], timeout=20)
            check(rc == 2 and said in err and out == "" and open(groups_file).read() == before,
                  "%r: exit %d, %r" % (args, rc, err))
        key = write(tmp, "k-a.json", "key\n16 16 1\n")
        inner = write(tmp, "inner.cfg", "group a\n  -s 127.0.0.1:%d -F %s\n" % (port, key))
        rc, _, err = run_slap(["-F", inner, "-t", "1s", "--json", os.path.join(tmp, "k.json")],
                              timeout=20)
        check(rc == 2 and "group a's --json '%s' and group a's -F '%s' are the same file"
              % (key, key) in err, "a group's -F under its own JSON: %d %r" % (rc, err))
    finally:
        shutil.rmtree(tmp)


@no_time
def case_groups_runs_like_any_other(mc):
    """A groups run takes what a run takes: a group's own -x beside a timed group (every
    result was lost: 1 s periods against 0.1 s, the merge refused), -S on the command line
    (every group exited 2: -q with -S), --json /dev/stdout to a file (each group wrote
    /dev/stdout-NAME); and two hosts that ran one file of groups merge, their mixes achieved
    differing (refused: the workloads differ)."""
    tmp = tempfile.mkdtemp(prefix="slap-groups-like-")
    try:
        cfg = write(tmp, "groups.cfg",
                    "group w\n  -s %s -c 1 --ratio=1:0 -x 300\n"
                    "group r\n  -s %s -c 1 --ratio=0:1 -w 50\n" % (mc.addr, mc.addr))
        out_json = os.path.join(tmp, "run.json")
        rc, out, err = run_slap(["-F", cfg, "-t", "1s", "--label", "box", "--json", out_json])
        got = blocks(out)
        check(rc == 0 and set(got) == {"box/w", "box/r"} and got["box/w"][0] == 300,
              "a group's -x beside a timed group: exit %d, %r %s" % (rc, got, err))
        periods = {json.load(open(os.path.join(tmp, "run-%s.json" % g)))["period_s"]
                   for g in "wr"}
        check(len(periods) == 1, "the groups' periods differ: %r" % periods)
        rc, out, err = run_slap(["-F", cfg, "-t", "1s", "-S", "1s"])
        check(rc == 0 and len(blocks(out)) == 2, "-S with groups: exit %d %s" % (rc, err))
        # --json /dev/stdout when standard output is a file: the JSON there, nothing in /dev
        before = set(os.listdir("/dev"))
        with open(os.path.join(tmp, "stdout"), "w") as f:
            r = subprocess.run([PATHS.slap, "-F", cfg, "-t", "1s", "--json", "/dev/stdout", "-q"],
                               stdout=f, stderr=subprocess.PIPE, text=True, timeout=60)
        made = sorted(set(os.listdir("/dev")) - before)
        for name in made:
            if name.startswith("stdout-"):
                os.unlink(os.path.join("/dev", name))
        text = open(os.path.join(tmp, "stdout")).read()
        check(r.returncode == 0 and not made and '"runs"' in text,
              "--json /dev/stdout: exit %d, made in /dev: %r, %s" % (r.returncode, made, r.stderr))
        # two hosts, one file of groups, one start: their totals merge
        start = "%d" % (int(time.time()) + 4)
        hosts = [subprocess.Popen([PATHS.slap, "-F", cfg, "-t", "1s", "--label", host, "--json",
                                   os.path.join(tmp, host + ".json"), "--start_at", start, "-q"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                 for host in ("h1", "h2")]
        for p in hosts:
            check(p.wait(timeout=60) == 0, "a host's groups run: %s" % p.stderr.read())
        docs = [json.load(open(os.path.join(tmp, h + ".json"))) for h in ("h1", "h2")]
        merged = os.path.join(tmp, "merged.json")
        r = subprocess.run([PATHS.slap, "merge", os.path.join(tmp, "h1.json"),
                            os.path.join(tmp, "h2.json"), "--json", merged],
                           capture_output=True, text=True, timeout=60)
        requests = [d["types"]["total"]["count"] for d in docs]
        check(r.returncode == 0 and run_line(r.stdout)[1] == sum(requests),
              "the hosts' totals merged: exit %d, %s" % (r.returncode, r.stderr))
        sets = [d["types"].get("set", {"count": 0})["count"] for d in docs]
        mix = dict(part.split("=") for part in json.load(open(merged))["config"]["mix"].split(","))
        check(abs(float(mix["set"]) - sum(sets) / float(sum(requests))) < 1e-9,
              "the merged mix %r, the hosts' sets %r of %r" % (mix, sets, requests))
        # a total of other groups is another workload
        other = write(tmp, "other.cfg", "group w\n  -s %s -c 1 -x 10\n" % mc.addr)
        rc, _, err = run_slap(["-F", other, "-t", "1s", "--json", os.path.join(tmp, "o.json"),
                               "-q"])
        r = subprocess.run([PATHS.slap, "merge", os.path.join(tmp, "h1.json"),
                            os.path.join(tmp, "o.json")], capture_output=True, text=True,
                           timeout=60)
        check(rc == 0 and r.returncode == 2 and "ran different groups" in r.stderr,
              "totals of other groups merged: %d %d %s" % (rc, r.returncode, r.stderr))
    finally:
        shutil.rmtree(tmp)


@no_time
def case_groups_one_fails(mc):
    """A group whose server is not there exits 1, is named with its status, and the other
    group's report is still printed: the run's exit status is the worst of the groups', 1."""
    tmp = tempfile.mkdtemp(prefix="slap-groups-fail-")
    try:
        cfg = write(tmp, "groups.cfg",
                    "group good\n  -s %s -c 2 --ratio=0:1\n"
                    "group gone\n  -s 127.0.0.1:%d -c 2\n" % (mc.addr, free_port()))
        rc, out, err = run_slap(["-F", cfg, "-t", "1s", "--label", "box"])
        check(rc == 1, "a group failed: exit %d" % rc)
        check("group gone exited with status 1" in err and "group gone wrote no results" in err,
              "the failed group named: %r" % err)
        check("slap: group gone: cannot connect to 127.0.0.1:" in err,
              "the group's own message carries its name: %r" % err)
        got = blocks(out)
        check(set(got) == {"box/good"} and got["box/good"][0] > 0 and "Total of 1 group:" in out
              and run_line(out)[1] == got["box/good"][0],
              "the good group's report: %r" % out[-600:])
    finally:
        shutil.rmtree(tmp)


def children(pid):
    """The pids of pid's children (from /proc)."""
    found = []
    for name in os.listdir("/proc"):
        try:
            if name.isdigit() and open("/proc/%s/stat" % name).read().rsplit(")", 1)[1].split()[1] == str(pid):
                found.append(int(name))
        except (OSError, IndexError):
            pass
    return found


def case_groups_interrupted(mc):
    """SIGINT to a groups run is handed to every group: each ends and writes its results, the
    run prints a block per group and the total marked interrupted, then dies of SIGINT. A group
    stopped (SIGSTOP) is named, and continued with the signal: it blocked the run's wait for
    ever, through any number of SIGINTs."""
    tmp = tempfile.mkdtemp(prefix="slap-groups-int-")
    try:
        cfg = write(tmp, "groups.cfg",
                    "group one\n  -s %s -c 1 -P 200\ngroup two\n  -s %s -c 1 --ratio=0:1 -w 50\n"
                    % (mc.addr, mc.addr))
        proc = subprocess.Popen([PATHS.slap, "-F", cfg, "-t", "60s", "--label", "box"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            time.sleep(2.5)
            kids = children(proc.pid)
            check(len(kids) == 2, "the groups' processes: %r" % kids)
            os.kill(kids[0], signal.SIGSTOP)
            time.sleep(1)
            proc.send_signal(signal.SIGINT)
            out, err = proc.communicate(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        rc = proc.returncode
        check(rc == -2, "interrupted: exit %d (not death by SIGINT): %s" % (rc, err))
        check(re.search(r"slap: group \w+ is stopped \(signal %d\)" % signal.SIGSTOP, err),
              "the stopped group named: %r" % err)
        got = blocks(out)
        check(set(got) == {"box/one", "box/two"} and all(b[0] > 0 for b in got.values()),
              "a block per group: %r" % got)
        check("interrupted: SIGINT" in out and run_line(out)[1] == sum(b[0] for b in got.values()),
              "the total, interrupted: %r" % out[-500:])
    finally:
        shutil.rmtree(tmp)
