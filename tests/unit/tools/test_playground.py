"""The playground's API: its answers are encode's, explain's and inspect's, and every bad
request is a 4xx with a JSON error while the server keeps serving.

The answers are checked on ``Playground`` directly; HTTP (routes, limits, path traversal,
malformed bodies) against a real server on a free loopback port.
"""

from __future__ import annotations

import dataclasses
import http.client
import json
import threading
import urllib.request
from urllib.error import HTTPError

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wordpieces.tokenizer import Tokenizer
from wordpieces.tools.explain import explain
from wordpieces.tools.playground import api
from wordpieces.tools.playground.api import ApiError, Playground, toy_vocabulary
from wordpieces.tools.playground.server import MAX_BODY_BYTES, make_server


def toy(**options) -> Tokenizer:
    return Tokenizer.from_vocab(toy_vocabulary(), **options)


@pytest.fixture(scope="module")
def playground() -> Playground:
    return Playground({"toy": toy(), "toy-cased": toy(lowercase=False)})


@pytest.fixture(scope="module")
def url(playground):
    """The base URL of a playground server running in a thread of this process."""
    server = make_server(playground, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.url
    server.shutdown()
    server.server_close()


def get(url: str) -> tuple[int, dict | str]:
    """Status and body (JSON decoded when JSON) of a GET."""
    return _open(urllib.request.Request(url))


def post(url: str, body: bytes | dict) -> tuple[int, dict | str]:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    return _open(urllib.request.Request(url, data=data, method="POST",
                                        headers={"Content-Type": "application/json"}))


def _open(request) -> tuple[int, dict | str]:
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            status, kind, raw = response.status, response.headers["Content-Type"], response.read()
    except HTTPError as error:
        status, kind, raw = error.code, error.headers["Content-Type"], error.read()
    return status, json.loads(raw) if kind.startswith("application/json") else raw.decode()


def raw_request(url: str, request_bytes: bytes) -> bytes:
    """Send bytes as they are (no client-side path cleaning) and return the raw answer."""
    host, port = url.removeprefix("http://").rstrip("/").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    conn.connect()
    assert conn.sock is not None
    conn.sock.sendall(request_bytes)
    answer = b""
    while chunk := conn.sock.recv(65536):
        answer += chunk
    conn.close()
    return answer


# ---------------------------------------------------------------- the answers


def test_toy_vocabulary_splits_the_classic_examples():
    """player+s, play+ing, play+ed+... and running -> [UNK], as the teaching demo shows."""
    tok = toy()
    assert tok.tokenize("players playing played running") == [
        "player", "##s", "play", "##ing", "play", "##ed", "[UNK]"]


def test_encode_pieces_are_the_encoding(playground):
    """Tokens, ids, offsets and word ids are exactly ``Tokenizer.encode``'s."""
    text = "The Players played, running"
    answer = playground.encode("toy", text)
    enc = toy().encode(text)
    assert [p["token"] for p in answer["pieces"]] == enc.tokens
    assert [p["id"] for p in answer["pieces"]] == enc.ids
    assert [(p["start"], p["end"]) for p in answer["pieces"]] == enc.offsets
    assert [p["word"] for p in answer["pieces"]] == enc.word_ids
    assert answer["count"] == len(enc.ids)


def test_encode_kinds_mark_starts_continuations_specials_and_unk(playground):
    answer = playground.encode("toy", "players running")
    assert [(p["token"], p["kind"]) for p in answer["pieces"]] == [
        ("[CLS]", "special"), ("player", "start"), ("##s", "continuation"),
        ("[UNK]", "unk"), ("[SEP]", "special")]


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet="playerPLAYingsdly ,.!é☃", max_size=40))
def test_encode_kinds_follow_the_tokens(text):
    """Whatever the text: continuation iff ``##``, unk iff ``[UNK]``, special iff masked."""
    answer = Playground({"toy": toy()}).encode("toy", text)
    enc = toy().encode(text)
    for piece, special in zip(answer["pieces"], enc.special_tokens_mask, strict=True):
        expected = ("unk" if piece["token"] == "[UNK]" else "special" if special
                    else "continuation" if piece["token"].startswith("##") else "start")
        assert piece["kind"] == expected


def test_explain_is_the_trace_of_tools_explain(playground):
    text = "playing runner"
    answer = playground.explain("toy", text)
    assert answer["words"] == [dataclasses.asdict(t) for t in explain(toy(), text)]
    assert answer["words"][0]["positions"][0]["attempts"][-1] == {"candidate": "play",
                                                                  "found": True}
    assert "whole word unknown" in answer["words"][1]["unk_reason"]


