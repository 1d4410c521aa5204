"""HF's generic stages, one at a time, against tokenizers itself on generated text.

Alignments are compared through offsets: a WordLevel tokenizer whose pre-tokenizer cuts
every normalized character into its own token reports, for each, the span of the
original text it is aligned to. (The shared corpora run the same stages in
``tests/differential/test_hf_components.py``.)
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wordpieces.pipeline import decoders, edit_normalizers, extra_processors, models, normalizers
from wordpieces.pipeline import pre_tokenizers as pre
from wordpieces.pipeline.processors import BertProcessing, TemplateProcessing
from wordpieces.tokenizer import Tokenizer

hf = pytest.importorskip("tokenizers")
N, P, D = hf.normalizers, hf.pre_tokenizers, hf.decoders

# Composed and decomposed accents, ligatures, full-width and compatibility forms, marks
# that reorder, Hangul jamo, spaces of every kind, punctuation, digits of three scripts.
ALPHABET = ("aAé e\u0301\u0323\u0302ﬁ①Ａ㎏ḱ\u1100\u1161\u11a8가İΣß \t\n\u00a0\u3000\u200d"
            "-.,'!?`_²٣५中\u0915\u094d\u093e\u2581")
TEXTS = st.text(alphabet=ALPHABET, max_size=30)

NORMALIZERS = {
    "Lowercase": (N.Lowercase(), normalizers.Lowercase()),
    "NFC": (N.NFC(), normalizers.NFC()),
    "NFD": (N.NFD(), normalizers.NFD()),
    "NFKC": (N.NFKC(), normalizers.NFKC()),
    "NFKD": (N.NFKD(), normalizers.NFKD()),
    "StripAccents": (N.Sequence([N.NFD(), N.StripAccents()]),
                     normalizers.Sequence([normalizers.NFD(), normalizers.StripAccents()])),
    "Strip": (N.Strip(), edit_normalizers.Strip()),
    "Strip-right": (N.Strip(left=False, right=True), edit_normalizers.Strip(False, True)),
    "Replace-string": (N.Replace("e", "[ee]"), edit_normalizers.Replace("e", "[ee]")),
    "Replace-regex": (N.Replace(hf.Regex(r"\s+|\p{P}"), ""),
                      edit_normalizers.Replace(r"\s+|\p{P}", "", regex=True)),
    "Prepend": (N.Prepend("\u2581x"), edit_normalizers.Prepend("\u2581x")),
    "Sequence": (N.Sequence([N.NFKC(), N.Strip(), N.Replace(" ", "\u2581"), N.Prepend("\u2581")]),
                 normalizers.Sequence([normalizers.NFKC(), edit_normalizers.Strip(),
                                       edit_normalizers.Replace(" ", "\u2581"),
                                       edit_normalizers.Prepend("\u2581")])),
}


def per_character(normalizer):
    """Our tokenizer and HF's with ``normalizer`` (as JSON) and one token per character."""
    doc = {"version": "1.0", "normalizer": normalizer.to_config(), "added_tokens": [],
           "pre_tokenizer": {"type": "Split", "pattern": {"Regex": r"[\s\S]"},
                             "behavior": "Isolated", "invert": False},
           "post_processor": None, "decoder": None, "truncation": None, "padding": None,
           "model": {"type": "WordLevel", "vocab": {"[UNK]": 0, "a": 1}, "unk_token": "[UNK]"}}
    text = json.dumps(doc)
    return Tokenizer.from_str(text), hf.Tokenizer.from_str(text)


@pytest.mark.parametrize("name", NORMALIZERS)
@settings(max_examples=80, deadline=None)
@given(text=TEXTS)
def test_normalizer_text_and_alignment_match_hf(name, text):
    """The normalized text and each normalized character's original span equal HF's."""
    theirs, ours = NORMALIZERS[name]
    assert ours.normalize_str(text) == theirs.normalize_str(text)
    mine, reference = per_character(ours)
    assert mine.encode(text).offsets == reference.encode(text).offsets


PRE_TOKENIZERS = {
    "Whitespace": (P.Whitespace(), pre.Whitespace()),
    "WhitespaceSplit": (P.WhitespaceSplit(), pre.WhitespaceSplit()),
    **{f"Punctuation-{b}": (P.Punctuation(b), pre.Punctuation(b)) for b in pre.BEHAVIORS},
    "Digits": (P.Digits(), pre.Digits()),
    "Digits-individual": (P.Digits(individual_digits=True), pre.Digits(True)),
    "CharDelimiterSplit": (P.CharDelimiterSplit("-"), pre.CharDelimiterSplit("-")),
    **{f"Metaspace-{s}-{split}": (P.Metaspace(prepend_scheme=s, split=split),
                                  pre.Metaspace(prepend_scheme=s, split=split))
       for s in pre.PREPEND_SCHEMES for split in (True, False)},
    "Sequence": (P.Sequence([P.WhitespaceSplit(), P.Metaspace(prepend_scheme="first")]),
                 pre.Sequence([pre.WhitespaceSplit(), pre.Metaspace(prepend_scheme="first")])),
}


