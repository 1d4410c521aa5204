"""Train a tokenizer in one call: count the corpus, learn a vocabulary, build the Tokenizer.

``train(source, algorithm=...)`` splits the corpus with exactly the normalizer and
pre-tokenizer the resulting tokenizer will use (``lowercase``, ``flavor``, …), learns the
vocabulary with the chosen learner and returns a ready ``Tokenizer``. ``source`` may
also be ``WordCounts`` counted earlier (anywhere, e.g. on a cluster); they are refused if
they were counted with another pipeline, unless ``ignore_fingerprint=True``.

Not handled here: the counting and the learners themselves (``counting``, ``learners``);
saving (``Tokenizer.save``).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping

from ..errors import MAX_VOCAB_SIZE, check_size
from ..pipeline import models
from ..pipeline.decoders import WordPieceDecoder
from ..pipeline.normalizers import BertNormalizer
from ..pipeline.pre_tokenizers import BertPreTokenizer
from ..pipeline.processors import default_processor
from ..tokenizer import Tokenizer
from .counting import WordCounts, count_words
from .learners import learn_bottom_up, learn_top_down, learn_word_level
from .progress import make_reporter

ALGORITHMS = ("top-down", "bottom-up", "word-level")
DEFAULT_SPECIALS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")

__all__ = ["train", "ALGORITHMS"]


def train(source, *, algorithm: str = "top-down", vocab_size: int = 30_000,
          lowercase: bool = True, flavor: str = "bert", strip_accents: bool | None = None,
          clean_text: bool = True, handle_chinese_chars: bool = True,
          reserved_tokens: Iterable[str] | None = None,
          special_tokens: Iterable[str] | None = None, unk_token: str = "[UNK]",
          template: str | None = "auto", engine: str = "local", num_proc: int | None = None,
          scheduler=None, blocksize: int | None = None, progress="auto",
          ignore_fingerprint: bool = False, checkpoint=None,
          max_distinct_words: int | None = None, **learn_options) -> Tokenizer:
    """Count ``source``, learn a vocabulary of about ``vocab_size`` tokens, return a Tokenizer.

    ``algorithm``: ``"top-down"`` (BERT / TF Text, ``learn_top_down``), ``"bottom-up"``
    (WordPiece by merges, ``learn_bottom_up``) or ``"word-level"`` (``learn_word_level``).
    ``reserved_tokens`` and ``special_tokens`` are one option under two names (default
    ``[PAD] [UNK] [CLS] [SEP] [MASK]``); they lead the vocabulary and must hold
    ``unk_token``. Other keyword options go to the learner (e.g. ``lower_thresh``,
    ``min_frequency``, bottom-up's ``score``: ``"count"``, ``"likelihood"`` or ``"pmi"``, and
    its ``refine=True``: the merged vocabulary tuned for greedy longest match).
    ``engine``, ``num_proc``, ``scheduler``, ``blocksize``, ``checkpoint`` and
    ``max_distinct_words`` are ``count_words``' options. ``progress``: ``"auto"`` (a bar
    on stderr when it is a terminal), ``"bar"``, ``"jsonl"``, ``"none"`` or a callable.

    >>> tok = train(iter(["the cat sat on the mat"] * 20), vocab_size=28, lower_thresh=1,
    ...             progress="none")
    >>> tok.tokenize("The cats")
    ['the', 'cat', '##s']
    """
    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {algorithm!r}: expected one of "
                         f"{', '.join(ALGORITHMS)}")
    specials = _specials(reserved_tokens, special_tokens, unk_token)
    check_size(vocab_size, field="vocab_size", cap=MAX_VOCAB_SIZE, minimum=len(specials) + 1)
    normalizer = BertNormalizer(lowercase=lowercase, flavor=flavor, strip_accents=strip_accents,
                                clean_text=clean_text, handle_chinese_chars=handle_chinese_chars)
    pre_tokenizer = BertPreTokenizer(flavor=flavor)
    with make_reporter(progress) as reporter:
        counts = _counts(source, normalizer, pre_tokenizer, ignore_fingerprint,
                         engine=engine, num_proc=num_proc, scheduler=scheduler,
                         blocksize=blocksize, progress=reporter, checkpoint=checkpoint,
                         max_distinct_words=max_distinct_words)
        vocab = _learn(algorithm, counts, vocab_size, specials, learn_options, reporter)
    prefix = (learn_options.get("joiner", "##") if algorithm == "top-down"
              else learn_options.get("continuing_subword_prefix", "##"))
    check_learned_size(vocab, vocab_size, specials, prefix)
    if algorithm == "word-level":
        return _word_level_tokenizer(vocab, normalizer, pre_tokenizer, specials, unk_token,
                                     flavor, template)
    return Tokenizer.from_vocab(vocab, lowercase=lowercase, flavor=flavor,
                                strip_accents=strip_accents, clean_text=clean_text,
                                handle_chinese_chars=handle_chinese_chars, unk_token=unk_token,
                                continuing_subword_prefix=prefix, special_tokens=specials,
                                reserved_tokens=specials, template=template)


def check_learned_size(vocab: list[str], vocab_size: int, specials: list[str],
                       prefix: str) -> None:
    """Refuse a ``vocab_size`` below what the corpus needs: the reserved tokens and alphabet.

    A learner keeps every character seen (plain and ``prefix``-ed) whatever ``vocab_size``
    says, since a word could not be split otherwise: asking for fewer tokens is an error,
    not a silent surprise. Above that, top-down may end a little over ``vocab_size``, as
    TF Text's search does (it stops within its slack): that vocabulary is kept as TF
    gives it.
    """
    reserved = set(specials)
    needed = sum(1 for token in vocab if token in reserved
                 or len(token[len(prefix):] if prefix and token.startswith(prefix)
                        else token) == 1)
    if vocab_size < needed:
        raise ValueError(f"vocab_size={vocab_size} is too small for this corpus: the "
                         f"vocabulary needs at least {needed} tokens ({len(specials)} "
                         "reserved tokens plus the characters seen); ask for at least that")


def _specials(reserved_tokens, special_tokens, unk_token: str) -> list[str]:
    """The one list of reserved/special tokens, checked to hold the unknown token."""
    if reserved_tokens is not None and special_tokens is not None and (
            list(reserved_tokens) != list(special_tokens)):
        raise ValueError("reserved_tokens and special_tokens are the same option under two "
                         "names: give one")
    chosen = reserved_tokens if reserved_tokens is not None else special_tokens
    specials = list(dict.fromkeys(DEFAULT_SPECIALS if chosen is None else chosen))
    if unk_token not in specials:
        raise ValueError(f"the reserved tokens {specials} must include unk_token "
                         f"{unk_token!r}")
    return specials


def _counts(source, normalizer, pre_tokenizer, ignore_fingerprint: bool, **count_options):
    """Count ``source``, or check counts given ready-made against the pipeline."""
    if isinstance(source, Mapping):
        given = [k for k in ("checkpoint", "max_distinct_words") if count_options.get(k)]
        if given:
            raise ValueError(f"{given[0]}= applies to counting a corpus; the source here "
                             "is word counts already")
        counts = source if isinstance(source, WordCounts) else WordCounts(source)
        if not ignore_fingerprint:
            counts.check_pipeline(normalizer, pre_tokenizer)
        return counts
    if count_options.get("blocksize") is None:
        count_options.pop("blocksize", None)  # count_words' own default
    return count_words(source, normalizer=normalizer, pre_tokenizer=pre_tokenizer,
                       **count_options)


def _learn(algorithm: str, counts, vocab_size: int, specials: list[str], options: dict,
           reporter) -> list[str]:
    if algorithm == "top-down":
        return _learn_top_down(counts, vocab_size, specials, options, reporter)
    if algorithm == "bottom-up":
        return learn_bottom_up(counts, vocab_size, special_tokens=specials, progress=reporter,
                               **options)
    return learn_word_level(counts, max_size=vocab_size, special_tokens=specials, **options)


def _learn_top_down(counts, vocab_size: int, specials: list[str], options: dict,
                    reporter) -> list[str]:
    """Learn top-down, warning when its threshold search ends short of ``vocab_size``."""
    steps: list[tuple[int, int]] = []

    def record(event: str, **fields) -> None:
        if event == "search":
            steps.append((fields["thresh"], fields["size"]))
        reporter(event, **fields)

    vocab = learn_top_down(counts, vocab_size, specials, progress=record, **options)
    short = short_of_size_reason(len(vocab), vocab_size, steps, options)
    if short:
        warnings.warn(short, stacklevel=4)
    return vocab


def short_of_size_reason(size: int, vocab_size: int, steps: list[tuple[int, int]],
                         options: dict) -> str | None:
    """Say why top-down's search ended below ``vocab_size`` (None: it reached it).

    TF Text's learner searches a count threshold between ``lower_thresh`` and
    ``upper_thresh``: a substring becomes a token when it is seen at least that often. It
    stops short either at the lowest threshold (the corpus has no more substrings that
    frequent) or between two thresholds whose sizes straddle the target.

    >>> short_of_size_reason(900, 1000, [(50, 700), (10, 900)], {})[:46]
    'top-down learned 900 tokens of vocab_size=1000'
    """
    slack = options.get("slack_ratio", 0.05) * vocab_size
    if size >= vocab_size - slack or not steps:
        return None
    head = f"top-down learned {size} tokens of vocab_size={vocab_size}: "
    over = [(t, n) for t, n in steps if n > vocab_size]
    if not over:
        lowest = min(t for t, _ in steps)
        lower_thresh = options.get("lower_thresh", 10)
        floor = lower_thresh is None or lowest > lower_thresh  # the rarest word's count
        where = (f"{lowest}, the rarest word's count" if floor
                 else f"{lowest}; lower_thresh={lower_thresh}")
        lower = ("" if floor or lowest <= 1 else
                 "lower lower_thresh (--lower-thresh; 1 keeps anything seen once), ")
        return head + (
            f"even at its lowest count threshold ({where}) the corpus has no more "
            f"substrings that frequent. To reach the size: {lower}train on more text, or "
            f"use algorithm='bottom-up' (--algorithm bottom-up), which fills the size asked")
    above, above_size = max(over)
    return head + (
        f"at count threshold {above} it gives {above_size} tokens, over the size, and at "
        f"{steps[-1][0]} {size}: the search stops between them (as TF Text's does). To get "
        f"closer: raise slack_ratio (--slack-ratio) to accept a size further below, or use "
        f"algorithm='bottom-up' (--algorithm bottom-up), which fills the size asked")


def _word_level_tokenizer(vocab, normalizer, pre_tokenizer, specials, unk_token, flavor,
                          template) -> Tokenizer:
    vocab_obj = models.as_vocab(vocab)
    return Tokenizer(models.WordLevel(vocab_obj, unk_token=unk_token), normalizer=normalizer,
                     pre_tokenizer=pre_tokenizer,
                     post_processor=default_processor(vocab_obj, template, None),
                     decoder=WordPieceDecoder("##"), added_tokens=specials,
                     reserved_tokens=specials, flavor=flavor)
