"""The fleet examples run for real on this machine: load "hosts" as network namespaces with
their own addresses (veth pairs into a namespace of memcached's own), examples/pdsh-fanout.sh
through the real pdsh and the Kubernetes Indexed Job's pod command lines, each host given its
share, merged, and the merge checked against the server's own counters."""
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time

from cases_tools import FAKE_SCP, netns_unavailable
from harness import PATHS, Skip, check
from harness import SAME_IN_EVERY_BUILD, needs, no_time, release_only

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SERVER = "10.233.0.1"  # on memcached's namespace's lo; only the veth pairs made here reach it
PORT = 11211

NETNS_SSH = r"""#!/usr/bin/env bash
# ssh stand-in: HOST is the network namespace named for it in $FAKE_HOSTS/namespaces; the
# command runs in it (ip netns exec), in the home directory $FAKE_HOSTS/HOST, with the hostname
# HOST. A host without a namespace cannot be reached.
while [[ ${1-} == -* ]]; do
    case $1 in -l | -p | -o | -i) shift 2 ;; *) shift ;; esac
done
host=$1
shift
ns=$(awk -v h="$host" '$1 == h { print $2 }' "$FAKE_HOSTS/namespaces")
if [[ -z $ns ]] || ! ip netns exec "$ns" true 2>/dev/null; then
    echo "ssh: connect to host $host port 22: No route to host" >&2
    exit 255
fi
mkdir -p "$FAKE_HOSTS/$host/bin"
printf '#!/bin/sh\necho %s\n' "$host" >"$FAKE_HOSTS/$host/bin/hostname"
chmod +x "$FAKE_HOSTS/$host/bin/hostname"
cd "$FAKE_HOSTS/$host" || exit 255
PATH="$FAKE_HOSTS/$host/bin:$PATH" exec ip netns exec "$ns" bash -c "$*"
"""

STATS = r"""
import socket, sys
s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=5)
s.sendall(b"stats\r\n")
data = b""
while not data.endswith(b"END\r\n"):
    chunk = s.recv(65536)
    if not chunk:
        sys.exit("stats: connection closed")
    data += chunk
sys.stdout.write(data.decode())
"""


def run(*args):
    r = subprocess.run(list(args), capture_output=True, text=True, timeout=20)
    check(r.returncode == 0, "%s: %s" % (" ".join(args), r.stderr.strip()))
    return r.stdout


class Fleet:
    """Namespaces named after this process: memcached's (m) and the hosts' (h1...), each host
    joined to memcached's by a veth pair made with both ends in place (none is ever in this
    host's namespace), addresses 10.233.I.2 (host I) and 10.233.I.1 (memcached's end), the
    server on 10.233.0.1. close() ends the processes it started, by pid, and deletes the
    namespaces (their links go with them)."""

    def __init__(self, hosts):
        self.tag = "slapfo%d" % os.getpid()
        self.mc_ns = self.tag + "m"
        self.hosts = ["%sh%d" % (self.tag, i) for i in range(1, hosts + 1)]
        self.made = []
        self.procs = []
        self.memcached = None

    def make(self):
        """The namespaces, their links and memcached (close() undoes a part made, too)."""
        run("ip", "netns", "add", self.mc_ns)
        self.made.append(self.mc_ns)
        run("ip", "-n", self.mc_ns, "link", "set", "lo", "up")
        run("ip", "-n", self.mc_ns, "addr", "add", SERVER + "/32", "dev", "lo")
        for i, ns in enumerate(self.hosts, 1):
            run("ip", "netns", "add", ns)
            self.made.append(ns)
            near, far = "sfo%da%d" % (os.getpid(), i), "sfo%db%d" % (os.getpid(), i)
            run("ip", "link", "add", "name", near, "netns", ns, "type", "veth", "peer", "name",
                far, "netns", self.mc_ns)
            run("ip", "-n", self.mc_ns, "addr", "add", "10.233.%d.1/30" % i, "dev", far)
            run("ip", "-n", self.mc_ns, "link", "set", far, "up")
            run("ip", "-n", ns, "addr", "add", "10.233.%d.2/30" % i, "dev", near)
            run("ip", "-n", ns, "link", "set", near, "up")
            run("ip", "-n", ns, "link", "set", "lo", "up")
            run("ip", "-n", ns, "route", "add", SERVER + "/32", "via", "10.233.%d.1" % i)
        cmd = ["ip", "netns", "exec", self.mc_ns, PATHS.memcached, "-l", SERVER, "-p",
               str(PORT), "-U", "0", "-t", "2", "-u", "root"]
        self.memcached = self.start(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while True:
            r = subprocess.run(self.stats_cmd(), capture_output=True, text=True, timeout=10)
            if r.returncode == 0:
                break
            check(self.memcached.poll() is None and time.monotonic() < deadline,
                  "memcached did not start in %s: %s" % (self.mc_ns, r.stderr.strip()))
            time.sleep(0.1)

    def start(self, cmd, **kw):
        """A process of its own group (ip netns exec runs the command in its own place)."""
        p = subprocess.Popen(cmd, start_new_session=True, **kw)
        self.procs.append(p)
        return p

    def stats_cmd(self):
        return ["ip", "netns", "exec", self.hosts[0], "python3", "-c", STATS, SERVER, str(PORT)]

    def stats(self):
        """The server's stats as numbers, read from a host's namespace (the only way in)."""
        out = run(*self.stats_cmd())
        return {m.group(1): int(m.group(2))
                for m in re.finditer(r"^STAT (\S+) (\d+)\r?$", out, re.M)}

    def tx_bytes(self, i):
        return int(run("ip", "netns", "exec", self.hosts[i - 1], "cat",
                       "/sys/class/net/sfo%da%d/statistics/tx_bytes" % (os.getpid(), i)))

    def close(self):
        for p in self.procs:
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGKILL)  # the group this case started, by its pid
                except ProcessLookupError:
                    pass
                p.wait(timeout=10)
        for ns in reversed(self.made):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=20)
        for i in range(1, len(self.hosts) + 1):  # none is made here; should one be, remove it
            subprocess.run(["ip", "link", "del", "sfo%da%d" % (os.getpid(), i)],
                           capture_output=True, timeout=20)

    def leftovers(self):
        text = run("ip", "-o", "link") + run("ip", "netns", "list")
        return re.findall(r"\b(?:%s\w*|sfo%d[ab]\d+)" % (self.tag, os.getpid()), text)


