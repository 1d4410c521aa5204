"""Vocabulary and corpus statistics, recomputed independently from the files and from HF."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.reference_corpora import sample_lines
from tests.shared_data import shared_path
from wordpieces.tokenizer import Tokenizer
from wordpieces.tools.inspect_vocab import CorpusStats, _percentile, plot_stats, vocab_facts

UNCASED = ("vocab", "bert-base-uncased.vocab.txt")


def uncased(flavor: str = "huggingface") -> Tokenizer:
    return Tokenizer.from_vocab(shared_path(*UNCASED), flavor=flavor)


@pytest.mark.shared_data
def test_vocab_facts_match_the_file():
    """Size, ## share, [unused] slots and single characters agree with vocab.txt itself."""
    lines = shared_path(*UNCASED).read_text(encoding="utf-8").split("\n")[:-1]
    facts = vocab_facts(uncased())
    specials = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}
    ordinary = [t for t in lines if t not in specials]
    cont = [t for t in ordinary if t.startswith("##")]
    assert facts["vocab_size"] == len(lines) == 30522
    assert facts["reserved_tokens"] == ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    assert facts["unused_tokens"] == sum(t.startswith("[unused") for t in lines)
    assert facts["continuation_pieces"] == len(cont)
    assert facts["continuation_share"] == pytest.approx(len(cont) / len(ordinary))
    assert facts["characters"]["word_start"] == sum(
        len(t) == 1 for t in ordinary if not t.startswith("##"))
    assert sum(facts["length_histogram"].values()) == len(ordinary)


@pytest.mark.shared_data
def test_corpus_stats_match_hf_tokenizers():
    """Words, tokens, [UNK]s and sequence lengths equal those counted from HF's encodings."""
    from tests.hf_reference import hf_from_vocab

    lines = sample_lines("udhr")[:1500]
    stats = CorpusStats(uncased(), max_length=64)
    stats.add(lines[:700])
    stats.add(lines[700:])
    report = stats.report()
    reference = hf_from_vocab(shared_path(*UNCASED)).encode_batch(lines,
                                                                  add_special_tokens=False)
    lengths = sorted(len(e.ids) + 2 for e in reference)
    words = sum(len(set(e.word_ids)) for e in reference)
    assert report["tokens"] == sum(len(e.ids) for e in reference)
    assert report["words"] == words
    assert report["unk"]["tokens"] == sum(e.tokens.count("[UNK]") for e in reference)
    assert report["sequence_length"]["percentiles"][100] == lengths[-1]
    assert report["sequence_length"]["lines_over"] == sum(n > 64 for n in lengths)
    assert report["sequence_length"]["tokens_cut"] == sum(n - 64 for n in lengths if n > 64)


@pytest.mark.shared_data
def test_tokens_per_word_histogram_counts_pieces_of_each_word():
    """The histogram of pieces per word is HF's tokens grouped by word id."""
    from tests.hf_reference import hf_from_vocab

    lines = sample_lines("english_wikitext")[:500]
    stats = CorpusStats(uncased())
    stats.add(lines)
    expected = Counter()
    for enc in hf_from_vocab(shared_path(*UNCASED)).encode_batch(lines,
                                                                   add_special_tokens=False):
        expected.update(Counter(enc.word_ids).values())
    assert stats.report()["tokens_per_word"]["histogram"] == dict(sorted(expected.items()))


@pytest.mark.shared_data
def test_most_split_words_are_ranked_by_pieces():
    """The top split words really take that many pieces, most pieces first."""
    tok = uncased()
    stats = CorpusStats(tok)
    stats.add(sample_lines("english_gutenberg"))
    top = stats.report()["most_split_words"]
    assert top and [p for _, p, _ in top] == sorted((p for _, p, _ in top), reverse=True)
    for word, n_pieces, _ in top:
        assert len(tok.tokenize(word)) == n_pieces


@pytest.mark.parametrize("p", [1, 50, 90, 99, 100])
def test_percentile_is_nearest_rank(p):
    """_percentile agrees with numpy's inverted-CDF (nearest-rank) percentile."""
    np = pytest.importorskip("numpy")
    values = sorted([5, 1, 9, 3, 3, 7, 12, 40, 2, 8, 8, 6])
    assert _percentile(values, p) == int(np.percentile(values, p, method="inverted_cdf"))


@pytest.mark.shared_data
def test_plot_writes_png_with_and_without_corpus(tmp_path):
    """plot_stats writes a PNG for the vocabulary alone and with corpus panels."""
    pytest.importorskip("matplotlib")
    tok = uncased()
    stats = CorpusStats(tok)
    stats.add(sample_lines("english_wikitext")[:200])
    for name, corpus in (("vocab.png", None), ("all.png", stats.report())):
        plot_stats(vocab_facts(tok), corpus, str(tmp_path / name))
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# ---------------------------------------------------------------- a padded tokenizer


TEACHING = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "play", "player", "##ing", "##er", "##s",
            "the", "was", ","]
LINES = ["the player was playing", "players, players, players, playing the player", "play"]


def padded(length: int = 16, max_length: int = 6) -> Tokenizer:
    """A tokenizer padding to ``length`` and truncating at ``max_length``, as a
    tokenizer.json may (all-MiniLM-L6-v2's: both 128)."""
    tok = Tokenizer.from_vocab(TEACHING)
    tok.enable_padding(length=length)
    tok.enable_truncation(max_length)
    return tok


def test_counts_leave_out_the_tokenizer_s_padding_and_truncation():
    """A padded tokenizer counts as the same vocabulary unpadded (not 16 tokens a line)."""
    stats, plain = CorpusStats(padded(), max_length=6), CorpusStats(Tokenizer.from_vocab(TEACHING),
                                                                    max_length=6)
    stats.add(LINES)
    plain.add(LINES)
    report, expected = stats.report(), plain.report()
    assert report["tokens"] == expected["tokens"] == 5 + 13 + 1
    assert report["tokens_per_word"] == expected["tokens_per_word"]
    assert report["sequence_length"]["percentiles"] == expected["sequence_length"]["percentiles"]
    assert report["left_out"] == {"padding": padded().padding, "truncation": padded().truncation}
    assert expected["left_out"] == {"padding": None, "truncation": None}


def test_the_limit_defaults_to_the_tokenizer_s_truncation():
    """What its truncation would cut is measured against its own max_length (else 512)."""
    stats = CorpusStats(padded(max_length=6))
    stats.add(LINES)
    seq = stats.report()["sequence_length"]
    assert (seq["max_length"], seq["max_length_source"]) == (6, "truncation")
    # 5, 13 and 1 tokens + [CLS] and [SEP]: two lines over 6, by 1 and 9 tokens
    assert seq["lines_over"] == 2 and seq["tokens_cut"] == (7 - 6) + (15 - 6)
    assert seq["percentiles"][100] == 15
    unpadded = CorpusStats(Tokenizer.from_vocab(TEACHING))
    assert (unpadded.max_length, unpadded.max_length_source) == (512, "default")
    given = CorpusStats(padded(), max_length=64)
    assert (given.max_length, given.max_length_source) == (64, "given")
