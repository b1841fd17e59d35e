"""What ships around slap: bash completion (checked against --help and slap's own choices),
the fan-out examples (their options are slap's), scripts/netcompare.sh (run for real over TCP
and UDP, slap's verdict per side, a failing side reported, and it leaves nothing behind), and
the man page's results schema (every member of the JSON Schema)."""
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from harness import check, PATHS, run_slap, Skip
from harness import SAME_IN_EVERY_BUILD, needs, no_time, release_only

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COMPLETION = os.path.join(TOP, "completion", "slap.bash")


def help_options():
    rc, out, _ = run_slap(["--help"])
    check(rc == 0, "--help failed")
    return set(re.findall(r"^\s+(?:-\w, )?--([a-z0-9_]+)", out, re.M))


def complete(line):
    """What the completion offers for a command line (the word being completed last)."""
    script = ('source %s; read -ra COMP_WORDS <<<"$LINE"; [[ $LINE == *" " ]] && COMP_WORDS+=("");'
              ' COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _slap; printf "%%s\\n" "${COMPREPLY[@]}"'
              % COMPLETION)
    r = subprocess.run(["bash", "-c", script], env=dict(os.environ, LINE=line),
                       capture_output=True, text=True, timeout=10)
    check(r.returncode == 0, "completion failed for %r: %s" % (line, r.stderr))
    return [w for w in r.stdout.splitlines() if w]


def slap_choices(option):
    """The values slap itself takes for option, from its message for a value it does not."""
    rc, _, err = run_slap(["--%s=%s" % (option, "no-such-value"), "--version"])
    m = re.search(r"is not one of (.*)$", err, re.M)
    if m:
        return set(m.group(1).split(", "))
    return None


@no_time
@release_only(SAME_IN_EVERY_BUILD)
def case_completion_matches_help():
    with open(COMPLETION) as f:
        text = f.read()
    listed = set(re.findall(r"--([a-z0-9_]+)", re.search(r'_slap_options="([^"]*)"', text).group(1)))
    check(listed == help_options(), "completion and --help differ: %r" % (listed ^ help_options()))
    for option, words in re.findall(r"^\s+--([a-z_]+)\) echo \"([^\"]+)\"", text, re.M):
        values = set(words.split())
        known = slap_choices(option)
        if known is not None:
            check(values == known, "--%s: completion %r, slap %r" % (option, values, known))
        for value in values:  # every value offered is one slap takes
            rc, _, err = run_slap(["--%s=%s" % (option, value), "--version"])
            check(rc == 0, "slap refuses --%s=%s offered by the completion: %s" % (option, value, err))
    check(complete("slap --proto") == ["--protocol"], "--proto: %r" % complete("slap --proto"))
    check(complete("slap compare --li") == ["--live"], "compare --li: %r" %
          complete("slap compare --li"))
    check(complete("slap compare --live --threa") == ["--threads"],
          "compare --live takes slap's options: %r" % complete("slap compare --live --threa"))
    check(complete("slap --protocol ") == ["ascii", "binary", "meta"], "--protocol values")
    check(complete("slap --hash=fnv1a") == ["fnv1a_64", "fnv1a_32"], "--hash=fnv1a")
    check(complete("slap --sample") == ["--samples", "--sample_rate"], "--sample")
    check(complete("slap pl") == ["plot"], "subcommands")
    check(complete("slap merge --") == ["--json", "--csv", "--svg", "--hlog", "--store"], "merge's options")
    check(complete("slap history --fail") == ["--fail-if"], "history's options")
    check(complete("slap history --kind m") == ["merge"], "history --kind's values")
    check(complete("slap tr") == ["trace-stats"], "trace-stats")
    check(complete("slap trace-stats --ex") == ["--exact-keys"], "trace-stats' options")
    check(complete("slap memslap --exec") == ["--execute-number"], "memslap's options")
    rc, out, _ = run_slap(["memslap", "--help"])
    memslap = set(re.findall(r"--[a-z-]+", out))
    offered = set(complete("slap memslap --"))
    check(offered == memslap, "memslap's options: completion and its --help differ: %r"
          % (offered ^ memslap))


