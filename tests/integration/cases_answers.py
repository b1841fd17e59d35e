"""Replies that answer another question, and protocol corners: each a protocol error at once.

A value under a key the request did not ask for (or out of the request's order, or twice), a
binary reply with another opaque, a value over 1 GiB, a reply code that cannot answer the
command sent: slap counts a protocol error, closes the connection, and says once per kind and
server what came back, with the server's bytes escaped. Run against fakemc, which answers
as memcached would except where a case bends it.
"""
import struct
import time

from fakemc import FakeMemcached, bin_packet
from harness import check, counters, run_slap

KEY_NOT_ASKED = "a value for a key not asked"
WRONG_OPAQUE = "a reply with a wrong opaque"
OTHER_REQUEST = "a reply to another request"
TOO_LARGE = "a value over 1 GiB"
BASE = ["-c", "1", "-x", "300", "--timeout=4s"]


def refused(rewrite, args, what, shows=()):
    """A run whose bent answers must be protocol errors at once, what said once on stderr."""
    fake = FakeMemcached(rewrite=rewrite)
    try:
        start = time.monotonic()
        rc, out, err = run_slap(["-s", fake.addr] + BASE + args, timeout=30)
        took = time.monotonic() - start
        c = counters(out)
        check(c.get("protocol_error", 0) == 1 and c.get("conn_closed", 0) == 1,
              "%s: one protocol error, closing the connection: %r" % (args, c))
        check(c.get("verify_failed", 0) == 0, "a protocol error, not a verify failure: %r" % c)
        check(err.count(what) == 1, "%s: say once %r: %r" % (args, what, err))
        for text in shows:
            check(text in err, "%s: stderr should show %r: %r" % (args, text, err))
        check("\x1b" not in err, "a server's bytes are never printed raw: %r" % err)
        check("--timeout" not in err and took < 3.5, "%s: refused at once, not after the "
              "time-out (%.1f s): %r" % (args, took, err))
        check(rc == 1, "%s: the client stopped: exit %d" % (args, rc))
        return c
    finally:
        fake.stop()


def ascii_retrieval(request):
    kind, keys, _ = request
    return kind == "get" or (kind == "other" and keys[:1] == [b"gat"])


def ascii_keys(request):
    kind, keys, _ = request
    return keys if kind == "get" else keys[2:]  # "gat <exptime> <key>..."


def case_key_not_asked_ascii():
    """get k answered VALUE nosuchkey: not a hit, not a miss, not a verify failure; in get,
    gets, gat, and in multi-gets (a key not asked, keys out of order, one key twice)."""
    foreign = lambda req, ans: (b"VALUE no\x1bsuch 0 3\r\nabc\r\nEND\r\n"
                                if ascii_retrieval(req) else None)
    for args in (["-v", "1"], ["--mix=set=1,gets=1"], ["--mix=set=1,gat=1"], ["-d", "3"]):
        refused(foreign, args, KEY_NOT_ASKED, shows=['"no\\x1bsuch"'])

    def value(key):
        return b"VALUE %s 0 3\r\nabc\r\n" % key
    bends = (lambda keys: value(keys[2]) + value(keys[0]) + b"END\r\n",  # out of order
             lambda keys: value(keys[0]) + value(keys[0]) + b"END\r\n",  # one key twice
             lambda keys: value(keys[0]) + value(b"zzz") + b"END\r\n")  # one not asked
    for bend in bends:
        # -w 1 -d 3: the window's one key asked three times would make "twice" right
        refused(lambda req, ans, bend=bend: bend(ascii_keys(req)) if ascii_retrieval(req) and
                len(set(ascii_keys(req))) == 3 else None, ["-d", "3", "-w", "1k"], KEY_NOT_ASKED)


def meta_gets(request):
    kind, lines, _ = request
    return [w[1] for w in lines if w[0] == b"mg" and b"v" in w[2:]] if kind == "meta" else []


def case_key_not_asked_meta():
    """mg k answered VA under another key (the k flag), or multi-get keys out of order."""
    foreign = lambda req, ans: (b"VA 3 kno\x1bsuch\r\nabc\r\nMN\r\n" if meta_gets(req) else None)
    for args in (["-v", "1"], ["-d", "3"]):
        refused(foreign, ["--protocol=meta"] + args, KEY_NOT_ASKED, shows=['"no\\x1bsuch"'])
    swapped = lambda req, ans: (b"".join(b"VA 3 k%s\r\nabc\r\n" % k for k in meta_gets(req)[::-1])
                                + b"MN\r\n" if len(set(meta_gets(req))) == 3 else None)
    refused(swapped, ["--protocol=meta", "-d", "3", "-w", "1k"], KEY_NOT_ASKED)


def bin_gets(request):
    kind, packets, _ = request
    return [p for p in packets if p["opcode"] in (0x0c, 0x0d)] if kind == "bin" else []


