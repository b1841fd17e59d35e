"""Many connections: tens of thousands of clients against one memcached listening on two
loopback addresses, with counters that still equal the server's."""
import resource

from harness import (Memcached, Skip, check, check_agree, counters, measured, run_line,
                     slap_stats_reads)

PORT_RANGE = "/proc/sys/net/ipv4/ip_local_port_range"
SPARE_FDS = 200  # beyond the sockets: slap's event loops and spare, memcached's own


def need_descriptors(concurrency):
    """Skip unless slap and memcached can each hold a socket per client and address."""
    need = 2 * concurrency + SPARE_FDS
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < need:
        raise Skip("-c %d against two addresses is %d sockets: slap and memcached need %d "
                   "descriptors each, but the hard open file limit is %d (ulimit -Hn)"
                   % (concurrency, 2 * concurrency, need, hard))
    with open(PORT_RANGE) as f:
        low, high = (int(x) for x in f.read().split())
    if high - low + 1 < concurrency + 1000:
        raise Skip("%d ephemeral ports (%s) are too few for %d connections to one address"
                   % (high - low + 1, PORT_RANGE, concurrency))
    return need


def many_clients_two_addresses(concurrency):
    """-c concurrency -w 16 -t 2s against 127.0.0.1 and 127.0.0.2 (one memcached, one port):
    each client has a connection to each address, every one of them is made, and slap's
    counters equal the server's."""
    need = need_descriptors(concurrency)
    mc = Memcached(extra=["-l", "127.0.0.2", "-c", str(need), "-b", "4096"])
    try:
        servers = "127.0.0.1:%d,127.0.0.2:%d" % (mc.port, mc.port)
        conns_before = int(mc.stats()[0]["total_connections"])
        rc, out, err, delta, _ = measured([mc], ["-s", servers, "-c", str(concurrency),
                                                 "-w", "16", "-t", "2s"], timeout=100)
        check(rc == 0, "exit status %d: %s" % (rc, err.strip()[-400:]))
        c = counters(out)
        check_agree(c, delta)
        _, ops, _, _ = run_line(out)
        check(ops >= concurrency, "%d operations for %d clients" % (ops, concurrency))
        # The server's connections since: slap's sockets, slap's own stats reads (before and
        # after the run, on each address), three stats requests of this test's (before and
        # after the run, and this one) and perhaps the start-up probe (memcached counts a
        # connection when a worker thread takes it, which may come after the first stats).
        after = mc.stats()[0]
        reads = slap_stats_reads(["-s", servers], mc)
        made = int(after["total_connections"]) - conns_before - 3 - reads
        check(made in (2 * concurrency, 2 * concurrency + 1),
              "the server saw %d connections, not %d" % (made, 2 * concurrency))
        check(after["rejected_connections"] == "0", "the server rejected connections")
        check(c.get("conn_closed", 0) == 0, "connections were lost")
    finally:
        mc.stop()


def case_clients_20k_two_addresses():
    many_clients_two_addresses(20000)


def case_clients_9k_two_addresses():
    """The same at a size most machines' limits allow (18000 sockets)."""
    many_clients_two_addresses(9000)
