"""Every storage and retrieval command, in every protocol, counted as the server counts them."""
import re

from harness import (check, counters, Memcached, run_line, run_slap, slap_protocols, server_delta,
                     slap_stats_reads, write_file)
from harness import no_time

EVERY_OP = "get=30,gets=5,gat=5,touch=5,set=20,add=5,replace=5,append=3,prepend=2,cas=5," \
           "delete=5,incr=5,decr=5"

# slap's counter and the server's stat that must be equal after a run
SAME_AS_SERVER = ("cmd_get", "cmd_set", "cmd_touch", "get_misses", "touch_hits", "touch_misses",
                  "delete_hits", "delete_misses", "incr_hits", "incr_misses", "decr_hits",
                  "decr_misses", "cas_hits", "cas_misses", "cas_badval")
SERVER_STATS = SAME_AS_SERVER + ("get_hits", "bytes_read", "bytes_written")


def stats_of(server):
    values, length = server.stats()
    return values, length


def delta(before, after, slap_reads):
    """The server's counters over the run, less the test's stats traffic and slap's own
    (harness.server_delta, for every counter compared here)."""
    (b, _), (a, _) = before, after
    d = {k: int(a.get(k, 0)) - int(b.get(k, 0)) for k in SERVER_STATS}
    d.update(server_delta(before, after, slap_reads))
    return d


def events(out, block):
    m = re.search(r"^%s Statistics \((\d+) events\)$" % block, out, re.M)
    return int(m.group(1)) if m else 0


def preload_sets(out):
    m = re.search(r"^preload: (\d+) sets", out, re.M)
    return int(m.group(1)) if m else 0


def check_as_server(c, d, what, preloaded):
    """slap's counters against the server's; the preload's sets (the counter keys), which the
    server counts and slap does not, are taken off the server's figures."""
    d = dict(d, cmd_set=d["cmd_set"] - preloaded)
    for name in SAME_AS_SERVER:
        check(c.get(name, 0) == d[name],
              "%s: slap %s=%d but the server counted %d" % (what, name, c.get(name, 0), d[name]))
    check(c["cmd_get"] - c["get_misses"] == d["get_hits"], "%s: get hits" % what)
    extra_read, extra_written = d["bytes_read"] - c["written_bytes"], \
        d["bytes_written"] - c["read_bytes"]
    low, high = d["stats_answers"]  # slap's own stats answers
    check(0 <= extra_read <= 200 * preloaded and low <= extra_written <= 40 * preloaded + high,
          "%s: bytes %d/%d, server %d/%d with %d preloaded sets" % (
              what, c["written_bytes"], c["read_bytes"], d["bytes_read"], d["bytes_written"],
              preloaded))


@no_time
def case_every_command_every_protocol():
    """Each command, in each protocol, equals the server's own counters; each has its block."""
    for protocol in slap_protocols():
        server = Memcached(extra=["-B", "binary"] if protocol == "binary" else [])
        try:
            before = stats_of(server)
            args = ["-s", server.addr, "--protocol", protocol, "--mix", EVERY_OP, "-x", "6000",
                    "-c", "4", "-T", "2", "-w", "200"]
            rc, out, err = run_slap(args)
            d = delta(before, stats_of(server), slap_stats_reads(args, server))
            check(rc == 0, "%s: exit status %d: %s" % (protocol, rc, err))
            c = counters(out)
            check_as_server(c, d, protocol, preload_sets(out))
            for block in ("Get", "Set", "Total", "Gets", "Gat", "Touch", "Add", "Replace",
                          "Append", "Prepend", "Cas", "Delete", "Incr", "Decr"):
                check(events(out, block) > 0, "%s: no %s block" % (protocol, block))
            check(out.index("Total Statistics") < out.index("Gets Statistics"),
                  "new blocks come after memaslap's Get, Set and Total")
            check(c.get("incr_misses", 0) == 0 and c.get("decr_misses", 0) == 0,
                  "%s: incr and decr count on numbers slap stored: %r" % (protocol, c))
            check(c.get("cas_hits", 0) > c.get("cas_badval", 0),
                  "%s: a cas uses a fresh token from its gets: %r" % (protocol, c))
            check(c.get("delete_hits", 0) > c.get("delete_misses", 0),
                  "%s: deletes of keys slap set mostly find them: %r" % (protocol, c))
            _, ops, _, _ = run_line(out)
            check(ops == 6000, "%s: -x 6000 ran %d operations" % (protocol, ops))
            check(re.search(r"^mix: get=0\.30 set=0\.20 gets=0\.05 ", out, re.M),
                  "%s: the header says the mix" % protocol)
        finally:
            server.stop()