@no_time
@release_only(SAME_IN_EVERY_BUILD)
def case_completion_installed():
    """cmake --install puts the completion where bash-completion looks for it, and the man
    pages the build made, slap's and each subcommand's (slap-memslap.1 a page, not a link)."""
    build = os.path.dirname(PATHS.slap)
    prefix = "/tmp/slap-install-%d" % os.getpid()
    r = subprocess.run(["cmake", "--install", build, "--prefix", prefix], capture_output=True,
                       text=True, timeout=60)
    check(r.returncode == 0, "cmake --install failed: %s" % r.stderr)
    try:
        for path in ("share/bash-completion/completions/slap", "bin/slap", "share/man/man1/slap.1",
                     "share/slap/slap-results.schema.json"):
            check(os.path.exists(os.path.join(prefix, path)), "%s not installed" % path)
        for sub in ("compare", "merge", "plot", "search", "trace-stats", "memslap"):
            path = os.path.join(prefix, "share/man/man1/slap-%s.1" % sub)
            check(os.path.isfile(path) and not os.path.islink(path),
                  "share/man/man1/slap-%s.1 not installed as a page of its own" % sub)
            with open(path) as f:
                check(f.read() == open(os.path.join(os.path.dirname(PATHS.man),
                                                    "slap-%s.1" % sub)).read(),
                      "share/man/man1/slap-%s.1 is not the page the build made" % sub)
    finally:
        subprocess.run(["rm", "-rf", prefix])


def options_named(words):
    return {m for w in words for m in re.findall(r"^--([a-z0-9_-]+)", w)}


def check_k8s_jobs(jobs, image):
    """What a cluster operator needs of both Jobs: the image taken as loaded on the node, the
    image's user allowed to write the volume, one failed pod leaving the others running."""
    with open(os.path.join(TOP, "Containerfile")) as f:
        uid = int(re.search(r"useradd .*--uid (\d+)", f.read()).group(1))
    for name, job in jobs.items():
        pod = job["spec"]["template"]["spec"]
        for c in pod["containers"]:
            check(c.get("imagePullPolicy") == "IfNotPresent",
                  "%s: %s with imagePullPolicy %r: a tag latest is pulled Always, and a node "
                  "that had the image loaded fails with ErrImagePull"
                  % (name, image, c.get("imagePullPolicy")))
        sc = pod.get("securityContext", {})
        check(sc.get("runAsUser") == uid and sc.get("fsGroup") == uid and sc.get("runAsNonRoot"),
              "%s: securityContext %r: the image's user (uid %d) may not write the volume"
              % (name, sc, uid))
    load = jobs["slap-load"]["spec"]
    check(load.get("backoffLimitPerIndex") == 0 and "backoffLimit" not in load,
          "slap-load: backoffLimit %r, backoffLimitPerIndex %r: one failed pod must fail its "
          "own index, not stop the others mid-run"
          % (load.get("backoffLimit"), load.get("backoffLimitPerIndex")))


