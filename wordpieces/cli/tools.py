"""``wordpieces explain``, ``inspect`` and ``export``: understand and ship a tokenizer.

``explain`` prints the greedy longest-match trace of each word (``wordpieces.tools.explain``);
``inspect`` prints vocabulary and corpus statistics and can plot them
(``wordpieces.tools.inspect_vocab``); ``export`` writes a tokenizer for Hugging Face or as a
TensorFlow SavedModel (``wordpieces.formats.export_tf``).

Not handled here: the analyses and the TensorFlow graph themselves.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
import warnings

from ..errors import require
from ..formats.lines import LineReader
from .common import (
    BATCH_LINES,
    CLIError,
    input_files,
    input_size,
    naming_output,
    positive_int,
    prepare_output,
)
from .loading import add_tokenizer_option, load_artifact, load_tokenizer
from .progress import make_progress

EXPLAIN_EXAMPLES = """\
examples:
  wordpieces explain -t bert-base-uncased.vocab.txt unaffable
      'unaffable'  =>  una ##ffa ##ble   (ids 14477 20961 3468)
        at 0: try unaffable: no, try unaffabl: no, ..., try una: found
        at 3: try ##ffable: no, try ##ffabl: no, try ##ffab: no, try ##ffa: found
        at 6: try ##ble: found
  wordpieces explain -t my-tok/ "Snowmen ☃ melt"      # why a word became [UNK]
  wordpieces explain -t my-tok/ --json played < words.txt

Word-start pieces and continuation pieces are coloured differently on a terminal
(--color always|never to choose).
"""

INSPECT_EXAMPLES = """\
examples:
  wordpieces inspect -t bert-base-uncased.vocab.txt
  wordpieces inspect -t my-tok/ --corpus held-out.txt --max-length 512 --plot stats.png
  wordpieces inspect -t my-tok/ --corpus held-out.txt --json > stats.json

On a corpus: tokens per word, the [UNK] rate, the words split into the most pieces, and
sequence-length percentiles against --max-length (special tokens included). The text is
measured without the tokenizer's own padding and truncation (a tokenizer.json may pad
every line to 128 tokens); what its truncation would cut is the "over max length" line.
--plot needs matplotlib (pip install 'wordpieces[plot]').
"""

EXPORT_EXAMPLES = """\
examples:
  wordpieces export -t bert-base-uncased.vocab.txt --format hf -o bert-tok/
  wordpieces export -t my-tok/ --format hf -o tokenizer.json
  wordpieces export -t converter/ --format tensorflow -o converter_savedmodel/

