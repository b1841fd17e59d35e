"""slap's results store (--store): its PostgreSQL, a real server the harness starts
(postgres_server())."""
import os
import subprocess

from harness import check, no_time, pg_env, postgres_server


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
