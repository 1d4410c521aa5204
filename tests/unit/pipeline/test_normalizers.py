"""Normalizers keep an alignment to the original text."""

from hypothesis import given
from hypothesis import strategies as st

from wordpieces.pipeline.normalizers import (
    NFC,
    NFD,
    NFKC,
    BertNormalizer,
    Lowercase,
    NormalizedString,
    Sequence,
    StripAccents,
)


def test_hf_examples_strip_and_lowercase():
    """HF's test_normalizers: Héllò -> hello with accents stripped, héllò without."""
    assert BertNormalizer(flavor="huggingface").normalize_str("Héllò") == "hello"
    assert (
        BertNormalizer(strip_accents=False, flavor="huggingface").normalize_str("Héllò") == "héllò"
    )


def test_hf_chinese_spacing():
    """HF's test_normalizers: 你好 becomes ' 你  好 '."""
    assert BertNormalizer(flavor="huggingface").normalize_str("你好") == " 你  好 "


def test_bom_is_cleaned():
    """HF's test_normalizers: a leading U+FEFF is removed by clean_text."""
    assert BertNormalizer(flavor="huggingface").normalize_str("\ufeffHello") == "hello"


def test_alignment_points_at_source_character():
    """Each normalized character is aligned to the character it came from."""
    ns = BertNormalizer().normalize("a\x00Éb")
    assert ns.normalized == "aeb"
    assert ns.alignments == ((0, 1), (2, 3), (3, 4))


def test_expansion_shares_the_source_span():
    """A character that expands (İ -> i + dot, stripped) keeps one source span."""
    ns = BertNormalizer(strip_accents=False).normalize("İx")
    assert ns.normalized == "i\u0307x"
    assert ns.alignments == ((0, 1), (0, 1), (1, 2))


def test_sequence_composes_alignments():
    """Sequence([NFD, StripAccents, Lowercase]) strips accents and keeps alignment."""
    ns = Sequence([NFD(), StripAccents(), Lowercase()]).normalize("Élan")
    assert ns.normalized == "elan"
    assert ns.span(0, 4) == (0, 4)


def test_nfc_composes_combining_sequence():
    """NFC merges a letter and its combining mark, aligned to the letter alone as in HF
    (checked with tokenizers 0.23: offsets (0, 1), (2, 3))."""
    ns = NFC().normalize("e\u0301x")
    assert ns.normalized == "éx" and ns.alignments == ((0, 1), (2, 3))


def test_nfkc_expands_ligature():
    """NFKC turns 'ﬁ' into 'fi', both aligned to the ligature."""
    ns = NFKC().normalize("ﬁn")
    assert ns.normalized == "fin" and ns.alignments[:2] == ((0, 1), (0, 1))


def test_config_uses_hf_names():
    """to_config gives HF's tokenizer.json form."""
    assert BertNormalizer(lowercase=False).to_config() == {
        "type": "BertNormalizer",
        "clean_text": True,
        "handle_chinese_chars": True,
        "strip_accents": None,
        "lowercase": False,
    }


@given(st.text())
def test_alignments_are_ordered_spans(text):
    """Alignments are within the original and never go backwards."""
    ns = BertNormalizer().normalize(text)
    assert len(ns.alignments) == len(ns.normalized)
    starts = [s for s, _ in ns.alignments]
    assert starts == sorted(starts)
    assert all(0 <= s < e <= len(text) for s, e in ns.alignments)


@given(st.text())
def test_identity_is_identity(text):
    """NormalizedString.identity aligns every character to itself."""
    ns = NormalizedString.identity(text)
    assert ns.normalized == text and all(ns.span(i, i + 1) == (i, i + 1) for i in range(len(text)))
