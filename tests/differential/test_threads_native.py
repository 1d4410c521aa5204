"""Native batches on 1 to 4 threads give exactly the pure-Python reference's results.

A native batch is cut into chunks that threads claim one by one; the caller's thread
builds each chunk's lists while the others encode, and copies and finishes columns with
them (``fast/_native/wp_pipeline.c``). These tests make batches big enough for several
threads and many chunks (the C code gives a thread at least 16384 code points), so that
chunk boundaries fall everywhere: through texts with code points the table has not
learned yet, texts only the Python path can encode, literal added tokens, pairs, and
truncations the reference refuses. The reference is the same tokenizer on the
pure-Python backend (``WORDPIECES_BACKEND=python``), text by text.
"""

from __future__ import annotations

import random
import threading

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import built_on
from tests.shared_data import corpus_lines, shared_path
from wordpieces.fast.backend import backend, texts_with_chars
from wordpieces.tokenizer import Tokenizer

pytestmark = pytest.mark.skipif(backend() != "native", reason=f"backend: {backend()}")

THREADS = (1, 2, 3, 4)
# enough code points for 4 threads (16384 each) and many 32768-code-point chunks
BIG = 4 * 16384 + 1
VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "a", "b", "c", "ab", "abc", "##a",
         "##b", "##c", "!", ".", "é", "ж", "##ж"]
# "Σ": a capital sigma lowercases by its context: in the bert flavor only the Python
# path encodes it; "[MASK]": an added token, kept whole in the huggingface flavor;
# "ж", "好", "😀": code points a fresh encoder's table has not learned yet
PIECES = ["a", "b", "c", "ab", "abc", "cab", "!", ".", " ", "  ", "é", "ж", "好", "😀",
          "Σ", "[MASK]", "[ma", "aaaa" * 30]
SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _tokenizer(vocab, python: bool, flavor: str = "huggingface") -> Tokenizer:
    """A tokenizer whose word encoder is built now, on the asked backend."""
    return built_on(Tokenizer.from_vocab(vocab, flavor=flavor), "python" if python else "native")