@pytest.mark.parametrize("name", PRE_TOKENIZERS)
@settings(max_examples=80, deadline=None)
@given(text=TEXTS)
def test_pre_tokenizer_matches_hf(name, text):
    """Words and their offsets equal HF's ``pre_tokenize_str``."""
    theirs, ours = PRE_TOKENIZERS[name]
    assert ours.pre_tokenize_str(text) == theirs.pre_tokenize_str(text)


def test_split_merges_only_the_first_of_consecutive_matches():
    """HF merges one delimiter into its neighbour; the next stays alone ('a-', '-', 'b')."""
    words = pre.Split("-", "merged_with_previous", regex=False).pre_tokenize_str("a--b")
    assert words == P.Split("-", "merged_with_previous").pre_tokenize_str("a--b")
    assert [w for w, _ in words] == ["a-", "-", "b"]


TOKENS = st.lists(st.text(alphabet="ab \u2581#", max_size=5).filter(bool), max_size=6)

DECODERS = {
    "Metaspace": (D.Metaspace(), decoders.MetaspaceDecoder()),
    "Metaspace-never": (D.Metaspace(prepend_scheme="never"),
                        decoders.MetaspaceDecoder(prepend_scheme="never")),
    "Replace": (D.Replace("\u2581", " "), decoders.ReplaceDecoder("\u2581", " ")),
    "Strip": (D.Strip(" ", 1, 1), decoders.StripDecoder(" ", 1, 1)),
    "Sequence": (D.Sequence([D.Replace("\u2581", " "), D.WordPiece(), D.Strip(" ", 1, 0)]),
                 decoders.DecoderSequence([decoders.ReplaceDecoder("\u2581", " "),
                                           decoders.WordPieceDecoder(),
                                           decoders.StripDecoder(" ", 1, 0)])),
}


@pytest.mark.parametrize("name", DECODERS)
@settings(max_examples=80, deadline=None)
@given(tokens=TOKENS)
def test_decoder_matches_hf(name, tokens):
    """The decoded text equals HF's."""
    theirs, ours = DECODERS[name]
    if name == "Strip" and any(len(t) - len(t.strip(" ")) >= len(t) for t in tokens):
        return  # HF panics on a token made only of the stripped character
    assert ours.decode(tokens) == theirs.decode(tokens)


def test_configs_are_what_hf_writes():
    """Each stage's to_config is HF's own JSON for the same settings."""
    pairs = [(N.Strip(left=True, right=False), edit_normalizers.Strip(True, False)),
             (N.Replace("a", "b"), edit_normalizers.Replace("a", "b")),
             (N.Prepend("\u2581"), edit_normalizers.Prepend("\u2581")),
             (P.Punctuation("contiguous"), pre.Punctuation("contiguous")),
             (P.Digits(individual_digits=True), pre.Digits(True)),
             (P.CharDelimiterSplit("x"), pre.CharDelimiterSplit("x")),
             (P.Metaspace(prepend_scheme="first", split=False),
              pre.Metaspace(prepend_scheme="first", split=False)),
             (D.Metaspace(), decoders.MetaspaceDecoder()),
             (D.Strip(" ", 2, 1), decoders.StripDecoder(" ", 2, 1)),
             (D.Replace("a", "b"), decoders.ReplaceDecoder("a", "b"))]
    for theirs, ours in pairs:
        assert json.loads(theirs.__getstate__()) == ours.to_config()


def test_roberta_config_is_what_hf_writes():
    """RobertaProcessing's JSON, every field, as HF writes it."""
    theirs = hf.processors.RobertaProcessing(("</s>", 2), ("<s>", 0), trim_offsets=False)
    ours = extra_processors.RobertaProcessing(("</s>", 2), ("<s>", 0), trim_offsets=False)
    assert json.loads(theirs.__getstate__()) == ours.to_config()


