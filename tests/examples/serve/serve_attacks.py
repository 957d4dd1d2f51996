#!/usr/bin/env python3
"""tests/examples/serve/serve_attacks.py BINARY MODEL — malformed and hostile requests.

Starts `BINARY serve --model MODEL` on 127.0.0.1 (any free port), sends each attack below over
raw sockets (loopback only, each bounded in bytes and seconds), and checks after each that the
server still answers /api/health; at the end that a translation still equals the offline
`translate`, and that the server's peak resident memory stayed under RSS_BOUND_MIB above what it
held after loading the model. Prints one line per attack: what it sent, what came back.
"""
import http.client
import json
import os
import resource
import select
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(__file__))
from serve_process import Served, call, translate_offline  # noqa: E402

# Above the server's memory once the model is loaded (1,000 connections × 32 KiB = 31 MiB). The
# sanitizer tree sets a larger one (ASan keeps freed memory in quarantine and adds its shadow).
RSS_BOUND_MIB = int(os.environ.get("ATENCION_SERVE_RSS_BOUND_MIB", "64"))
BODY_LIMIT = 64 * 1024
binary, model = sys.argv[1], sys.argv[2]
CLOSED = "closed"  # the server closed (or reset) the connection without an answer


def connect(port, timeout=10):
    sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    sock.settimeout(timeout)
    return sock


def answer_of(sock, seconds=10):
    """The status of the first answer on `sock`, or CLOSED; reads at most 1 MiB."""
    sock.settimeout(seconds)
    received = b""
    try:
        while b"\r\n" not in received and len(received) < (1 << 20):
            chunk = sock.recv(65536)
            if not chunk:
                break
            received += chunk
    except (ConnectionResetError, socket.timeout, BrokenPipeError):
        pass
    if received.startswith(b"HTTP/1.") and len(received) >= 12:
        return int(received[9:12])
    return CLOSED


def send_raw(port, data, seconds=10):
    """Sends `data` (stopping quietly if the server closes first) and returns the answer."""
    sock = connect(port, seconds)
    try:
        try:
            sock.sendall(data)
        except (BrokenPipeError, ConnectionResetError):
            pass
        return answer_of(sock, seconds)
    finally:
        sock.close()


def send_streaming(port, head, piece, total, seconds=10):
    """Sends `head`, then `piece` repeated up to `total` bytes or until the server answers or
    closes; returns the answer."""
    sock = connect(port, seconds)
    try:
        sock.sendall(head)
        sent = 0
        deadline = time.monotonic() + seconds
        sock.setblocking(False)
        while sent < total and time.monotonic() < deadline:
            try:
                sent += sock.send(piece)
            except BlockingIOError:
                time.sleep(0.001)
                try:
                    if sock.recv(1, socket.MSG_PEEK):
                        break  # an answer came
                except BlockingIOError:
                    pass
                except (ConnectionResetError, OSError):
                    break
            except (BrokenPipeError, ConnectionResetError, OSError):
                break
        sock.setblocking(True)
        return answer_of(sock, seconds)
    finally:
        sock.close()


JSON = b"Content-Type: application/json\r\n"
POST_HEAD = b"POST /api/translate HTTP/1.1\r\nHost: 127.0.0.1\r\n" + JSON
TEXT_BODY = b'{"text": "Hola."}'
CHUNKED_BODY = b"%x\r\n" % len(TEXT_BODY) + TEXT_BODY + b"\r\n0\r\n\r\n"
SMUGGLING_REFUSED = "400, then closed"


def post(path, body, extra=b""):
    return (b"POST " + path + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n" + JSON +
            extra + b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)


def chunked_head(extra=b""):
    return POST_HEAD + b"Connection: close\r\nTransfer-Encoding: chunked\r\n" + extra + b"\r\n"


