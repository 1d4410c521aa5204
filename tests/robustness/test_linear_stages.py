"""Stages a file configures run in linear time and bounded memory (issue 25, items 6 and 7).

Each case runs in a subprocess under a time limit and an address-space limit, on both
backends, at a size where the old code took far longer than the limit: ``Replace``
re-applied its change over the whole string once per match (``\\s+`` on 200k
characters: ~150 s), added tokens with ``lstrip``/``single_word`` searched from the
text's start for every match (200k: ~90 s), a 2 KB file of ``Replace "a" -> "a" x 100``
three times took 98 s to encode ``"a"``, and padding to a fixed 1,048,576 tokens grew
``encode_batch(["hello"] * 32)`` to 2.4 GB. No timing is asserted: a hang is the time
limit, a blow-up the memory limit.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys

import pytest

from tests.robustness.helpers import BACKENDS, tokenizer_json, use_backend

TIME_LIMIT = 60  # seconds; each case takes ~1-3 s now, minutes to hours before
MEMORY_LIMIT = 1 << 30  # bytes of address space
N = 400_000  # characters of the long texts (the old Replace: ~10 minutes)


def _limit_memory():  # in the child, before exec
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def _run(tmp_path, backend: str, document: dict, body: str) -> str:
    """Run ``body`` with ``tok`` loaded from ``document``; return what it printed."""
    use = os.environ | {"WORDPIECES_BACKEND": backend}
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    code = ("from wordpieces.errors import TokenizeError\n"
            "from wordpieces.tokenizer import Tokenizer\n"
            f"tok = Tokenizer.from_file({str(path)!r})\n{body}\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=use, timeout=TIME_LIMIT, preexec_fn=_limit_memory)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout.strip()


@pytest.fixture(params=BACKENDS)
def backend(request, monkeypatch):
    use_backend(request.param, monkeypatch)  # skips native without the extension
    return request.param


def _with(normalizer: dict | None = None, added: list[dict] | None = None,
          padding: dict | None = None) -> dict:
    document = tokenizer_json()
    if normalizer is not None:
        document["normalizer"] = normalizer
    if added:
        document["added_tokens"] += added
    if padding is not None:
        document["padding"] = padding
    return document


def _replace(pattern: dict, content: str) -> dict:
    return {"type": "Replace", "pattern": pattern, "content": content}


def _hello(**strips) -> list[dict]:
    """``hello`` (id 5) as an added token with these strip options."""
    return [{"id": 5, "content": "hello", "single_word": False, "lstrip": False,
             "rstrip": False, "normalized": False, "special": False, **strips}]


# ---------------------------------------------------------------- one pass per stage


@pytest.mark.parametrize("pattern, text, width, last", [
    ({"String": "b"}, f"'b ' * {N // 2}", 2, 0), ({"Regex": "[bc]+"}, f"'bc  ' * {N // 4}", 4, 1),
], ids=["string", "regex"])
def test_replace_is_linear(tmp_path, backend, pattern, text, width, last):
    """Every match replaced in one pass: 400k characters in seconds, HF's alignment kept
    (the content aligned to the last character of what it replaced)."""
    got = _run(tmp_path, backend, _with(_replace(pattern, "a")),
               f"e = tok.encode({text}, add_special_tokens=False)\n"
               f"print(len(e.tokens), set(e.tokens), e.offsets[:2], e.offsets[-1])")
    n = N // width
    ends = [(last, last + 1), (width + last, width + last + 1)]
    assert got == f"{n} {{'a'}} {ends} {(N - width + last, N - width + last + 1)}"


@pytest.mark.parametrize("strips", [{"lstrip": True}, {"single_word": True},
                                    {"rstrip": True}, {"lstrip": True, "rstrip": True}],
                         ids=["lstrip", "single_word", "rstrip", "both"])
def test_added_tokens_with_strips_are_found_in_one_scan(tmp_path, backend, strips):
    """lstrip/single_word looked from the text's start for every match: now one scan."""
    n = N // 6
    got = _run(tmp_path, backend, _with(added=_hello(**strips)),
               f"e = tok.encode('hello ' * {n}, add_special_tokens=False)\n"
               f"print(len(e.ids), set(e.ids))")
    assert got == f"{n} {{5}}"


@pytest.mark.parametrize("normalizer, text", [
    ({"type": "Strip", "strip_left": True, "strip_right": True}, f"' ' * {N} + 'a' + ' ' * {N}"),
    ({"type": "Prepend", "prepend": "\u2581"}, f"'a ' * {N // 2}"),
    ({"type": "NFKD"}, f"'e\\u0301' * {N // 2}"),
    ({"type": "NFC"}, f"'e\\u0301' * {N // 2}"),
], ids=["strip", "prepend", "nfkd", "nfc"])
def test_other_edit_and_unicode_stages_are_linear(tmp_path, backend, normalizer, text):
    """Strip, Prepend and the Unicode forms on 400k characters: one pass each."""
    got = _run(tmp_path, backend, _with(normalizer),
               f"e = tok.encode({text}, add_special_tokens=False)\nprint(len(e.ids) > 0)")
    assert got == "True"


