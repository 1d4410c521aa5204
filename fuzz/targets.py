"""The fuzz targets: one function per untrusted input, from bytes to a checked outcome.

A target returns quietly when the input is handled: parsed, or refused with one of the
package's errors (``WordpiecesError``, which the command line reports in one line). Any
other exception is a finding: a crash deep inside (``IndexError``, ``OverflowError``,
``RecursionError`` …), or an ``AssertionError`` from a property the target checks on what
it parsed (a vocabulary saved then read back equal, both backends encoding alike).

Not handled here: running the fuzzer (``fuzz.run``), making seeds (``fuzz.seeds``).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import signal
import tempfile
import warnings
from collections.abc import Callable, Iterator

from wordpieces import Bundle, Tokenizer
from wordpieces.errors import WordpiecesError
from wordpieces.formats.bundle import load_bundle
from wordpieces.formats.load import load
from wordpieces.formats.strict_json import Node, parse_json
from wordpieces.formats.tokenizer_json import parts_from_str
from wordpieces.learn.counting import WordCounts
from wordpieces.pipeline.safe_regex import compile_pattern
from wordpieces.vocab import parse_vocab_lines, vocab_txt_text

EXPECTED = (WordpiecesError,)  # every refusal of bad input is one of these
SCRATCH = tempfile.mkdtemp(prefix="wordpieces-fuzz-")
os.environ.setdefault("WORDPIECES_CACHE", os.path.join(SCRATCH, "cache"))
TEXTS = ["hello world", "Héllo, WORLD!", "日本語 ü", "", "a" * 300, "[CLS] x [MASK]"]
BASE_JSON = Tokenizer.from_vocab(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "hello", "##s"]).to_str()


def _scratch_file(name: str, data: bytes) -> str:
    path = os.path.join(SCRATCH, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


def _exercise(tok: Tokenizer) -> None:
    """Use a loaded tokenizer the way a user would: every input must work or be refused."""
    for text in TEXTS:
        enc = tok.encode(text)
        assert len(enc.ids) == len(enc.offsets) == len(enc.tokens)
        tok.decode(enc.ids)
    tok.encode_batch(TEXTS, num_threads=2)
    folder = os.path.join(SCRATCH, "saved")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Hugging Face will not read this exactly"
        try:
            tok.save(folder)
        except EXPECTED:  # a token vocab.txt cannot hold: refused before writing
            return
    again = load(folder)
    assert again.encode_batch_ids(TEXTS) == tok.encode_batch_ids(TEXTS)


def vocab_txt(data: bytes) -> None:
    """vocab.txt bytes: parsed, or refused naming a line; what parses, writes back equal."""
    try:
        tokens = parse_vocab_lines(data, "vocab.txt")
    except EXPECTED:
        return
    try:
        text = vocab_txt_text(tokens)
    except EXPECTED:
        return
    assert parse_vocab_lines(text.encode("utf-8"), "again") == tokens


def tokenizer_json(data: bytes) -> None:
    """tokenizer.json bytes: loaded and usable, or refused naming the field."""
    try:
        tok = Tokenizer.from_parts(parts_from_str(data, "tokenizer.json"))
    except EXPECTED:
        return
    try:
        _exercise(tok)
    except EXPECTED:  # e.g. a truncation max_length too small for the special tokens
        return


def wordpieces_json(data: bytes) -> None:
    """wordpieces.json bytes beside a valid tokenizer.json."""
    try:
        extras = Node(parse_json(data, "wordpieces.json"), "wordpieces.json")
        tok = Tokenizer.from_parts(parts_from_str(BASE_JSON, "tokenizer.json", extras))
    except EXPECTED:
        return
    _exercise(tok)


def counts(data: bytes) -> None:
    """A counts file: loaded, or refused naming the line; what loads, saves and reloads equal."""
    path = _scratch_file("counts.tsv", data)
    try:
        loaded = WordCounts.load(path)
    except EXPECTED:
        return
    loaded.save(path)
    assert WordCounts.load(path) == loaded


def bundle(data: bytes) -> None:
    """A bundle .zip: members loaded, or refused naming the entry."""
    path = _scratch_file("bundle.zip", data)
    try:
        loaded = load_bundle(path)
    except EXPECTED:
        return
    for name in loaded.names:
        loaded[name].encode_batch_ids(TEXTS)


def regex(data: bytes) -> None:
    """A Split/Replace pattern: compiled by re only if its scan is proved linear.

    A pattern judged safe is run on texts built to make a backtracking engine blow up
    (runs of its own characters ending in a mismatch; long ones, so that a scan that
    re-reads a run from each start, quadratic, also takes seconds): the fuzzer's
    ``-timeout`` turns a slow one into a finding.
    """
    pattern = data.decode("utf-8", "replace")
    try:
        compiled = compile_pattern(pattern, field="pattern")
    except (ValueError, RecursionError, OverflowError):  # invalid, unsafe, or too deep
        return
    chars = sorted(set(re.sub(r"[\\()\[\]{}|*+?^$.]", "", pattern)))[:8] or ["a"]
    for ch in chars:
        for text in (ch * 28 + "\x00", (ch + " ") * 14 + "!", ch * 28):
            list(compiled.finditer(text))
    for ch in chars[:2]:
        for text in (ch * 50_000 + "\x00", (ch + " ") * 25_000 + "!"):
            list(compiled.finditer(text))


def _encodings(kind: str, vocab: list[str], texts: list[str], options: dict):
    """Encode on backend ``kind`` (chosen when the first text is encoded, so set throughout)."""
    os.environ["WORDPIECES_BACKEND"] = kind
    try:
        tok = Tokenizer.from_vocab(vocab, **options)
        single = [(e.ids, e.offsets, e.word_ids) for e in (tok.encode(t) for t in texts)]
        batch = [(e.ids, e.offsets, e.word_ids)
                 for e in tok.encode_batch(texts, num_threads=2)]
        return single, batch, tok.encode_batch_ids(texts)
    finally:
        os.environ.pop("WORDPIECES_BACKEND", None)


class Draws:
    """Take booleans, small ints and short texts from fuzzer bytes (no atheris needed to replay).

    Characters come two bytes at a time, so the whole Basic Multilingual Plane is reached
    (surrogates are mapped away); what runs out reads as zeros.
    """

    def __init__(self, data: bytes):
        self.data, self.pos = data, 0

    def byte(self) -> int:
        self.pos += 1
        return self.data[self.pos - 1] if self.pos <= len(self.data) else 0

    def boolean(self) -> bool:
        return self.byte() & 1 == 1

    def number(self, low: int, high: int) -> int:
        return low + self.byte() % (high - low + 1)

    def text(self, length: int) -> str:
        out = []
        for _ in range(length):
            cp = self.byte() | self.byte() << 8
            out.append(chr(cp if not 0xD800 <= cp < 0xE000 else cp - 0xD800))
        return "".join(out)

    def small_text(self, length: int) -> str:
        """Mostly from a small alphabet (so texts hit the vocabulary), some anything."""
        alphabet = "ab#c \t\n.,!éÉ日ßİſ\u0301\u00a0\x00"
        return "".join(alphabet[self.byte() % len(alphabet)] if self.byte() % 4 else
                       self.text(1) for _ in range(length))


def encode(data: bytes) -> None:
    """Random vocabulary and texts, encoded natively and in Python: a difference is a finding."""
    draw = Draws(data)
    options = {"lowercase": draw.boolean(),
               "flavor": ("bert", "huggingface", "tensorflow")[draw.number(0, 2)],
               "max_input_chars_per_word": (None, 0, 1, 2, 3, 5, 8, 100)[draw.number(0, 7)]}
    vocab = ["[UNK]", "[CLS]", "[SEP]"]
    for _ in range(draw.number(0, 40)):
        token = ("##" if draw.boolean() else "") + draw.small_text(draw.number(1, 6))
        if token not in vocab:
            vocab.append(token)
    texts = [draw.small_text(draw.number(0, 60)) for _ in range(draw.number(1, 4))]
    try:
        native = _encodings("native", vocab, texts, options)
    except EXPECTED:
        return
    python = _encodings("python", vocab, texts, options)
    assert native == python, (vocab, texts, options)


FOLDER_NAMES = ["tokenizer.json", "vocab.txt", "wordpieces.json", "tokenizer_config.json",
                "special_tokens_map.json", "wordpieces-manifest.json", "bundle.json", "en",
                "en/tokenizer.json", "en/vocab.txt", "en/wordpieces.json", "lnk",
                "lnk/victim.txt", "x.txt"]
FOLDER_SHAPES = ("link to the outside folder", "link to the outside file", "fifo",
                 "bytes", "delete", "list in the manifest", "drop from the manifest")
VICTIM = b"precious\n"


@contextlib.contextmanager
def _at_most(seconds: int) -> Iterator[None]:
    """A hang (a FIFO opened blocking) is a finding here too, not only under -timeout."""
    if not hasattr(signal, "SIGALRM"):
        yield
        return

    def hung(signum, frame):
        raise AssertionError(f"no answer in {seconds} s: a blocking open or an endless read")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _shape(folder: str, outside: str, draw: Draws) -> None:
    """Put one hostile thing into a saved ``folder``: a link, a FIFO, bytes, a manifest
    entry (a name drawn from ``FOLDER_NAMES``; the entry matches the outside victim)."""
    name = FOLDER_NAMES[draw.number(0, len(FOLDER_NAMES) - 1)]
    shape = FOLDER_SHAPES[draw.number(0, len(FOLDER_SHAPES) - 1)]
    path = os.path.join(folder, *name.split("/"))
    if os.path.islink(os.path.dirname(path)):
        return  # the shaping itself would write through it: only the package is tested
    manifest_path = os.path.join(folder, "wordpieces-manifest.json")
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError, AttributeError):
        if shape in ("list in the manifest", "drop from the manifest"):
            if os.path.islink(manifest_path) or not os.path.isfile(manifest_path):
                return  # the shaping itself must not block on a FIFO or write through a link
            with open(manifest_path, encoding="utf-8") as f:
                manifest = json.load(f)
            if shape == "drop from the manifest":
                manifest["files"].pop(name, None)
            else:
                manifest["files"][name] = {"size": len(VICTIM), "sha256": _sha(VICTIM)}
            with open(manifest_path, "w", encoding="utf-8") as f:
                json.dump(manifest, f)
            return
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        elif os.path.lexists(path):
            os.unlink(path)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if shape == "link to the outside folder":
            os.symlink(outside, path)
        elif shape == "link to the outside file":
            os.symlink(os.path.join(outside, "victim.txt"), path)
        elif shape == "fifo" and hasattr(os, "mkfifo"):
            os.mkfifo(path)
        elif shape != "delete":
            with open(path, "wb") as f:
                f.write(draw.text(draw.number(0, 8)).encode("utf-8", "replace"))


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def saved_folder(data: bytes) -> None:
    """A saved tokenizer or bundle folder with links, FIFOs, bytes and manifest entries
    put in: the load answers (loaded, or refused with the package's error), never hangs;
    a save into it afterwards never touches a file outside it (refused or done)."""
    draw = Draws(data)
    root = tempfile.mkdtemp(dir=SCRATCH)
    try:
        outside, folder = os.path.join(root, "outside"), os.path.join(root, "model")
        os.mkdir(outside)
        with open(os.path.join(outside, "victim.txt"), "wb") as f:
            f.write(VICTIM)
        tok = Tokenizer.from_vocab(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "hello", "##s"],
                                   flavor="huggingface")
        saving = Bundle(en=tok) if draw.boolean() else tok
        saving.save(folder)
        for _ in range(draw.number(1, 4)):
            _shape(folder, outside, draw)
        with _at_most(20):
            with contextlib.suppress(*EXPECTED):
                load(folder)
            with contextlib.suppress(*EXPECTED, OSError):
                saving.save(folder)
        assert sorted(os.listdir(outside)) == ["victim.txt"], os.listdir(outside)
        with open(os.path.join(outside, "victim.txt"), "rb") as f:
            assert f.read() == VICTIM
    finally:
        shutil.rmtree(root, ignore_errors=True)


TARGETS: dict[str, Callable[[bytes], None]] = {
    "vocab_txt": vocab_txt, "tokenizer_json": tokenizer_json,
    "wordpieces_json": wordpieces_json, "counts": counts, "bundle": bundle,
    "regex": regex, "encode": encode, "saved_folder": saved_folder}

