"""``wordpieces count``, ``merge-counts`` and ``train``: from a corpus to a saved tokenizer.

Counting and learning are separate steps, as in TF Text's pipeline: ``count`` writes the
word counts of a corpus (on this machine or a Dask cluster) as TSV, ``merge-counts`` sums
counts made elsewhere, and ``train`` learns a vocabulary from a corpus or from counts and
saves the tokenizer. Options have the Python API's names (``--vocab-size`` is
``vocab_size``).

Not handled here: the counting and learning themselves (``counting``, ``training``).
"""

from __future__ import annotations

import argparse

from .common import (
    CLIError,
    check_output_dir,
    given,
    input_files,
    naming_output,
    non_negative_int,
    positive_int,
    prepare_output,
    token_list,
)
from .loading import NORMALIZER_OPTIONS, add_normalizer_options
from .progress import make_progress, progress_mode

COUNT_EXAMPLES = """\
examples:
  wordpieces count corpus.txt -o counts.tsv
  wordpieces count 'books/*.txt' wiki/ -o counts.tsv --num-proc 8 --no-lowercase
  cat corpus.txt | wordpieces count - -o counts.tsv
  wordpieces count s3://bucket/shards/ -o counts.tsv --engine dask --scheduler tcp://host:8786
  wordpieces count big/ -o counts.tsv --checkpoint big.ckpt --max-words 2000000

The counts remember how the text was split (lowercase, flavor …): train refuses counts made
with other options than its own.
"""

MERGE_EXAMPLES = """\
examples:
  wordpieces merge-counts part-1.tsv part-2.tsv part-3.tsv -o all.tsv
"""

TRAIN_EXAMPLES = """\
examples:
  wordpieces train corpus.txt --vocab-size 8000 -o my-tok/
  wordpieces train --counts counts.tsv --algorithm bottom-up --vocab-size 8000 \
      --min-frequency 2 -o my-tok/
  wordpieces train pt.txt --vocab-size 8000 --reserved-tokens '[PAD],[UNK],[START],[END]' -o pt-tok/
  wordpieces train corpus.txt --algorithm word-level --vocab-size 20000 -o words-tok/

The output directory holds tokenizer.json (loads in Hugging Face tokenizers), vocab.txt and
wordpieces.json.
"""

# learn_bottom_up's scores (merge_scores.SCORES; not imported: it loads every learner).
SCORE_CHOICES = ("count", "likelihood", "pmi")

# Learner options: flag name == keyword, and the algorithms that take it.
LEARNER_OPTIONS = {
    "upper_thresh": ("top-down",), "lower_thresh": ("top-down",),
    "num_iterations": ("top-down",), "max_input_tokens": ("top-down",),
    "max_token_length": ("top-down",), "max_unique_chars": ("top-down",),
    "slack_ratio": ("top-down",), "include_joiner_token": ("top-down",),
    "joiner": ("top-down",),
    "min_frequency": ("bottom-up", "word-level"), "limit_alphabet": ("bottom-up",),
    "initial_alphabet": ("bottom-up",), "continuing_subword_prefix": ("bottom-up",),
    "score": ("bottom-up",), "drop_unused": ("bottom-up",), "refine": ("bottom-up",),
}


def register(sub, parents) -> None:
    _register_count(sub, parents)
    parser = sub.add_parser("merge-counts", parents=parents, epilog=MERGE_EXAMPLES,
                            formatter_class=argparse.RawDescriptionHelpFormatter,
                            help="sum word-count files", description="Sum word-count files "
                            "(made by 'wordpieces count' with the same options).")
    parser.add_argument("inputs", nargs="+", metavar="COUNTS.tsv")
    parser.add_argument("-o", "--output", required=True, metavar="OUT.tsv")
    parser.add_argument("--ignore-fingerprint", action="store_true",
                        help="merge counts made with different options anyway")
    parser.set_defaults(func=run_merge)
    _register_train(sub, parents)


def _add_engine_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("counting engine")
    group.add_argument("--engine", choices=("local", "dask"), default="local",
                       help="local processes (default) or a Dask cluster")
    group.add_argument("--scheduler", metavar="ADDR",
                       help="Dask scheduler address, e.g. tcp://host:8786 (default: start "
                            "a local cluster)")
    group.add_argument("--num-proc", type=positive_int, metavar="N",
                       help="worker processes (default: all cores)")
    group.add_argument("--blocksize", type=positive_int, metavar="BYTES",
                       help="bytes of a file per task (default: 8 MiB)")
    group.add_argument("--checkpoint", metavar="DIR",
                       help="record finished blocks in DIR; a re-run after a kill resumes "
                            "there (files only, same inputs and options)")
    group.add_argument("--max-words", type=positive_int, metavar="N",
                       dest="max_distinct_words",
                       help="keep the N most common words (exact counts, ties by word), "
                            "holding N in memory and spilling the rest to a temporary folder")


