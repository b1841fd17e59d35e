"""A small scriptable memcached for fault tests: ASCII get/set over TCP, and a UDP frame server.

FakeMemcached(behave=..., on_accept=...) listens on a free loopback port in a thread of its
own. Each request (a get of one or more keys, or a set with its data) asks
behave(conn_no, req_no) what to do, where conn_no counts accepted connections from 0 and
req_no counts that connection's requests from 0:
    None            answer as memcached would (values set earlier are kept)
    "stall"         read on but never answer again on this connection
    "close"         close the connection without answering
    bytes           send these bytes instead of the answer
    (bytes, "close") send these bytes, then close
on_accept(conn_no) may return bytes to send at once, then close (a server that refuses).
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
    def __init__(self, behave=None, on_accept=None):
        self.behave = behave or (lambda conn_no, req_no: None)
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

    def _answer(self, kind, keys, value):
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
        then_close = isinstance(action, tuple)
        if then_close:
            action = action[0]
        reply = action if isinstance(action, bytes) else self._answer(*request)
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
    of datagrams (bytes) to send back for one request, by default one right frame."""

    def __init__(self, reply=None):
        self.port = free_port()
        self.reply = reply or (lambda rid, payload: [frame(rid, 0, 1) + answer_of(payload)])
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", self.port))
        self.sock.settimeout(0.05)
        self.requests = 0
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
                continue
            except OSError:
                return
            if len(data) < 8:
                continue
            rid = struct.unpack(">H", data[:2])[0]
            self.requests += 1
            for dgram in self.reply(rid, data[8:]):
                try:
                    self.sock.sendto(dgram, peer)
                except OSError:
                    pass

    def stop(self):
        self.running = False
        self.thread.join(5)
        self.sock.close()


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
