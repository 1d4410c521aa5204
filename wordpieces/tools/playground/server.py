"""Serve the playground page and its JSON API over the standard library's HTTP server.

Only a fixed set of routes exists: the page, its two assets and its icon (read from this
package's ``static/``; ``/favicon.ico``, which browsers ask for unprompted, is the same
icon), and ``/api/...``. Any other path, ``/../`` included, is a 404: nothing on
disk is ever looked up from a request path. Every error a client can cause is a 4xx with
a JSON body ``{"error": "..."}``, and an unexpected failure inside one request is a 500 for
that request only, so the server keeps serving.

Only this server's own page may use it. On loopback, a request whose ``Host`` header names
another machine is refused (DNS rebinding); a request carrying an ``Origin`` other than
``http://`` + its ``Host`` is a 403 (a page elsewhere, ``null`` included: a browser sends
the Origin of the page that made the request); a POST must say ``Content-Type:
application/json`` (415 otherwise: a page elsewhere can send ``text/plain`` or a form
without asking first, but not JSON). The page is served with ``Referrer-Policy:
same-origin``, under which the browser sends the page's real Origin on its own POSTs.

A POST body is refused from its ``Content-Length`` when over ``MAX_BODY_BYTES``, before it
is read, and must arrive whole within ``BODY_TIMEOUT`` seconds (400 otherwise: each
connection has its own thread, so a slow body holds only its own); a POST answered with an
error closes its connection, since its body may be left unread. The listen backlog
(``request_queue_size``) holds a burst of connections while threads start.

Not handled here: the answers themselves and the bounds on their work (``api``), TLS,
authentication (the server binds to loopback unless told otherwise), and keeping a slow
client from holding one thread until ``REQUEST_TIMEOUT`` seconds pass between headers.
"""

from __future__ import annotations

import json
import socket
import sys
import time
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib.resources import files
from urllib.parse import parse_qs, unquote, urlsplit

from .api import ApiError, Playground, field, parse_request

MAX_BODY_BYTES = 64 * 1024
REQUEST_TIMEOUT = 10  # seconds a connection may stay silent before it is closed
BODY_TIMEOUT = 2.0  # seconds a whole request body may take to arrive after its headers
LISTEN_BACKLOG = 128  # connections the kernel holds until the server accepts them
JSON_TYPE = "application/json"
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")  # Host headers a loopback server accepts
STATIC = {  # request path -> (file in static/, content type)
    "/": ("index.html", "text/html; charset=utf-8"),
    "/app.js": ("app.js", "text/javascript; charset=utf-8"),
    "/style.css": ("style.css", "text/css; charset=utf-8"),
    "/favicon.svg": ("favicon.svg", "image/svg+xml"),
    "/favicon.ico": ("favicon.svg", "image/svg+xml"),  # asked for unprompted: no 404 logged
}
# The page loads nothing from elsewhere: no CDN, no fonts, no inline script.
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; "
                               "frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    # not "no-referrer": under it a browser sends "Origin: null" on the page's own POSTs
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}


def static_file(name: str) -> bytes:
    """The bytes of a file shipped in ``static/`` (package data)."""
    return files(__package__).joinpath("static").joinpath(name).read_bytes()


class PlaygroundServer(ThreadingHTTPServer):
    """A threading HTTP server that holds the ``Playground`` its handlers answer from."""

    daemon_threads = True  # Ctrl-C does not wait for open connections
    request_queue_size = LISTEN_BACKLOG  # socketserver's 5 drops a burst's SYNs (1-3 s stalls)

    def __init__(self, address: tuple[str, int], playground: Playground, *,
                 log: bool = False):
        self.playground = playground
        self.log = log
        self.loopback = address[0] in ("localhost", "::1") or address[0].startswith("127.")
        if ":" in address[0]:  # an IPv6 address such as ::1
            self.address_family = socket.AF_INET6
        super().__init__(address, PlaygroundHandler)

    @property
    def url(self) -> str:
        """The address to open in a browser (IPv6 hosts in brackets)."""
        host, port = self.server_address[:2]
        host = str(host)
        return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"