def case_commands_over_udp():
    server = Memcached(udp=True)
    try:
        before = stats_of(server)
        args = ["-s", server.addr, "-U", "--mix", EVERY_OP, "-x", "3000", "-c", "2", "-X", "200",
                "-w", "100"]
        rc, out, err = run_slap(args)
        d = delta(before, stats_of(server), slap_stats_reads(args, server))
        check(rc == 0, "exit status %d: %s" % (rc, err))
        c = counters(out)
        if c["udp_timeout"] == 0:
            check_as_server(c, d, "udp", preload_sets(out))
        check(events(out, "Incr") > 0 and events(out, "Cas") > 0, "every command over UDP")
    finally:
        server.stop()


@no_time
def case_mix_shares(mc):
    """--mix gives each op its share, exactly but for the first steps (deterministic)."""
    rc, out, err = run_slap(["-s", mc.addr, "--mix", "get=70,set=20,delete=5,incr=5", "-x",
                             "2000", "-c", "1"])
    check(rc == 0, "exit status %d" % rc)
    for block, want in (("Get", 1400), ("Set", 400), ("Delete", 100), ("Incr", 100)):
        got = events(out, block)
        check(abs(got - want) <= 3, "%s: %d of 2000, expected %d" % (block, got, want))
    check("preload: 16 sets" in out, "the counter keys are stored first: %r" % out[:400])
    for bad, what in (("get=70,foo=30", "'foo' is not an operation"),
                      ("get=70,get=30", "get is given twice"), ("get=0", "add up to 0"),
                      ("get", "is not OP=SHARE")):
        rc, out, err = run_slap(["-s", mc.addr, "--mix", bad, "-x", "10"])
        check(rc == 2 and what in err, "--mix %s: %d %r" % (bad, rc, err))
    rc, out, err = run_slap(["-s", mc.addr, "--mix", "get=1", "--ratio", "1:1", "-x", "10"])
    check(rc == 2 and "give one" in err, "--mix with --ratio: %d %r" % (rc, err))


@no_time
def case_mix_in_config_file(mc):
    """-F's cmd section takes command names (and memaslap's 0 and 1); a bad name is refused,
    naming the file and the line."""
    path = write_file("key\n64 64 1\ncmd\nget 0.7\n0 0.2\ndelete 0.05\nincr 0.05\n")
    rc, out, err = run_slap(["-s", mc.addr, "-F", path, "-x", "1000", "-c", "2"])
    check(rc == 0, "exit status %d: %s" % (rc, err))
    check("mix: get=0.70 set=0.20 delete=0.05 incr=0.05" in out, "header: %r" % out[:500])
    c = counters(out)
    check(c.get("delete_hits", 0) + c.get("delete_misses", 0) > 0 and c.get("incr_hits", 0) > 0,
          "deletes and incrs ran: %r" % c)
    bad = write_file("cmd\nget 0.7\nfetch 0.3\n")
    rc, out, err = run_slap(["-s", mc.addr, "-F", bad, "-x", "10"])
    check(rc == 2 and "'%s':3: cmd type 'fetch'" % bad in err, "bad name: %d %r" % (rc, err))