def host_rows(out):
    """The merged report's line per host: label -> (requests, start_ms)."""
    rows = re.findall(r"^(\d+) +(\d+) +(\d+) +(\d+) +(\d+) +(-?\d+|-)  (\S+) +(\S+)$", out,
                      re.M)
    return {row[7]: (int(row[1]), int(row[4])) for row in rows}


def check_merged(what, out, doc, before, after, labels, beside=None):
    """The merged counters are the server's own deltas (less those of a probe beside the load,
    beside's counters), every host has its line with its own requests, and they started
    together."""
    c = doc["counters"]
    delta = {k: after[k] - before[k] - (beside[k] if beside else 0) for k in ("cmd_get", "cmd_set")}
    check(c["cmd_get"] == delta["cmd_get"] and c["cmd_set"] == delta["cmd_set"],
          "%s: merged cmd_get %d, cmd_set %d; the server counted %r"
          % (what, c["cmd_get"], c["cmd_set"], delta))
    check(doc["run"]["ops"] == delta["cmd_get"] + delta["cmd_set"],
          "%s: merged requests %d, the server's %d" % (what, doc["run"]["ops"],
                                                      delta["cmd_get"] + delta["cmd_set"]))
    rows = host_rows(out)
    check(sorted(rows) == sorted(labels), "%s: the hosts' lines %r, not %r"
          % (what, sorted(rows), sorted(labels)))
    check(sum(r[0] for r in rows.values()) == doc["run"]["ops"],
          "%s: the hosts' lines add up to %d, the merge %d"
          % (what, sum(r[0] for r in rows.values()), doc["run"]["ops"]))
    skew = re.search(r"^start_skew: (\d+) ms; all measuring at once: ([\d.]+) s$", out, re.M)
    check(skew is not None and int(skew.group(1)) < 250,
          "%s: the hosts with --start_at did not start together: %r"
          % (what, skew and skew.group(0)))
    return delta