def test_compare_encodes_with_each_tokenizer(playground):
    answer = playground.compare(["toy", "toy-cased"], "Player")
    assert [r["tokenizer"] for r in answer["results"]] == ["toy", "toy-cased"]
    assert [[p["token"] for p in r["pieces"]] for r in answer["results"]] == [
        ["[CLS]", "player", "[SEP]"], ["[CLS]", "[UNK]", "[SEP]"]]


def test_compare_needs_two_names(playground):
    with pytest.raises(ApiError) as caught:
        playground.compare(["toy"], "x")
    assert caught.value.status == 400


def test_compare_refuses_more_names_than_are_loaded(playground):
    with pytest.raises(ApiError) as caught:
        playground.compare(["toy"] * 3, "x")
    assert caught.value.status == 400
    assert str(caught.value) == ("request body: tokenizers: 3 names, more than the 2 "
                                 "tokenizers loaded (name each at most once)")


def test_compare_refuses_a_name_twice(playground):
    with pytest.raises(ApiError) as caught:
        playground.compare(["toy-cased", "toy-cased"], "x")
    assert caught.value.status == 400 and "tokenizers[1]: 'toy-cased' is named twice" in \
        str(caught.value)


def test_compare_checks_every_name_before_encoding(playground, monkeypatch):
    """An unknown second name is a 404 with no encode run for the first."""
    monkeypatch.setattr(Playground, "encode", lambda *_: pytest.fail("encoded"))
    with pytest.raises(ApiError) as caught:
        playground.compare(["toy", "nope"], "x")
    assert caught.value.status == 404


def test_compare_work_is_capped_at_text_length_times_names():
    """Five tokenizers on a full-length text is over MAX_WORK_CHARS; on 4,000 characters not."""
    assert api.MAX_WORK_CHARS < 5 * api.MAX_TEXT_CHARS <= 5 * 4000 + api.MAX_WORK_CHARS
    five = Playground({f"t{i}": toy() for i in range(5)})
    with pytest.raises(ApiError) as caught:
        five.compare(list(five.tokenizers), "a" * api.MAX_TEXT_CHARS)
    assert caught.value.status == 413
    assert str(caught.value) == (f"request body: 5 tokenizers x {api.MAX_TEXT_CHARS} characters "
                                 f"= {5 * api.MAX_TEXT_CHARS}, over the limit of "
                                 f"{api.MAX_WORK_CHARS} characters per request: compare fewer "
                                 f"or a shorter text")
    assert len(five.compare(list(five.tokenizers), "a" * 4000)["results"]) == 5


def test_a_request_holds_only_its_route_s_fields():
    assert api.parse_request(b'{"text": "a", "tokenizer": "t"}', "tokenizer", "text") == {
        "text": "a", "tokenizer": "t"}
    with pytest.raises(ApiError) as caught:
        api.parse_request(b'{"text": "a", "tokenizer": "t", "x": []}', "tokenizer", "text")
    assert str(caught.value) == "request body: unknown field 'x' (expected: tokenizer, text)"


@pytest.mark.parametrize("body, where", [
    (b'{"text": "\\ud800x play"}', "text: the string '\\ud800x play' holds a lone surrogate"),
    (b'{"text": "ok \\udfff"}', "text: the string 'ok \\udfff' holds a lone surrogate"),
    (b'{"text": ["a", ["\\ud801"]]}', "text[1][0]: the string '\\ud801' holds a lone"),
    (b'{"text": [{"k": "\\udc00"}]}', "text[0].k: the string '\\udc00' holds a lone"),
    (b'{"text": [{"\\udc00": 1}]}', "text[0]['\\udc00']: the key '\\udc00' holds a lone"),
])
def test_a_lone_surrogate_anywhere_is_400_naming_its_path(body, where):
    with pytest.raises(ApiError) as caught:
        api.parse_request(body, "text")
    assert caught.value.status == 400
    assert str(caught.value).startswith(f"request body: {where}")
    assert str(caught.value).isascii()  # quoted as an escape, so the answer encodes


def test_a_surrogate_pair_is_one_character():
    assert api.parse_request(b'{"text": "\\ud83d\\ude00"}', "text") == {"text": "\U0001F600"}


def test_vocab_gives_inspect_figures_and_longest_entries_without_specials(playground):
    answer = playground.vocab("toy")
    assert answer["vocab_size"] == 12
    assert answer["continuation_pieces"] == 5 and answer["word_start_pieces"] == 2
    assert answer["continuation_share"] == pytest.approx(5 / 7)
    assert answer["longest_entries"] == ["player", "##ing", "##ed", "##er", "##ly", "play",
                                         "##s"]


