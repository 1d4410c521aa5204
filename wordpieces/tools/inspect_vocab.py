"""Describe a vocabulary, and how it tokenizes a corpus, in numbers (and a plot).

Two questions decide whether a vocabulary suits a corpus: how many pieces a word
costs (longer sequences mean slower, shorter-context models) and how often text is lost
to the unknown token. ``vocab_facts`` answers what the vocabulary itself holds;
``CorpusStats`` accumulates, line by line, tokens per word, the ``[UNK]`` rate, the
words that split into the most pieces and the sequence lengths against a
``max_length`` (how much a 512 limit would cut). ``plot_stats`` draws them (matplotlib,
the ``plot`` extra).

The text is measured as the vocabulary splits it: a tokenizer's own padding and truncation
(a ``tokenizer.json`` may pad every sequence to 128) are left out, or every line would
count as 128 tokens. Truncation is reported on its own instead: the limit defaults to the
tokenizer's truncation ``max_length`` (else 512), and the report says how many lines and
tokens it would cut.

Not handled here: comparing two vocabularies, pairs of sequences.
"""

from __future__ import annotations

import unicodedata
import warnings
from array import array
from collections import Counter
from collections.abc import Iterable

PERCENTILES = (50, 90, 95, 99, 100)
TOP_WORDS = 15
DEFAULT_MAX_LENGTH = 512  # the limit measured against when the tokenizer truncates nothing


# ---------------------------------------------------------------- the vocabulary


def vocab_facts(tokenizer) -> dict:
    """Size, reserved tokens, share of continuation pieces, lengths and characters covered.

    >>> from wordpieces.tokenizer import Tokenizer
    >>> facts = vocab_facts(Tokenizer.from_vocab(["[UNK]", "a", "ab", "##b"]))
    >>> facts["continuation_pieces"], facts["length_histogram"]
    (1, {1: 2, 2: 1})
    """
    model = tokenizer.model
    prefix = getattr(model, "continuing_subword_prefix", None) or None
    tokens = list(model.vocab.tokens)
    specials = set(tokenizer.special_tokens) | set(tokenizer.reserved_tokens)
    pieces = [t for t in tokens if t not in specials]
    continuation = [t[len(prefix):] for t in pieces if prefix and t.startswith(prefix)]
    starts = [t for t in pieces if not (prefix and t.startswith(prefix))]
    lengths = Counter(len(t) for t in starts + continuation)
    return {
        "vocab_size": tokenizer.vocab_size,
        "model": type(model).__name__,
        "unk_token": getattr(model, "unk_token", None),
        "continuing_subword_prefix": prefix,
        "special_tokens": tokenizer.special_tokens,
        "reserved_tokens": tokenizer.reserved_tokens,
        "unused_tokens": sum(1 for t in tokens if t.startswith("[unused")),
        "word_start_pieces": len(starts),
        "continuation_pieces": len(continuation),
        "continuation_share": len(continuation) / len(pieces) if pieces else 0.0,
        "length_histogram": dict(sorted(lengths.items())),
        "mean_length": _mean_of_histogram(lengths),
        "characters": _character_coverage(starts, continuation),
    }


def _mean_of_histogram(hist: Counter) -> float:
    total = sum(hist.values())
    return sum(k * v for k, v in hist.items()) / total if total else 0.0


def _character_coverage(starts: list[str], continuation: list[str]) -> dict:
    """Single characters the vocabulary holds, overall and by script (name prefix)."""
    singles = {t for t in starts if len(t) == 1}
    cont_singles = {t for t in continuation if len(t) == 1}
    every = singles | cont_singles
    scripts = Counter(_script(ch) for ch in every)
    return {"word_start": len(singles), "continuation": len(cont_singles),
            "both": len(singles & cont_singles), "total": len(every),
            "by_script": dict(scripts.most_common())}


def _script(ch: str) -> str:
    """A rough script label: a letter's first Unicode name word (LATIN, CJK …), else its kind."""
    category = unicodedata.category(ch)
    if category[0] in "LM":
        name = unicodedata.name(ch, "")
        return name.split(" ")[0] if name else "OTHER"
    return {"N": "NUMBER", "P": "PUNCTUATION", "S": "SYMBOL"}.get(category[0], "OTHER")


# ---------------------------------------------------------------- a corpus