# ---------------------------------------------------------------- growth


def _amplifier(times: int, stages: int) -> dict:
    return {"type": "Sequence",
            "normalizers": [_replace({"String": "a"}, "a" * times)] * stages}


@pytest.mark.parametrize("times", [100, 1000])
def test_normalization_cannot_amplify_a_text_without_bound(tmp_path, backend, times):
    """Replace a -> a x 100, three times: a million characters from one; refused at once."""
    got = _run(tmp_path, backend, _with(_amplifier(times, 3)),
               "try:\n    tok.encode('a')\nexcept TokenizeError as e:\n    print(e)")
    assert got.startswith("the normalizer Replace(String('a'), content='aaa")
    assert "would grow a text of 1 character to" in got
    assert "over the cap of 65,600 (normalization may make a text at most 64 times" in got


@pytest.mark.parametrize("times", [100, 1000])
def test_decoding_cannot_amplify_tokens_without_bound(tmp_path, backend, times):
    """A decoder Sequence of Replace a -> a x 1000, three times: refused before it builds."""
    document = _with()
    document["decoder"] = {"type": "Sequence", "decoders": [
        {"type": "Replace", "pattern": {"String": "a"}, "content": "a" * times}] * 3}
    got = _run(tmp_path, backend, document,
               "try:\n    tok.decode([tok.token_to_id('a')] * 10)\n"
               "except TokenizeError as e:\n    print(e)")
    assert got.startswith("the decoder ReplaceDecoder(String('a'), content='aaa"), got
    assert "(decoding may make a text at most 64 times as long" in got


def test_modest_growth_still_works(tmp_path, backend):
    """Replace a -> a x 100 once (or twice) on a short text is far under the cap."""
    got = _run(tmp_path, backend, _with(_amplifier(100, 2)),
               "print(tok.encode('a', add_special_tokens=False).ids)")
    assert got == "[1]"  # one word of 10,000 characters: [UNK]


# ---------------------------------------------------------------- padding per batch


FIXED = {"strategy": {"Fixed": 1 << 20}, "direction": "Right", "pad_to_multiple_of": None,
         "pad_id": 0, "pad_type_id": 0, "pad_token": "[PAD]"}
CAP_WORDS = "padding 32 rows to 1,048,576 tokens makes 33,554,432 tokens, over the cap of " \
            "16,777,216 for one batch"


@pytest.mark.parametrize("call", [
    "tok.encode_batch(['hello'] * 32)",
    "tok.encode_batch_ids(['hello'] * 32)",
    "tok(['hello'] * 32, padding='max_length', max_length=1 << 20, return_tensors='np')",
    "tok(['hello'] * 32, padding='max_length', max_length=1 << 20)",
    "tok(['hello'] * 32, padding=True, pad_to_multiple_of=1 << 20, return_tensors='np')",
    "tok([['hello']] * 32, is_split_into_words=True, padding='max_length', "
    "max_length=1 << 20)",
    "tok.pad({'input_ids': [[5]] * 32}, padding='max_length', max_length=1 << 20)",
], ids=["encode_batch", "ids", "np", "lists", "multiple", "words", "pad"])
def test_padding_is_bounded_per_batch(tmp_path, backend, call):
    """The cap on one padded length times 32 rows: refused before the rows are padded."""
    padding = FIXED if call.startswith("tok.encode") else None
    got = _run(tmp_path, backend, _with(padding=padding),
               f"try:\n    {call}\nexcept TokenizeError as e:\n    print(e)")
    assert got.startswith(CAP_WORDS)


@pytest.mark.parametrize("call", [
    "tok.encode_batch_ids(texts)", "tok.encode_batch(texts)",
    "tok(texts, padding=True, return_tensors='np')", "tok(texts, padding=True)"],
    ids=["ids", "encode_batch", "np", "lists"])
def test_padding_to_the_longest_is_bounded_per_batch(tmp_path, backend, call):
    """One text of 200,000 words among 200 short ones: 40 million padded tokens refused."""
    padding = {**FIXED, "strategy": "BatchLongest"} if call.startswith("tok.encode") else None
    got = _run(tmp_path, backend, _with(padding=padding),
               "texts = ['hello ' * 200_000] + ['hello'] * 200\n"
               f"try:\n    {call}\nexcept TokenizeError as e:\n    print(e)")
    assert got.startswith("padding 201 rows to 200,002 tokens makes 40,200,402 tokens, over "
                          "the cap of 16,777,216 for one batch")


def test_the_padded_windows_of_one_input_are_bounded(tmp_path, backend):
    """A 120-character text cut into windows of 4, each padded to 1,048,576: 1.1 GB before."""
    document = _with(padding=FIXED)
    document["truncation"] = {"direction": "Right", "max_length": 4, "strategy": "LongestFirst",
                              "stride": 1}
    got = _run(tmp_path, backend, document,
               "try:\n    tok.encode('hello ' * 20)\nexcept TokenizeError as e:\n    print(e)")
    assert got.startswith("padding 19 rows to 1,048,576 tokens makes 19,922,944 tokens")