def case_key_not_asked_binary():
    """GETK k answered under another key; a GETKQ multi-get answered under a key not asked."""
    def foreign(req, ans):
        gets = bin_gets(req)
        if not gets:
            return None
        hits = b"".join(bin_packet(p["opcode"], 0, p["opaque"], b"\0\0\0\0", b"no\x1bsuch", b"abc")
                        for p in gets)
        return hits + (bin_packet(0x0a, 0, req[1][-1]["opaque"]) if len(gets) > 1 else b"")
    for args in (["-v", "1"], ["-d", "3"]):
        refused(foreign, ["-B"] + args, KEY_NOT_ASKED, shows=['"no\\x1bsuch"'])


def case_binary_wrong_opaque():
    """A binary reply whose opaque is not the request's: a protocol error, single or multi-get."""
    def bent(req, ans):
        kind, packets, _ = req
        if not bin_gets(req) or not ans:
            return None
        # the first packet of the answer with another opaque
        return ans[:12] + struct.pack(">I", 0xdeadbeef) + ans[16:]
    for args in ([], ["-d", "3"]):
        refused(bent, ["-B"] + args, WRONG_OPAQUE, shows=["3735928559"])


def case_value_over_limit_every_protocol():
    """A value declared over 1 GiB is refused at once in every protocol, not waited for."""
    gib = 1 << 30
    big = gib + gib // 2

    def ascii(req, ans):
        return b"VALUE %s 0 %d\r\nabc" % (ascii_keys(req)[0], big) if ascii_retrieval(req) else None

    def meta(req, ans):
        return b"VA %d k%s\r\nabc" % (big, meta_gets(req)[0]) if meta_gets(req) else None

    def binary(req, ans):
        gets = bin_gets(req)
        return (bin_packet(gets[0]["opcode"], 0, gets[0]["opaque"], b"\0\0\0\0", gets[0]["key"],
                           b"abc", body_len=4 + len(gets[0]["key"]) + big) if gets else None)
    for bend, args in ((binary, ["-B"]), (meta, ["--protocol=meta"]), (ascii, [])):
        refused(bend, args, TOO_LARGE, shows=["%d bytes" % big])


def case_meta_reply_to_another_request():
    """Every meta reply code that cannot answer the command sent is a protocol error at once:
    VA to ms (which waited for the time-out), EN to a quiet mg (which counted a miss), and
    the rest of the table (mg, ms, md, ma, touch)."""
    kinds = {"get": lambda w: w[0] == b"mg" and b"v" in w[2:],
             "touch": lambda w: w[0] == b"mg" and b"v" not in w[2:],
             "set": lambda w: w[0] == b"ms", "delete": lambda w: w[0] == b"md",
             "incr": lambda w: w[0] == b"ma"}
    table = (("set", b"VA 3 kx\r\nabc\r\n"), ("set", b"MN\r\n"), ("set", b"EN\r\n"),
             ("get", b"EN\r\n"), ("get", b"HD\r\n"), ("get", b"NS\r\n"),
             ("delete", b"NS\r\n"), ("delete", b"VA 1 kx\r\na\r\n"), ("delete", b"EN\r\n"),
             ("incr", b"EX\r\n"), ("incr", b"MN\r\n"), ("touch", b"VA 1 kx\r\na\r\n"),
             ("touch", b"NS\r\n"))
    mixes = {"get": "set=1,get=1", "touch": "set=1,touch=1", "set": "set=1",
             "delete": "set=1,delete=1", "incr": "set=1,incr=1"}
    for kind, reply in table:
        match = kinds[kind]
        bend = lambda req, ans, m=match, r=reply: (r if req[0] == "meta" and m(req[1][0])
                                                   else None)
        refused(bend, ["--protocol=meta", "--mix=" + mixes[kind]], OTHER_REQUEST)


def case_ascii_value_to_a_set():
    """A VALUE block in answer to a set is refused at once, not waited on for its END."""
    bend = lambda req, ans: b"VALUE k 0 3\r\nabc\r\n" if req[0] == "set" else None
    refused(bend, [], OTHER_REQUEST)


def case_not_stored_keeps_the_mix():
    """A server that answers every set NOT_STORED: the default 10/90 mix is still 10/90 (a
    declined set opens its key to the gets, as a stored one does), not sets alone under a
    header saying 10/90, and standard error says the server stored none."""
    fake = FakeMemcached(rewrite=lambda request, answer:
                         b"NOT_STORED\r\n" if request[0] == "set" else None)
    try:
        rc, out, err = run_slap(["-s", fake.addr, "-t", "1s", "-c", "2", "-T", "1"], timeout=30)
    finally:
        fake.stop()
    c = counters(out)
    check("set_prop=0.10" in out, "the header's mix: %r" % out[:400])
    check(c.get("cmd_set", 0) > 0 and c.get("not_stored") == c["cmd_set"], "%r" % c)
    share = c.get("cmd_get", 0) / float(c.get("cmd_get", 0) + c["cmd_set"])
    check(0.85 <= share <= 0.95, "gets are %.2f of the requests, the mix says 0.90: %r"
          % (share, c))
    check("slap: every set was answered NOT_STORED (%d): the server stored none" % c["cmd_set"]
          in err, "%r" % err)
    check(rc == 0, "exit %d: %s" % (rc, err))
