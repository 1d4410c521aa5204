"""The native backend gives exactly the pure-Python reference's results, or is not used.

Differential tests: every corpus under ../shared/corpora (sampled; set
WORDPIECES_FULL_DIFF=1 for every line) through every vocabulary under ../shared/vocab in
every flavor, plus hypothesis-generated text and vocabularies. The reference is
``fast.word_encoder.WordEncoder``; ``test_sanitizers.py`` reruns this module against an
AddressSanitizer/UBSan build of the extension.
"""

import importlib
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.shared_data import CORPORA, shared_path
from wordpieces.errors import MissingDependencyError
from wordpieces.fast.backend import NativeWordEncoder, PythonWordEncoder, make_word_encoder
from wordpieces.fast.word_encoder import WordEncoder
from wordpieces.flavors.rules import FLAVORS, get_flavor
from wordpieces.pipeline.models import WordLevel, WordPiece
from wordpieces.pipeline.normalizers import BertNormalizer, Lowercase
from wordpieces.pipeline.pre_tokenizers import BertPreTokenizer, Digits, Metaspace
from wordpieces.pipeline.pre_tokenizers import Sequence as PreSequence
from wordpieces.vocab import Vocab

# the module, even once wordpieces/__init__.py exports its backend() function
backend = importlib.import_module("wordpieces.fast.backend")
REPO = Path(__file__).resolve().parents[2]
FULL = os.environ.get("WORDPIECES_FULL_DIFF", "") not in ("", "0")
# test_sanitizers.py runs this module again, slower: it asks for fewer examples
SCALE = float(os.environ.get("WORDPIECES_EXAMPLES_SCALE", "1"))


def examples(n: int) -> int:
    return max(10, int(n * SCALE))


def _needs_native():
    if backend._core is not None:
        return pytest.mark.skipif(False, reason="")
    reason = backend._NATIVE_ERROR
    if os.environ.get("WORDPIECES_REQUIRE_NATIVE", "") not in ("", "0"):
        pytest.fail(f"WORDPIECES_REQUIRE_NATIVE is set but: {reason}", pytrace=False)
    return pytest.mark.skip(reason=reason)


needs_native = _needs_native()


# ---------------------------------------------------------------- building encoders


def load_vocab(name: str) -> tuple[Vocab, dict]:
    """Read a shared vocabulary; a tokenizer.json also gives its normalizer options."""
    path = shared_path("vocab", name)
    if not name.endswith(".json"):
        return Vocab.from_file(path), {"lowercase": "uncased" in name or "chinese" in name}
    config = json.loads(path.read_text(encoding="utf-8"))
    norm = config["normalizer"]
    options = {k: norm[k] for k in ("clean_text", "handle_chinese_chars", "strip_accents",
                                    "lowercase")}
    return Vocab.from_mapping(config["model"]["vocab"]), options


def pipeline(vocab: Vocab, flavor: str, *, prefix: str = "##", max_chars: int | None = None,
             **options):
    """The BERT pipeline of a flavor, with the flavor's word limit unless overridden."""
    rules = get_flavor(flavor)
    max_bytes = None if max_chars else rules.max_input_bytes_per_word
    model = WordPiece(vocab, continuing_subword_prefix=prefix,
                      max_input_chars_per_word=max_chars or rules.max_input_chars_per_word,
                      max_input_bytes_per_word=max_bytes)
    return BertNormalizer(flavor=flavor, **options), BertPreTokenizer(flavor=flavor), model


def pair(vocab: Vocab, flavor: str, **options) -> tuple[NativeWordEncoder, WordEncoder]:
    """A native encoder and the pure-Python reference it learns characters from.

    The C path only borrows the reference's per-character answers (class, mapping);
    words, pieces and offsets are its own, so comparing the two is a real check.
    """
    native = NativeWordEncoder(PythonWordEncoder(*pipeline(vocab, flavor, **options)))
    return native, native.reference


