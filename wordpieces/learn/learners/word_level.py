"""Learn a word-level vocabulary: special tokens, then the most frequent words.

The vocabulary of ``SimpleTokenizer`` and of a ``WordLevel`` model, as HF ``tokenizers``'
``WordLevelTrainer`` builds it: special tokens first, then words counted at least
``min_frequency`` times, by count descending then word, up to ``vocab_size`` tokens in all.

Not handled here: splitting text into words (``counting``), the tokenizer itself.
"""

from __future__ import annotations

from collections.abc import Iterable

from .common import integer_pairs

__all__ = ["learn_word_level"]


def learn_word_level(counts, *, vocab_size: int | None = None, min_frequency: int = 0,
                     special_tokens: Iterable[str] = ("[UNK]",),
                     max_size: int | None = None) -> list[str]:
    """Return special tokens, then words by count (then word), ``vocab_size`` in all.

    ``vocab_size`` is HF's ``WordLevelTrainer`` name and ``train()``'s; ``max_size`` is
    its alias (the name this function had first). ``None`` keeps every word.

    >>> learn_word_level({"the": 5, "cat": 2, "a": 5, "sat": 1}, min_frequency=2)
    ['[UNK]', 'a', 'the', 'cat']
    """
    if vocab_size is not None and max_size is not None and vocab_size != max_size:
        raise ValueError(f"vocab_size={vocab_size} and max_size={max_size} disagree: "
                         "they are the same option (max_size the alias), give one")
    limit = vocab_size if vocab_size is not None else max_size
    if limit is not None and limit < 0:
        raise ValueError(f"vocab_size must be >= 0, not {limit}")
    vocab = list(dict.fromkeys(special_tokens))
    taken = set(vocab)
    totals: dict[str, int] = {}
    for word, count in integer_pairs(counts):
        totals[word] = totals.get(word, 0) + count
    ranked = sorted(totals.items(), key=lambda pair: (-pair[1], pair[0]))
    for word, count in ranked:
        if limit is not None and len(vocab) >= limit:
            break
        if count >= min_frequency and word not in taken:
            vocab.append(word)
            taken.add(word)
    return vocab
