"""slap's results store (--store): its PostgreSQL, a real server the harness starts
(postgres_server())."""
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

from harness import (PATHS, check, needs, no_time, pg_env, postgres_server, run_line, run_slap)


@no_time
def case_postgres_fixture_starts_and_stops():
    """The fixture itself: the server takes slap's password over TCP and the unix socket,
    refuses a wrong one, and once the block is left its postmaster is gone and its directory
    removed."""
    with postgres_server() as pg:
        pid, where = pg.pid, pg.dir
        check(pid is not None and os.path.exists("/proc/%d" % pid),
              "no postmaster running (pid %r)" % pid)
        check(pg.psql("select 1") == "1\n", "select 1 over TCP")
        check(pg.psql("select current_user || ' ' || current_database()") == "slap slap\n",
              "not connected as slap to slap")
        # a wrong password, given the way a client gives one: refused
        r = subprocess.run([pg.psql_path, "-X", "-w", "-At", "-d",
                            "postgresql://slap@127.0.0.1:%d/slap" % pg.port, "-c", "select 1"],
                           env=pg_env("not-" + pg.password), capture_output=True, text=True,
                           timeout=60)
        check(r.returncode != 0 and "password authentication failed" in r.stderr,
              "a wrong password: exit %d, %r" % (r.returncode, r.stderr))
        # the unix socket's URL, as it is (its password in it), and a wrong password there
        r = subprocess.run([pg.psql_path, "-X", "-w", "-At", pg.url_socket, "-c", "select 1"],
                           env=pg_env(), capture_output=True, text=True, timeout=60)
        check(r.returncode == 0 and r.stdout == "1\n",
              "the socket URL %s: exit %d, %r %r" % (pg.url_socket, r.returncode, r.stdout,
                                                     r.stderr))
        wrong = pg.url_socket.replace(pg.password, "not-" + pg.password)
        r = subprocess.run([pg.psql_path, "-X", "-w", "-At", wrong, "-c", "select 1"], env=pg_env(),
                           capture_output=True, text=True, timeout=60)
        check(r.returncode != 0 and "password authentication failed" in r.stderr,
              "a wrong password over the socket: exit %d, %r" % (r.returncode, r.stderr))
        # stopped and started again: the same port, the data kept
        pg.psql("create table kept (n int); insert into kept values (7)")
        pg.stop()
        check(pg.pid is None and not os.path.exists("/proc/%d" % pid),
              "postmaster %d still there after stop()" % pid)
        pg.start()
        check(pg.pid is not None and pg.pid != pid, "start() again: pid %r" % pg.pid)
        check(pg.psql("select n from kept") == "7\n", "the table lost over a restart")
        pid = pg.pid
    check(not os.path.exists("/proc/%d" % pid), "postmaster %d still there after the block" % pid)
    check(not os.path.exists(where), "%s still there after the block" % where)


# ---------------------------------------------------------------- the store itself

RUN = ["-t", "0.4s", "-T", "1", "-c", "2", "-q"]


def history(args, env=None, timeout=60):
    """slap history ARGS: (exit status, stdout, stderr)."""
    r = subprocess.run([PATHS.slap, "history"] + args, capture_output=True, text=True,
                       timeout=timeout, env=env)
    sys.stdout.write("$ slap history %s  -> %d\n%s%s" % (" ".join(args), r.returncode, r.stdout,
                                                        r.stderr))
    return r.returncode, r.stdout, r.stderr


def rows(db, sql, *params):
    """sql's rows in the SQLite file db (read as any other program would)."""
    conn = sqlite3.connect(db)
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


def no_controls(text, where):
    bad = [c for c in text if ord(c) < 0x20 and c not in "\n"]
    check(not bad, "%s holds control bytes %r" % (where, bad[:5]))


HOSTILE = "x'; DROP TABLE slap_runs; -- \"q\" \\ é"