def assert_same(native, reference: WordEncoder, texts: list[str]) -> None:
    """Every call of the native encoder equals the reference on every text."""
    expected = [reference.encode(t) for t in texts]
    got = native.encode_batch(texts, num_threads=1)
    for text, e, g in zip(texts, expected, got, strict=True):
        assert g == e, f"encode_batch differs on {text!r}"
    ids = native.encode_batch_ids(texts, num_threads=1)
    assert ids == [e[0] for e in expected], "encode_batch_ids differs"
    for text, e in list(zip(texts, expected, strict=True))[:: max(1, len(texts) // 50)]:
        assert native.encode(text) == e, f"encode differs on {text!r}"
        assert native.encode_ids(text) == e[0], f"encode_ids differs on {text!r}"
    assert_arrays_match(native.encode_batch(texts, num_threads=1, as_numpy=True), expected)
    assert_raw_match(native.encode_batch_raw(texts, num_threads=1), expected)
    assert_raw_match([reference.encode_raw(t) for t in texts], expected)


def assert_raw_match(raws, expected) -> None:
    """Raw tokens (what a LazyEncoding reads) give the lists, with extras around them."""
    assert len(raws) == len(expected)
    names = [f"t{i}" for i in range(max((max(e[0], default=0) for e in expected),
                                        default=0) + 1)]
    for i, (raw, (ids, offsets, word_ids)) in enumerate(zip(raws, expected, strict=True)):
        assert len(raw) == len(ids)
        assert (raw.ids(), raw.offsets(), raw.word_ids()) == (ids, offsets, word_ids)
        if i % 7 == 0:
            assert raw.ids((101,), (102, 0)) == [101, *ids, 102, 0]
            assert raw.tokens(names, ("[CLS]",), ()) == ["[CLS]", *(names[i] for i in ids)]
            assert raw.offsets(((0, 0),), ((0, 0),)) == [(0, 0), *offsets, (0, 0)]
            assert raw.word_ids((), (None,)) == [*word_ids, None]


def assert_arrays_match(arrays, expected) -> None:
    """Flat numpy arrays hold exactly the per-text lists, cut by row_splits."""
    assert arrays.row_splits.tolist()[0] == 0 and len(arrays.row_splits) == len(expected) + 1
    for i, (ids, offsets, word_ids) in enumerate(expected):
        s, e = arrays.row_splits[i], arrays.row_splits[i + 1]
        assert arrays.ids[s:e].tolist() == ids
        assert [tuple(p) for p in arrays.offsets[s:e].tolist()] == offsets
        assert arrays.word_ids[s:e].tolist() == word_ids


# ---------------------------------------------------------------- corpora


def sample_lines(path: Path, budget: int = 1200) -> list[str]:
    """Lines spread through a file (split on newline only: keep \\r, \\x85, U+2028)."""
    lines = [line for line in path.read_text(encoding="utf-8").split("\n") if line.strip()]
    if FULL:
        return lines
    out, size = [], 0
    for line in lines[:: max(1, len(lines) // 60)]:
        out.append(line)
        size += len(line)
        if size >= budget:
            break
    return out


@pytest.fixture(scope="module")
def corpus_sample() -> list[str]:
    """A sample of every corpus file, plus multi-line texts made of its lines."""
    files = sorted(shared_path("corpora").rglob("*.txt"))
    assert files, f"no corpora under {CORPORA}"
    lines = [line for f in files for line in sample_lines(f)]
    return lines + ["\n".join(lines[i:i + 7]) for i in range(0, len(lines), 97)]


VOCAB_FILES = ["bert-base-uncased.vocab.txt", "bert-base-cased.vocab.txt",
               "bert-base-multilingual-cased.vocab.txt", "bert-base-chinese.vocab.txt",
               "all-MiniLM-L6-v2.tokenizer.json"]


@pytest.mark.shared_data
@needs_native
@pytest.mark.parametrize("flavor", FLAVORS)
@pytest.mark.parametrize("vocab_file", VOCAB_FILES)
def test_corpora_every_vocab_every_flavor(corpus_sample, vocab_file, flavor):
    """On every corpus, each vocabulary in each flavor: native == reference."""
    vocab, options = load_vocab(vocab_file)
    assert_same(*pair(vocab, flavor, **options), corpus_sample)


@pytest.mark.shared_data
@needs_native
@pytest.mark.parametrize("flavor, options", [
    ("bert", {"lowercase": True, "strip_accents": False}),
    ("huggingface", {"lowercase": False, "strip_accents": True}),
    ("tensorflow", {"clean_text": False}),
    ("huggingface", {"handle_chinese_chars": False}),
    ("bert", {"clean_text": False, "handle_chinese_chars": False}),
], ids=lambda o: o if isinstance(o, str) else ",".join(f"{k}={v}" for k, v in o.items()))
def test_corpora_normalizer_options(corpus_sample, flavor, options):
    """Each normalizer switch gives the reference's results."""
    vocab, _ = load_vocab("bert-base-multilingual-cased.vocab.txt")
    assert_same(*pair(vocab, flavor, **options), corpus_sample[::2])


# ---------------------------------------------------------------- generated text

PIECES = ["the", "un", "aff", "able", "Hello", "##ing", "[UNK]", "[CLS]", "Σ", "σ", "ß", "İ",
          "ﬁ", "中", "文", "\u0301", "\u200b", "\ufeff", "\x00", "\ufffd", " ", "\t", "\n", "\r",
          "\x0b", "\x1c", "\x85", "\u00a0", "\u1680", "\u2028", "\u3000", ".", ",", "!", "#", "é",
          "É", "👍", "\ud800", "\udfff", "\U000e0001", "\u0378", "\uffff", "\U0010ffff",
          "\U0002b820", "\U0002b920", "½", "ﷺ", "a" * 150, "x" * 99, "é" * 60, "中" * 3]
MIXED = st.lists(st.sampled_from(PIECES), max_size=25).map("".join)
ANY_TEXT = st.text(st.characters(codec=None, exclude_categories=()), max_size=60)
_ENCODERS: dict = {}


def cached_pair(flavor: str, lowercase: bool, max_chars: int | None = None):
    key = (flavor, lowercase, max_chars)
    if key not in _ENCODERS:
        vocab, _ = load_vocab("bert-base-multilingual-cased.vocab.txt")
        _ENCODERS[key] = pair(vocab, flavor, lowercase=lowercase, max_chars=max_chars)
    return _ENCODERS[key]


@pytest.mark.shared_data
@needs_native
@settings(max_examples=examples(300), deadline=None)
@given(text=ANY_TEXT | MIXED, flavor=st.sampled_from(FLAVORS), lowercase=st.booleans())
def test_any_text(text, flavor, lowercase):
    """Any Unicode (surrogates, unassigned, controls, long words): native == reference."""
    native, reference = cached_pair(flavor, lowercase)
    expected = reference.encode(text)
    assert native.encode(text) == expected
    assert native.encode_ids(text) == expected[0]


@pytest.mark.shared_data
@needs_native
@settings(max_examples=examples(40), deadline=None)
@given(words=st.lists(st.lists(st.sampled_from(["un", "aff", "able", "ing", "x", "中", "é", "q"]),
                               min_size=100, max_size=3000).map("".join), min_size=1, max_size=3),
       flavor=st.sampled_from(FLAVORS))
def test_long_words(words, flavor):
    """Words thousands of characters long split like the reference (limit lifted)."""
    native, reference = cached_pair(flavor, True, max_chars=10**6)
    text = " ".join(words)
    assert native.encode(text) == reference.encode(text)


SMALL = st.text("abc", min_size=1, max_size=6)
_BASES: dict = {}


def small_vocab_encoder(tokens: list[str], prefix: str):
    """A C encoder of a tiny vocabulary, reusing a learned character table's lookup."""
    if prefix not in _BASES:
        _BASES[prefix] = pair(Vocab(["[UNK]"]), "bert", lowercase=False, prefix=prefix)[0]
    base = _BASES[prefix]
    model = WordPiece(tokens, continuing_subword_prefix=prefix, max_input_chars_per_word=1000)
    core = backend._core.Encoder([t.encode() for t in tokens], prefix.encode(), 0, 1000, -1,
                                 base._lookup, base._fallback)
    return core, model


@needs_native
@settings(max_examples=examples(300), deadline=None)
@given(first=st.lists(SMALL, max_size=12), rest=st.lists(SMALL, max_size=12),
       words=st.lists(st.text("abc", min_size=1, max_size=40), min_size=1, max_size=6),
       prefix=st.sampled_from(["##", "", "@@", "#"]))
def test_linmaxmatch_on_small_vocabularies(first, rest, words, prefix):
    """On adversarial vocabularies LinMaxMatch gives models.WordPiece's greedy split."""
    tokens = list(dict.fromkeys(["[UNK]", *first, *(prefix + r for r in rest)]))
    core, model = small_vocab_encoder(tokens, prefix)
    expected, start = ([], [], []), 0
    for index, word in enumerate(words):
        for id_, s, e in model.pieces(word):
            expected[0].append(id_)
            expected[1].append((start + s, start + e))
            expected[2].append(index)
        start += len(word) + 1
    assert core.encode(" ".join(words)) == expected


# ---------------------------------------------------------------- batches


@pytest.fixture(scope="module")
def uncased():
    return load_vocab("bert-base-uncased.vocab.txt")[0]


@pytest.mark.shared_data
@needs_native
def test_threads_and_arrays_agree(uncased, corpus_sample):
    """Several native threads and numpy output give what one thread and lists give."""
    native, reference = pair(uncased, "huggingface", lowercase=True)
    texts = corpus_sample[:600]
    assert sum(map(len, texts)) > 3 * 16384  # enough for three threads to share
    expected = [reference.encode(t) for t in texts]
    assert native.encode_batch(texts, num_threads=2) == expected
    assert native.encode_batch_ids(texts, num_threads=3) == [e[0] for e in expected]
    assert_arrays_match(native.encode_batch(texts, num_threads=2, as_numpy=True), expected)
    arrays = native.encode_batch_ids(texts, num_threads=2, as_numpy=True)
    assert arrays.ids.tolist() == [i for e in expected for i in e[0]]
    assert arrays.row_splits.tolist()[-1] == len(arrays.ids)


@pytest.mark.shared_data
@needs_native
def test_complex_texts_take_the_python_path_inside_a_batch(uncased):
    """A capital sigma (context-dependent lowercase) in one text of a batch is handled."""
    native, reference = pair(uncased, "bert", lowercase=True)
    texts = ["ΣΑΣ Hello", "plain text", "ὈΔΥΣΣΕΎΣ.", ""]
    expected = [reference.encode(t) for t in texts]
    assert native.encode_batch(texts) == expected
    assert_arrays_match(native.encode_batch(texts, as_numpy=True), expected)
    assert native.encode_batch_ids(texts, as_numpy=True).ids.tolist() == [
        i for e in expected for i in e[0]]


@pytest.mark.shared_data
@needs_native
def test_empty_inputs(uncased):
    """No text, an empty text and a text of spaces give no tokens."""
    native, _ = pair(uncased, "bert", lowercase=True)
    assert native.encode("") == ([], [], [])
    assert native.encode_batch([]) == []
    assert native.encode_batch(["", "  "]) == [([], [], []), ([], [], [])]
    arrays = native.encode_batch([], as_numpy=True)
    assert arrays.ids.shape == (0,) and arrays.offsets.shape == (0, 2)
    assert arrays.row_splits.tolist() == [0]


@pytest.mark.shared_data
@pytest.mark.parametrize("kind", ["native", "python"])
def test_batch_rejects_a_non_str_naming_its_index(uncased, kind, monkeypatch):
    """A non-str item is a TypeError that says which item and what type."""
    if kind == "native" and backend._core is None:
        pytest.skip("native extension not built")
    monkeypatch.setenv("WORDPIECES_BACKEND", "auto" if kind == "native" else "python")
    encoder = make_word_encoder(*pipeline(uncased, "bert", lowercase=True))
    with pytest.raises(TypeError, match=r"texts\[1\] must be str, not int"):
        encoder.encode_batch_ids(["ok", 3])


@pytest.mark.shared_data
def test_bad_num_threads(uncased):
    """num_threads must be a positive int."""
    encoder = make_word_encoder(*pipeline(uncased, "bert", lowercase=True))
    with pytest.raises(ValueError, match="num_threads"):
        encoder.encode_batch_ids(["a"], num_threads=0)


# ---------------------------------------------------------------- backend choice


@pytest.mark.shared_data
@needs_native
def test_bert_pipeline_is_native_by_default(uncased, monkeypatch):
    """With the extension built, the BERT pipeline runs natively."""
    monkeypatch.delenv("WORDPIECES_BACKEND", raising=False)
    assert backend.backend() == "native"
    assert type(make_word_encoder(*pipeline(uncased, "bert"))) is NativeWordEncoder


@pytest.mark.shared_data
def test_python_backend_forced(uncased, monkeypatch):
    """WORDPIECES_BACKEND=python gives the reference, and backend() says why."""
    monkeypatch.setenv("WORDPIECES_BACKEND", "python")
    assert backend.backend() == "python (WORDPIECES_BACKEND=python)"
    assert type(make_word_encoder(*pipeline(uncased, "bert"))) is PythonWordEncoder


def test_unknown_backend_is_an_error(monkeypatch):
    """An unknown WORDPIECES_BACKEND value is named in the error."""
    monkeypatch.setenv("WORDPIECES_BACKEND", "fortran")
    with pytest.raises(ValueError, match="'fortran'"):
        backend.backend()


@pytest.mark.shared_data
@pytest.mark.parametrize("stages", ["generic", "word_level"])
def test_pipelines_the_c_path_does_not_cover_use_python(uncased, stages):
    """A stage that is no per-character fact (Metaspace before Digits), or WordLevel: Python.

    (Pipelines of charwise normalizers and class pre-tokenizers, and prefixes starting
    with a word character, run in C: tests/differential/test_native_pipelines.py.)
    """
    if stages == "generic":
        parts = (Lowercase(), PreSequence([Metaspace(), Digits()]), WordPiece(uncased))
    else:
        parts = (BertNormalizer(), BertPreTokenizer(), WordLevel(uncased))
    assert type(make_word_encoder(*parts)) is PythonWordEncoder


@needs_native
def test_vocabulary_too_big_for_the_tables_uses_python(monkeypatch):
    """Long tokens whose every prefix splits would need huge failure pops: Python runs."""
    monkeypatch.setenv("WORDPIECES_BACKEND", "auto")  # "native" would make it an error
    rng = random.Random(1)
    long_tokens = ["".join(rng.choice("ab") for _ in range(400)) for _ in range(1500)]
    vocab = Vocab(dict.fromkeys(["[UNK]", "a", "b", "##a", "##b", *long_tokens]))
    encoder = make_word_encoder(*pipeline(vocab, "bert", lowercase=False))
    assert type(encoder) is PythonWordEncoder
    assert encoder.encode_ids("ab ba") == [vocab["a"], vocab["##b"], vocab["b"], vocab["##a"]]


@pytest.mark.shared_data
def test_python_encoder_batches(uncased):
    """The Python encoder's batch methods and arrays equal its per-text results."""
    encoder = PythonWordEncoder(*pipeline(uncased, "huggingface", lowercase=True))
    texts = ["Hello, world!", "", "naïve café 東京"]
    expected = [encoder.encode(t) for t in texts]
    assert encoder.encode_batch(texts, num_threads=2) == expected
    assert encoder.encode_batch_ids(texts) == [e[0] for e in expected]
    assert_arrays_match(encoder.encode_batch(texts, as_numpy=True), expected)


ABSENT = """
import importlib, json, sys
sys.modules["wordpieces.fast._native._core"] = None  # as if the extension were never built
backend = importlib.import_module("wordpieces.fast.backend")
from wordpieces.pipeline.models import WordPiece
from wordpieces.pipeline.normalizers import BertNormalizer
from wordpieces.pipeline.pre_tokenizers import BertPreTokenizer
vocab = ["[UNK]", "hello", "##s", "!", "world"]
parts = (BertNormalizer(), BertPreTokenizer(), WordPiece(vocab))
try:
    enc = backend.make_word_encoder(*parts)
    out = [type(enc).__name__, enc.encode("Hellos world!"), enc.encode_batch_ids(["hello", "x"])]
except Exception as e:
    out = [type(e).__name__, str(e)]
print(json.dumps([backend.backend(), out]))
"""


def run_without_extension(**env) -> list:
    """Run ABSENT in a fresh interpreter that cannot import the extension."""
    result = subprocess.run([sys.executable, "-c", ABSENT], capture_output=True, text=True,
                            cwd=REPO, env={**os.environ, **env}, timeout=120)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_extension_absent_falls_back_to_python():
    """Without the extension everything works in pure Python, with a one-line notice."""
    notice, out = run_without_extension(WORDPIECES_BACKEND="auto")
    assert notice == "python (native extension not built)"
    assert out == ["PythonWordEncoder", [[1, 2, 4, 3], [[0, 5], [5, 6], [7, 12], [12, 13]],
                                         [0, 0, 1, 2]], [[1], [0]]]


def test_native_required_but_absent_is_an_error():
    """WORDPIECES_BACKEND=native without the extension says what to do."""
    _, (error, message) = run_without_extension(WORDPIECES_BACKEND="native")
    assert error == MissingDependencyError.__name__
    assert "native extension not built" in message and "C compiler" in message


@needs_native
def test_column_lists_check_their_arguments():
    """The C list builders name a bad row, a bad extra, an id without a token."""
    core = backend._core
    ids = bytearray((5).to_bytes(4, "little", signed=True) * 3)
    pairs = bytearray((7).to_bytes(8, "little", signed=True) * 4)
    assert core.int_list(ids, 1, 3, (None,), ()) == [None, 5, 5]
    assert core.pair_list(pairs, 0, 2, (), ((0, 0),)) == [(7, 7), (7, 7), (0, 0)]
    assert core.name_list(ids, 0, 1, list("abcdef"), (), ("z",)) == ["f", "z"]
    with pytest.raises(IndexError, match=r"row \[2, 4\) is outside a column of 3 items"):
        core.int_list(ids, 2, 4, (), ())
    with pytest.raises(IndexError, match="outside"):
        core.pair_list(pairs, -1, 1, (), ())
    with pytest.raises(IndexError, match="id 5 has no token"):
        core.name_list(ids, 0, 1, ["a"], (), ())
    with pytest.raises(TypeError, match="must be tuples"):
        core.int_list(ids, 0, 1, [], ())
    with pytest.raises(TypeError):
        core.int_list("not a buffer", 0, 0, (), ())


@needs_native
def test_offset_tuples_outside_the_shared_cache():
    """Offsets far into a text, long spans and the shared short ones all come out right."""
    values = [(0, 5), (2047, 2078), (2047, 2079), (2048, 2049), (5, 5), (10**12, 10**12 + 1),
              (0, 5)]
    column = bytearray(b"".join(v.to_bytes(8, "little", signed=True)
                                for pair in values for v in pair))
    assert backend._core.pair_list(column, 0, len(values), (), ()) == values