@no_time
@release_only(SAME_IN_EVERY_BUILD)
def case_examples_name_real_options():
    import yaml
    real = help_options()
    with open(os.path.join(TOP, "examples", "k8s-indexed-job.yaml")) as f:
        docs = [d for d in yaml.safe_load_all(f) if d]
    jobs = {d["metadata"]["name"]: d for d in docs if d.get("kind") == "Job"}
    check(set(jobs) == {"slap-load", "slap-merge"}, "the manifest's Jobs: %r" % sorted(jobs))
    spec = jobs["slap-load"]["spec"]
    check(spec["completionMode"] == "Indexed" and spec["completions"] >= 2, "not an Indexed Job")
    pod = spec["template"]["spec"]
    container = pod["containers"][0]
    check(container["command"] == ["slap"], "the container does not run slap")
    named = options_named(container["args"])
    check({"json", "start_at", "label"} <= named, "the Job must set --json, --start_at, --label")
    check(named <= real, "the manifest names options slap lacks: %r" % (named - real))
    volumes = {v["name"] for v in pod["volumes"]}
    check({m["name"] for m in container["volumeMounts"]} <= volumes, "mounts without volumes")
    anti = pod["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0]
    check(anti["topologyKey"] == "kubernetes.io/hostname" and
          anti["labelSelector"]["matchLabels"] == spec["template"]["metadata"]["labels"],
          "the load pods do not repel each other across nodes: %r" % anti)
    merge = jobs["slap-merge"]["spec"]["template"]["spec"]["containers"][0]
    script = " ".join(merge["command"] + merge["args"])
    check("slap merge /results/slap-@START_AT@-*.json" in script and
          "%d" % spec["completions"] in script, "the merge Job does not wait for and merge "
          "every pod's file of this run: %s" % script)
    check("--json=/results/slap-@START_AT@-$(JOB_COMPLETION_INDEX).json" in container["args"],
          "the load pods' files are not named after the run's START_AT: an earlier run's "
          "files on the volume would be merged as this one's")
    # the image the Containerfile's build line makes, in both Jobs
    with open(os.path.join(TOP, "Containerfile")) as f:
        built = re.search(r"^# Build: +podman build -t (\S+) \.$", f.read(), re.M)
    check(built is not None, "the Containerfile names no image in its Build line")
    check(container["image"] == merge["image"] == built.group(1),
          "the Jobs run %s and %s, the Containerfile builds %s" %
          (container["image"], merge["image"], built.group(1)))
    check_k8s_jobs(jobs, built.group(1))
    claims = [d for d in docs if d.get("kind") == "PersistentVolumeClaim"]
    check(claims and claims[0]["spec"]["accessModes"] == ["ReadWriteMany"] and
          claims[0]["spec"].get("storageClassName"), "the claim names no ReadWriteMany class")
    with open(os.path.join(TOP, "examples", "pdsh-fanout.sh")) as f:
        script = f.read()
    check(re.search(r"pdsh (-\S+ (exec )?)*-w", script) and "slap merge" in script,
          "the pdsh example neither fans out nor merges")
    named = set()
    for line in re.findall(r"(?:slap |remote\+?=)[^\n]*", script.replace("\\\n", " ")):
        named |= options_named(line.split())
    check({"json", "start_at"} <= named and named <= real | {"csv", "svg"},
          "the pdsh example names %r" % (named - real))
    check("/tmp/" not in script, "the pdsh example writes into /tmp, where another user "
          "could have planted its results' name")
    r = subprocess.run(["bash", "-n", os.path.join(TOP, "examples", "pdsh-fanout.sh")],
                       capture_output=True, text=True)
    check(r.returncode == 0, "pdsh-fanout.sh: %s" % r.stderr)


FAKE_SSH = r"""#!/usr/bin/env bash
# ssh stand-in: runs the command here as if on the host, in its home directory $FAKE_HOSTS/HOST
# and with the hostname HOST; a host listed in $FAKE_HOSTS/down cannot be reached
while [[ ${1-} == -* ]]; do
    case $1 in -l | -p | -o | -i) shift 2 ;; *) shift ;; esac
done
host=$1
shift
if grep -qx "$host" "$FAKE_HOSTS/down"; then
    echo "ssh: connect to host $host port 22: Connection refused" >&2
    exit 255
fi
mkdir -p "$FAKE_HOSTS/$host/bin"
printf '#!/bin/sh\necho %s\n' "$host" >"$FAKE_HOSTS/$host/bin/hostname"
chmod +x "$FAKE_HOSTS/$host/bin/hostname"
cd "$FAKE_HOSTS/$host" || exit 255
PATH="$FAKE_HOSTS/$host/bin:$PATH" exec bash -c "$*"
"""

FAKE_SCP = r"""#!/usr/bin/env bash
# scp stand-in: HOST:FILE is $FAKE_HOSTS/HOST/FILE (a name relative to the home directory)
[[ $1 == -q ]] && shift
src=$1 host=${1%%:*} path=${1#*:}
[[ $path == /* ]] && { echo "scp: the fake hosts have no $path" >&2; exit 1; }
exec cp "$FAKE_HOSTS/$host/$path" "$2"
"""


@no_time
def case_pdsh_fanout_survives_a_failed_host(mc):
    """examples/pdsh-fanout.sh run through the real pdsh, with ssh and scp stand-ins that run
    each "host" here: HOSTS in pdsh's range syntax (load[1-3]), load2 unreachable. The other two
    run slap, starting together, each its share (--share 1/3, 3/3: its place in the list), and
    are merged; the script names load2 and exits 1. A slap option whose value has spaces and a
    quote (a -F file) reaches every host intact. A SHARE of neither keys nor none is refused."""
    import shutil
    import tempfile
    if shutil.which("pdsh") is None:
        raise Skip("pdsh is not installed")
    d = tempfile.mkdtemp(prefix="slap-pdsh-")
    try:
        fake = os.path.join(d, "bin")
        hosts = os.path.join(d, "hosts")
        os.makedirs(fake)
        os.makedirs(hosts)
        for name, text in (("ssh", FAKE_SSH), ("scp", FAKE_SCP)):
            with open(os.path.join(fake, name), "w") as f:
                f.write(text)
            os.chmod(os.path.join(fake, name), 0o755)
        os.symlink(PATHS.slap, os.path.join(fake, "slap"))
        with open(os.path.join(hosts, "down"), "w") as f:
            f.write("load2\n")
        cfg = os.path.join(d, "a cfg's file")
        with open(cfg, "w") as f:
            f.write("value\n100 200 1\n")
        out_dir = os.path.join(d, "out")
        env = dict(os.environ, PATH=fake + ":" + os.environ["PATH"], FAKE_HOSTS=hosts,
                   HOSTS="load[1-3]", SERVER=mc.addr, LEAD="6", OUT=out_dir)
        r = subprocess.run([os.path.join(TOP, "examples", "pdsh-fanout.sh"), "-T", "1", "-c", "2",
                            "-t", "1s", "-F", cfg], env=env, capture_output=True, text=True,
                           timeout=60)
        check(r.returncode == 1, "exit status %d, not 1:\n%s%s" % (r.returncode, r.stdout, r.stderr))
        check("no results from load2: merged the other 2 hosts" in r.stderr, "stderr: %s" % r.stderr)
        doc = json.load(open(os.path.join(out_dir, "merged.json")))
        check(sorted(doc["label"].split("+")) == ["load1", "load3"], "merged %r" % doc["label"])
        # written in the host's home directory (the scp stand-in takes no path outside it),
        # fetched, and removed from the host
        for host in ("load1", "load3"):
            check(os.path.getsize(os.path.join(out_dir, host + ".json")) > 0,
                  "%s's results were not fetched" % host)
            left = [n for n in os.listdir(os.path.join(hosts, host)) if n.endswith(".json")]
            check(not left, "%s keeps %r in its home directory after the run" % (host, left))
            share = json.load(open(os.path.join(out_dir, host + ".json")))["config"]["share"]
            check(share == host[-1] + "/3", "%s ran share %r, not its place in load[1-3]"
                  % (host, share))
        starts = [run["start_ms"] for run in doc["runs"]]
        check(len(starts) == 2 and max(starts) - min(starts) < 200,
              "the hosts did not start together: %r" % starts)
        c = doc["counters"]
        per_set = c["object_bytes"] / max(1, c["cmd_set"])
        check(c["cmd_set"] > 0 and 100 <= per_set <= 200 + 250,
              "values of %.0f bytes: the -F file's 100-200 not used" % per_set)
        # every host down: nothing to merge, exit 2
        with open(os.path.join(hosts, "down"), "w") as f:
            f.write("load1\nload2\nload3\n")
        r = subprocess.run([os.path.join(TOP, "examples", "pdsh-fanout.sh"), "-t", "1s"],
                           env=dict(env, OUT=os.path.join(d, "out2")), capture_output=True,
                           text=True, timeout=60)
        check(r.returncode == 2 and "no host produced results" in r.stderr,
              "every host down: %d %s" % (r.returncode, r.stderr))
        r = subprocess.run([os.path.join(TOP, "examples", "pdsh-fanout.sh")],
                           env=dict(env, SHARE="key"), capture_output=True, text=True, timeout=60)
        check(r.returncode == 2 and "SHARE is empty, keys or none, not 'key'" in r.stderr,
              "SHARE=key: %d %s" % (r.returncode, r.stderr))
    finally:
        shutil.rmtree(d)


def leftovers(ident=None):
    links = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout
    spaces = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    pattern = r"slap(?:net|a|b)%s\b" % (ident if ident else r"\d+")
    return re.findall(pattern, links + spaces)


VERDICTS = ("server", "client", "both", "rate", "latency", "unknown")


def netns_unavailable():
    """Why this machine cannot make a network namespace with a veth pair and run a command in
    it (ip netns exec needs mount --make-rslave /, which a chroot refuses), or None."""
    ns, veth = "slapprobe%d" % os.getpid(), "slpp%d" % os.getpid()  # a link's name: 15 at most
    steps = (["ip", "netns", "add", ns], ["ip", "netns", "exec", ns, "true"],
             ["ip", "link", "add", veth, "type", "veth", "peer", "name", "slpq%d" % os.getpid()])
    try:
        for step in steps:
            r = subprocess.run(step, capture_output=True, text=True, timeout=10)
            if r.returncode != 0:
                return "%s failed: %s" % (" ".join(step), r.stderr.strip())
        return None
    finally:
        subprocess.run(["ip", "link", "del", veth], capture_output=True, timeout=10)
        subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=10)


