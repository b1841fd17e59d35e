"""A small scriptable memcached for fault tests: get/set over TCP in the ASCII, binary and meta
protocols, and a UDP frame server.

FakeMemcached(behave=..., on_accept=..., rewrite=...) listens on a free loopback port in a
thread of its own. Each request (a get of one or more keys, or a set with its data; in the
binary protocol the packets up to the first one that is not quiet, in the meta protocol the
mg lines up to mn, or one other command) asks behave(conn_no, req_no) what to do, where
conn_no counts accepted connections from 0 and req_no counts that connection's requests from 0:
    None            answer as memcached would (values set earlier are kept)
    "stall"         read on but never answer again on this connection
    "close"         close the connection without answering
    bytes           send these bytes instead of the answer
    (bytes, "close") send these bytes, then close
on_accept(conn_no) may return bytes to send at once, then close (a server that refuses).
rewrite(request, answer), when behave says None, returns the bytes to send for a request
instead of the answer memcached would give, or (bytes, "close"), or None to send that. request is
(kind, keys, value): kind "set", "get", "other" (ASCII), "bin" (keys: the packets, each a
dict of opcode, key, opaque, extras, value) or "meta" (keys: the request's lines, each a
list of words; value: a ms's data).
Counters: requests (answered or not), answered, accepted. stop() ends the thread.
"""
import selectors
import socket
import struct
import threading
import time

from harness import free_port


class _Conn:
    def __init__(self, sock, no):
        self.sock = sock
        self.no = no
        self.buf = b""
        self.requests = 0
        self.stalled = False


class FakeMemcached:
    def __init__(self, behave=None, on_accept=None, rewrite=None):
        self.behave = behave or (lambda conn_no, req_no: None)
        self.rewrite = rewrite or (lambda request, answer: None)
        self.on_accept = on_accept or (lambda conn_no: None)
        self.port = free_port()
        self.items = {}
        self.requests = 0
        self.answered = 0
        self.accepted = 0
        self.lock = threading.Lock()
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", self.port))
        self.listener.listen(1024)
        self.listener.setblocking(False)
        self.sel = selectors.DefaultSelector()
        self.sel.register(self.listener, selectors.EVENT_READ, None)
        self.running = True
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    @property
    def addr(self):
        return "127.0.0.1:%d" % self.port

    def stop(self):
        self.running = False
        self.thread.join(5)
        for key in list(self.sel.get_map().values()):
            key.fileobj.close()
        self.sel.close()

    def _serve(self):
        while self.running:
            for key, _ in self.sel.select(timeout=0.05):
                if key.data is None:
                    self._accept()
                else:
                    self._readable(key.data)

    def _accept(self):
        try:
            sock, _ = self.listener.accept()
        except OSError:
            return
        no = self.accepted
        self.accepted += 1
        greeting = self.on_accept(no)
        if greeting is not None:
            try:
                sock.sendall(greeting)
            except OSError:
                pass
            sock.close()
            return
        sock.setblocking(False)
        self.sel.register(sock, selectors.EVENT_READ, _Conn(sock, no))

    def _close(self, c):
        self.sel.unregister(c.sock)
        c.sock.close()

    def _readable(self, c):
        try:
            data = c.sock.recv(65536)
        except OSError:
            data = b""
        if not data:
            self._close(c)
            return
        c.buf += data
        while True:
            request = self._take_request(c)
            if request is None:
                return
            if not self._handle(c, request):
                return

    def _take_request(self, c):
        """One whole request from c.buf as (kind, keys, value), or None for more bytes."""
        if c.buf[:1] == b"\x80":
            return self._take_binary(c)
        if c.buf[:1] == b"m":
            return self._take_meta(c)
        end = c.buf.find(b"\r\n")
        if end < 0:
            return None
        words = c.buf[:end].split()
        if words and words[0] == b"set" and len(words) >= 5:
            size = int(words[4])
            if len(c.buf) < end + 2 + size + 2:
                return None
            value = c.buf[end + 2:end + 2 + size]
            c.buf = c.buf[end + 2 + size + 2:]
            return ("set", words[1:2], (int(words[2]), value))
        c.buf = c.buf[end + 2:]
        if words and words[0] in (b"get", b"gets"):
            return ("get", words[1:], None)
        return ("other", words, None)

    def _take_binary(self, c):
        """Binary packets up to the first that is not quiet (a multi-get ends with NOOP)."""
        packets, at = [], 0
        while len(c.buf) >= at + 24:
            opcode, key_len, extras_len, _, _, body_len, opaque, _ = struct.unpack(
                ">BBHBBHIIQ", c.buf[at:at + 24])[1:]
            if len(c.buf) < at + 24 + body_len:
                return None
            body = c.buf[at + 24:at + 24 + body_len]
            packets.append({"opcode": opcode, "opaque": opaque, "extras": body[:extras_len],
                            "key": body[extras_len:extras_len + key_len],
                            "value": body[extras_len + key_len:]})
            at += 24 + body_len
            if opcode not in BIN_QUIET:
                c.buf = c.buf[at:]
                return ("bin", packets, None)
        return None

    def _take_meta(self, c):
        """Meta lines: mg ... q lines up to mn, or one other command (ms with its data)."""
        lines, at = [], 0
        while True:
            end = c.buf.find(b"\r\n", at)
            if end < 0:
                return None
            words = c.buf[at:end].split()
            at = end + 2
            value = None
            if words and words[0] == b"ms":
                size = int(words[2])
                if len(c.buf) < at + size + 2:
                    return None
                value = c.buf[at:at + size]
                at += size + 2
            lines.append(words)
            if not (words and words[0] == b"mg" and b"q" in words[2:]):
                c.buf = c.buf[at:]
                return ("meta", lines, value)

    def _answer_binary(self, packets):
        out = b""
        for p in packets:
            op, key = p["opcode"], p["key"]
            if op == 0x01:
                self.items[key] = (struct.unpack(">I", p["extras"][:4])[0], p["value"])
                out += bin_packet(op, 0, p["opaque"])
            elif op in (0x0c, 0x0d) and key in self.items:
                flags, data = self.items[key]
                out += bin_packet(op, 0, p["opaque"], struct.pack(">I", flags), key, data)
            elif op == 0x0c:
                out += bin_packet(op, 1, p["opaque"], key=key, value=b"Not found")
            elif op == 0x0a:
                out += bin_packet(op, 0, p["opaque"])
            elif op not in BIN_QUIET:
                out += bin_packet(op, 0x81, p["opaque"], value=b"Unknown command")
        return out

    def _answer_meta(self, lines, value):
        out = b""
        for words in lines:
            if words[0] == b"ms":
                self.items[words[1]] = (0, value)
                out += b"HD\r\n"
            elif words[0] == b"mg" and b"v" in words[2:] and words[1] in self.items:
                data = self.items[words[1]][1]
                out += b"VA %d k%s\r\n%s\r\n" % (len(data), words[1], data)
            elif words[0] == b"mg" and b"q" not in words[2:]:
                out += b"HD\r\n" if words[1] in self.items else b"EN\r\n"
            elif words[0] == b"mn":
                out += b"MN\r\n"
            elif words[0] != b"mg":
                out += b"ERROR\r\n"
        return out

    def _answer(self, kind, keys, value):
        if kind == "bin":
            return self._answer_binary(keys)
        if kind == "meta":
            return self._answer_meta(keys, value)
        if kind == "set":
            self.items[keys[0]] = value
            return b"STORED\r\n"
        if kind == "get":
            out = b""
            for k in keys:
                if k in self.items:
                    flags, data = self.items[k]
                    out += b"VALUE %s %d %d\r\n%s\r\n" % (k, flags, len(data), data)
            return out + b"END\r\n"
        return b"ERROR\r\n"

    def _handle(self, c, request):
        """Answer one request; False once the connection is gone."""
        with self.lock:
            self.requests += 1
        req_no = c.requests
        c.requests += 1
        if c.stalled:
            return True
        action = self.behave(c.no, req_no)
        if action == "stall":
            c.stalled = True
            return True
        if action == "close":
            self._close(c)
            return False
        if action is None:
            answer = self._answer(*request)
            action = self.rewrite(request, answer) or answer
        then_close = isinstance(action, tuple)
        if then_close:
            action = action[0]
        reply = action
        try:
            c.sock.sendall(reply)
        except OSError:
            self._close(c)
            return False
        if then_close:
            self._close(c)
            return False
        with self.lock:
            self.answered += 1
        return True


