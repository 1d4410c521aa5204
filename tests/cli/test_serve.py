"""``wordpieces serve``: starts on a free loopback port and prints its URL, loads the
default and the named tokenizers, fails in one line, and answers the README's curl
examples as the README shows.

Not handled here: the API's answers and errors in detail (tests/unit/tools/
test_playground.py), the page in a browser (tests/browser).
"""

from __future__ import annotations

import contextlib
import json
import re
import shlex
import shutil
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from tests.cli.test_cli import fails, ok
from tests.shared_data import shared_path
from wordpieces.formats.bundle import Bundle
from wordpieces.tokenizer import Tokenizer
from wordpieces.tools.playground.api import toy_vocabulary

README = Path(__file__).resolve().parents[2] / "docs" / "playground.md"
README_URL = "http://127.0.0.1:8000"


@contextlib.contextmanager
def serving(*args: str, cwd: Path):
    """Run ``wordpieces serve --port 0 ARGS`` in ``cwd``; yield its first line and URL."""
    proc = subprocess.Popen([sys.executable, "-m", "wordpieces", "serve", "--port", "0", "-q",
                             *args], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        assert proc.stdout is not None and proc.stderr is not None
        line = proc.stdout.readline()
        assert line.startswith("wordpieces serve: http://127.0.0.1:"), proc.stderr.read()
        yield line, line.split()[2].rstrip("/")
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def names(url: str) -> list[str]:
    with urllib.request.urlopen(url + "/api/tokenizers", timeout=10) as response:
        return [t["name"] for t in json.load(response)["tokenizers"]]


def beside_shared_bert(tmp_path: Path) -> Path:
    """A working directory whose ../shared/vocab holds BERT uncased (as the repository's)."""
    vocab = shared_path("vocab", "bert-base-uncased.vocab.txt")
    (tmp_path / "shared" / "vocab").mkdir(parents=True)
    (tmp_path / "shared" / "vocab" / vocab.name).symlink_to(vocab)
    (tmp_path / "work").mkdir()
    return tmp_path / "work"


def test_prints_the_url_and_serves_the_toy_vocabulary_by_default(tmp_path):
    with serving(cwd=tmp_path) as (line, url):
        assert "(tokenizers: toy; Ctrl-C to stop)" in line
        assert names(url) == ["toy"]
        with urllib.request.urlopen(url + "/", timeout=10) as response:
            assert b"wordpieces playground" in response.read()


@pytest.mark.shared_data
def test_default_adds_bert_uncased_from_shared_beside_the_working_directory(tmp_path):
    with serving(cwd=beside_shared_bert(tmp_path)) as (_, url):
        assert names(url) == ["toy", "bert-base-uncased"]


def test_each_tokenizer_and_bundle_member_is_a_choice(tmp_path):
    toy = Tokenizer.from_vocab(toy_vocabulary())
    Bundle(pt=toy, en=toy).save(str(tmp_path / "converter.zip"))
    (tmp_path / "teach.vocab.txt").write_text("\n".join(toy_vocabulary()) + "\n")
    with serving("-t", "teach.vocab.txt", "-t", "converter.zip", cwd=tmp_path) as (_, url):
        assert sorted(names(url)) == ["converter:en", "converter:pt", "teach"]


def test_help_has_examples_and_names_the_api():
    out = ok("serve", "--help").out
    assert "examples:\n  wordpieces serve" in out
    assert "POST /api/encode" in " ".join(out.split())


def test_a_port_in_use_is_a_one_line_error():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        message = fails("serve", "--port", port)
    assert message.startswith(f"wordpieces serve: error: 127.0.0.1:{port}: cannot listen")


def test_a_missing_tokenizer_is_a_one_line_error(tmp_path):
    message = fails("serve", "-t", tmp_path / "nope.txt")
    assert message.endswith("nope.txt: no such tokenizer file or directory")


def test_the_same_name_twice_is_refused(tmp_path):
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "v.txt").write_text("\n".join(toy_vocabulary()) + "\n")
    message = fails("serve", "-t", tmp_path / "a" / "v.txt", "-t", tmp_path / "b" / "v.txt")
    assert "a tokenizer named 'v' is already loaded" in message


def readme_curl_examples() -> list[tuple[str, str]]:
    """(command, answer shown) for each ``$ curl`` line of the README's Playground section."""
    section = README.read_text(encoding="utf-8").split("## Playground", 1)[1].split("\n## ")[0]
    lines = section.splitlines()
    return [(line[2:], lines[i + 1]) for i, line in enumerate(lines)
            if line.startswith("$ curl ")]