def netcompare(args, timeout=90):
    """Run the script; its exit status, output, and its table's rows by name (two columns)."""
    script = os.path.join(TOP, "scripts", "netcompare.sh")
    r = subprocess.run([script] + args, capture_output=True, text=True, timeout=timeout)
    print(r.stdout)
    rows = {}
    for line in r.stdout.splitlines():
        m = re.match(r"^(.*?)\s{2,}(\S+)\s+(\S+)$", line)
        if m:
            rows[m.group(1).strip()] = (m.group(2), m.group(3))
    return r, rows


def check_sides(r, rows, what):
    """Both sides ran: every figure above zero, and slap's verdict with its reason per side."""
    check(r.returncode == 0, "netcompare %s failed: %s%s" % (what, r.stdout, r.stderr))
    for row in ("throughput (ops/s)", "p50 latency (us)", "p99 latency (us)", "slap CPU (s)",
                "memcached CPU (s)"):
        check(row in rows and all(float(v) > 0 for v in rows[row]),
              "%s: row %r: %r" % (what, row, rows.get(row)))
    check(rows.get("limited by", ("",))[0] in VERDICTS and rows["limited by"][1] in VERDICTS,
          "%s: no verdict per side: %r" % (what, rows.get("limited by")))
    for side, word in zip(("loopback", "network"), rows["limited by"]):
        check(re.search(r"^%s +limited_by: %s \(.+\)$" % (side, word), r.stdout, re.M),
              "%s: no reason for the %s side's verdict %s" % (what, side, word))


