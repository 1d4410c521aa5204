"""The WordPiece and WordLevel models and the greedy longest-match function."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wordpieces.errors import VocabError
from wordpieces.pipeline.models import WordLevel, WordPiece, wordpiece_tokenize

PLAY = ["play", "player", "##ing", "##er", "##s", "##ed", "##ly"]


@pytest.mark.parametrize("word, pieces", [
    ("playing", ["play", "##ing"]),
    ("played", ["play", "##ed"]),
    ("players", ["player", "##s"]),
    ("playly", ["play", "##ly"]),
    ("unknown", ["[UNK]"]),
])
def test_tutorial_play_examples(word, pieces):
    """The tutorial's play/player vocabulary splits as the tutorial says."""
    assert wordpiece_tokenize(word, PLAY) == pieces


def test_unhappily_is_unknown():
    """A remainder that matches nothing makes the whole word [UNK]."""
    vocab = ["un", "##happy", "##ness", "happy", "##ly"]
    assert wordpiece_tokenize("unhappily", vocab) == ["[UNK]"]


def test_unhappiness_cannot_use_happy():
    """'unhappiness' spells 'happi', so '##happy' cannot match: the word is [UNK].

    The tutorial lists 'un ##happy ##ness' here; greedy matching of substrings (BERT,
    HF and TF alike) cannot produce a piece that is not in the text.
    """
    vocab = ["un", "##happy", "##ness", "happy", "##ly"]
    assert wordpiece_tokenize("unhappiness", vocab) == ["[UNK]"]
    assert wordpiece_tokenize("unhappyness", vocab) == ["un", "##happy", "##ness"]


def test_unplayed_prefers_longest_pieces():
    """Longest match first: 'unplayed' is un ##play ##ed, not letter by letter."""
    vocab = ["un", "##play", "##ed", "play", "##ing", "a", "u", "##n", "##p", "##l", "##a",
             "##y", "##e", "##d"]
    assert wordpiece_tokenize("unplayed", vocab) == ["un", "##play", "##ed"]


def test_custom_prefix():
    """The continuation prefix is configurable."""
    assert wordpiece_tokenize("players", ["player", "@@s"], continuing_subword_prefix="@@") == \
        ["player", "@@s"]


def test_word_over_char_limit_is_unknown():
    """A word longer than max_input_chars_per_word is one [UNK] (HF: 'Hello'*26)."""
    model = WordPiece(["[UNK]", "hello", "##hello"])
    assert model.tokenize("hello" * 20) == [("hello", 1)] + [("##hello", 2)] * 19
    assert model.tokenize("hello" * 21) == [("[UNK]", 0)]


def test_byte_limit_counts_utf8():
    """max_input_bytes_per_word counts UTF-8 bytes, as TF Text does."""
    model = WordPiece(["[UNK]", "é", "##é"], max_input_bytes_per_word=4)
    assert [t for t, _ in model.tokenize("éé")] == ["é", "##é"]
    assert [t for t, _ in model.tokenize("ééé")] == ["[UNK]"]


def test_pieces_carry_spans():
    """pieces() gives each piece's span in the word."""
    model = WordPiece(["[UNK]", "play", "##ing"])
    assert model.pieces("playing") == ((1, 0, 4), (2, 4, 7))


def test_missing_unknown_token_is_reported():
    """A vocabulary without the unknown token is refused at construction."""
    with pytest.raises(VocabError, match=r"unknown token '\[UNK\]' is not in the vocabulary"):
        WordPiece(["a", "b"])


def test_word_level_maps_unknown():
    """WordLevel maps a whole word to its id or to the unknown id."""
    model = WordLevel(["<unk>", "cat"], unk_token="<unk>")
    assert model.tokenize("cat") == [("cat", 1)]
    assert model.tokenize("dog") == [("<unk>", 0)]


@given(st.text(alphabet="abc", min_size=1, max_size=30))
def test_pieces_rebuild_the_word(word):
    """Whenever a word is not [UNK], its pieces without '##' spell the word."""
    vocab = ["[UNK]", "a", "b", "ab", "##a", "##b", "##c", "##bc", "##abc"]
    pieces = wordpiece_tokenize(word, vocab)
    if pieces != ["[UNK]"]:
        assert "".join(p.removeprefix("##") for p in pieces) == word
    else:
        assert word.startswith("c")


@given(st.text(alphabet="abcd", min_size=1, max_size=20))
def test_cached_model_equals_function(word):
    """The cached WordPiece model and the plain function agree."""
    vocab = ["[UNK]", "a", "ab", "abc", "##b", "##c", "##cd", "##d", "##a"]
    model = WordPiece(vocab)
    assert [t for t, _ in model.tokenize(word)] == wordpiece_tokenize(word, vocab)
    assert [t for t, _ in model.tokenize(word)] == wordpiece_tokenize(word, vocab)


@settings(max_examples=300, deadline=None)
@given(data=st.data(),
       pieces=st.lists(st.tuples(st.booleans(), st.text(alphabet="ab#@", min_size=1,
                                                        max_size=6)), max_size=14),
       prefix=st.sampled_from(["##", "@@", "#", ""]), limit=st.integers(0, 20))
def test_split_equals_the_reference_function(data, pieces, prefix, limit):
    """WordPiece.split (continuations keyed without their prefix) == wordpiece_tokenize."""
    vocab = list(dict.fromkeys(["[UNK]", *(prefix * go_on + body for go_on, body in pieces)]))
    # words glued from the vocabulary's own pieces, so that long matches happen
    glue = st.sampled_from([b for _, b in pieces] + ["a", "#"])
    word = "".join([data.draw(glue) + data.draw(glue), *data.draw(st.lists(glue, max_size=4))])
    model = WordPiece(vocab, continuing_subword_prefix=prefix, max_input_chars_per_word=limit)
    expected = wordpiece_tokenize(word, vocab, continuing_subword_prefix=prefix,
                                  max_input_chars_per_word=limit)
    assert [model.vocab.tokens[i] for i, _, _ in model.split(word)] == expected
    assert model.pieces(word) == model.split(word)


def test_word_start_piece_may_begin_with_the_prefix():
    """A word that itself starts with '##' can match a vocabulary entry whole (as HF/BERT)."""
    model = WordPiece(["[UNK]", "##abc", "x"])
    assert model.tokenize("##abc") == [("##abc", 1)]


def test_prefix_is_fixed_at_construction():
    """The continuation table is keyed without the prefix, so changing it later is refused."""
    model = WordPiece(["[UNK]", "play", "@@ing"], continuing_subword_prefix="@@")
    assert model.continuing_subword_prefix == "@@"
    with pytest.raises(AttributeError):
        model.continuing_subword_prefix = "##"  # type: ignore[misc]
    assert model.tokenize("playing") == [("play", 1), ("@@ing", 2)]


def test_longest_piece_counts_continuations_without_their_prefix():
    """longest_piece: the longest candidate a search can match, prefix not counted."""
    assert WordPiece(["?", "ab", "##abcdef", "xyz"], unk_token="?").longest_piece == 6
    no_prefix = WordPiece(["?", "##abcd"], unk_token="?", continuing_subword_prefix="")
    assert no_prefix.longest_piece == 6  # without a prefix, "##" is just two characters
