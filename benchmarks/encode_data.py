"""The datasets of the encode benchmarks: which files, which vocabulary, how they are cut.

Shared by ``encode.py`` (one process per engine) and ``encode_forms.py`` (every engine
in one process, alternating). Files are read from ``../shared/corpora`` (or
``$WORDPIECES_SHARED/corpora``) in place.

Not handled here: timing, engines, tables.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from encode_compare import round_robin

HERE = Path(__file__).resolve()
SHARED = Path(os.environ.get("WORDPIECES_SHARED", HERE.parents[2] / "shared"))
CORPORA, VOCABS = SHARED / "corpora", SHARED / "vocab"

# name: (corpus files, vocabulary, lowercase); the SHAPES below are cut differently
DATASETS = {
    "wikitext2": (["english/wikitext2/wiki.test.raw"], "bert-base-uncased", True),
    "gutenberg": (["english/gutenberg/pg1342_austen_pride_and_prejudice.txt"],
                  "bert-base-uncased", True),
    "portuguese": (["portuguese/machado_dom_casmurro.txt", "portuguese/camoes_os_lusiadas.txt",
                    "portuguese/eca_de_queiros_a_cidade_e_as_serras.txt"],
                   "bert-base-multilingual-cased", False),
    "chinese": (["multilingual/zh_cao_xueqin_hongloumeng.txt"], "bert-base-chinese", True),
    "udhr": (["multilingual/udhr/*.txt"], "bert-base-multilingual-cased", False),
    # every English text once (~11 MB): a pure-Python word cache starts cold and warms
    # up as it goes, as when a user encodes a corpus
    "english-all": (["english/**/*.txt", "english/**/*.raw"], "bert-base-uncased", True),
    # the shapes users feed (issue 12): all bert-base-uncased, English
    "short-lines": (["english/tinyshakespeare.txt"], "bert-base-uncased", True),
    "prose-lines": (["english/gutenberg/*.txt"], "bert-base-uncased", True),
    "paragraphs": (["english/gutenberg/*.txt", "english/wikitext2/*"], "bert-base-uncased", True),
    "pairs": (["english/gutenberg/*.txt"], "bert-base-uncased", True),
    # issue 20: the UDHR in every script plus a Chinese novel (红楼梦), lines taken from
    # each file in turn, so that a cut (--max-mb) still holds every script
    "multilingual": (["multilingual/udhr/*.txt", "multilingual/zh_cao_xueqin_hongloumeng.txt"],
                     "bert-base-multilingual-cased", False),
}
# How a shape dataset cuts its files: blank-line-separated blocks joined by single spaces
# ("paragraphs"), or consecutive non-blank lines taken two by two as (text, pair) ("pairs");
# MIXED datasets take one line of each file in turn.
PARAGRAPHS, PAIRS, MIXED = {"paragraphs"}, {"pairs"}, {"multilingual"}


def dataset_lines(name: str, max_mb: float | None = None) -> list:
    """The items of a dataset as the engines receive them: texts, or (text, pair) tuples.

    Lines are the non-blank lines of the files; paragraphs their blank-line-separated
    blocks, whitespace-joined; pairs two consecutive non-blank lines; a mixed dataset's
    lines come one file after the other in turn. ``max_mb`` stops at that many MB.
    """
    files = DATASETS[name][0]
    paths = sorted(p for pattern in files for p in CORPORA.glob(pattern))
    if not paths:
        sys.exit(f"no corpus files for {name} under {CORPORA}")
    per_file = [_cut(name, path.read_text(encoding="utf-8-sig")) for path in paths]
    ordered = round_robin(per_file) if name in MIXED else [i for f in per_file for i in f]
    items, size = [], 0
    for item in ordered:
        items.append(item)
        size += item_bytes(item)
        if max_mb and size >= max_mb * 1e6:
            break
    return items


def _cut(name: str, text: str) -> list:
    lines = [line.rstrip("\r") for line in text.split("\n")]
    if name in PARAGRAPHS:
        blocks, block = [], []
        for line in lines + [""]:
            if line.strip():
                block.append(line.strip())
            elif block:
                blocks.append(" ".join(block))
                block = []
        return blocks
    lines = [line for line in lines if line.strip()]
    if name in PAIRS:
        return list(zip(lines[0::2], lines[1::2], strict=False))  # an odd last line waits
    return lines


def item_bytes(item) -> int:
    """UTF-8 bytes of a text, of both texts of a pair, or of a word list joined by spaces."""
    if isinstance(item, list):
        return len(" ".join(item).encode("utf-8"))
    texts = item if isinstance(item, tuple) else (item,)
    return sum(len(t.encode("utf-8")) for t in texts)


def columns(items: list) -> tuple[list[str], list[str] | None]:
    """Texts and pairs as the transformers-style call takes them."""
    if items and isinstance(items[0], tuple):
        return [a for a, _ in items], [b for _, b in items]
    return items, None


def texts_of(items: list) -> list[str]:
    """Every text of the items, pairs flattened (for the alphabet shown before timing)."""
    return [t for item in items for t in (item if isinstance(item, tuple) else (item,))]


def vocab_path(name: str) -> str:
    """The ``vocab.txt`` of a dataset's vocabulary."""
    return str(VOCABS / f"{DATASETS[name][1]}.vocab.txt")


def lowercase(name: str) -> bool:
    """Whether a dataset's vocabulary is uncased (the normalizer lowercases)."""
    return DATASETS[name][2]