@no_time
@release_only(SAME_IN_EVERY_BUILD)
@needs("netns")
def case_netcompare_script():
    """Loopback against a veth pair into a namespace of its own, over TCP and UDP, slap's
    verdict per side, a failing side reported; everything removed after, also when
    interrupted; two copies at once each measure their own server."""
    script = os.path.join(TOP, "scripts", "netcompare.sh")
    if os.geteuid() != 0:
        r = subprocess.run([script, "--slap", PATHS.slap], capture_output=True, text=True)
        check(r.returncode == 2 and "needs root" in r.stderr, "without root: %s" % r.stderr)
        return
    why = netns_unavailable()
    if why is not None:
        raise Skip("no network namespaces here: %s" % why)
    r, rows = netcompare(["--slap", PATHS.slap, "-t", "1s", "-T", "1", "-c", "4"])
    check_sides(r, rows, "over TCP")
    check(not leftovers(), "left behind: %r" % leftovers())
    r, rows = netcompare(["--slap", PATHS.slap, "-t", "1s", "-T", "1", "-c", "4", "-U"])
    check_sides(r, rows, "over UDP (-U)")
    check(not leftovers(), "left behind after -U: %r" % leftovers())
    check_failing_side()
    check_interrupted(script)
    check_two_copies(script)