@pytest.mark.parametrize("stage, expected", [
    (normalizers.BertNormalizer(), "BertNormalizer(clean_text=True, handle_chinese_chars=True, "
                                   "strip_accents=None, lowercase=True, flavor='bert')"),
    (normalizers.NFKC(), "NFKC()"),
    (normalizers.Sequence([normalizers.NFD(), normalizers.Lowercase()]),
     "Sequence([NFD(), Lowercase()])"),
    (edit_normalizers.Replace("a", "b"), "Replace(String('a'), content='b')"),
    (edit_normalizers.Strip(), "Strip(left=True, right=True)"),
    (edit_normalizers.Prepend("_"), "Prepend('_')"),
    (pre.BertPreTokenizer(flavor="huggingface"), "BertPreTokenizer(flavor='huggingface')"),
    (pre.Whitespace(), "Whitespace()"),
    (pre.Split(r"\s", "removed"), r"Split(Regex('\\s'), behavior='removed', invert=False)"),
    (pre.Punctuation(), "Punctuation(behavior='isolated')"),
    (pre.Digits(True), "Digits(individual_digits=True)"),
    (pre.Metaspace(), "Metaspace(replacement='\u2581', prepend_scheme='always', split=True)"),
    (pre.Sequence([pre.WhitespaceSplit()]), "Sequence([WhitespaceSplit()])"),
    (BertProcessing(("[SEP]", 102), ("[CLS]", 101)),
     "BertProcessing(sep=('[SEP]', 102), cls=('[CLS]', 101))"),
    (TemplateProcessing("[CLS] $A", special_tokens={"[CLS]": 1}),
     "TemplateProcessing('[CLS]:0 $A:0', pair='[CLS]:0 $A:0 $B:1')"),
    (decoders.StripDecoder(" ", 1, 0), "StripDecoder(' ', start=1, stop=0)"),
    (models.WordPiece(["[UNK]", "a"]), "WordPiece(vocab_size=2, unk_token='[UNK]', "
                                       "continuing_subword_prefix='##', "
                                       "max_input_chars_per_word=100)"),
    (models.WordLevel(["<unk>", "a"], unk_token="<unk>"),
     "WordLevel(vocab_size=2, unk_token='<unk>')"),
    (extra_processors.RobertaProcessing(("</s>", 2), ("<s>", 0)),
     "RobertaProcessing(sep=('</s>', 2), cls=('<s>', 0), trim_offsets=True, "
     "add_prefix_space=True)"),
    (decoders.DecoderSequence([decoders.WordPieceDecoder()]),
     "DecoderSequence([WordPieceDecoder(prefix='##', cleanup=True)])"),
])
def test_stage_reprs_show_their_settings(stage, expected):
    """Every stage's repr names its class and settings."""
    assert repr(stage) == expected


@pytest.mark.slow
@pytest.mark.parametrize("name", ["Lowercase", "NFC", "NFKC"])
def test_one_character_results_match_hf_on_every_code_point(name):
    """Lowercase, NFC and NFKC of each code point alone equal HF's (NFD, NFKD and
    StripAccents are probed into the shipped table, checked by test_patterns)."""
    cps = [cp for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF and cp != 10]
    text = "\n".join(map(chr, cps))  # a newline neither composes nor reorders
    theirs = NORMALIZERS[name][0].normalize_str(text).split("\n")
    ours = NORMALIZERS[name][1].normalize_str(text).split("\n")
    assert len(ours) == len(theirs)
    assert [hex(cp) for cp, a, b in zip(cps, ours, theirs, strict=True) if a != b] == []


@pytest.mark.parametrize("text", ["hello[MASK]world", "[MASK]world again", "a [MASK] b",
                                  "x[MASK]", "  [MASK]y[MASK]z"])
@pytest.mark.parametrize("normalized", [False, True])
def test_metaspace_first_after_an_added_token_matches_hf(text, normalized):
    """Only the text's first piece gets the "first" prefix, not one after an added token."""
    doc = {"version": "1.0", "normalizer": {"type": "Lowercase"} if normalized else None,
           "pre_tokenizer": {"type": "Metaspace", "replacement": "\u2581",
                             "prepend_scheme": "first", "split": True},
           "added_tokens": [{"id": 0, "content": "[MASK]", "single_word": False,
                             "lstrip": False, "rstrip": False, "normalized": normalized,
                             "special": True}],
           "post_processor": None, "decoder": None, "truncation": None, "padding": None,
           "model": {"type": "WordLevel", "unk_token": "[UNK]",
                     "vocab": {"[MASK]": 0, "[UNK]": 1, "\u2581hello": 2, "world": 3,
                               "\u2581world": 4, "\u2581a": 5, "\u2581b": 6, "y": 7,
                               "\u2581y": 8}}}
    ours, theirs = Tokenizer.from_str(json.dumps(doc)), hf.Tokenizer.from_str(json.dumps(doc))
    mine, reference = ours.encode(text), theirs.encode(text)
    assert (mine.tokens, mine.offsets, mine.word_ids) == (
        reference.tokens, reference.offsets, reference.word_ids)


@pytest.mark.parametrize("text", ["qhi x", "qqhi", "hi x", " hi", "q hi", "qq", "hiq x"])
@pytest.mark.parametrize("split", [True, False])
def test_metaspace_first_after_a_deleted_start_matches_hf(text, split):
    """"first" prepends only when the normalized text starts at the original's character
    0: not when the normalizer deleted what stood there (a regex Replace keeps this on the
    staged path, where Metaspace itself decides)."""
    doc = {"version": "1.0", "added_tokens": [], "post_processor": None, "decoder": None,
           "truncation": None, "padding": None,
           "normalizer": {"type": "Replace", "pattern": {"Regex": "q+"}, "content": ""},
           "pre_tokenizer": {"type": "Metaspace", "replacement": "\u2581",
                             "prepend_scheme": "first", "split": split},
           "model": {"type": "WordLevel", "unk_token": "[UNK]",
                     "vocab": {"[UNK]": 0, "hi": 1, "\u2581hi": 2, "\u2581x": 3, "x": 4}}}
    ours, theirs = Tokenizer.from_str(json.dumps(doc)), hf.Tokenizer.from_str(json.dumps(doc))
    mine, reference = ours.encode(text), theirs.encode(text)
    assert (mine.tokens, mine.offsets, mine.word_ids) == (
        reference.tokens, reference.offsets, reference.word_ids)