def _register_count(sub, parents) -> None:
    parser = sub.add_parser("count", parents=parents, epilog=COUNT_EXAMPLES,
                            formatter_class=argparse.RawDescriptionHelpFormatter,
                            help="count the words of a corpus into a TSV",
                            description="Count words as the tokenizer will see them "
                                        "(normalized and pre-tokenized).")
    parser.add_argument("corpus", nargs="+", metavar="CORPUS",
                        help="files, globs, directories, URLs (.gz/.bz2/.xz too), or '-' "
                             "for stdin")
    parser.add_argument("-o", "--output", required=True, metavar="OUT.tsv")
    add_normalizer_options(parser, title="how text is split into words")
    _add_engine_options(parser)
    parser.set_defaults(func=run_count)


def _register_train(sub, parents) -> None:
    parser = sub.add_parser("train", parents=parents, epilog=TRAIN_EXAMPLES,
                            formatter_class=argparse.RawDescriptionHelpFormatter,
                            help="learn a vocabulary and save the tokenizer",
                            description="Learn a WordPiece (or word-level) vocabulary from "
                                        "a corpus or from word counts.")
    parser.add_argument("corpus", nargs="*", metavar="CORPUS",
                        help="files, globs, directories, URLs (.gz/.bz2/.xz too), or '-' "
                             "for stdin")
    parser.add_argument("--counts", metavar="FILE", help="learn from counts made by 'count'")
    parser.add_argument("--ignore-fingerprint", action="store_true",
                        help="use --counts made with other normalization options anyway")
    parser.add_argument("-o", "--output", required=True, metavar="DIR",
                        help="directory to save the tokenizer in (or FILE.json: "
                             "tokenizer.json only)")
    parser.add_argument("--algorithm", choices=("top-down", "bottom-up", "word-level"),
                        default="top-down", help="default: top-down (BERT / TF Text)")
    parser.add_argument("--vocab-size", type=positive_int, default=30_000, metavar="N",
                        help="default: 30000")
    parser.add_argument("--reserved-tokens", type=token_list, metavar="T1,T2,...",
                        help="comma-separated; they lead the vocabulary "
                             "(default: [PAD],[UNK],[CLS],[SEP],[MASK])")
    parser.add_argument("--special-tokens", type=token_list, metavar="T1,T2,...",
                        help="another name for --reserved-tokens")
    parser.add_argument("--unk-token", default=None, help="default: [UNK]")
    add_normalizer_options(parser, title="how text is split into words")
    _add_learner_options(parser)
    _add_engine_options(parser)
    parser.set_defaults(func=run_train)


def _add_learner_options(parser: argparse.ArgumentParser) -> None:
    top = parser.add_argument_group(
        "top-down learner (TF Text's learn)",
        "  It searches a count threshold: a substring seen at least that often becomes a\n"
        "  token. On a small corpus even the lowest threshold may give fewer tokens than\n"
        "  --vocab-size (a warning says so): lower --lower-thresh, or --algorithm bottom-up.")
    top.add_argument("--upper-thresh", type=non_negative_int, metavar="N",
                     help="highest count threshold searched (default: 10000000)")
    top.add_argument("--lower-thresh", type=non_negative_int, metavar="N",
                     help="lowest count threshold searched; lower it when the vocabulary "
                          "comes out smaller than --vocab-size (default: 10)")
    top.add_argument("--num-iterations", type=positive_int, metavar="N",
                     help="rounds of counting and subtracting per threshold (default: 4)")
    top.add_argument("--max-input-tokens", type=positive_int, metavar="N",
                     help="learn from at most this many distinct words, most frequent first "
                          "(default: 5000000)")
    top.add_argument("--max-token-length", type=positive_int, metavar="N",
                     help="longer words are left out of learning (default: 50)")
    top.add_argument("--max-unique-chars", type=positive_int, metavar="N",
                     help="keep only this many distinct characters, most frequent first; "
                          "words with others are left out (default: 1000)")
    top.add_argument("--slack-ratio", type=float, metavar="X",
                     help="accept a vocabulary this fraction below --vocab-size "
                          "(default: 0.05)")
    top.add_argument("--include-joiner-token", action=argparse.BooleanOptionalAction,
                     default=None, help="also add each character with the joiner "
                                        "(##a ...), as BERT's vocabularies have (default: yes)")
    top.add_argument("--joiner", metavar="STR", help="continuation prefix (default: ##)")
    bottom = parser.add_argument_group("bottom-up and word-level learners")
    bottom.add_argument("--min-frequency", type=non_negative_int, metavar="N")
    bottom.add_argument("--limit-alphabet", type=positive_int, metavar="N")
    bottom.add_argument("--initial-alphabet", metavar="CHARS",
                        help="characters always kept (bottom-up)")
    bottom.add_argument("--continuing-subword-prefix", metavar="STR",
                        help="continuation prefix (bottom-up; default: ##)")
    bottom.add_argument("--score", choices=SCORE_CHOICES,
                        help="what ranks merges (bottom-up; default: count)")
    bottom.add_argument("--drop-unused", action=argparse.BooleanOptionalAction, default=None,
                        help="leave out merged tokens the training words never use, merging "
                             "on to fill their slots (bottom-up; default: with --score count)")
    bottom.add_argument("--refine", action="store_true", default=None,
                        help="after merging, swap tokens greedy longest match rarely uses for "
                             "ones that save more tokens on the training words (bottom-up)")