hf writes tokenizer.json (+ vocab.txt, wordpieces.json) for Hugging Face tokenizers and
transformers. tensorflow writes a SavedModel with tokenize / detokenize / lookup /
get_vocab_size / get_vocab_path / get_reserved_tokens (pip install 'wordpieces[tensorflow]';
reload with `import tensorflow_text; tf.saved_model.load(OUT)`).
"""


def register(sub, parents) -> None:
    _register_explain(sub, parents)
    _register_inspect(sub, parents)
    _register_export(sub, parents)


def _parser(sub, parents, name: str, summary: str, examples: str):
    return sub.add_parser(name, parents=parents, help=summary, description=summary,
                          epilog=examples, formatter_class=argparse.RawDescriptionHelpFormatter)


def _register_explain(sub, parents) -> None:
    parser = _parser(sub, parents, "explain", "show step by step why words split as they "
                     "did (and why one became [UNK])", EXPLAIN_EXAMPLES)
    add_tokenizer_option(parser)
    parser.add_argument("words", nargs="*", metavar="WORD",
                        help="words or texts to trace (default: lines of stdin)")
    parser.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                        help="colour pieces (auto: when stdout is a terminal and NO_COLOR "
                             "is unset)")
    parser.add_argument("--steps", action=argparse.BooleanOptionalAction, default=True,
                        help="show every candidate tried (default: yes)")
    parser.add_argument("--json", action="store_true", help="one JSON object per word")
    parser.set_defaults(func=run_explain)


def _register_inspect(sub, parents) -> None:
    parser = _parser(sub, parents, "inspect", "vocabulary facts and, on a corpus, how it "
                     "tokenizes", INSPECT_EXAMPLES)
    add_tokenizer_option(parser)
    parser.add_argument("--corpus", nargs="+", metavar="INPUT", default=[],
                        help="text to tokenize: files, globs, directories, URLs "
                             "(.gz/.bz2/.xz too) or '-' for stdin")
    parser.add_argument("--max-length", type=positive_int, default=None, metavar="N",
                        help="sequence limit to measure truncation against (default: the "
                             "tokenizer's truncation max_length, else 512)")
    parser.add_argument("--plot", metavar="OUT.png", help="draw the statistics as a PNG")
    parser.add_argument("--json", action="store_true", help="print the statistics as JSON")
    parser.add_argument("--num-threads", type=positive_int, metavar="N")
    parser.set_defaults(func=run_inspect)


def _register_export(sub, parents) -> None:
    parser = _parser(sub, parents, "export", "write a tokenizer for Hugging Face or "
                     "TensorFlow", EXPORT_EXAMPLES)
    add_tokenizer_option(parser)
    parser.add_argument("--format", choices=("hf", "tensorflow"), required=True)
    parser.add_argument("-o", "--output", required=True, metavar="OUT",
                        help="directory (hf: or FILE.json for tokenizer.json alone)")
    parser.set_defaults(func=run_export)


# ---------------------------------------------------------------- explain


def run_explain(args: argparse.Namespace) -> int:
    from ..tools.explain import explain, render

    tok = load_tokenizer(args)
    color = _use_color(args.color)
    if not args.words and sys.stdin is not None and sys.stdin.isatty():
        print("wordpieces explain: reading lines from the terminal (Ctrl-D to end; or give "
              "WORD arguments)", file=sys.stderr)
    texts = args.words or (text for _, _, text in LineReader(["-"]))
    explained = 0
    for text in texts:
        explained += 1
        traces = explain(tok, text)
        if args.json:
            for trace in traces:
                print(json.dumps(trace_json(trace), ensure_ascii=False))
        elif traces:
            print(render(traces, color=color, steps=args.steps))
    if not explained:
        raise CLIError("nothing to explain: no WORD given and stdin is empty "
                       "(give words, e.g. explain -t TOKENIZER unaffable, or lines on stdin)")
    return 0


def _use_color(choice: str) -> bool:
    if choice != "auto":
        return choice == "always"
    return sys.stdout.isatty() and "NO_COLOR" not in os.environ


def trace_json(trace) -> dict:
    """A word trace as JSON-ready data."""
    return {"text": trace.original, "word": trace.word, "span": list(trace.span),
            "tokens": [t for t, _ in trace.pieces], "ids": [i for _, i in trace.pieces],
            "steps": [{"start": p.start, "skipped": p.skipped,
                       "tried": [[a.candidate, a.found] for a in p.attempts]}
                      for p in trace.positions],
            "unk_reason": trace.unk_reason, "note": trace.note}


# ---------------------------------------------------------------- inspect


def run_inspect(args: argparse.Namespace) -> int:
    from ..tools.inspect_vocab import CorpusStats, plot_stats, vocab_facts

    paths = input_files(args.corpus) if args.corpus else []
    if args.plot:
        require("matplotlib", "plot")  # fail before the corpus is read, not after
    tok = load_tokenizer(args)
    facts = vocab_facts(tok)
    corpus = None
    if args.corpus:
        stats = CorpusStats(tok, max_length=args.max_length)
        _feed(stats, paths, args)
        corpus = stats.report()
    if args.plot:
        prepare_output(args.plot)
        with naming_output(args.plot):
            plot_stats(facts, corpus, args.plot)
    if args.json:
        print(json.dumps({"vocab": facts, "corpus": corpus}, ensure_ascii=False, indent=1))
    else:
        print(format_inspect(facts, corpus))
    return 0


def _feed(stats, paths: list[str], args: argparse.Namespace) -> None:
    reader = LineReader(paths)
    rows = iter(reader)
    with make_progress(args, "inspect", total=input_size(paths)) as progress:
        while True:
            batch = [text for _, _, text in itertools.islice(rows, BATCH_LINES)]
            if not batch:
                return
            stats.add(batch, num_threads=args.num_threads)
            progress.update(done=reader.bytes_read, lines=stats.lines, tokens=stats.tokens)


def format_inspect(facts: dict, corpus: dict | None) -> str:
    """The statistics as a short human report."""
    lines = _format_vocab(facts)
    if corpus is not None:
        lines += [""] + _format_corpus(corpus)
    return "\n".join(lines)


def _format_vocab(f: dict) -> list[str]:
    chars = f["characters"]
    lengths = ", ".join(f"{k}:{v}" for k, v in f["length_histogram"].items())
    scripts = ", ".join(f"{k} {v}" for k, v in list(chars["by_script"].items())[:8])
    return [
        f"vocabulary: {f['vocab_size']:,} tokens ({f['model']}, unknown token "
        f"{f['unk_token']}" + (f", continuation prefix {f['continuing_subword_prefix']!r})"
                               if f["continuing_subword_prefix"] else ")"),
        f"reserved tokens: {' '.join(f['reserved_tokens']) or '(none)'}"
        + (f"   [unused*] slots: {f['unused_tokens']}" if f["unused_tokens"] else ""),
        f"pieces: {f['word_start_pieces']:,} word-start, {f['continuation_pieces']:,} "
        f"continuation ({f['continuation_share']:.1%} are ##-pieces)",
        f"piece length (chars): mean {f['mean_length']:.2f}; {lengths}",
        f"characters covered: {chars['total']:,} ({chars['word_start']:,} as word start, "
        f"{chars['continuation']:,} as continuation); {scripts}",
    ]


def _format_corpus(c: dict) -> list[str]:
    tpw, unk, seq = c["tokens_per_word"], c["unk"], c["sequence_length"]
    hist = ", ".join(f"{k}:{v}" for k, v in tpw["histogram"].items())
    pct = ", ".join(f"p{p} {v}" if int(p) < 100 else f"max {v}"
                    for p, v in seq["percentiles"].items())
    out = [
        f"corpus: {c['lines']:,} lines, {c['words']:,} words, {c['tokens']:,} tokens "
        f"({c['characters_per_token']:.2f} characters per token)",
        f"tokens per word: mean {tpw['mean']:.3f}; pieces:words {hist}",
        f"[UNK]: {unk['tokens']:,} tokens = {unk['token_rate']:.3%} of tokens, "
        f"{unk['word_rate']:.3%} of words"
        + (f"; most frequent: {', '.join(repr(w) for w, _ in unk['top_words'][:5])}"
           if unk["top_words"] else ""),
        f"sequence length (+{seq['with_special_tokens']} special): {pct}",
        f"over max length {seq['max_length']} ({LIMIT_SOURCES[seq['max_length_source']]}): "
        f"{seq['lines_over']:,} lines ({seq['lines_over_share']:.2%}), "
        f"{seq['tokens_cut']:,} tokens cut ({seq['tokens_cut_share']:.2%})",
        "most split words: " + ", ".join(f"{w} ({p} pieces, x{n})"
                                         for w, p, n in c["most_split_words"][:10]),
    ]
    left_out = describe_left_out(c["left_out"])
    if left_out:
        out.insert(1, left_out)
    return out


LIMIT_SOURCES = {"given": "--max-length", "truncation": "the tokenizer's truncation; "
                 "--max-length to change", "default": "--max-length default"}


def describe_left_out(left_out: dict) -> str | None:
    """The line saying which of the tokenizer's own padding and truncation were not applied.

    >>> describe_left_out({"padding": {"length": 128, "pad_to_multiple_of": None},
    ...                    "truncation": {"max_length": 128}})
    "measured without the tokenizer's padding (to 128 tokens) and truncation (at 128 tokens)"
    """
    padding, truncation = left_out.get("padding"), left_out.get("truncation")
    parts = []
    if padding:
        parts.append(f"padding ({_padding_target(padding)})")
    if truncation:
        parts.append(f"truncation (at {truncation['max_length']:,} tokens)")
    return f"measured without the tokenizer's {' and '.join(parts)}" if parts else None


def _padding_target(padding: dict) -> str:
    if padding.get("length") is not None:
        return f"to {padding['length']:,} tokens"
    if padding.get("pad_to_multiple_of"):
        return f"to the longest of a batch, a multiple of {padding['pad_to_multiple_of']}"
    return "to the longest of a batch"


# ---------------------------------------------------------------- export


def run_export(args: argparse.Namespace) -> int:
    artifact = _export_artifact(args)
    prepare_output(args.output)
    with naming_output(args.output):
        if args.format == "hf":
            notes = _hf_notes(artifact)
            with warnings.catch_warnings():  # the same differences, printed below
                warnings.simplefilter("ignore", UserWarning)
                artifact.save(args.output)
        else:
            from ..formats.export_tf import export_tensorflow
            notes = export_tensorflow(artifact, args.output, warn=False)
    if not args.quiet:
        for note in notes:
            print(f"wordpieces export: warning: {note}", file=sys.stderr)
    make_progress(args, "export").summary(f"exported ({args.format}) -> {args.output}")
    return 0


def _export_artifact(args: argparse.Namespace):
    """The tokenizer, or the whole bundle when no --member is given."""
    from ..formats.bundle import Bundle

    if args.member is not None:
        return load_tokenizer(args)
    artifact = load_artifact(args.tokenizer, args)
    if isinstance(artifact, Bundle) and args.format == "hf" and args.output.endswith(".json"):
        raise CLIError(f"{args.tokenizer}: is a bundle; export it to a directory, or one "
                       f"member with --member NAME")
    return artifact


def _hf_notes(artifact) -> list[str]:
    """Where Hugging Face will tokenize differently from this tokenizer."""
    from ..formats.bundle import Bundle

    members = artifact.items() if isinstance(artifact, Bundle) else [("", artifact)]
    notes: list[str] = []
    for name, tok in members:
        where = f"{name}: " if name else ""
        notes.extend(where + note for note in tok.hf_differences())  # the one list, as save()
    return notes