def test_readme_has_a_curl_example_per_endpoint():
    commands = " ".join(command for command, _ in readme_curl_examples())
    for endpoint in ("/api/tokenizers", "/api/encode", "/api/explain", "/api/compare",
                     "/api/vocab/"):
        assert endpoint in commands


@pytest.mark.shared_data
def test_readme_curl_examples_answer_as_shown(tmp_path):
    """Each command runs with curl against a default ``wordpieces serve``; an answer shown
    ending in ``…`` must start the real one, any other must equal it as JSON."""
    if shutil.which("curl") is None:
        pytest.skip("needs curl")
    with serving(cwd=beside_shared_bert(tmp_path)) as (_, url):
        for command, shown in readme_curl_examples():
            argv = shlex.split(re.sub(r"\s+#.*$", "", command).replace(README_URL, url))
            answer = subprocess.run(argv, capture_output=True, text=True, timeout=30,
                                    check=True).stdout
            if shown.endswith("…"):
                assert answer.startswith(shown.removesuffix("…")), command
            else:
                assert json.loads(answer) == json.loads(shown), command


# ---------------------------------------------------------------- vocab.txt options


def encode_tokens(url: str, name: str, text: str) -> list[str]:
    request = urllib.request.Request(url + "/api/encode", method="POST",
                                     data=json.dumps({"tokenizer": name, "text": text}).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return [p["token"] for p in json.load(response)["pieces"]]


@contextlib.contextmanager
def serving_loud(*args: str, cwd: Path):
    """``serving`` without -q: yield the URL and the process, whose stderr notes are read."""
    proc = subprocess.Popen([sys.executable, "-m", "wordpieces", "serve", "--port", "0",
                             *args], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        assert proc.stdout is not None and proc.stderr is not None
        line = proc.stdout.readline()
        assert line.startswith("wordpieces serve: http://127.0.0.1:"), proc.stderr.read()
        yield line.split()[2].rstrip("/"), proc
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_vocab_options_apply_to_the_vocab_txt_beside_a_saved_tokenizer(tmp_path):
    """The issue's ``serve -t saved_dir -t vocab.txt --no-lowercase`` (refused, naming
    --lowercase, before): the vocab.txt is cased, the saved one keeps its lowercasing."""
    Tokenizer.from_vocab(toy_vocabulary(), flavor="huggingface").save(str(tmp_path / "saved"))
    (tmp_path / "cased.txt").write_text("\n".join(toy_vocabulary()) + "\n")
    with serving_loud("-t", "saved", "-t", "cased.txt", "--no-lowercase",
                      cwd=tmp_path) as (url, proc):
        assert names(url) == ["saved", "cased"]
        assert encode_tokens(url, "saved", "Play") == ["[CLS]", "play", "[SEP]"]
        assert encode_tokens(url, "cased", "Play") == ["[CLS]", "[UNK]", "[SEP]"]
        assert proc.stderr is not None
        assert proc.stderr.readline() == ("wordpieces serve: --no-lowercase applied to "
                                          "cased.txt; saved keep their saved settings\n")


def test_vocab_options_with_no_vocab_txt_name_the_tokenizers_given(tmp_path):
    Tokenizer.from_vocab(toy_vocabulary(), flavor="huggingface").save(str(tmp_path / "saved"))
    message = fails("serve", "-t", tmp_path / "saved", "--no-lowercase")
    assert message == (f"wordpieces serve: error: --no-lowercase: apply only to a -t that is "
                       f"a vocab.txt, and none is ({tmp_path / 'saved'}: a saved tokenizer "
                       f"keeps the settings it was saved with)")


def test_help_examples_never_turn_lowercasing_off_for_an_uncased_vocabulary():
    """The old example served BERT uncased with --no-lowercase: [UNK] [UNK] from [UNK]."""
    out = ok("serve", "--help").out
    commands = [line.split("#")[0].split() for line in out.splitlines()
                if line.strip().startswith("wordpieces ")]
    assert commands
    for words in commands:
        vocab_txts = [w for w in words if w.endswith(".txt")]
        if "--no-lowercase" in words:
            assert len(vocab_txts) <= 1 and not any("uncased" in w for w in vocab_txts), words


@pytest.mark.shared_data
def test_the_page_starts_with_bert_when_it_is_loaded_beside_the_toy(tmp_path):
    with serving(cwd=beside_shared_bert(tmp_path)) as (_, url):
        with urllib.request.urlopen(url + "/api/tokenizers", timeout=10) as response:
            assert json.load(response)["default"] == "bert-base-uncased"