# ---------------------------------------------------------------- count / merge


def pipeline_from(args: argparse.Namespace):
    """The normalizer and pre-tokenizer ``train`` would build for these options."""
    from ..pipeline.normalizers import BertNormalizer
    from ..pipeline.pre_tokenizers import BertPreTokenizer

    options = {"lowercase": True, "flavor": "bert", **given(args, NORMALIZER_OPTIONS)}
    return BertNormalizer(**options), BertPreTokenizer(flavor=options["flavor"])


def _engine_options(args: argparse.Namespace) -> dict:
    if args.engine == "local" and args.scheduler:
        raise CLIError("--scheduler needs --engine dask")
    return {"engine": args.engine, **given(args, ["scheduler", "num_proc", "blocksize",
                                                  "checkpoint", "max_distinct_words"])}


def run_count(args: argparse.Namespace) -> int:
    from ..learn.counting import count_words

    normalizer, pre_tokenizer = pipeline_from(args)
    paths = input_files(args.corpus)
    prepare_output(args.output)
    progress = make_progress(args, "count")
    with progress:
        counts = count_words(paths, normalizer=normalizer, pre_tokenizer=pre_tokenizer,
                             progress=progress.callback, **_engine_options(args))
        with naming_output(args.output):
            counts.save(args.output)
    progress.summary(f"counted {counts.total():,} words, {len(counts):,} distinct "
                     f"-> {args.output}")
    return 0


def run_merge(args: argparse.Namespace) -> int:
    from ..learn.counting import WordCounts

    parts = [WordCounts.load(path) for path in args.inputs]
    merged = parts[0].merge(*parts[1:], ignore_fingerprint=args.ignore_fingerprint)
    prepare_output(args.output)
    with naming_output(args.output):
        merged.save(args.output)
    progress = make_progress(args, "merge-counts")
    progress.summary(f"merged {len(parts)} files: {merged.total():,} words, "
                     f"{len(merged):,} distinct -> {args.output}")
    return 0


# ---------------------------------------------------------------- train


def run_train(args: argparse.Namespace) -> int:
    from ..learn.training import train

    source = _train_source(args)
    if args.output.endswith(".json"):
        prepare_output(args.output)
    else:
        check_output_dir(args.output)
    options = {**given(args, NORMALIZER_OPTIONS + ["unk_token", "reserved_tokens",
                                                  "special_tokens"]),
               **_learner_options(args)}
    if args.counts is None:
        options.update(_engine_options(args))
    elif args.checkpoint or args.max_distinct_words:
        raise CLIError("--checkpoint and --max-words apply to counting a corpus, not to "
                       "--counts")
    tok = train(source, algorithm=args.algorithm, vocab_size=args.vocab_size,
                progress=progress_mode(args), ignore_fingerprint=args.ignore_fingerprint,
                **options)
    with naming_output(args.output):
        tok.save(args.output)
    make_progress(args, "train").summary(
        f"learned {tok.vocab_size:,} tokens ({args.algorithm}) -> {args.output}")
    return 0


def _train_source(args: argparse.Namespace):
    from ..learn.counting import WordCounts

    if args.counts and args.corpus:
        raise CLIError("give either CORPUS files or --counts FILE, not both")
    if args.counts:
        return WordCounts.load(args.counts)
    if not args.corpus:
        raise CLIError("nothing to learn from: give CORPUS files (or '-' for stdin) or "
                       "--counts FILE")
    return input_files(args.corpus)


def _learner_options(args: argparse.Namespace) -> dict:
    """The learner options given, refusing those the chosen algorithm does not take."""
    options = given(args, list(LEARNER_OPTIONS))
    for name in options:
        if args.algorithm not in LEARNER_OPTIONS[name]:
            flag = "--" + name.replace("_", "-")
            raise CLIError(f"{flag} applies to --algorithm {' or '.join(LEARNER_OPTIONS[name])}"
                           f", not {args.algorithm}")
    if "initial_alphabet" in options:
        options["initial_alphabet"] = list(options["initial_alphabet"])
    return options