def _run_together(work, n: int) -> None:
    """Run ``work(0)`` ... ``work(n - 1)`` on n Python threads and wait for all."""
    threads = [threading.Thread(target=work, args=(k,)) for k in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def _outcome(call):
    try:
        return call()
    except Exception as e:  # noqa: BLE001 - the same error on both sides
        return type(e).__name__, str(e)


def _grow(items: list, size: int = BIG) -> list:
    """``items`` repeated until they hold at least ``size`` characters (if any)."""
    chars = sum(len(i) if isinstance(i, str) else len(i[0]) + len(i[1] or "") for i in items)
    return items * (size // chars + 1) if chars else items


def _plain(batch) -> dict:
    return {key: (value.dtype.name, value.shape, value.tolist()) for key, value in batch.items()}


texts = st.lists(st.sampled_from(PIECES), max_size=10).map("".join)
items = st.lists(st.one_of(texts, st.tuples(texts, st.one_of(st.none(), texts))),
                 min_size=1, max_size=6)
flavors = st.sampled_from(["bert", "huggingface"])


# ---------------------------------------------------------------- drawn batches


@SETTINGS
@given(batch=st.lists(texts, min_size=1, max_size=6), flavor=flavors)
def test_word_encoder_threads_match_reference(batch, flavor):
    """Lists and arrays, ids and offsets: every thread count gives the reference's."""
    native = _tokenizer(VOCAB, False, flavor)._seq.word_encoder  # fresh: nothing learned
    reference = native.reference
    big = _grow(batch)
    expected = [reference.encode(t) for t in batch] * (len(big) // len(batch))
    for n in THREADS:
        assert native.encode_batch(big, n) == expected
        assert native.encode_batch_ids(big, n) == [e[0] for e in expected]
        arrays = native.encode_batch(big, n, as_numpy=True)
        assert arrays.ids.tolist() == [i for e in expected for i in e[0]]
        assert arrays.offsets.tolist() == [list(o) for e in expected for o in e[1]]
        assert arrays.word_ids.tolist() == [w for e in expected for w in e[2]]
        ids = native.encode_batch_ids(big, n, as_numpy=True)
        assert ids.row_splits.tolist()[-1] == len(ids.ids) == len(arrays.ids)


@SETTINGS
@given(batch=items, add=st.booleans(), flavor=flavors,
       truncation=st.one_of(st.none(), st.fixed_dictionaries({
           "max_length": st.integers(0, 12),
           "strategy": st.sampled_from(["longest_first", "only_first", "only_second"]),
           "direction": st.sampled_from(["right", "left"])})))
def test_encode_batch_ids_threads_match_reference(batch, add, flavor, truncation):
    """Tokenizer.encode_batch_ids, lists finished chunk by chunk: the reference's, or its error."""
    native, python = _tokenizer(VOCAB, False, flavor), _tokenizer(VOCAB, True, flavor)
    for tok in (native, python):
        if truncation is not None:
            tok.enable_truncation(**truncation)
    big = _grow(batch)
    expected = _outcome(lambda: python.encode_batch_ids(big, add_special_tokens=add))
    for n in THREADS:
        assert _outcome(lambda n=n: native.encode_batch_ids(
            big, add_special_tokens=add, num_threads=n)) == expected


@SETTINGS
@given(batch=st.lists(texts, min_size=1, max_size=6), pairs=st.booleans(), flavor=flavors,
       max_length=st.integers(1, 20), offsets=st.booleans())
def test_padded_arrays_threads_match_reference(batch, pairs, flavor, max_length, offsets):
    """tok(..., padding, truncation, "np"): columns written on every thread, as the reference."""
    native, python = _tokenizer(VOCAB, False, flavor), _tokenizer(VOCAB, True, flavor)
    big = _grow(batch)
    second = list(reversed(big)) if pairs else None
    options = {"padding": True, "truncation": True, "max_length": max_length,
               "return_tensors": "np", "return_offsets_mapping": offsets}
    expected = _outcome(lambda: _plain(python(big, second, **options)))
    for n in THREADS:
        assert _outcome(lambda n=n: _plain(native(big, second, **options,
                                                  num_threads=n))) == expected


# ---------------------------------------------------------------- edges


@pytest.mark.parametrize("n", THREADS)
def test_batches_smaller_than_the_thread_count(n):
    """No text, one text, fewer texts (or pairs) than threads: the reference's results."""
    native, python = _tokenizer(VOCAB, False), _tokenizer(VOCAB, True)
    for batch in ([], ["abc"], ["a b", ""], ["ж" * 40000, "abc " * 9000]):
        assert native.encode_batch_ids(batch, num_threads=n) == python.encode_batch_ids(batch)
        encoder = native._seq.word_encoder
        assert encoder.encode_batch(batch, n) == [encoder.reference.encode(t) for t in batch]
        arrays = encoder.encode_batch_ids(batch, n, as_numpy=True)
        assert arrays.row_splits.tolist()[-1] == len(arrays.ids)
    for pairs in ([("a b", "c")], [("abc", None), ("a", "ab c")], [("ж " * 20000, "b")]):
        assert (native.encode_batch_ids(pairs, num_threads=n)
                == python.encode_batch_ids(pairs))


@pytest.mark.parametrize("n", THREADS)
def test_a_bad_item_is_named_on_any_thread_count(n):
    """A non-str text deep in a big batch is the same TypeError, naming its index."""
    encoder = _tokenizer(VOCAB, False)._seq.word_encoder
    texts = ["abc " * 10] * 5000 + [7]
    with pytest.raises(TypeError, match=r"texts\[5000\] must be str, not int"):
        encoder.encode_batch_ids(texts, n)
    with pytest.raises(TypeError, match=r"texts\[5000\] must be str, not int"):
        encoder.encode_batch(texts, n, as_numpy=True)


@pytest.mark.parametrize("n", THREADS)
def test_an_error_in_the_python_path_stops_the_batch_cleanly(n, monkeypatch):
    """A failing Python fallback in the middle of a threaded batch raises its error; the
    encoder then works on (no thread is left waiting)."""
    tok = _tokenizer(VOCAB, False, "bert")
    encoder = tok._seq.word_encoder
    texts = ["abc ab " * 20] * 3000 + ["Σ abc"] + ["ab c " * 20] * 3000

    def broken(text):
        raise RuntimeError(f"no Python path for {text!r}")

    monkeypatch.setattr(encoder.reference, "encode_ids", broken)
    monkeypatch.setattr(encoder.reference, "encode", broken)
    for call in (lambda: encoder.encode_batch_ids(texts, n),
                 lambda: encoder.encode_batch(texts, n, as_numpy=True),
                 lambda: tok.encode_batch_ids(texts, num_threads=n)):
        with pytest.raises(RuntimeError, match="no Python path for 'Σ abc'"):
            call()
    monkeypatch.undo()
    assert encoder.encode_batch_ids(texts, n)[3000] == encoder.reference.encode_ids("Σ abc")


def test_python_threads_sharing_an_encoder_while_it_learns():
    """Python threads encoding batches of unlearned code points with one encoder at once
    (each batch on 2 native threads) all get the reference's ids."""
    tok = _tokenizer(VOCAB, False, "bert")
    encoder = tok._seq.word_encoder
    rng = random.Random(7)
    alphabet = ([chr(c) for c in [*range(0x400, 0x500), *range(0x4E00, 0x4F00),
                                  *range(0x1F600, 0x1F650)]] + list("abc !.Σ"))
    batches = [["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
                for _ in range(2500)] for _ in range(6)]
    expected = [[encoder.reference.encode_ids(t) for t in batch] for batch in batches]
    failures: list = []

    def work(k: int) -> None:
        for rep in range(2):
            i = (k + rep) % len(batches)
            try:
                got = (encoder.encode_batch_ids(batches[i], 2) if rep == 0 else
                       tok.encode_batch_ids(batches[i], add_special_tokens=False,
                                            num_threads=2))
            except Exception as e:  # noqa: BLE001 - reported below
                got = e
            if got != expected[i]:
                failures.append((k, i, got if isinstance(got, Exception) else "ids"))

    _run_together(work, len(batches))
    assert failures == []



def test_python_threads_sharing_the_native_thread_pool():
    """Python threads starting batches at the same moment, each on 2 to 4 native threads
    (lists, flat arrays, padded arrays: one or two parallel regions a call), all get the
    reference's results: one region holds the pool of parked workers, the others run on
    threads of their own meanwhile, and the pool grows while serving them."""
    tok = _tokenizer(VOCAB, False, "bert")
    encoder = tok._seq.word_encoder
    rng = random.Random(11)
    batches = [[rng.choice(PIECES[:14]) * rng.randint(1, 6) for _ in range(6000)]
               for _ in range(4)]
    expected = [[encoder.reference.encode_ids(t) for t in batch] for batch in batches]
    start = threading.Barrier(len(batches))
    failures: list = []

    def work(k: int) -> None:
        start.wait()
        for rep in range(6):
            i, n = (k + rep) % len(batches), 2 + (k + rep) % 3
            try:
                got = encoder.encode_batch_ids(batches[i], n)
                flat = encoder.encode_batch_ids(batches[i], n, as_numpy=True)
                padded = tok(batches[i], add_special_tokens=False, padding=True,
                             return_tensors="np", num_threads=n)["input_ids"]
            except Exception as e:  # noqa: BLE001 - reported below
                failures.append((k, rep, e))
                continue
            width = max(map(len, expected[i]))
            if (got != expected[i] or flat.ids.tolist() != sum(expected[i], [])
                    or padded.tolist() != [ids + [0] * (width - len(ids))
                                           for ids in expected[i]]):
                failures.append((k, rep, n))

    _run_together(work, len(batches))
    assert failures == []


def test_texts_with_chars():
    """The first-character filter of the added-token search: indices, or None past 16."""
    assert texts_with_chars(["ab[c", "x", "é[", "ü", "😀[x", ""], "[") == [0, 2, 4]
    assert texts_with_chars(["ab", "ж", "😀"], "😀ж") == [1, 2]
    assert texts_with_chars(["a"], "abcdefghijklmnopq") is None
    with pytest.raises(TypeError, match=r"texts\[1\] must be str, not int"):
        texts_with_chars(["a", 3], "[")


# ---------------------------------------------------------------- real text


@pytest.mark.shared_data
def test_corpora_on_every_thread_count():
    """English, Portuguese and multilingual text through bert-base-uncased's vocabulary."""
    vocab = shared_path("vocab", "bert-base-uncased.vocab.txt").read_text(
        encoding="utf-8").splitlines()
    lines = (corpus_lines("english", "botchan.txt", limit=1500)
             + corpus_lines("portuguese", "machado_dom_casmurro.txt", limit=1500)
             + corpus_lines("multilingual", "emoji-test-13.1.txt", limit=800))
    native, python = _tokenizer(vocab, False), _tokenizer(vocab, True)
    assert sum(map(len, lines)) > 4 * 16384
    pairs = list(zip(lines, reversed(lines), strict=True))[:1500]
    expected_ids = python.encode_batch_ids(lines, add_special_tokens=False)
    expected_pairs = python.encode_batch_ids(pairs)
    options = {"padding": True, "truncation": True, "max_length": 64, "return_tensors": "np"}
    expected_np = _plain(python(lines, **options))
    for n in THREADS:
        fresh = _tokenizer(vocab, False)  # nothing learned: the scan learns on n threads
        assert fresh.encode_batch_ids(lines, add_special_tokens=False,
                                      num_threads=n) == expected_ids
        assert native.encode_batch_ids(pairs, num_threads=n) == expected_pairs
        assert _plain(native(lines, **options, num_threads=n)) == expected_np
