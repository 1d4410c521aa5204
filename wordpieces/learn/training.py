"""Train a tokenizer in one call: count the corpus, learn a vocabulary, build the Tokenizer.

``train(source, algorithm=...)`` builds the normalizer and pre-tokenizer once (from
``lowercase``, ``flavor``, …), splits the corpus with them, learns the vocabulary with the
chosen learner and returns a ``Tokenizer`` holding those same two objects. ``source`` may
also be ``WordCounts`` counted earlier (anywhere, e.g. on a cluster); they are refused if
they were counted with another pipeline, unless ``ignore_fingerprint=True``. The options,
their defaults and which algorithm takes each come from ``options.TRAIN_OPTIONS``; the
tokenizer keeps the resolved ones (``training_options``, saved in ``wordpieces.json``).

Not handled here: the counting and the learners themselves (``counting``, ``learners``);
saving (``Tokenizer.save``).
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Iterable, Mapping  # noqa: F401 (Iterable: read by train()'s signature)
from typing import Any

from ..errors import MAX_VOCAB_SIZE, check_size
from ..flavors.rules import get_flavor
from ..pipeline import models
from ..pipeline.decoders import WordPieceDecoder
from ..pipeline.normalizers import BertNormalizer
from ..pipeline.pre_tokenizers import BertPreTokenizer
from ..pipeline.processors import default_processor
from ..tokenizer import Tokenizer
from .counting import WordCounts, count_words
from .learners import learn_bottom_up, learn_top_down, learn_word_level
from .options import (
    ALGORITHMS,
    DEFAULT_SPECIALS,
    LEARNER_GROUPS,
    OPTIONS,
    options_table,
    resolve,
    saved_options,
    signature,
)
from .progress import make_reporter

__all__ = ["train", "ALGORITHMS", "DEFAULT_SPECIALS", "build_pipeline"]


def train(source, **options: Any) -> Tokenizer:
    """Count ``source``, learn a vocabulary of about ``vocab_size`` tokens, return a Tokenizer.

    ``algorithm``: ``"top-down"`` (BERT / TF Text, ``learn_top_down``), ``"bottom-up"``
    (WordPiece by merges, ``learn_bottom_up``) or ``"word-level"`` (``learn_word_level``).
    ``special_tokens`` (alias ``reserved_tokens``) lead the vocabulary and must hold
    ``unk_token``. The learner options (``lower_thresh``, ``min_frequency``, bottom-up's
    ``score`` and ``refine`` …) are refused by an algorithm that does not take them;
    ``engine`` … ``max_distinct_words`` are ``count_words``' options. Every option, with
    its default, is in the table below (``options.TRAIN_OPTIONS``; docs/training.md).

    >>> tok = train(iter(["the cat sat on the mat"] * 20), vocab_size=28, lower_thresh=1,
    ...             progress="none")
    >>> tok.tokenize("The cats")
    ['the', 'cat', '##s']
    >>> tok.training_options["lower_thresh"], tok.training_options["algorithm"]
    (1, 'top-down')
    """
    resolved = resolve(options)
    algorithm = resolved["algorithm"]
    specials = _specials(resolved["special_tokens"], resolved["unk_token"])
    vocab_size = resolved["vocab_size"]
    check_size(vocab_size, field="vocab_size", cap=MAX_VOCAB_SIZE, minimum=len(specials) + 1)
    normalizer, pre_tokenizer = build_pipeline(resolved)
    learner = {k: v for k, v in resolved.items() if OPTIONS[k].group in LEARNER_GROUPS}
    with make_reporter(resolved["progress"]) as reporter:
        counts = _counts(source, normalizer, pre_tokenizer, resolved, reporter)
        vocab = _learn(algorithm, counts, vocab_size, specials, learner, resolved, reporter)
    prefix = resolved.get("continuing_subword_prefix", "##")
    check_learned_size(vocab, vocab_size, specials, prefix)
    tok = _tokenizer(algorithm, vocab, normalizer, pre_tokenizer, specials, resolved)
    tok.training_options = saved_options({**resolved, "special_tokens": specials})
    return tok


train.__signature__ = signature(  # type: ignore[attr-defined]
    [inspect.Parameter("source", inspect.Parameter.POSITIONAL_OR_KEYWORD)])
train.__doc__ = (train.__doc__ or "") + "\n    " + options_table().replace("\n", "\n    ")


def build_pipeline(options: Mapping[str, Any]) -> tuple[BertNormalizer, BertPreTokenizer]:
    """The normalizer and pre-tokenizer of these options (missing ones: the spec's defaults).

    ``train()`` builds them once, counts with them and hands them to the tokenizer; the
    ``count`` command builds the same, so its counts fit ``train``.
    """
    def get(name: str):
        return options.get(name, OPTIONS[name].default)

    normalizer = BertNormalizer(lowercase=get("lowercase"), flavor=get("flavor"),
                                strip_accents=get("strip_accents"),
                                clean_text=get("clean_text"),
                                handle_chinese_chars=get("handle_chinese_chars"))
    return normalizer, BertPreTokenizer(flavor=get("flavor"))


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


def _specials(chosen: list[str], unk_token: str) -> list[str]:
    """The reserved tokens without repeats, checked to hold the unknown token."""
    specials = list(dict.fromkeys(chosen))
    if unk_token not in specials:
        raise ValueError(f"the reserved tokens {specials} must include unk_token "
                         f"{unk_token!r}")
    return specials


def _counts(source, normalizer, pre_tokenizer, options: Mapping[str, Any], reporter):
    """Count ``source``, or check counts given ready-made against the pipeline."""
    if isinstance(source, Mapping):
        given = [k for k in ("checkpoint", "max_distinct_words") if options[k]]
        if given:
            raise ValueError(f"{given[0]}= applies to counting a corpus; the source here "
                             "is word counts already")
        counts = source if isinstance(source, WordCounts) else WordCounts(source)
        if not options["ignore_fingerprint"]:
            counts.check_pipeline(normalizer, pre_tokenizer)
        return counts
    return count_words(source, normalizer=normalizer, pre_tokenizer=pre_tokenizer,
                       engine=options["engine"], num_proc=options["num_proc"],
                       scheduler=options["scheduler"], blocksize=options["blocksize"],
                       progress=reporter, checkpoint=options["checkpoint"],
                       max_distinct_words=options["max_distinct_words"])


def _learn(algorithm: str, counts, vocab_size: int, specials: list[str], learner: dict,
           options: Mapping[str, Any], reporter) -> list[str]:
    """Run the algorithm's learner with its options (the spec's names: the learners')."""
    if algorithm == "top-down":
        return _learn_top_down(counts, vocab_size, specials, {
            **learner, "continuing_subword_prefix": options["continuing_subword_prefix"]},
            reporter)
    if algorithm == "bottom-up":
        return learn_bottom_up(counts, vocab_size, special_tokens=specials, progress=reporter,
                               continuing_subword_prefix=options["continuing_subword_prefix"],
                               **learner)
    return learn_word_level(counts, vocab_size=vocab_size, special_tokens=specials, **learner)


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


def _tokenizer(algorithm: str, vocab: list[str], normalizer, pre_tokenizer,
               specials: list[str], options: Mapping[str, Any]) -> Tokenizer:
    """The tokenizer of ``vocab``, holding the normalizer and pre-tokenizer counting used."""
    vocab_obj = models.as_vocab(vocab)
    unk_token, flavor = options["unk_token"], options["flavor"]
    model: models.Model
    if algorithm == "word-level":
        model, prefix = models.WordLevel(vocab_obj, unk_token=unk_token), "##"
    else:
        rules = get_flavor(flavor)  # the flavor's word limit, as from_vocab takes it
        prefix = options["continuing_subword_prefix"]
        model = models.WordPiece(vocab_obj, unk_token=unk_token,
                                 continuing_subword_prefix=prefix,
                                 max_input_chars_per_word=rules.max_input_chars_per_word,
                                 max_input_bytes_per_word=rules.max_input_bytes_per_word)
    processor = default_processor(vocab_obj, options["template"], None)
    return Tokenizer(model, normalizer=normalizer, pre_tokenizer=pre_tokenizer,
                     post_processor=processor, decoder=WordPieceDecoder(prefix),
                     added_tokens=_added_specials(vocab_obj, specials, unk_token, processor),
                     reserved_tokens=specials, flavor=flavor)


def _added_specials(vocab, specials: list[str], unk_token: str, processor) -> list[str]:
    """The special tokens, the template's too, in id order (as ``from_vocab`` gives them)."""
    extra = [unk_token] + ([] if processor is None else [
        p.name for p in processor.single + processor.pair if not p.is_sequence])
    chosen = list(specials) + [t for t in extra if t not in specials and t in vocab]
    return sorted(dict.fromkeys(chosen), key=vocab.ids.__getitem__)