class PlaygroundHandler(BaseHTTPRequestHandler):
    """One request: a static asset, an API answer, or a JSON error."""

    server: PlaygroundServer
    timeout = REQUEST_TIMEOUT
    server_version = "wordpieces-playground"
    sys_version = ""

    def do_GET(self) -> None:  # noqa: N802 -- the name http.server dispatches to
        self._answer(self._get)

    def do_HEAD(self) -> None:  # noqa: N802
        self._answer(self._get)

    def do_POST(self) -> None:  # noqa: N802
        self._answer(self._post)

    def _answer(self, route) -> None:
        """Run ``route`` and send what it returns, or the JSON error it raised."""
        try:
            self._check_host()
            self._check_origin()
            status, content_type, body = route(urlsplit(self.path))
        except ApiError as error:
            if self.command == "POST":
                self.close_connection = True  # its body may be unread or cut short
            status, content_type, body = error.status, *_json_body({"error": str(error)})
        except Exception as error:  # noqa: BLE001 -- one bad request must not stop the server
            status, content_type, body = 500, *_json_body(
                {"error": f"internal error: {type(error).__name__}: {error}"})
        self._send(status, content_type, body)

    def _check_host(self) -> None:
        """On loopback, answer only requests addressed to this machine by name.

        A web page elsewhere can point its own host name at 127.0.0.1 (DNS rebinding) and
        then read the answers as same-origin; its requests still carry its Host header.
        """
        if not self.server.loopback:
            return
        host = (self.headers.get("Host") or "").lower()
        name = host if host.endswith("]") else host.rsplit(":", 1)[0]
        if name not in LOOPBACK_NAMES:
            raise ApiError(400, f"Host {host!r}: this server answers only to "
                                f"{', '.join(LOOPBACK_NAMES)}")

    def _check_origin(self) -> None:
        """Refuse (403) a request made by a page of another origin than this server's.

        No Origin is a client other than a browser page (curl), or the page's own GET.
        """
        host = (self.headers.get("Host") or "").lower()
        for origin in self.headers.get_all("Origin") or []:
            if origin.strip().lower() != f"http://{host}":
                raise ApiError(403, f"Origin {origin!r}: this server answers only its own page "
                                    f"(http://{host}) and clients that send no Origin")

    def _check_content_type(self) -> None:
        """Refuse (415) a POST whose body is not declared JSON: no page can send that elsewhere
        without the browser asking this server first (a CORS preflight, never granted)."""
        declared = self.headers.get("Content-Type")
        if declared is None or declared.split(";", 1)[0].strip().lower() != JSON_TYPE:
            named = "no Content-Type" if declared is None else f"Content-Type {declared!r}"
            raise ApiError(415, f"{named}: a POST body must be sent as {JSON_TYPE}")

    def _get(self, url):
        if url.path in STATIC:
            name, content_type = STATIC[url.path]
            return 200, content_type, static_file(name)
        playground = self.server.playground
        if url.path == "/api/tokenizers":
            return 200, *_json_body(playground.list_tokenizers())
        if url.path.startswith("/api/vocab/"):
            name = unquote(url.path.removeprefix("/api/vocab/"))
            text = parse_qs(url.query).get("text", [""])[0]
            return 200, *_json_body(playground.vocab(name, text))
        if url.path in POST_ROUTES:
            raise ApiError(405, f"{url.path}: use POST with a JSON body")
        raise ApiError(404, f"{url.path}: not found")

    def _post(self, url):
        if url.path not in POST_ROUTES:
            if url.path in STATIC or url.path.startswith("/api/"):
                raise ApiError(405, f"{url.path}: use GET")
            raise ApiError(404, f"{url.path}: not found")
        self._check_content_type()
        answer, fields = POST_ROUTES[url.path]
        request = parse_request(self._read_body(), *fields)
        return 200, *_json_body(answer(self.server.playground, request))

    def _read_body(self) -> bytes:
        """The request body, refused (413) from its declared length when too large."""
        length_header = self.headers.get("Content-Length")
        if length_header is None:
            raise ApiError(411, "a POST needs a Content-Length header")
        try:
            length = int(length_header)
        except ValueError:
            raise ApiError(400, f"Content-Length: not a number: {length_header!r}") from None
        if length < 0:
            raise ApiError(400, f"Content-Length: negative: {length}")
        if length > MAX_BODY_BYTES:
            self.close_connection = True  # the unread body must not be taken for a request
            raise ApiError(413, f"request body: {length} bytes, over the limit of "
                                f"{MAX_BODY_BYTES}")
        return self._receive(length)

    def _receive(self, length: int) -> bytes:
        """``length`` bytes of body, all within ``BODY_TIMEOUT`` seconds (400 otherwise)."""
        deadline = time.monotonic() + BODY_TIMEOUT
        chunks: list[bytes] = []
        received = 0
        try:
            while received < length:
                self.connection.settimeout(max(deadline - time.monotonic(), 0.001))
                chunk = self.rfile.read1(length - received)
                if not chunk:
                    raise ApiError(400, f"request body: the connection ended after {received} "
                                        f"of the {length} bytes of its Content-Length")
                chunks.append(chunk)
                received += len(chunk)
        except TimeoutError:
            raise ApiError(400, f"request body: {received} of the {length} bytes of its "
                                f"Content-Length arrived within {BODY_TIMEOUT:g} s") from None
        finally:
            self.connection.settimeout(self.timeout)
        return b"".join(chunks)

    def _send(self, status: int, content_type: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in SECURITY_HEADERS.items():
            self.send_header(name, value)
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def send_error(self, code: int, message: str | None = None,
                   explain: str | None = None) -> None:
        """http.server's own errors (bad request line, unknown method) as JSON too."""
        self.close_connection = True
        # A request line that could not be read leaves http.server assuming HTTP/0.9, which
        # has no status line: answer with one anyway, so the client sees the 4xx.
        self.request_version = "HTTP/1.0"
        reason = message or HTTPStatus(code).phrase
        try:
            self._send(code, *_json_body({"error": reason}))
        except OSError:  # the client is gone: nothing to tell it
            pass

    def log_message(self, format: str, *args) -> None:  # noqa: A002 -- the base's name
        if self.server.log:
            sys.stderr.write(f"{self.address_string()} - {format % args}\n")


def _json_body(value: dict) -> tuple[str, bytes]:
    # backslashreplace: a lone surrogate an error message quotes becomes its JSON escape
    text = json.dumps(value, ensure_ascii=False)
    return "application/json; charset=utf-8", text.encode("utf-8", "backslashreplace")


def _encode(playground: Playground, request: dict) -> dict:
    return playground.encode(field(request, "tokenizer", str), field(request, "text", str))


def _explain(playground: Playground, request: dict) -> dict:
    return playground.explain(field(request, "tokenizer", str), field(request, "text", str))


def _compare(playground: Playground, request: dict) -> dict:
    return playground.compare(field(request, "tokenizers", list), field(request, "text", str))


POST_ROUTES = {  # path -> (answer, the fields of its request)
    "/api/encode": (_encode, ("tokenizer", "text")),
    "/api/explain": (_explain, ("tokenizer", "text")),
    "/api/compare": (_compare, ("tokenizers", "text")),
}


def make_server(playground: Playground, host: str = "127.0.0.1", port: int = 8000, *,
                log: bool = False) -> PlaygroundServer:
    """Bind the playground to ``host:port`` (port 0: any free port); serve_forever() runs it."""
    return PlaygroundServer((host, port), playground, log=log)