@no_time
def case_store_keeps_what_json_writes(mc):
    """Each run --store keeps (or SLAP_STORE's, without it) is the document --json writes, byte
    for byte through slap history --run, its figures the JSON's own (tps, each percentile and
    its interval; a percentile the JSON has as null is not kept); the file is made with the
    umask's mode; a label with quotes and a DROP TABLE is kept as the text it is, and slap
    history lists the two series."""
    tmp = tempfile.mkdtemp(prefix="slap-store-")
    db = os.path.join(tmp, "runs.db")
    try:
        old = os.umask(0o077)
        try:
            for i in range(2):
                rc, _, _ = run_slap(["-s", mc.addr] + RUN + ["--store", db, "--json",
                                                             os.path.join(tmp, "r%d.json" % i)])
                check(rc == 0, "run %d: exit %d" % (i, rc))
        finally:
            os.umask(old)
        check(os.stat(db).st_mode & 0o777 == 0o600, "mode %o with umask 077" % os.stat(db).st_mode)
        os.environ["SLAP_STORE"] = db
        try:
            rc, _, _ = run_slap(["-s", mc.addr] + RUN + ["--label", HOSTILE, "--json",
                                                         os.path.join(tmp, "r2.json")])
        finally:
            del os.environ["SLAP_STORE"]
        check(rc == 0, "the SLAP_STORE run: exit %d" % rc)
        runs = rows(db, "SELECT id, label FROM slap_runs ORDER BY id")
        check([r[1] for r in runs][2] == HOSTILE and len(runs) == 3, "runs kept: %r" % runs)
        for i, (run_id, _) in enumerate(runs):
            r = subprocess.run([PATHS.slap, "history", "--store", db, "--run", str(run_id)],
                               capture_output=True, timeout=60)
            with open(os.path.join(tmp, "r%d.json" % i), "rb") as f:
                check(r.returncode == 0 and r.stdout == f.read(),
                      "run %d: --run differs from its --json file" % run_id)
            with open(os.path.join(tmp, "r%d.json" % i)) as f:
                doc = json.load(f)
            kept = {name: (value, low, high) for name, value, low, high in rows(
                db, "SELECT name, value, low, high FROM slap_figures WHERE run = ?", run_id)}
            check(abs(kept["tps"][0] - doc["run"]["tps"]) <= 1, "tps %r, the JSON's %r" % (
                kept["tps"], doc["run"]["tps"]))
            total = doc["types"]["total"]
            for pct, value in total["percentiles"].items():
                name = "p" + pct
                if value is None:
                    check(name not in kept, "%s kept where the JSON has null" % name)
                    continue
                ci = total["percentile_ci"][pct]
                check(name in kept and kept[name] == (value, ci[0], ci[1]),
                      "%s: kept %r, the JSON's %r %r" % (name, kept.get(name), value, ci))
        rc, out, err = history(["--store", db])
        check(rc == 0 and len(out.strip().split("\n")) == 3, "two series listed: %r" % out)
        no_controls(out, "slap history's list")
        rc, out, err = history(["--store", db, "--label", HOSTILE, "--json", "-"])
        listed = json.loads(out)["series"] if rc == 0 else []
        check(len(listed) == 1 and listed[0]["label"] == HOSTILE and listed[0]["runs"] == 1,
              "--label with the hostile label: %r" % listed)
        check(rows(db, "SELECT count(*) FROM slap_series") == [(2,)], "series")
    finally:
        shutil.rmtree(tmp)