def check_two_copies(script):
    """Two copies at once (two users, CI and a person): each its own subnet and server, both
    pass, and each table's network column names another address (they both used 198.18.0.2
    and port 11211, and the second measured the first's server)."""
    args = [script, "--slap", PATHS.slap, "-t", "1s", "-T", "1", "-c", "2"]
    procs = [subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]
    outs = [p.communicate(timeout=90) for p in procs]
    addrs = []
    for p, (out, err) in zip(procs, outs):
        check(p.returncode == 0, "a copy beside another: exit %d\n%s%s" % (p.returncode, out, err))
        m = re.search(r"^server +127\.0\.0\.1 +(198\.18\.\d+\.\d+) ", out, re.M)
        check(m is not None, "no network address in the table:\n" + out)
        addrs.append(m.group(1))
    check(addrs[0] != addrs[1], "two copies used one address: %r" % addrs)
    check(not leftovers(), "left behind after two copies: %r" % leftovers())


def check_failing_side():
    """A slap that fails against the namespace's server: the loopback side is still shown,
    the network side says it failed and why, and the script exits 1."""
    fake = "/tmp/slap-netcompare-fake-%d" % os.getpid()
    with open(fake, "w") as f:
        f.write('#!/bin/sh\ncase "$*" in *198.18.*) echo "fake slap: refused on purpose" >&2; '
                'exit 1 ;; esac\nexec %s "$@"\n' % PATHS.slap)
    os.chmod(fake, 0o755)
    try:
        r, rows = netcompare(["--slap", fake, "-t", "1s", "-T", "1", "-c", "4"])
    finally:
        os.unlink(fake)
    check(r.returncode == 1, "one side failed, yet exit status %d: %s%s"
          % (r.returncode, r.stdout, r.stderr))
    tps = rows.get("throughput (ops/s)", ("0", ""))
    check(float(tps[0]) > 0 and tps[1] == "failed", "throughput with a failed side: %r" % (tps,))
    check(rows.get("limited by", ("",))[0] in VERDICTS, "loopback's verdict: %r"
          % (rows.get("limited by"),))
    check(re.search(r"^network +failed: slap .*exit 1.*refused on purpose", r.stdout, re.M | re.S),
          "the failed side's reason is not in the summary: %s" % r.stdout)
    check(not leftovers(), "left behind after a failed side: %r" % leftovers())