def test_vocab_lists_the_words_of_the_text_in_four_or_more_pieces():
    """abdcbd is ab ##d ##c ##b ##d (5 pieces); abcd is ab ##c ##d (3): left out."""
    tok = Tokenizer.from_vocab(["[UNK]", "a", "##b", "##c", "##d", "ab"])
    answer = Playground({"t": tok}).vocab("t", "abcd ab abdcbd\nabcd")
    assert answer["many_piece_words"] == [{"word": "abdcbd", "pieces": 5}]


def test_unknown_tokenizer_is_a_404_naming_the_loaded_ones(playground):
    with pytest.raises(ApiError) as caught:
        playground.encode("bert", "x")
    assert caught.value.status == 404
    assert "toy, toy-cased" in str(caught.value)


def test_text_over_the_limit_is_refused(playground):
    with pytest.raises(ApiError) as caught:
        playground.encode("toy", "a" * (api.MAX_TEXT_CHARS + 1))
    assert caught.value.status == 413


# ---------------------------------------------------------------- HTTP


def test_page_and_assets_are_served(url):
    status, page = get(url)
    assert status == 200 and '<script src="/app.js"' in page
    assert get(url + "app.js")[0] == 200 and get(url + "style.css")[0] == 200


def test_page_loads_nothing_from_elsewhere(url):
    """No CDN, no external font: every URL in the page and its assets is local."""
    for path in ("", "app.js", "style.css"):
        body = get(url + path)[1]
        assert isinstance(body, str)
        assert "http://" not in body and "https://" not in body and "//" + "cdn" not in body


def test_the_page_is_served_with_a_referrer_policy_that_keeps_its_origin(url):
    """Under "no-referrer" a browser sends "Origin: null" on the page's own POSTs, which the
    server refuses; "same-origin" sends the page's real Origin there and nothing elsewhere."""
    with urllib.request.urlopen(url, timeout=10) as response:
        assert response.headers["Referrer-Policy"] == "same-origin"


def test_a_post_answered_with_an_error_closes_its_connection(url):
    """Its body may be unread (refused from the headers): it must not be taken for a request."""
    answer = raw_request(url, b"POST /api/encode HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                              b"Content-Length: 20\r\n\r\nGET / HTTP/1.1\r\n\r\n")
    assert answer.startswith(b"HTTP/1.0 415") and b"Connection: close" in answer
    assert answer.count(b"HTTP/1.") == 1


def test_get_tokenizers_lists_names_in_order(url):
    status, answer = get(url + "api/tokenizers")
    assert status == 200
    assert [t["name"] for t in answer["tokenizers"]] == ["toy", "toy-cased"]


def test_post_encode_answers_as_the_playground(url, playground):
    status, answer = post(url + "api/encode", {"tokenizer": "toy", "text": "players"})
    assert status == 200 and answer == playground.encode("toy", "players")


def as_json(value):
    """``value`` as it reads back from JSON (tuples become lists)."""
    return json.loads(json.dumps(value))


def test_post_explain_and_compare(url, playground):
    assert post(url + "api/explain", {"tokenizer": "toy", "text": "played"})[1] == \
        as_json(playground.explain("toy", "played"))
    body = {"tokenizers": ["toy", "toy-cased"], "text": "Play"}
    assert post(url + "api/compare", body)[1] == playground.compare(["toy", "toy-cased"], "Play")


def test_get_vocab_takes_the_text_from_the_query(url, playground):
    status, answer = get(url + "api/vocab/toy-cased?text=playing%20played")
    assert status == 200 and answer == playground.vocab("toy-cased", "playing played")


@pytest.mark.parametrize("body, message", [
    (b"{bad", "invalid JSON"),
    (b"[1, 2]", "expected a JSON object, got an array"),
    (b'{"tokenizer": "toy"}', "missing field 'text'"),
    (b'{"tokenizer": "toy", "text": 3}', "text: expected a string, got a number"),
    (b'{"tokenizer": "toy", "text": NaN}', "NaN is not valid JSON"),
    (b"\xff\xfe", "not valid UTF-8"),
])
def test_malformed_bodies_are_400_with_a_json_error(url, body, message):
    status, answer = post(url + "api/encode", body)
    assert status == 400 and message in answer["error"]


def test_unknown_tokenizer_over_http_is_404(url):
    status, answer = post(url + "api/encode", {"tokenizer": "nope", "text": "x"})
    assert status == 404 and "no tokenizer 'nope'" in answer["error"]
    assert get(url + "api/vocab/nope")[0] == 404


def test_oversized_body_is_413_without_reading_it(url):
    """The declared length decides: the server answers before the body arrives."""
    head = (f"POST /api/encode HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Content-Type: application/json\r\n"
            f"Content-Length: {MAX_BODY_BYTES + 1}\r\n\r\n").encode()
    answer = raw_request(url, head)
    assert answer.startswith(b"HTTP/1.0 413") and b"over the limit" in answer


def test_long_text_is_413(url):
    status, answer = post(url + "api/encode", {"tokenizer": "toy",
                                               "text": "a" * (api.MAX_TEXT_CHARS + 1)})
    assert status == 413 and "over the limit" in answer["error"]


@pytest.mark.parametrize("path", ["/../pyproject.toml", "/static/../server.py",
                                  "/%2e%2e/%2e%2e/etc/passwd", "/static/index.html",
                                  "/api/", "/api/vocab/../../etc/passwd", "/favicon.png"])
def test_paths_outside_the_routes_are_404(url, path):
    answer = raw_request(url, f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    assert answer.startswith(b"HTTP/1.0 404"), answer[:80]
    assert b'{"error": ' in answer


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8000", "127.0.0.1.evil.example",
                                  ""])
