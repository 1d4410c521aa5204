"""``wordpieces count``, ``merge-counts`` and ``train``: from a corpus to a saved tokenizer.

Counting and learning are separate steps, as in TF Text's pipeline: ``count`` writes the
word counts of a corpus (on this machine or a Dask cluster) as TSV, ``merge-counts`` sums
counts made elsewhere, and ``train`` learns a vocabulary from a corpus or from counts and
saves the tokenizer. The training options and their flags come from one spec
(``learn.options``): ``--vocab-size`` is ``train()``'s ``vocab_size``, with its default.

Not handled here: the counting and learning themselves (``counting``, ``training``).
"""

from __future__ import annotations

import argparse

from ..learn.options import add_arguments
from .common import CLIError, check_output_dir, input_files, naming_output, prepare_output
from .progress import make_progress, progress_mode

COUNT_EXAMPLES = """\
examples:
  wordpieces count corpus.txt -o counts.tsv
  wordpieces count 'books/*.txt' wiki/ -o counts.tsv --num-proc 8 --no-lowercase
  cat corpus.txt | wordpieces count - -o counts.tsv
  wordpieces count s3://bucket/shards/ -o counts.tsv --engine dask --scheduler tcp://host:8786
  wordpieces count big/ -o counts.tsv --checkpoint big.ckpt --max-distinct-words 2000000

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
    add_arguments(parser, ["normalizer", "counting"], exclude=["ignore_fingerprint"])
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
    parser.add_argument("-o", "--output", required=True, metavar="DIR",
                        help="directory to save the tokenizer in (or FILE.json: "
                             "tokenizer.json only)")
    add_arguments(parser, ["vocabulary", "normalizer", "top-down", "bottom-up", "counting"])
    parser.set_defaults(func=run_train)


# ---------------------------------------------------------------- count / merge


def pipeline_from(args: argparse.Namespace):
    """The normalizer and pre-tokenizer ``train`` would build for these options."""
    from ..learn.training import build_pipeline

    return build_pipeline(spec_options(args, ["normalizer"]))


def spec_options(args: argparse.Namespace, groups: list[str]) -> dict:
    """The training options of ``groups`` given on the command line (by their spec names)."""
    from ..learn.options import TRAIN_OPTIONS

    return {o.name: getattr(args, o.name) for o in TRAIN_OPTIONS
            if o.group in groups and o.cli and hasattr(args, o.name)}


def run_count(args: argparse.Namespace) -> int:
    from ..learn.counting import count_words

    normalizer, pre_tokenizer = pipeline_from(args)
    paths = input_files(args.corpus)
    engine = spec_options(args, ["counting"])
    if engine.get("scheduler") and engine.get("engine", "local") == "local":
        raise CLIError("--scheduler needs --engine dask")
    prepare_output(args.output)
    progress = make_progress(args, "count")
    with progress:
        counts = count_words(paths, normalizer=normalizer, pre_tokenizer=pre_tokenizer,
                             progress=progress.callback, **engine)
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
    from ..learn.options import resolve
    from ..learn.training import train

    source = _train_source(args)
    if args.output.endswith(".json"):
        prepare_output(args.output)
    else:
        check_output_dir(args.output)
    options = spec_options(args, ["vocabulary", "normalizer", "top-down", "bottom-up",
                                  "counting"])
    if args.counts is not None and (options.get("checkpoint")
                                    or options.get("max_distinct_words")):
        raise CLIError("--checkpoint and --max-words apply to counting a corpus, not to "
                       "--counts")
    if options.get("scheduler") and options.get("engine", "local") == "local":
        raise CLIError("--scheduler needs --engine dask")
    try:
        resolved = resolve(options, cli=True)  # errors by flag, before any counting
    except ValueError as error:
        raise CLIError(str(error)) from None
    tok = train(source, progress=progress_mode(args), **options)
    with naming_output(args.output):
        tok.save(args.output)
    make_progress(args, "train").summary(
        f"learned {tok.vocab_size:,} tokens ({resolved['algorithm']}) -> {args.output}")
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