def pdsh_fanout(fleet, d, env):
    """load[1-3] through the real pdsh: load1 and load3 are namespaces, load2 has none
    (unreachable); -x 600 at -P 600 in three shares (SHARE=keys: --share I/3,keys) is 200
    requests at 200/s each."""
    hosts = os.path.join(d, "hosts")
    os.makedirs(hosts)
    with open(os.path.join(hosts, "namespaces"), "w") as f:
        f.write("load1 %s\nload3 %s\n" % (fleet.hosts[0], fleet.hosts[2]))
    out_dir = os.path.join(d, "pdsh")
    before = fleet.stats()
    # a latency probe beside the load, from load2's namespace (no pdsh host there), started
    # with the script's start (LEAD=8 s from now, give or take the second the probe allows)
    probe_json = os.path.join(d, "probe.json")
    probe = fleet.start(["ip", "netns", "exec", fleet.hosts[1], PATHS.slap, "-s",
                         "%s:%d" % (SERVER, PORT), "--probe", "-t", "3s", "--start_at",
                         "%d" % (int(time.time()) + 8), "--label", "probe", "--json", probe_json,
                         "-q"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    p = fleet.start([os.path.join(TOP, "examples", "pdsh-fanout.sh"), "-T", "1", "-c", "2",
                     "-x", "600", "-P", "600", "--max_errors=1%"],
                    env=dict(env, FAKE_HOSTS=hosts, HOSTS="load[1-3]", LEAD="8", OUT=out_dir,
                             SHARE="keys"),
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = p.communicate(timeout=90)
    print("$ examples/pdsh-fanout.sh -> %d\n%s%s" % (p.returncode, out, err))
    probe_out, probe_err = probe.communicate(timeout=60)
    print("probe -> %d\n%s%s" % (probe.returncode, probe_out, probe_err))
    check(probe.returncode == 0, "the probe: exit %d: %s" % (probe.returncode, probe_err))
    after = fleet.stats()
    check(p.returncode == 1, "load2 unreachable: exit %d, not 1" % p.returncode)
    check(os.path.exists(os.path.join(out_dir, "merged.json")), "nothing merged: %s" % err)
    doc = json.load(open(os.path.join(out_dir, "merged.json")))
    beside = json.load(open(probe_json))["counters"]
    delta = check_merged("pdsh", out, doc, before, after, ["load1", "load3"], beside)
    # the probe merged beside the hosts: shown apart, its requests in no figure of the load
    r = subprocess.run([PATHS.slap, "merge", os.path.join(out_dir, "load1.json"),
                        os.path.join(out_dir, "load3.json"), probe_json], capture_output=True,
                       text=True, timeout=60)
    print("$ slap merge load1 load3 probe -> %d\n%s%s" % (r.returncode, r.stdout, r.stderr))
    probe_line = re.search(r"^1 +(\d+) +\d+ +(\d+) +\d+ +\d+ +\d+  probe$", r.stdout, re.M)
    check(probe_line is not None and int(probe_line.group(1)) == beside["cmd_get"] +
          beside["cmd_set"] and "Probe latency" in r.stdout,
          "the probe beside the fleet is not shown apart: %s" % r.stdout[-800:])
    check("Ops: %d " % doc["run"]["ops"] in r.stdout,
          "the probe's requests were added to the load's: %s" % r.stdout[-800:])
    # each host made its share: 200 of the 600 at 200/s, so the server saw 400, not 1200
    check(sum(delta.values()) == 400, "the server served %d requests: two hosts of three with "
          "-x 600 send 400 (1200 if each sent the whole)" % sum(delta.values()))
    check("no results from load2: merged the other 2 hosts" in err and
          "no results of part 2/3 of the load" in err, "load2 not named as missing: %s" % err)
    for i in (1, 3):
        part = json.load(open(os.path.join(out_dir, "load%d.json" % i)))
        check(part["config"]["share"] == "%d/3,keys" % i and part["run"]["ops"] == 200,
              "load%d: share %r, %d requests" % (i, part["config"]["share"], part["run"]["ops"]))
        check(fleet.tx_bytes(i) >= part["counters"]["written_bytes"] > 0,
              "load%d's requests did not leave through its own link: %d bytes sent there, %d "
              "written" % (i, fleet.tx_bytes(i), part["counters"]["written_bytes"]))


def k8s_pods(fleet, d, env):
    """The Indexed Job's pods: the manifest's command line with what Kubernetes fills in
    ($(JOB_COMPLETION_INDEX), set in the pod's environment too, from 0) and what the user does
    (START_AT, the server, the volume), one pod per namespace; then the merge Job's own script.
    The run is shortened (2 s, no warm-up, whose requests the server counts and the report does
    not, 1 thread of 4 connections) to be a test's."""
    import yaml
    with open(os.path.join(TOP, "examples", "k8s-indexed-job.yaml")) as f:
        jobs = {doc["metadata"]["name"]: doc for doc in yaml.safe_load_all(f)
                if doc and doc.get("kind") == "Job"}
    spec = jobs["slap-load"]["spec"]
    n = spec["completions"]
    check(n == len(fleet.hosts), "the manifest's %d pods, %d namespaces" % (n, len(fleet.hosts)))
    container = spec["template"]["spec"]["containers"][0]
    check("--share=auto/%d" % n in container["args"], "the pods are not given their shares of "
          "the load (--share=auto/%d): %r" % (n, container["args"]))
    start = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(int(time.time()) + 5))
    results = os.path.join(d, "results")
    os.makedirs(results)
    ours = {"servers": "%s:%d" % (SERVER, PORT), "time": "2s", "warmup": None, "threads": "1",
            "concurrency": "4"}  # None: left out
    before = fleet.stats()
    pods = []
    for i in range(n):
        args, replaced = [], set()
        for arg in container["args"]:
            name = re.match(r"--([a-z_]+)=", arg)
            if name and name.group(1) in ours:
                replaced.add(name.group(1))
                if ours[name.group(1)] is None:
                    continue
                arg = "--%s=%s" % (name.group(1), ours[name.group(1)])
            args.append(arg.replace("$(JOB_COMPLETION_INDEX)", str(i))
                        .replace("@START_AT@", start).replace("/results/", results + "/"))
        check(replaced == set(ours), "the manifest lacks %r" % (set(ours) - replaced))
        pod_env = dict(env, JOB_COMPLETION_INDEX=str(i))
        pods.append(fleet.start(["ip", "netns", "exec", fleet.hosts[i]] + container["command"] +
                                args, env=pod_env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True))
    for i, p in enumerate(pods):
        out, err = p.communicate(timeout=60)
        print("pod %d -> %d\n%s%s" % (i, p.returncode, out, err))
        check(p.returncode == 0, "pod %d: exit %d: %s" % (i, p.returncode, err))
    after = fleet.stats()
    for i in range(n):
        part = json.load(open(os.path.join(results, "slap-%s-%d.json" % (start, i))))
        check(part["config"]["share"] == "%d/%d" % (i + 1, n),
              "pod %d: share %r" % (i, part["config"]["share"]))
    merge = jobs["slap-merge"]["spec"]["template"]["spec"]["containers"][0]
    script = merge["args"][0].replace("@START_AT@", start).replace("/results/", results + "/")
    check(merge["command"] == ["/bin/sh", "-c"] and "want=%d " % n in script,
          "the merge Job does not wait for the %d pods: %r %s" % (n, merge["command"], script))
    p = fleet.start(merge["command"] + [script], env=env, stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE, text=True)
    out, err = p.communicate(timeout=60)
    print("merge Job -> %d\n%s%s" % (p.returncode, out, err))
    check(p.returncode == 0, "the merge Job: exit %d: %s" % (p.returncode, err))
    check("share:" not in out and "no results of part" not in err,
          "the %d pods' shares are not the whole load: %s" % (n, err))
    doc = json.load(open(os.path.join(results, "merged-%s.json" % start)))
    check_merged("kubernetes", out, doc, before, after, ["slap-%d" % i for i in range(n)])


@no_time
@release_only(SAME_IN_EVERY_BUILD)
@needs("root", "netns")
def case_examples_fan_out_through_namespaces():
    """Four load hosts as network namespaces with addresses of their own, memcached in a fifth.
    examples/pdsh-fanout.sh through the real pdsh (its exec module, an ssh stand-in that runs
    the command in the host's namespace, a hostname stand-in) over load[1-3], load2
    unreachable: the hosts run their shares (--share I/3) from one --start_at, the merge's
    counters are the server's, its line per host and start_skew are there, load2 is named.
    Then the Kubernetes example's four pods, --share=auto/4 from JOB_COMPLETION_INDEX, and its
    merge Job's script: the same checks. Nothing made here is left behind."""
    if shutil.which("pdsh") is None:
        raise Skip("pdsh is not installed")
    why = netns_unavailable()
    if why is not None:
        raise Skip("no network namespaces here: %s" % why)
    d = tempfile.mkdtemp(prefix="slap-fanout-")
    fleet = None
    try:
        fake = os.path.join(d, "bin")
        os.makedirs(fake)
        for name, text in (("ssh", NETNS_SSH), ("scp", FAKE_SCP)):
            with open(os.path.join(fake, name), "w") as f:
                f.write(text)
            os.chmod(os.path.join(fake, name), 0o755)
        os.symlink(PATHS.slap, os.path.join(fake, "slap"))
        env = {k: v for k, v in os.environ.items() if k not in ("JOB_COMPLETION_INDEX",
                                                                  "SLURM_PROCID")}
        env.update(PATH=fake + ":" + os.environ["PATH"], SERVER="%s:%d" % (SERVER, PORT))
        fleet = Fleet(4)
        fleet.make()
        pdsh_fanout(fleet, d, env)
        k8s_pods(fleet, d, env)
        fleet.close()
        check(not fleet.leftovers(), "left behind: %r" % fleet.leftovers())
    finally:
        if fleet is not None:
            fleet.close()
        shutil.rmtree(d, ignore_errors=True)
