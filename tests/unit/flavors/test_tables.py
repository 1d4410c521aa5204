"""The shipped character tables: reproducible by their scripts, and the facts they hold."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from wordpieces.flavors import tables
from wordpieces.flavors.rules import BERT_CJK_RANGES, HF_CJK_RANGES
from wordpieces.flavors.table_file import (
    HANGUL,
    decode_result,
    format_map,
    format_set,
    format_table,
    hangul_decomposition,
    parse_table,
)

TABLES = Path(tables.__file__).parent / "data"


def regenerate(script: str, table: str, package: str, tmp_path: Path) -> None:
    """Run a generator script into ``tmp_path`` and compare with the shipped file."""
    installed = importlib.metadata.version(package)
    if f"from {package} {installed};" not in (TABLES / table).read_text("ascii"):
        pytest.skip(f"{table} was probed from another {package} version than {installed}")
    module = "wordpieces.flavors.probes." + script.removesuffix(".py")
    done = subprocess.run([sys.executable, "-m", module, str(tmp_path)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert (tmp_path / table).read_bytes() == (TABLES / table).read_bytes()


def test_hf_script_reproduces_shipped_table(tmp_path):
    """make_hf_tables.py, run against the installed tokenizers, writes huggingface.txt."""
    pytest.importorskip("tokenizers")
    regenerate("make_hf_tables.py", "huggingface.txt", "tokenizers", tmp_path)


@pytest.mark.tensorflow
def test_tf_script_reproduces_shipped_table(tmp_path):
    """make_tf_tables.py, run against tensorflow-text, writes tensorflow.txt."""
    if importlib.util.find_spec("tensorflow_text") is None:
        pytest.skip("tensorflow-text is not installed")
    regenerate("make_tf_tables.py", "tensorflow.txt", "tensorflow-text", tmp_path)


def test_shipped_tables_are_small():
    """Both tables together stay well under 1 MB."""
    assert sum((TABLES / f).stat().st_size for f in ("huggingface.txt", "tensorflow.txt")) < 300_000


# ---------------------------------------------------------------- file format


def test_format_round_trip():
    """Sets, result maps (deletions, Hangul) and number maps read back as written."""
    text = format_table(["a comment"], {
        "set": format_set([0x41, 0x42, 0x43, 0x10FFFF]),
        "map": format_map({0xC0: "A\u0300", 0x300: "", 0x301: "", 0xAC00: HANGUL}),
        "numbers": format_map({0x300: 230, 0x301: 230, 0x316: 220}),
    })
    sections = parse_table(text)
    assert sections["set"] == [(0x41, 0x43), (0x10FFFF, 0x10FFFF)]
    assert sections["numbers"] == [(0x300, 0x301, "230"), (0x316, 0x316, "220")]
    results = {cp: decode_result(v, cp) for a, b, v in sections["map"] for cp in range(a, b + 1)}
    assert results == {0xC0: "A\u0300", 0x300: "", 0x301: "", 0xAC00: "\u1100\u1161"}


def test_hangul_decomposition_with_trailing_consonant():
    """U+D7A3 decomposes into three jamo (lead, vowel, trail), as NFD says."""
    assert hangul_decomposition(0xD7A3) == "\u1112\u1175\u11c2"


def test_bad_line_names_file_and_line():
    """A malformed line is reported with the file name and its line number."""
    with pytest.raises(ValueError, match=r"t\.txt:3: bad table line 'zz'"):
        parse_table("# x\n@set\nzz\n", "t.txt")


def test_entry_before_section_rejected():
    """An entry outside any @section is an error, not silently dropped."""
    with pytest.raises(ValueError, match="before the first @section"):
        parse_table("0041\n", "t.txt")


# ---------------------------------------------------------------- Hugging Face facts


def merged(ranges) -> tuple[tuple[int, int], ...]:
    out: list[list[int]] = []
    for lo, hi in sorted(ranges):
        if out and out[-1][1] + 1 == lo:
            out[-1][1] = hi
        else:
            out.append([lo, hi])
    return tuple((lo, hi) for lo, hi in out)


def test_hf_keeps_unassigned_deletes_private_use():
    """Unassigned code points survive HF's clean_text; private use, U+0000, U+FFFD do not."""
    assert not any(tables.hf_is_control(cp) for cp in (0x378, 0xFFFF, 0x2065, 0xE0080))
    assert all(tables.hf_is_control(cp) for cp in (0xE000, 0xF8FF, 0xF0000, 0x10FFFD, 0, 0xFFFD))


