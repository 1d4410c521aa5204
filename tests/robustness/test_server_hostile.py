"""``wordpieces serve`` against hostile requests: only its own page may use it, every request's
work is bounded before it starts, and a bad or slow request is a quick 4xx.

The real server runs in a subprocess on a free loopback port, once per backend, under a
1 GiB address-space limit (``RLIMIT_AS``) so that a request which made it build gigabytes
would fail there rather than pass slowly; requests go out through ``http.client`` or raw
sockets. Hangs are caught by socket timeouts, never by timing assertions.

Not handled here: the API's answers (tests/unit/tools/test_playground.py), the page in a
browser (tests/browser).
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import resource
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from wordpieces.fast import backend
from wordpieces.tools.playground.api import MAX_TEXT_CHARS, toy_vocabulary
from wordpieces.tools.playground.server import BODY_TIMEOUT, LISTEN_BACKLOG, MAX_BODY_BYTES

ADDRESS_SPACE = 1 << 30  # the server's RLIMIT_AS: the compare peaked at 4.35 GB
HANG_GUARD = 30  # seconds any one socket operation may take before the test fails
DENSE_TEXT = "a " * (MAX_TEXT_CHARS // 2)  # one piece per two characters: the most pieces


def _limit_address_space():  # in the child, before exec
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


class Server:
    """A running ``wordpieces serve`` subprocess: its process and port."""

    def __init__(self, proc: subprocess.Popen, port: int):
        self.proc = proc
        self.port = port
        self.origin = f"http://127.0.0.1:{port}"

    def request(self, method: str, path: str, body: bytes | None = None,
                headers: dict | None = None) -> tuple[int, dict]:
        """Status and JSON answer of one request on a new connection."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=HANG_GUARD)
        try:
            conn.request(method, path, body=body, headers=headers or {})
            response = conn.getresponse()
            return response.status, json.loads(response.read())
        finally:
            conn.close()

    def post(self, path: str, body: bytes | dict, **headers: str) -> tuple[int, dict]:
        """A POST as the page sends it (JSON, its own Origin), ``headers`` changed."""
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        sent = {"Content-Type": "application/json", "Origin": self.origin}
        sent.update({name.replace("_", "-"): value for name, value in headers.items()})
        return self.request("POST", path, data, {k: v for k, v in sent.items() if v})

    def memory_mib(self, field: str) -> int:
        """``VmHWM`` (peak resident) or ``VmRSS`` of the server, in MiB (Linux)."""
        status = Path(f"/proc/{self.proc.pid}/status")
        if not status.exists():
            pytest.skip("needs /proc to read the server's memory")
        for line in status.read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) // 1024
        raise AssertionError(f"no {field} in {status}")


@pytest.fixture(scope="module", params=["native", "python"])
def server(request, tmp_path_factory):
    """``wordpieces serve -t toy.vocab.txt -t toy-with-letter-a.vocab.txt`` on ``request.param``."""
    if request.param == "native" and backend.backend() != "native":
        pytest.skip(f"native extension not available: {backend.backend()}")
    folder = tmp_path_factory.mktemp("serve")
    (folder / "toy.vocab.txt").write_text("\n".join(toy_vocabulary()) + "\n")
    (folder / "toy-with-letter-a.vocab.txt").write_text("\n".join(toy_vocabulary() + ["a"]) + "\n")
    env = dict(os.environ, WORDPIECES_BACKEND=request.param,
               MALLOC_ARENA_MAX="2")  # each thread's malloc arena reserves 64 MB of the limit
    proc = subprocess.Popen(
        [sys.executable, "-m", "wordpieces", "serve", "--port", "0", "-q",
         "-t", "toy.vocab.txt", "-t", "toy-with-letter-a.vocab.txt"],
        cwd=folder, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=_limit_address_space)
    try:
        assert proc.stdout is not None and proc.stderr is not None
        line = proc.stdout.readline()
        assert line.startswith("wordpieces serve: http://127.0.0.1:"), proc.stderr.read()
        yield Server(proc, int(line.split()[2].rstrip("/").rsplit(":", 1)[1]))
    finally:
        proc.send_signal(signal.SIGCONT)  # in case a test stopped it
        proc.terminate()
        proc.wait(timeout=10)


def assert_still_serving(server: Server) -> None:
    status, answer = server.post("/api/encode", {"tokenizer": "toy", "text": "players"})
    assert status == 200 and answer["count"] == 4