def test_a_host_header_naming_another_machine_is_refused(url, host):
    """DNS rebinding: a page elsewhere reaching 127.0.0.1 still sends its own Host."""
    answer = raw_request(url, f"GET /api/tokenizers HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
    assert answer.startswith(b"HTTP/1.0 400") and b"answers only to" in answer


@pytest.mark.parametrize("host", ["127.0.0.1:8000", "localhost:8000", "LOCALHOST", "[::1]:80"])
def test_loopback_host_headers_are_answered(url, host):
    answer = raw_request(url, f"GET /api/tokenizers HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
    assert answer.startswith(b"HTTP/1.0 200")


def test_wrong_method_is_405(url):
    assert get(url + "api/encode")[0] == 405
    assert post(url + "api/tokenizers", {})[0] == 405


@pytest.mark.parametrize("request_line, status", [
    (b"GET / HTTP/one", b"400"), (b"BREW /pot HTTP/1.1", b"501"), (b"GET / HTTP/9.9", b"505")])
def test_bad_request_lines_are_a_json_4xx_or_5xx(url, request_line, status):
    answer = raw_request(url, request_line + b"\r\nHost: 127.0.0.1\r\n\r\n")
    assert answer.startswith(b"HTTP/1.0 " + status) and b'{"error": ' in answer


def test_garbage_does_not_stop_the_server(url):
    for garbage in (b"\x00\x01 nonsense\r\n\r\n", b"\r\n", b"GET /" + b"a" * 70000 + b"\r\n"):
        raw_request(url, garbage)
    assert get(url + "api/tokenizers")[0] == 200


# ---------------------------------------------------------------- padding, default, icon


def padded_toy() -> Tokenizer:
    """The toy tokenizer padding to 16 and truncating at 6, as a tokenizer.json may."""
    tok = toy()
    tok.enable_padding(length=16)
    tok.enable_truncation(6)
    return tok


def test_encode_leaves_out_the_tokenizer_s_padding_and_truncation():
    """A padded tokenizer.json must not show a row of [PAD] or hide the text past its limit."""
    text = "the player was playing, played and plays"
    answer = Playground({"padded": padded_toy()}).encode("padded", text)
    assert [p["token"] for p in answer["pieces"]] == toy().encode(text).tokens
    assert answer["count"] == len(toy().encode(text).ids) == 13  # not cut at 6, not padded to 16
    assert "[PAD]" not in [p["token"] for p in answer["pieces"]]


def test_listing_names_the_padding_and_truncation_left_out():
    listed = Playground({"padded": padded_toy(), "toy": toy()}).list_tokenizers()["tokenizers"]
    assert listed[0]["padding"]["length"] == 16 and listed[0]["truncation"]["max_length"] == 6
    assert listed[1]["padding"] is None and listed[1]["truncation"] is None


def test_the_listing_names_the_tokenizer_the_page_starts_with():
    tokenizers = {"toy": toy(), "bert": toy()}
    assert Playground(tokenizers).list_tokenizers()["default"] == "toy"
    assert Playground(tokenizers, default="bert").list_tokenizers()["default"] == "bert"
    with pytest.raises(ValueError, match="'gpt' is not among the loaded ones"):
        Playground(tokenizers, default="gpt")


@pytest.mark.parametrize("path", ["favicon.ico", "favicon.svg"])
def test_the_icon_is_served(url, path):
    """Browsers ask for /favicon.ico unprompted: an icon, not a 404."""
    with urllib.request.urlopen(url + path, timeout=10) as response:
        assert response.status == 200
        assert response.headers["Content-Type"] == "image/svg+xml"
        assert response.read().startswith(b"<svg ")


def test_the_page_names_its_icon(url):
    assert '<link rel="icon" href="/favicon.svg"' in get(url)[1]
