"""``Replace`` and ``Strip`` in one pass give what HF's change stream gave, match by match.

The reference here is the old implementation, which re-applied HF's change stream over
the whole string once per match (quadratic) and agrees with HF ``tokenizers``
(``test_hf_stages.py``, ``tests/differential/test_hf_components.py``): the one-pass
code must give the same text and the same alignment for every character.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from wordpieces.pipeline.char_tables import is_white_space
from wordpieces.pipeline.edit_normalizers import Replace, Strip
from wordpieces.pipeline.normalizers import NFD, NormalizedString, Sequence

TEXTS = st.text(alphabet="ab c\u00e9\t\u3000-", max_size=60)
PATTERNS = st.one_of(
    st.tuples(st.sampled_from(["a", "ab", " ", "c ", "\u00e9"]), st.just(False)),
    st.tuples(st.sampled_from([r"\s+", "a+", "[bc]", r"b\s?", r"\p{L}"]), st.just(True)))
CONTENTS = st.sampled_from(["", "x", "yz", "\u2581", " ", "aaa"])


def _replace_per_match(replace: Replace, ns: NormalizedString) -> NormalizedString:
    """The old Replace: HF's change stream applied to the whole string for each match."""
    shift = 0
    changes = [(ch, 1) for ch in replace.content]
    for start, end, is_match in replace.matcher.pieces(ns.normalized):
        if is_match:
            ns = ns.apply_changes(changes, initial_offset=end - start, start=start + shift,
                                  end=end + shift)
            shift += len(replace.content) - (end - start)
    return ns


def _strip_by_changes(strip: Strip, ns: NormalizedString) -> NormalizedString:
    """The old Strip: kept characters as a change stream, the trailing run swallowed."""
    text = ns.normalized

    def run(chars: str, on: bool) -> int:
        n = 0
        while on and n < len(chars) and is_white_space(chars[n]):
            n += 1
        return n
    lead, trail = run(text, strip.left), run(text[::-1], strip.right)
    if not lead and not trail:
        return ns
    if lead + trail >= len(text):
        return ns.apply_changes([], initial_offset=len(text))
    kept = text[lead:len(text) - trail]
    return ns.apply_changes([(ch, 0) for ch in kept[:-1]] + [(kept[-1], -trail)],
                            initial_offset=lead)


def _start(text: str) -> NormalizedString:
    """An already-normalized string whose alignments are not the identity (NFD first)."""
    return NFD().normalize(text)


@settings(max_examples=300, deadline=None)
@given(text=TEXTS, pattern=PATTERNS, content=CONTENTS)
def test_replace_in_one_pass_equals_the_change_stream_per_match(text, pattern, content):
    """Same normalized text, same alignment of every character."""
    replace = Replace(pattern[0], content, regex=pattern[1])
    ns = _start(text)
    assert replace.normalize_string(ns) == _replace_per_match(replace, ns)


@settings(max_examples=200, deadline=None)
@given(text=TEXTS, left=st.booleans(), right=st.booleans())
def test_strip_as_a_slice_equals_the_change_stream(text, left, right):
    """Strip removes its ends: the kept slice with its alignments, as the stream gave."""
    strip = Strip(left, right)
    ns = _start(text)
    assert strip.normalize_string(ns) == _strip_by_changes(strip, ns)


def test_a_sequence_of_replaces_keeps_offsets_into_the_original():
    """Chained replaces in one pass each: offsets still point into the user's text."""
    seq = Sequence([Replace(r"\s+", " ", regex=True), Replace(" ", "\u2581")])
    ns = seq.normalize("a  \t b")
    assert ns.normalized == "a\u2581b"
    assert ns.alignments == ((0, 1), (4, 5), (5, 6))