class FakeUdpMemcached:
    """A UDP memcached whose answers can be bent: reply(request_id, payload) returns a list
    of datagrams (bytes) to send back for one request, by default one right frame. With
    hold=N the answers are held until N requests wait (or 50 ms pass), then sent back last
    first. peers holds every source address a request came from."""

    def __init__(self, reply=None, hold=0):
        self.port = free_port()
        self.reply = reply or (lambda rid, payload: [frame(rid, 0, 1) + answer_of(payload)])
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", self.port))
        self.sock.settimeout(0.05)
        self.requests = 0
        self.hold = hold
        self.held = []
        self.reordered = 0  # answers sent back before one that was asked earlier
        self.peers = set()
        self.running = True
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    @property
    def addr(self):
        return "127.0.0.1:%d" % self.port

    def _serve(self):
        while self.running:
            try:
                data, peer = self.sock.recvfrom(65536)
            except socket.timeout:
                self._release()
                continue
            except OSError:
                return
            if len(data) < 8:
                continue
            rid = struct.unpack(">H", data[:2])[0]
            self.requests += 1
            self.peers.add(peer)
            self.held.append((rid, data[8:], peer))
            if len(self.held) >= self.hold:
                self._release()

    def _release(self):
        held, self.held = self.held[::-1], []
        self.reordered += max(len(held) - 1, 0)
        for rid, payload, peer in held:
            for dgram in self.reply(rid, payload):
                try:
                    self.sock.sendto(dgram, peer)
                except OSError:
                    pass

    def stop(self):
        self.running = False
        self.thread.join(5)
        self.sock.close()


BIN_QUIET = (0x09, 0x0d, 0x1e, 0x24)  # GETQ, GETKQ, GATQ, GATKQ


def bin_packet(opcode, status, opaque, extras=b"", key=b"", value=b"", cas=0, body_len=None):
    """A binary response packet; body_len, when given, is what the header declares."""
    body = extras + key + value
    return struct.pack(">BBHBBHIIQ", 0x81, opcode, len(key), len(extras), 0, status,
                       len(body) if body_len is None else body_len, opaque, cas) + body


def frame(request_id, seq, total, reserved=0):
    return struct.pack(">HHHH", request_id, seq, total, reserved)


def answer_of(payload):
    """What memcached answers to one ASCII request (every get misses, every set stores)."""
    if payload.startswith(b"set "):
        return b"STORED\r\n"
    return b"END\r\n"


def wait_for(cond, timeout=5.0):
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True
