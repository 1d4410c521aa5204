"""The greedy trace: its pieces are the references' pieces, its steps are the real search."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.reference_corpora import sample_lines
from tests.shared_data import shared_path
from wordpieces.pipeline.models import WordLevel, WordPiece, wordpiece_tokenize
from wordpieces.tokenizer import Tokenizer
from wordpieces.tools.explain import explain, render, trace_word


def bert(flavor: str = "bert", name: str = "bert-base-uncased", **options) -> Tokenizer:
    return Tokenizer.from_vocab(shared_path("vocab", f"{name}.vocab.txt"), flavor=flavor,
                                **options)


def sample(corpus: str, n: int) -> list[str]:
    """``n`` lines spread over a shared corpus."""
    lines = sample_lines(corpus)
    return lines[::max(1, len(lines) // n)][:n]


def pieces(traces) -> list[str]:
    return [token for trace in traces for token, _ in trace.pieces]


@pytest.mark.shared_data
@pytest.mark.parametrize("corpus", ["english_wikitext", "udhr", "chinese", "emoji"])
def test_pieces_equal_hf_tokenizers(corpus):
    """On real text, the traced pieces are HF tokenizers' tokens (flavor huggingface)."""
    from tests.hf_reference import hf_from_vocab

    tok = bert("huggingface")
    reference = hf_from_vocab(shared_path("vocab", "bert-base-uncased.vocab.txt"))
    for line in sample(corpus, 150):
        assert pieces(explain(tok, line)) == reference.encode(
            line, add_special_tokens=False).tokens, line


@pytest.mark.shared_data
@pytest.mark.parametrize("flavor", ["bert", "tensorflow"])
def test_pieces_equal_the_tokenizer_for_each_flavor(flavor):
    """For the other flavors the trace follows the flavor's own normalization."""
    tok = bert(flavor)
    for line in sample("udhr", 200) + sample("english_wikitext", 100):
        assert pieces(explain(tok, line)) == tok.tokenize(line), line


@pytest.mark.shared_data
def test_literal_special_token_is_kept_whole_in_hf_flavor():
    """HF keeps '[MASK]' typed in the text as one token; the trace says so."""
    traces = explain(bert("huggingface"), "a [MASK] b")
    assert [t.pieces for t in traces][1] == [("[MASK]", 103)]
    assert "added token" in traces[1].note


@pytest.mark.shared_data
def test_spans_point_into_the_original_text():
    """Each trace's span is where its word is in the input, before normalization."""
    text = "  Héllo,   WORLD! naïve"
    for trace in explain(bert(), text):
        start, end = trace.span
        assert text[start:end] == trace.original


@pytest.mark.shared_data
def test_steps_are_the_longest_first_search():
    """At each position candidates shrink by one character until one is in the vocabulary."""
    tok = bert()
    vocab = tok.model.vocab
    trace = explain(tok, "unaffable")[0]
    assert [p.start for p in trace.positions] == [0, 3, 6]
    for position in trace.positions:
        tried = [a.candidate for a in position.attempts]
        assert all(len(a) == len(b) + 1 for a, b in zip(tried, tried[1:], strict=False))
        assert all(c not in vocab for c in tried[:-1]) and tried[-1] in vocab
        assert all(a.found == (a.candidate in vocab) for a in position.attempts)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="abcd", min_size=1, max_size=12),
       st.sets(st.text(alphabet="abcd", min_size=1, max_size=4), max_size=12),
       st.sets(st.text(alphabet="abcd", min_size=1, max_size=3), max_size=8))
def test_trace_word_agrees_with_wordpiece_tokenize(word, starts, continuations):
    """On any word and vocabulary, the trace ends in the model's own split."""
    tokens = ["[UNK]", *sorted(starts), *sorted("##" + c for c in continuations)]
    model = WordPiece(tokens)
    trace = trace_word(model, word)
    assert [t for t, _ in trace.pieces] == wordpiece_tokenize(word, tokens)
    assert (trace.unk_reason is not None) == ([t for t, _ in trace.pieces] == ["[UNK]"])


@pytest.mark.shared_data
def test_unknown_character_is_named():
    """A character missing as a continuation piece is named with its code point."""
    trace = explain(bert(), "snowman☃")[0]
    assert trace.pieces == [("[UNK]", 100)]
    assert "U+2603" in trace.unk_reason and "continuation piece" in trace.unk_reason


@pytest.mark.shared_data
def test_too_long_word_reason_names_the_limit():
    """Words over max_input_chars_per_word are unknown without any search."""
    trace = explain(bert(), "a" * 201)[0]
    assert trace.positions == [] and "max_input_chars_per_word=200" in trace.unk_reason


@pytest.mark.shared_data
def test_tensorflow_flavor_limits_bytes():
    """The tensorflow flavor's limit is in UTF-8 bytes: 51 two-byte letters are too long."""
    trace = explain(bert("tensorflow", lowercase=False, name="bert-base-multilingual-cased"),
                    "é" * 51)[0]
    assert "102 UTF-8 bytes" in trace.unk_reason


def test_word_level_model_is_one_lookup():
    """A word-level model is traced as a single lookup."""
    model = WordLevel(["<unk>", "cat"], unk_token="<unk>")
    assert trace_word(model, "cat").pieces == [("cat", 1)]
    assert "not in the vocabulary" in trace_word(model, "dog").unk_reason


@pytest.mark.shared_data
def test_render_plain_and_coloured():
    """render lists the tries; colour codes appear only when asked."""
    traces = explain(bert(), "unaffable")
    plain = render(traces)
    assert "try ##ffa: found" in plain and "\x1b[" not in plain
    coloured = render(traces, color=True)  # the page's colours: amber starts, blue ## pieces
    assert "\x1b[38;5;214muna\x1b[0m" in coloured and "\x1b[38;5;75m##ffa\x1b[0m" in coloured