# ---------------------------------------------------------------- the request


def flood_body() -> bytes:
    """The issue's compare: one name 2,881 times and a 5,000-character text, 64 KiB (the
    name as long as the issue's ``bert-base-uncased``)."""
    body = json.dumps({"tokenizers": ["toy-with-letter-a"] * 2881, "text": DENSE_TEXT}).encode()
    assert MAX_BODY_BYTES - 1024 < len(body) <= MAX_BODY_BYTES
    return body


def test_the_64_kib_compare_from_another_page_is_refused(server):
    """As the issue sent it, cross-origin and text/plain: 403 before the body is read."""
    status, answer = server.post("/api/compare", flood_body(), Origin="http://evil.example",
                                 Content_Type="text/plain")
    assert status == 403
    assert answer["error"].startswith("Origin 'http://evil.example': this server answers "
                                      "only its own page")
    assert_still_serving(server)


def test_the_64_kib_compare_from_the_page_itself_is_refused_before_work(server):
    """Same origin and JSON, so only the list cap stops it: 400 naming the count, in a server
    limited to 1 GiB of address space (the old answer was 31 s and 4.35 GB); then the
    biggest compare allowed runs in that limit, and the peak stays small."""
    status, answer = server.post("/api/compare", flood_body())
    assert status == 400
    assert answer["error"] == ("request body: tokenizers: 2881 names, more than the 2 "
                               "tokenizers loaded (name each at most once)")
    status, answer = server.post("/api/compare", {"tokenizers": ["toy", "toy-with-letter-a"],
                                                  "text": DENSE_TEXT})
    assert status == 200
    assert [r["count"] for r in answer["results"]] == [MAX_TEXT_CHARS // 2 + 2] * 2
    assert server.memory_mib("VmHWM") < 400


def test_a_name_twice_is_refused(server):
    status, answer = server.post("/api/compare", {"tokenizers": ["toy", "toy"], "text": "a"})
    assert status == 400
    assert answer["error"] == ("request body: tokenizers[1]: 'toy' is named twice (name each "
                               "tokenizer once)")


def test_a_field_no_route_reads_is_refused(server):
    """A list the route never reads is not carried along: every list is capped."""
    status, answer = server.post("/api/encode", {"tokenizer": "toy", "text": "a",
                                                 "more": [0] * 5000})
    assert status == 400
    assert answer["error"] == ("request body: unknown field 'more' (expected: tokenizer, "
                               "text)")


# ---------------------------------------------------------------- origin and content type


@pytest.mark.parametrize("origin", ["http://evil.example", "null", "http://127.0.0.1:1",
                                    "https://127.0.0.1", "http://localhost"])
@pytest.mark.parametrize("method", ["GET", "POST"])
def test_a_request_from_another_origin_is_403(server, origin, method):
    """Another site, a sandboxed frame (``null``), another port or scheme: all refused."""
    if origin == "https://127.0.0.1":
        origin = f"https://127.0.0.1:{server.port}"
    if method == "GET":
        status, answer = server.request("GET", "/api/tokenizers", headers={"Origin": origin})
    else:
        status, answer = server.post("/api/encode", {"tokenizer": "toy", "text": "a"},
                                     Origin=origin)
    assert status == 403 and answer["error"].startswith(f"Origin {origin!r}:")


def test_the_page_s_own_origin_and_no_origin_are_answered(server):
    assert server.post("/api/encode", {"tokenizer": "toy", "text": "play"})[0] == 200
    assert server.post("/api/encode", {"tokenizer": "toy", "text": "play"}, Origin="")[0] == 200
    localhost = {"Host": f"localhost:{server.port}", "Origin": f"http://LOCALHOST:{server.port}"}
    assert server.request("GET", "/api/tokenizers", headers=localhost)[0] == 200


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded",
                                          "multipart/form-data; boundary=x", "",
                                          "application/jsonx", "text/json"])
def test_a_post_not_declared_json_is_415(server, content_type):
    """What a page elsewhere may send without asking first (and no type at all)."""
    status, answer = server.post("/api/encode", {"tokenizer": "toy", "text": "a"},
                                 Content_Type=content_type)
    assert status == 415
    named = f"Content-Type {content_type!r}" if content_type else "no Content-Type"
    assert answer["error"] == f"{named}: a POST body must be sent as application/json"