# Each attack: (name, function of the port → status or CLOSED, the outcomes accepted).
ATTACKS = [
    ("chunked body of 50 MB, far over the 64 KiB limit",
     lambda p: send_streaming(p, chunked_head(), b"10000\r\n" + b"a" * 0x10000 + b"\r\n",
                              50 << 20), {413, CLOSED}),
    ("chunked body of 200 KB, then its end",
     lambda p: send_raw(p, chunked_head() + (b"8000\r\n" + b"a" * 0x8000 + b"\r\n") * 6 +
                        b"0\r\n\r\n"), {413}),
    ("POST without Content-Length, bytes that never end (for 3 s)",
     lambda p: send_streaming(p, POST_HEAD + b"\r\n", b'{"text": "aaaa', 1 << 30, seconds=3),
     {400, 411, CLOSED}),
    ("a 10 MB header line without a newline",
     lambda p: send_streaming(p, b"GET / HTTP/1.1\r\nX-Long: ", b"a" * 65536, 10 << 20),
     {400, 413, 431, CLOSED}),
    ("10,000 headers",
     lambda p: send_raw(p, b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
                        b"".join(b"X-%d: y\r\n" % i for i in range(10000)) + b"\r\n"),
     {400, 413, 431, CLOSED}),
    ("chunk size negative (-5)",
     lambda p: send_raw(p, chunked_head() + b"-5\r\nhello\r\n0\r\n\r\n"), {400, CLOSED}),
    ("chunk size of hexadecimal garbage (zz)",
     lambda p: send_raw(p, chunked_head() + b"zz\r\nhello\r\n0\r\n\r\n"), {400, CLOSED}),
    ("chunk size past 64 bits (ffffffffffffffffffff)",
     lambda p: send_raw(p, chunked_head() + b"ffffffffffffffffffff\r\nhello\r\n0\r\n\r\n"),
     {400, 413, CLOSED}),
    ("chunk size 7fffffffffffffff with 5 bytes, then close",
     lambda p: send_raw(p, chunked_head() + b"7fffffffffffffff\r\nhello", seconds=3),
     {400, 413, CLOSED}),
    ("chunk size with a sign and spaces (+ 10)",
     lambda p: send_raw(p, chunked_head() + b"+ 10\r\nhello\r\n0\r\n\r\n"), {400, CLOSED}),
    ("Content-Length: -1", lambda p: send_raw(p, POST_HEAD + b"Content-Length: -1\r\n\r\n{}"),
     {400, 413, CLOSED}),
    ("Content-Length: abc", lambda p: send_raw(p, POST_HEAD + b"Content-Length: abc\r\n\r\n{}"),
     {400, 413, CLOSED}),
    ("Content-Length of 25 digits", lambda p: send_raw(
        p, POST_HEAD + b"Content-Length: 9999999999999999999999999\r\n\r\n{}"),
     {400, 413, CLOSED}),
    ("two different Content-Lengths", lambda p: send_raw(
        p, POST_HEAD + b"Content-Length: 2\r\nContent-Length: 40\r\n\r\n{}"), {400, CLOSED}),
    ("Content-Length 1,000 with 10 bytes sent, then close", lambda p: send_raw(
        p, POST_HEAD + b"Content-Length: 1000\r\n\r\n0123456789", seconds=3), {CLOSED, 400}),
    ("Expect: 100-continue with a 1 GB Content-Length", lambda p: send_raw(
        p, POST_HEAD + b"Expect: 100-continue\r\nContent-Length: 1000000000\r\n\r\n"), {413}),
    ("an unknown method (BREW)", lambda p: send_raw(
        p, b"BREW /api/translate HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"), {405, 400, 501}),
    ("a request line without a version", lambda p: send_raw(p, b"GET /\r\n\r\n", seconds=3),
     {400, 505, CLOSED}),
    ("HTTP/2.0 in a text request line", lambda p: send_raw(
        p, b"GET / HTTP/2.0\r\nHost: 127.0.0.1\r\n\r\n"), {400, 505, CLOSED}),
    ("a NUL byte in the path", lambda p: send_raw(
        p, b"GET /api/he\x00alth HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"), {400, 404, CLOSED}),
    ("a 100 KB URL", lambda p: send_raw(
        p, b"GET /" + b"a" * 100000 + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"),
     {400, 413, 414, 431, CLOSED}),
    ("a header line without a colon", lambda p: send_raw(
        p, b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nno colon here\r\n\r\n"),
     {400, 200, CLOSED}),
    ("a bare CR inside a header value", lambda p: send_raw(
        p, b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: a\rInjected: b\r\n\r\n"),
     {400, 200, CLOSED}),
    ("percent-encoded ../ to /etc/passwd", lambda p: send_raw(
        p, b"GET /%2e%2e/%2e%2e/etc/passwd HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"), {404}),
    ("../ to the repository's files", lambda p: send_raw(
        p, b"GET /../../CMakeLists.txt HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"), {404, 400}),
    ("an absolute URI for another host", lambda p: send_raw(
        p, b"GET http://example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n"), {403, 404, 400}),
    # Request smuggling (RFC 9112 6.3): a second request hidden after the first one's body must
    # never be answered; the first is refused (400) and the connection closed.
    ("Content-Length and Transfer-Encoding: chunked, then a second request", lambda p: smuggled(
        p, b"Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n" + CHUNKED_BODY),
     {SMUGGLING_REFUSED}),
    ("Transfer-Encoding : chunked (a space before the colon), then a second request",
     lambda p: smuggled(p, b"Content-Length: 3\r\nTransfer-Encoding : chunked\r\n\r\n5\r\n"),
     {SMUGGLING_REFUSED}),
    ("Transfer-Encoding folded onto a second line, then a second request",
     lambda p: smuggled(p, b"Content-Length: 3\r\nTransfer-Encoding:\r\n chunked\r\n\r\n5\r\n"),
     {SMUGGLING_REFUSED}),
    ("Content-Length folded onto a second line, then a second request", lambda p: smuggled(
        p, b"Content-Length:\r\n 13\r\n\r\n" + TEXT_BODY), {SMUGGLING_REFUSED}),
    ("a query of 500 arguments (2 KB)", lambda p: answered_within(
        p, b"GET /api/health?" + b"&".join([b"a=1"] * 500) + b" HTTP/1.1\r\n"
           b"Host: 127.0.0.1\r\n\r\n", 2), {414}),
    ("Host: a name of another site (DNS rebinding)", lambda p: send_raw(
        p, b"GET / HTTP/1.1\r\nHost: attacker.example:%d\r\n\r\n" % p), {403}),
    ("a text/plain POST (what any site may send without asking)", lambda p: send_raw(
        p, post(b"/api/translate", TEXT_BODY).replace(JSON, b"Content-Type: text/plain\r\n")),
     {415}),
    ("300 POSTs that promise 100 bytes, send 4 and close; then the same address", lambda p:
     half_bodies(p, 300), {200}),
    ("invalid UTF-8 in the JSON text", lambda p: send_raw(
        p, post(b"/api/translate", b'{"text": "\xc3\x28\xa0\xa1"}')), {400}),
    ("JSON nested 10,000 deep", lambda p: send_raw(
        p, post(b"/api/translate", b"[" * 10000 + b"]" * 10000)), {400}),
    ("a number past double's range", lambda p: send_raw(
        p, post(b"/api/translate", b'{"text": "a", "beam": 1e999}')), {400}),
    ("60 KB of words: valid, but over the model's positions", lambda p: send_raw(
        p, post(b"/api/translate", b'{"text": "' + b"gato " * 12000 + b'"}')), {400}),
    ("64 KiB of random bytes as a request", lambda p: send_raw(p, os.urandom(65536), seconds=3),
     {400, 413, 431, 505, CLOSED}),
    ("a TLS ClientHello on the plain HTTP port", lambda p: send_raw(
        p, bytes.fromhex("16030100a1010000") + os.urandom(160), seconds=3),
     {400, 505, CLOSED}),
    ("100 requests pipelined in one write", lambda p: pipelined(p, 100), {200}),
    ("a request, then the client's side shut", lambda p: half_closed(p), {200}),
    ("40 streams left unread for 3 s (a tiny receive window) while another client translates",
     lambda p: unread_streams(p, 40, 3), {200}),
    ("30 streams dropped mid-answer (some at once, some after the first bytes)",
     lambda p: dropped_streams(p, 30), {200}),
]




def smuggled(port, rest):
    """POST_HEAD + `rest`, then a second request on the same connection: what came back, as
    "400, then closed" (the one answer allowed) or the statuses of every answer."""
    second = b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    sock = connect(port, 5)
    try:
        sock.sendall(POST_HEAD + rest + second)
        received = b""
        try:
            while chunk := sock.recv(65536):
                received += chunk
        except (ConnectionResetError, socket.timeout):
            received += b"(no close within 5 s)"
        statuses = [int(line[9:12]) for line in received.split(b"\r\n")
                    if line.startswith(b"HTTP/1.1 ")]
        if statuses == [400] and received.endswith(b"}"):
            return SMUGGLING_REFUSED
        return f"answers {statuses}: {received[-40:]!r}"
    finally:
        sock.close()


def answered_within(port, data, seconds):
    started = time.monotonic()
    outcome = send_raw(port, data, seconds + 1)
    return outcome if time.monotonic() - started < seconds else f"{outcome} after {seconds} s"


def half_bodies(port, count):
    """`count` × (connect, promise 100 bytes, send 4, close): each frees its connection at once,
    so the per-client limit (64) does not lock the address out until the 10 s timeout."""
    for _ in range(count):
        sock = connect(port)
        sock.sendall(POST_HEAD + b"Content-Length: 100\r\n\r\n" + b'{"te')
        sock.close()
    started = time.monotonic()
    status = send_raw(port, b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 15)
    seconds = time.monotonic() - started
    return status if seconds < 1 else f"{status} after {seconds:.1f} s"


STREAM_BODY = b'{"text": "\xc2\xbfD\xc3\xb3nde est\xc3\xa1 el gato negro de mi madre?", "beam": 4}'


def open_stream(port, receive_buffer=None):
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if receive_buffer is not None:  # before connect, so that the window starts small
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    sock.settimeout(10)
    sock.connect(("127.0.0.1", port))
    sock.sendall(post(b"/api/translate/stream", STREAM_BODY))
    return sock


def unread_streams(port, count, seconds):
    """Streams whose clients never read: the server keeps at most a line or two of each (the
    peak memory is checked at the end) and answers others meanwhile."""
    held = [open_stream(port, receive_buffer=1024) for _ in range(count)]
    try:
        time.sleep(seconds)
        status, reply = call(port, "POST", "/api/translate", {"text": "Hola."}, timeout=10)
        return status if "translation" in reply else f"{status} {reply}"
    finally:
        for sock in held:
            sock.close()


def dropped_streams(port, count):
    """Clients that leave mid-stream: the model thread must not stall on them."""
    for i in range(count):
        sock = open_stream(port)
        try:
            if i % 2:
                sock.recv(64)
        finally:
            sock.close()
    status, _ = call(port, "POST", "/api/translate", {"text": "Hola."}, timeout=10)
    return status


def pipelined(port, count):
    request = b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    sock = connect(port)
    try:
        sock.sendall(request * (count - 1) + request.replace(b"\r\n\r\n",
                                                             b"\r\nConnection: close\r\n\r\n"))
        received = b""
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            received += chunk
        answered = received.count(b"HTTP/1.1 200")
        return 200 if answered == count else f"{answered} of {count} answered"
    finally:
        sock.close()


def half_closed(port):
    sock = connect(port)
    try:
        sock.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        sock.shutdown(socket.SHUT_WR)
        return answer_of(sock)
    finally:
        sock.close()


PER_CLIENT = 64  # the server's connections_per_client (docs/17-serving.md, the limits)


def connect_from(port, source):
    """A connection from the loopback address `source` (all of 127.0.0.0/8 is this machine)."""
    return socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0))


def still_open(socks):
    """How many of `socks` the server still holds open: those with nothing to read (no bytes
    were sent on them, so a readable one has been closed by the server). One poll for all: the
    server's 10-second silence limit must not close them while they are counted."""
    poller = select.poll()
    for sock in socks:
        poller.register(sock, select.POLLIN)
    readable = {fd for fd, _ in poller.poll(100)}
    return sum(sock.fileno() not in readable for sock in socks)


def idle_connections(port, count, addresses):
    """Holds `count` idle connections, spread over `addresses` source addresses, while a normal
    request from 127.0.0.1 is answered. Returns (connections the server kept open, its answer)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, count + 256)), hard))
    held = [connect_from(port, f"127.0.1.{1 + i % addresses}") for i in range(count)]
    try:
        time.sleep(0.5)  # the server accepts (or refuses) them all
        kept = still_open(held)
        status, _ = call(port, "GET", "/api/health", timeout=10)
        return kept, status
    finally:
        for sock in held:
            sock.close()


def one_byte_a_second(port, seconds, result):
    """A request sent one byte a second; the server keeps serving others meanwhile."""
    sock = connect(port, seconds + 10)
    request = b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    try:
        for byte in request[:seconds]:
            sock.sendall(bytes([byte]))
            time.sleep(1)
        result.append("held a connection, as it may")
    except (BrokenPipeError, ConnectionResetError):
        result.append("closed by the server")
    finally:
        sock.close()


def stream_answer(port, sentence):
    """POST /api/translate/stream: its status and its last line (http.client undoes the
    chunking)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("POST", "/api/translate/stream", json.dumps({"text": sentence}),
                           {"Content-Type": "application/json"})
        response = connection.getresponse()
        lines = response.read().decode().splitlines()
        return response.status, json.loads(lines[-1]) if lines else {}
    finally:
        connection.close()


def fail(message):
    raise SystemExit("FAIL: " + message)


def main():
    sentence = "El gato come pan."
    expected = translate_offline(binary, model, [sentence])[0]
    with Served(binary, model) as server:
        port = server.port
        if call(port, "GET", "/api/health")[0] != 200:
            fail("the server does not answer before the attacks")
        rss_loaded, _ = server.rss_kib()
        slow = []
        slow_client = threading.Thread(target=one_byte_a_second, args=(port, 8, slow))
        slow_client.start()
        failures = []
        for name, attack, accepted in ATTACKS:
            started = time.monotonic()
            outcome = attack(port)
            seconds = time.monotonic() - started
            health = call(port, "GET", "/api/health", timeout=10)[0] if server.running() else None
            good = outcome in accepted and health == 200
            print(f"{'ok  ' if good else 'FAIL'} {name}: {outcome} in {seconds:.1f} s; "
                  f"then /api/health {health}")
            if not good:
                failures.append(name)
        # 1,000 from 16 addresses (63 each, under the per-client limit): all held open, and a
        # request meanwhile is answered.
        kept, outcome = idle_connections(port, 1000, 16)
        good = kept == 1000 and outcome == 200
        print(f"{'ok  ' if good else 'FAIL'} 1,000 idle connections from 16 addresses: {kept} "
              f"held open; a request meanwhile answered {outcome}")
        if not good:
            failures.append("1,000 idle connections")
        # 300 from one address: only PER_CLIENT are kept, the rest closed at once, and another
        # client is still answered.
        kept, outcome = idle_connections(port, 300, 1)
        good = kept == PER_CLIENT and outcome == 200
        print(f"{'ok  ' if good else 'FAIL'} 300 idle connections from one address: {kept} "
              f"held open (the limit is {PER_CLIENT}); another client meanwhile answered {outcome}")
        if not good:
            failures.append("300 idle connections from one address")
        slow_client.join()
        print(f"ok   one byte a second for 8 s: {slow[0]}; every attack above was answered "
              "meanwhile")
        if failures:
            fail(f"{len(failures)} attacks: " + "; ".join(failures))
        status, reply = call(port, "POST", "/api/translate", {"text": sentence})
        if status != 200 or reply["translation"] != expected:
            fail(f"after the attacks: {status} {reply}, offline translate gives {expected!r}")
        status, last = stream_answer(port, sentence)
        if status != 200 or last.get("translation") != expected:
            fail(f"after the attacks, the stream's answer: {status} {last}, offline translate "
                 f"gives {expected!r}")
        _, rss_peak = server.rss_kib()
        grown = (rss_peak - rss_loaded) / 1024
        print(f"memory: {rss_loaded / 1024:.0f} MiB after loading, peak {rss_peak / 1024:.0f} "
              f"MiB (+{grown:.0f} MiB; bound +{RSS_BOUND_MIB} MiB)")
        if grown > RSS_BOUND_MIB:
            fail(f"peak memory grew {grown:.0f} MiB, over the bound of {RSS_BOUND_MIB} MiB")
    print(f"ok: {len(ATTACKS) + 2} attacks; the server still translates {sentence!r} as "
          f"{expected!r}")


main()