class CorpusStats:
    """Accumulate how a tokenizer splits a corpus, one batch of lines at a time.

    >>> from wordpieces.tokenizer import Tokenizer
    >>> tok = Tokenizer.from_vocab(["[UNK]", "play", "##ing", "the"], template=None)
    >>> stats = CorpusStats(tok, max_length=3)
    >>> stats.add(["the playing", "zzz"])
    >>> round(stats.report()["tokens_per_word"]["mean"], 3), stats.report()["unk"]["tokens"]
    (1.333, 1)
    """

    def __init__(self, tokenizer, *, max_length: int | None = None):
        self.tokenizer = tokenizer
        self.left_out = left_out_settings(tokenizer)
        truncation = self.left_out["truncation"]
        self.max_length = (max_length if max_length is not None
                           else truncation["max_length"] if truncation
                           else DEFAULT_MAX_LENGTH)
        self.max_length_source = ("given" if max_length is not None
                                  else "truncation" if truncation else "default")
        self.special = tokenizer.num_special_tokens_to_add(False)
        self.unk_id = tokenizer.token_to_id(getattr(tokenizer.model, "unk_token", "") or "")
        self.lines = self.chars = self.tokens = self.unk_tokens = 0
        self.pieces_per_word: Counter = Counter()
        self.split_words: Counter = Counter()  # words of 2+ pieces -> frequency
        self.word_pieces: dict[str, int] = {}
        self.unk_words: Counter = Counter()
        self.lengths = array("q")

    def add(self, lines: list[str], *, num_threads: int | None = None) -> None:
        """Tokenize ``lines`` (no special tokens, padding or truncation); update the counts."""
        encodings = self.tokenizer.encode_batch_with(lines, truncation=None, padding=None,
                                                     add_special_tokens=False,
                                                     num_threads=num_threads)
        for line, enc in zip(lines, encodings, strict=True):
            self._add_line(line, enc)

    def _add_line(self, line: str, enc) -> None:
        self.lines += 1
        self.chars += len(line)
        self.tokens += len(enc.ids)
        self.lengths.append(len(enc.ids) + self.special)
        for word, ids in _words(line, enc):
            self.pieces_per_word[len(ids)] += 1
            if self.unk_id is not None and self.unk_id in ids:
                self.unk_tokens += ids.count(self.unk_id)
                self.unk_words[word] += 1
            elif len(ids) > 1:
                self.split_words[word] += 1
                self.word_pieces[word] = len(ids)

    def report(self) -> dict:
        """The accumulated statistics as plain data (JSON-ready)."""
        words = sum(self.pieces_per_word.values())
        return {
            "lines": self.lines, "characters": self.chars, "words": words,
            "tokens": self.tokens,
            "characters_per_token": self.chars / self.tokens if self.tokens else 0.0,
            "tokens_per_word": {
                "mean": self.tokens / words if words else 0.0,
                "histogram": dict(sorted(self.pieces_per_word.items())),
            },
            "unk": {"tokens": self.unk_tokens,
                    "token_rate": self.unk_tokens / self.tokens if self.tokens else 0.0,
                    "word_rate": sum(self.unk_words.values()) / words if words else 0.0,
                    "top_words": self.unk_words.most_common(TOP_WORDS)},
            "most_split_words": self._most_split(),
            "sequence_length": self._length_report(),
            "left_out": self.left_out,
        }

    def _most_split(self) -> list[tuple[str, int, int]]:
        """(word, pieces, frequency): most pieces first, then most frequent, then word."""
        ranked = sorted(self.split_words.items(),
                        key=lambda kv: (-self.word_pieces[kv[0]], -kv[1], kv[0]))
        return [(w, self.word_pieces[w], n) for w, n in ranked[:TOP_WORDS]]

    def _length_report(self) -> dict:
        ordered = sorted(self.lengths)
        over = [n for n in ordered if n > self.max_length]
        return {
            "with_special_tokens": self.special,
            "percentiles": {p: _percentile(ordered, p) for p in PERCENTILES},
            "max_length": self.max_length,
            "max_length_source": self.max_length_source,
            "lines_over": len(over),
            "lines_over_share": len(over) / len(ordered) if ordered else 0.0,
            "tokens_cut": sum(n - self.max_length for n in over),
            "tokens_cut_share": (sum(n - self.max_length for n in over) / sum(ordered)
                                 if ordered and sum(ordered) else 0.0),
        }