@no_time
def case_store_failures_cost_the_store_only(mc):
    """A store locked by another writer past SLAP_STORE_TIMEOUT, another program's SQLite
    file, a file of garbage and a directory that is not there: each said on standard error
    ("--store", the file, why), exit 1, the report and --json written all the same; the
    foreign and garbage files are left byte for byte as they were."""
    tmp = tempfile.mkdtemp(prefix="slap-store-")
    try:
        locked = os.path.join(tmp, "locked.db")
        rc, _, _ = run_slap(["-s", mc.addr] + RUN + ["--store", locked])
        check(rc == 0, "making the store: exit %d" % rc)
        holder = sqlite3.connect(locked, isolation_level=None, timeout=0)
        holder.execute("BEGIN EXCLUSIVE")
        foreign = os.path.join(tmp, "foreign.db")
        other = sqlite3.connect(foreign)
        other.execute("CREATE TABLE accounts (name TEXT)")
        other.commit()
        other.close()
        garbage = os.path.join(tmp, "garbage.db")
        with open(garbage, "wb") as f:
            f.write(os.urandom(8192))
        cases = ((locked, "locked"), (foreign, "another program's tables"),
                 (garbage, "not a SQLite database"), (os.path.join(tmp, "no", "such.db"), "open"))
        os.environ["SLAP_STORE_TIMEOUT"] = "1"
        try:
            for path, why in cases:
                before = open(path, "rb").read() if path in (foreign, garbage) else None
                out_json = os.path.join(tmp, "r.json")
                rc, out, err = run_slap(["-s", mc.addr] + RUN[:-1] + ["--store", path,
                                                                      "--json", out_json])
                check(rc == 1 and "--store" in err and why in err and "not stored" in err,
                      "%s: exit %d, %r" % (path, rc, err))
                check(run_line(out)[1] > 0, "%s: no report" % path)
                check(json.load(open(out_json))["run"]["ops"] > 0, "%s: no --json" % path)
                os.unlink(out_json)
                if before is not None:
                    check(open(path, "rb").read() == before, "%s was written" % path)
        finally:
            del os.environ["SLAP_STORE_TIMEOUT"]
        holder.execute("ROLLBACK")
        holder.close()
        check(rows(locked, "SELECT count(*) FROM slap_runs") == [(1,)], "the locked store")
    finally:
        shutil.rmtree(tmp)


# In a mount namespace of its own: a small file system for the store, a run stored into it,
# the rest of it filled, a second run, the room given back, slap history.
_FULL_DISK = r"""
dir=$1 slap=$2 addr=$3 out=$4
mount -t tmpfs -o size=1m slapfull "$dir" || exit 90
"$slap" -s "$addr" -t 0.4s -T 1 -c 2 -q --store "$dir/runs.db" >/dev/null || exit 91
dd if=/dev/zero of="$dir/fill" bs=4k 2>/dev/null
"$slap" -s "$addr" -t 0.4s -T 1 -c 2 --store "$dir/runs.db" --json "$out/r.json" >"$out/report" 2>"$out/err"
echo $? >"$out/status"
rm "$dir/fill"
"$slap" history --store "$dir/runs.db" >"$out/history" 2>&1 || exit 92
"""


@no_time
@needs("root")
def case_store_on_a_full_disk(mc):
    """A store on a file system with no room left: said (exit 1, "database or disk is full"),
    the report and --json
    written all the same, and the store as it was (its first run listed by slap history once
    there is room again)."""
    tmp = tempfile.mkdtemp(prefix="slap-store-")
    out = tempfile.mkdtemp(prefix="slap-store-out-")
    try:
        r = subprocess.run(["unshare", "-m", "sh", "-c", _FULL_DISK, "sh", tmp, PATHS.slap,
                            mc.addr, out], capture_output=True, text=True, timeout=120)
        check(r.returncode == 0, "the script: exit %d %r" % (r.returncode, r.stderr))
        status = open(os.path.join(out, "status")).read().strip()
        err = open(os.path.join(out, "err")).read()
        sys.stdout.write("full disk: exit %s\n%s" % (status, err))
        check(status == "1" and "--store" in err and "full" in err, "exit %s, %r" % (status, err))
        check(run_line(open(os.path.join(out, "report")).read())[1] > 0, "no report")
        check(json.load(open(os.path.join(out, "r.json")))["run"]["ops"] > 0, "no --json")
        listed = open(os.path.join(out, "history")).read()
        check(re.search(r"^[0-9a-f]{12} +1 ", listed, re.M) is not None,
              "the first run not listed: %r" % listed)
    finally:
        shutil.rmtree(tmp)
        shutil.rmtree(out)