def test_json_with_a_charset_is_answered(server):
    status, _ = server.post("/api/encode", {"tokenizer": "toy", "text": "a"},
                            Content_Type="Application/JSON; charset=utf-8")
    assert status == 200


# ---------------------------------------------------------------- bad text


@pytest.mark.parametrize("body, path", [
    (b'{"tokenizer": "toy", "text": "\\ud800x play"}', "text"),
    (b'{"tokenizer": "toy", "text": "play \\udfff"}', "text"),
    (b'{"tokenizer": "\\ud800", "text": "play"}', "tokenizer"),
], ids=["high-first", "low-last", "in-name"])
def test_a_lone_surrogate_is_400_naming_the_field(server, body, path):
    """JSON's \\ud800 escape without its pair decodes to a lone surrogate: not text."""
    status, answer = server.post("/api/encode", body)
    assert status == 400
    assert answer["error"].startswith(f"request body: {path}: the string '")
    assert "holds a lone surrogate" in answer["error"]


def test_a_lone_surrogate_in_a_compared_name_is_400(server):
    status, answer = server.post("/api/compare",
                                 b'{"tokenizers": ["toy", "\\udc00"], "text": "a"}')
    assert status == 400
    assert answer["error"].startswith("request body: tokenizers[1]: the string '\\udc00' "
                                      "holds a lone surrogate")


def test_a_surrogate_pair_is_text(server):
    """\\ud83d\\ude00 is one character (U+1F600): encoded, its offsets one code point."""
    status, answer = server.post("/api/encode", b'{"tokenizer": "toy", "text": "\\ud83d\\ude00"}')
    assert status == 200 and answer["text"] == "\U0001F600"


# ---------------------------------------------------------------- slow and short bodies


def raw_post(server: Server, declared: int, sent: bytes) -> socket.socket:
    """A connection that has sent a POST's headers declaring ``declared`` bytes, then ``sent``."""
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=HANG_GUARD)
    sock.sendall(f"POST /api/encode HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
                 f"Content-Type: application/json\r\nContent-Length: {declared}\r\n\r\n"
                 .encode() + sent)
    return sock


def read_answer(sock: socket.socket) -> bytes:
    answer = b""
    while chunk := sock.recv(65536):
        answer += chunk
    return answer


def test_a_body_shorter_than_its_length_is_a_quick_400(server):
    """The connection stays open: the server stops waiting after BODY_TIMEOUT (the old one
    waited 10 s, then answered 500); meanwhile it answers other clients."""
    with contextlib.closing(raw_post(server, 100, b'{"tok')) as sock:
        assert_still_serving(server)
        sock.settimeout(BODY_TIMEOUT + HANG_GUARD)
        answer = read_answer(sock)
    assert answer.startswith(b"HTTP/1.0 400 ")
    assert answer.endswith(f'{{"error": "request body: 5 of the 100 bytes of its '
                           f'Content-Length arrived within {BODY_TIMEOUT:g} s"}}'.encode())


def test_a_body_cut_off_by_the_client_is_400(server):
    with contextlib.closing(raw_post(server, 100, b'{"tok')) as sock:
        sock.shutdown(socket.SHUT_WR)
        answer = read_answer(sock)
    assert answer.startswith(b"HTTP/1.0 400 ")
    assert b"request body: the connection ended after 5 of the 100 bytes" in answer


# ---------------------------------------------------------------- bursts


def test_a_burst_of_32_connections_is_held_while_the_server_is_busy(server):
    """With the server stopped (SIGSTOP), the kernel queues connections up to the listen
    backlog; beyond it, SYNs are dropped and clients stall 1-3 s (the old backlog was 5).
    All 32 connect, and each is answered once the server runs again."""
    assert LISTEN_BACKLOG >= 32
    server.proc.send_signal(signal.SIGSTOP)
    clients = []
    try:
        for _ in range(32):
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
            conn.connect()  # raises TimeoutError when the backlog is full
            clients.append(conn)
    finally:
        server.proc.send_signal(signal.SIGCONT)
    try:
        for conn in clients:
            conn.timeout = HANG_GUARD
            assert conn.sock is not None
            conn.sock.settimeout(HANG_GUARD)
            conn.request("GET", "/api/tokenizers")
            assert conn.getresponse().status == 200
    finally:
        for conn in clients:
            conn.close()