def left_out_settings(tokenizer) -> dict:
    """The tokenizer's padding and truncation (HF's dicts, or None): what the counts leave out.

    >>> from wordpieces.tokenizer import Tokenizer
    >>> tok = Tokenizer.from_vocab(["[UNK]", "a"], template=None)
    >>> tok.enable_truncation(128)
    >>> left_out_settings(tok)["truncation"]["max_length"], left_out_settings(tok)["padding"]
    (128, None)
    """
    return {"padding": getattr(tokenizer, "padding", None),
            "truncation": getattr(tokenizer, "truncation", None)}


def _percentile(ordered: list[int], p: int) -> int:
    """Nearest-rank percentile of sorted ``ordered`` (0 when empty)."""
    if not ordered:
        return 0
    rank = max(1, -(-p * len(ordered) // 100))
    return ordered[rank - 1]


def _words(line: str, enc) -> Iterable[tuple[str, list[int]]]:
    """Group an encoding's tokens by word: (the word's original text, its ids)."""
    ids: list[int] = []
    current, start, end = None, 0, 0
    for id_, word, (a, b) in zip(enc.ids, enc.word_ids, enc.offsets, strict=True):
        if word != current and ids:
            yield line[start:end], ids
            ids = []
        if not ids:
            start = a
        current, end = word, b
        ids.append(id_)
    if ids:
        yield line[start:end], ids


# ---------------------------------------------------------------- the plot


def plot_stats(facts: dict, corpus: dict | None, path: str) -> None:
    """Draw the vocabulary (and corpus) statistics into a PNG at ``path``."""
    from ..errors import require

    matplotlib = require("matplotlib", "plot")
    matplotlib.use("Agg")
    plt = require("matplotlib.pyplot", "plot")
    panels = 1 if corpus is None else 4
    fig, axes = plt.subplots(1 if panels == 1 else 2, 1 if panels == 1 else 2,
                             figsize=(6 if panels == 1 else 12, 4 if panels == 1 else 8),
                             squeeze=False)
    _bar(axes.flat[0], facts["length_histogram"], "piece length (characters)", "pieces",
         f"vocabulary: {facts['vocab_size']} tokens, "
         f"{facts['continuation_share']:.0%} continuation pieces")
    if corpus is not None:
        _bar(axes.flat[1], corpus["tokens_per_word"]["histogram"], "pieces per word", "words",
             f"tokens per word: mean {corpus['tokens_per_word']['mean']:.2f}, "
             f"[UNK] {corpus['unk']['token_rate']:.2%} of tokens")
        axes.flat[1].set_yscale("log")  # one-piece words dwarf the rest
        _lengths(axes.flat[2], corpus["sequence_length"])
        _top_words(axes.flat[3], corpus["most_split_words"])
    with warnings.catch_warnings():
        # A word in a script the default font lacks is drawn as boxes; not worth a warning.
        warnings.filterwarnings("ignore", message="Glyph .* missing from font")
        fig.tight_layout()
        _save_png(fig, path)
    plt.close(fig)


def _bar(ax, histogram: dict, xlabel: str, ylabel: str, title: str) -> None:
    keys = [int(k) for k in histogram]
    ax.bar(keys, list(histogram.values()), color="#4477aa")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)


def _lengths(ax, report: dict) -> None:
    percentiles = report["percentiles"]
    labels = [f"p{p}" if p < 100 else "max" for p in percentiles]
    ax.bar(labels, list(percentiles.values()), color="#66aa55")
    ax.axhline(report["max_length"], color="#cc3311", linestyle="--",
               label=f"max_length {report['max_length']}")
    ax.set_ylabel("tokens per line (special tokens included)")
    ax.set_title(f"{report['lines_over_share']:.2%} of lines over max_length, "
                 f"{report['tokens_cut_share']:.2%} of tokens cut", fontsize=10)
    ax.legend()


def _top_words(ax, words: list) -> None:
    names = [w for w, _, _ in words][::-1]
    ax.barh(names, [p for _, p, _ in words][::-1], color="#ccbb44")
    ax.set_xlabel("pieces")
    ax.set_title("words split into the most pieces", fontsize=10)


def _save_png(fig, path: str) -> None:
    """Render to memory, then write atomically."""
    import io

    from ..formats.atomic import atomic_write_bytes

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100)
    atomic_write_bytes(path, buffer.getvalue())