def check_interrupted(script):
    proc = subprocess.Popen([script, "--slap", PATHS.slap, "-t", "30s", "-c", "4"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 15
    while not leftovers(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    check(leftovers(proc.pid), "the namespace never appeared")
    # Interrupted while slap runs (its standard error file is there), the hardest moment.
    started = lambda: glob.glob("/tmp/netcompare.*/loopback.err")
    while not started() and time.monotonic() < deadline + 15:
        time.sleep(0.1)
    check(started(), "slap never started")
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=30)
    check(proc.returncode == 130, "exit status %d after SIGINT" % proc.returncode)
    check(not leftovers(proc.pid), "left behind after SIGINT: %r" % leftovers(proc.pid))
    check(not started(), "its work directory left behind after SIGINT")


@no_time
def case_man_page_documents_the_schema():
    """Every top-level member of the JSON Schema is described in the man page."""
    with open(os.path.join(TOP, "schema", "slap-results.schema.json")) as f:
        schema = json.load(f)
    with open(PATHS.man) as f:
        man = f.read().replace("\\-", "-").replace("\\(dq", '"')
    for name in schema["properties"]:
        check(re.search(r"\b%s\b" % re.escape(name), man), "the man page lacks the member %s" % name)


@no_time
def case_subcommands_answer_help():
    """Every subcommand answers --help: its usage on standard output, nothing on standard
    error, exit 0 (slap merge and slap plot answered "unknown option '--help'", exit 2)."""
    for cmd in ("merge", "plot", "compare", "search", "trace-stats"):
        for word in ("--help", "-h"):
            r = subprocess.run([PATHS.slap, cmd, word], capture_output=True, text=True,
                               timeout=30)
            check(r.returncode == 0 and r.stdout.startswith("Usage: slap %s" % cmd)
                  and r.stderr == "", "slap %s %s: %d %r %r" % (cmd, word, r.returncode,
                                                                 r.stdout[:80], r.stderr))


# What kubectl asks of a cluster before it reads a manifest: the API's groups and resources.
# Only the kinds the Kubernetes example uses; nothing here knows their schemas.
K8S_DISCOVERY = {
    "/api": {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": []},
    "/apis": {"kind": "APIGroupList", "apiVersion": "v1", "groups": [
        {"name": "batch", "versions": [{"groupVersion": "batch/v1", "version": "v1"}],
         "preferredVersion": {"groupVersion": "batch/v1", "version": "v1"}}]},
    "/api/v1": {"kind": "APIResourceList", "groupVersion": "v1", "resources": [
        {"name": "persistentvolumeclaims", "singularName": "persistentvolumeclaim",
         "namespaced": True, "kind": "PersistentVolumeClaim",
         "verbs": ["create", "delete", "get", "list", "patch", "update", "watch"]}]},
    "/apis/batch/v1": {"kind": "APIResourceList", "groupVersion": "batch/v1", "resources": [
        {"name": "jobs", "singularName": "job", "namespaced": True, "kind": "Job",
         "verbs": ["create", "delete", "get", "list", "patch", "update", "watch"]}]},
}


@no_time
@release_only(SAME_IN_EVERY_BUILD)
def case_examples_k8s_dry_run():
    """kubectl (Debian's kubernetes-client) reads the Kubernetes example with
    `kubectl create --dry-run=client`, START_AT filled in as docs/fleets.md says, against a
    stand-in that answers only its discovery (there is no cluster here: the API's schema is not
    checked); what kubectl would send holds both Jobs and the claim, with the start time and
    the checks of examples_name_real_options."""
    import http.server
    import shutil
    import tempfile
    import threading
    import yaml
    if shutil.which("kubectl") is None:
        raise Skip("kubectl is not installed (Debian: kubernetes-client)")

    class Discovery(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = K8S_DISCOVERY.get(self.path.split("?")[0])
            data = json.dumps(body if body is not None else {
                "kind": "Status", "apiVersion": "v1", "status": "Failure", "code": 404}).encode()
            self.send_response(200 if body is not None else 404)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Discovery)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    home = tempfile.mkdtemp(prefix="slap-kubectl-")
    try:
        start = "2026-12-03T15:00:00Z"
        with open(os.path.join(TOP, "examples", "k8s-indexed-job.yaml")) as f:
            manifest = f.read().replace("@START_AT@", start)
        check("@" not in re.sub(r"#.*", "", manifest), "a placeholder other than @START_AT@")
        r = subprocess.run(["kubectl", "--server", "http://127.0.0.1:%d" % server.server_port,
                            "--cache-dir", os.path.join(home, "cache"), "create",
                            "--dry-run=client", "--validate=false", "-o", "yaml", "-f", "-"],
                           input=manifest, capture_output=True, text=True, timeout=60,
                           env=dict(os.environ, HOME=home, KUBECONFIG=os.path.join(home, "none")))
        print(r.stderr[-2000:])
        check(r.returncode == 0, "kubectl create --dry-run=client: exit %d: %s"
              % (r.returncode, r.stderr[-500:]))
        docs = [d for d in yaml.safe_load_all(r.stdout) if d]
        items = [i for d in docs for i in (d.get("items") or [d])]
        kinds = sorted("%s/%s" % (i["kind"], i["metadata"]["name"]) for i in items)
        check(kinds == ["Job/slap-load", "Job/slap-merge", "PersistentVolumeClaim/slap-results"],
              "kubectl would create %r" % kinds)
        jobs = {i["metadata"]["name"]: i for i in items if i["kind"] == "Job"}
        args = jobs["slap-load"]["spec"]["template"]["spec"]["containers"][0]["args"]
        check("--start_at=%s" % start in args, "the start time did not reach the pods: %r" % args)
        check_k8s_jobs(jobs, jobs["slap-load"]["spec"]["template"]["spec"]["containers"][0]["image"])
    finally:
        server.shutdown()
        server.server_close()
        shutil.rmtree(home, ignore_errors=True)


@no_time
@release_only(SAME_IN_EVERY_BUILD)
def case_suite_summary_names_every_try():
    """The suite's summary (scripts/test.sh, scripts/test-summary.py) names every try a case
    needed: a case run by run.py with $SLAP_TEST_RECORD set records its failure (a check, or
    an exception of the case itself), its skip and each try it set aside; the summary gives
    each case that failed with how many times and its first failure (a unit test's and a
    timeout from ctest's log too), then the tries set aside, then the skips with their reasons."""
    d = tempfile.mkdtemp(prefix="slap-summary-")
    try:
        record = os.path.join(d, "record.txt")
        env = dict(os.environ, SLAP_TEST_RECORD=record)
        run = [sys.executable, os.path.join(TOP, "tests", "integration", "run.py"),
               "--memcached", PATHS.memcached, "--lmc-check", PATHS.lmc_check]
        # bad_options with a slap that exits 1 to everything: its first check fails
        r = subprocess.run(run + ["--slap", "/bin/false", "bad_options"], env=env,
                           capture_output=True, text=True, timeout=60)
        check(r.returncode == 1, "a failed case's status: %d %s" % (r.returncode, r.stdout))
        # and with no slap at all: the case's own exception, recorded before it propagates
        r = subprocess.run(run + ["--slap", os.path.join(d, "none"), "bad_options"], env=env,
                           capture_output=True, text=True, timeout=60)
        check(r.returncode != 0 and "FileNotFoundError" in r.stderr, "an exception: %s" % r.stderr)
        with open(record) as f:
            lines = f.read().splitlines()
        check(len(lines) == 2 and lines[0].startswith("FAIL bad_options: ") and
              "exit status 1, expected 2" in lines[0] and
              lines[1].startswith("FAIL bad_options: FileNotFoundError: "),
              "the record of two failures: %r" % lines)
        with open(record, "a") as f:
            f.write("ASIDE lateness_taken_apart: the quiet run was not quiet\n"
                    "ASIDE lateness_taken_apart: again\n"
                    "SKIP package_image_runs: buildah cannot commit here\n")
        log = os.path.join(d, "ctest.log")
        with open(log, "w") as f:
            f.write("  3/9 Test  #12: integration_bad_options ......***Failed    3.20 sec\n"
                    "  4/9 Test  #40: unit_plan .......................***Failed    0.10 sec\n"
                    "  5/9 Test  #41: integration_slow_case ...........***Timeout 120.01 sec\n"
                    "  6/9 Test  #42: integration_fine ................   Passed    1.00 sec\n")
        r = subprocess.run([sys.executable, os.path.join(TOP, "scripts", "test-summary.py"),
                            "release", record, log], capture_output=True, text=True, timeout=30)
        want = ["release: bad_options failed 2 time(s), first: ['-T', '0']: exit status 1, "
                "expected 2",
                "release: slow_case failed 1 time(s), first: timed out",
                "release: unit_plan failed 1 time(s), first: failed (its output is above)",
                "release: lateness_taken_apart set 2 try(s) aside, first: the quiet run was "
                "not quiet",
                "release: package_image_runs skipped: buildah cannot commit here"]
        check(r.returncode == 0 and r.stdout.splitlines() == want,
              "the summary:\n%s%s\nwanted:\n%s" % (r.stdout, r.stderr, "\n".join(want)))
    finally:
        shutil.rmtree(d, ignore_errors=True)