def test_hf_keeps_format_chars_newer_than_its_tables():
    """The 13 format characters of Unicode 9-14 are not deleted by HF (older tables)."""
    kept = [0x0890, 0x0891, 0x08E2, 0x110CD, *range(0x13430, 0x13439)]
    assert len(kept) == 13
    assert not any(tables.hf_is_control(cp) for cp in kept)
    assert tables.hf_is_control(0x200B) and tables.hf_is_control(0xFEFF)


def test_hf_cjk_ranges_start_at_0x2b920():
    """Probed CJK ranges equal the flavor's constant, with the fifth range at 0x2B920."""
    assert tables.hf_cjk_ranges() == merged(HF_CJK_RANGES)
    assert (0x2B920, 0x2CEAF) in HF_CJK_RANGES


def test_hf_whitespace_is_rust_white_space():
    """The pre-tokenizer drops exactly Unicode's White_Space characters (Rust's is_whitespace)."""
    white_space = {*range(0x09, 0x0E), 0x20, 0x85, 0xA0, 0x1680, *range(0x2000, 0x200B),
                   0x2028, 0x2029, 0x202F, 0x205F, 0x3000}
    assert {cp for cp in range(0x3001) if tables.hf_is_whitespace(cp)} == white_space


def test_hf_punctuation_predates_unicode_9():
    """U+2E43..U+2E4F (Unicode 9+) are not punctuation to HF; old ones and ASCII are."""
    assert not any(tables.hf_is_punctuation(cp) for cp in range(0x2E43, 0x2E50))
    assert all(tables.hf_is_punctuation(ord(c)) for c in "!/:@[`{~\u00bf\u3001\u2e42")


def test_hf_strip_then_lowercase_per_character():
    """Strip accents is NFD minus Mn; lowercase is per character (U+0130 -> i + U+0307)."""
    assert tables.hf_strip_accents("Héllò") == "Hello"
    assert tables.hf_lowercase("\u0130") == "i\u0307"
    assert tables.hf_lowercase("ΟΣ") == "οσ"


def test_hf_movable_marks_unchanged_by_lowercase():
    """Marks NFD may move keep their case, so reordering can run before lowercasing."""
    for ch in tables.hf_context_chars():
        kept = tables.hf_strip_accents(ch)
        assert tables.hf_lowercase(kept) == kept, f"U+{ord(ch):04X}"


# ---------------------------------------------------------------- TensorFlow facts


def test_tf_whitespace_is_ascii():
    """RE2's \\s is ASCII only: tab, newline, form feed, carriage return, space."""
    assert [cp for cp in range(0x110000) if tables.tf_is_whitespace(cp)] == [9, 10, 12, 13, 32]


def test_tf_cjk_ranges_are_berts():
    """TF's split regex isolates BERT's CJK ranges (fifth range from 0x2B820)."""
    assert tables.tf_cjk_ranges() == merged(BERT_CJK_RANGES)


def test_tf_ogham_and_line_separators_are_word_characters():
    """U+1680, U+2028, U+2029 are neither space, control nor punctuation, and stay as is."""
    for cp in (0x1680, 0x2028, 0x2029):
        assert not (tables.tf_is_whitespace(cp) or tables.tf_is_control(cp)
                    or tables.tf_is_punctuation(cp))
        assert tables.tf_casefold_strip(chr(cp)) == chr(cp)


def test_tf_lower_case_is_nfkc_casefold():
    """Full-width, ligatures, math letters fold; ß -> ss; accents go; İ -> i."""
    assert tables.tf_casefold_strip("\uff21\ufb01\U0001d400\u00df\u00c9\u0130") == "afiassei"


def test_tf_casefold_removes_default_ignorables():
    """NFKC_Casefold deletes U+00AD and U+200B before the control regex can see them."""
    assert tables.tf_casefold_strip("a\u00ad\u200bb") == "ab"
    assert tables.tf_is_control(0x00AD)


def test_tf_movable_marks_are_plain_word_characters():
    """Marks NFD may move are never spaces, controls or CJK, so moving them is enough."""
    for ch in tables.tf_context_chars():
        for c in tables.tf_casefold_strip(ch):
            cp = ord(c)
            if tables.tf_ccc(cp):
                assert not (tables.tf_is_whitespace(cp) or tables.tf_is_control(cp))
