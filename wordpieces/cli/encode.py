"""``wordpieces encode``, ``decode`` and ``detokenize``: streams of lines in, lines out.

Each input line is one sequence, as with ``spm_encode``: ``encode`` writes one output line
per input line (``ids``, ``tokens`` or ``jsonl``), or appends to a flat ``.npy`` array
with an index of line starts; ``decode``/``detokenize`` turn lines of ids back into text.
Input is read in batches, so a file larger than memory streams through a pipe.

Not handled here: many files on a cluster (``cli.distributed``), the output formats
(``cli.sinks``), reading lines (``formats.lines``: BOM, CRLF, ``.gz/.bz2/.xz``, bad
UTF-8 named by file and line), pairs of sequences, padding (one line per sequence needs
none).
"""

from __future__ import annotations

import argparse
import sys

from ..formats.lines import LineReader
from .common import (
    BATCH_LINES,
    CLIError,
    atomic_output,
    input_files,
    input_size,
    naming_output,
    positive_int,
)
from .distributed import run_distributed_encode
from .loading import add_tokenizer_option, load_tokenizer
from .progress import make_progress
from .sinks import NpySink, TextSink, encode_batches

FORMATS = ("ids", "tokens", "jsonl", "npy")
# The longest line encode takes (characters): one line is one sequence, encoded in one piece,
# and its encoding costs 17-60x the line in memory (ids to jsonl). At this cap that is at most
# ~250 MB; a longer line is refused naming it (raise the cap with --max-line-chars).
MAX_LINE_CHARS = 1 << 22

ENCODE_EXAMPLES = """\
examples:
  echo "Hello, world!" | wordpieces encode -t bert-base-uncased.vocab.txt
      101 7592 1010 2088 999 102   (with --no-add-special-tokens: 7592 1010 2088 999)
  wordpieces encode -t my-tok/ corpus.txt --format tokens -o corpus.tok
  wordpieces encode -t my-tok/ corpus.txt --format jsonl --max-length 512
  wordpieces encode -t my-tok/ corpus.txt --format npy -o train.npy   # + train.idx.npy
  wordpieces encode -t my-tok/ shards/*.txt --engine dask --scheduler tcp://host:8786 -o out/

formats:
  ids     one line of space-separated ids per input line (as spm_encode)
  tokens  one line of space-separated tokens per input line
  jsonl   one JSON object per line: {"ids": [...], "tokens": [...], "offsets": [[s, e], ...]}
          (offsets are character offsets into the input line)
  npy     OUT.npy: all ids of all lines as one flat uint16 array (uint32 when the vocabulary
          has more than 65536 tokens); OUT.idx.npy: int64 start of each line, plus the total
          at the end, so line i is ids[idx[i]:idx[i+1]]
"""

DECODE_EXAMPLES = """\
examples:
  echo "7592 1010 2088 999" | wordpieces decode -t bert-base-uncased.vocab.txt
      hello, world!
  wordpieces encode -t my-tok/ a.txt | wordpieces decode -t my-tok/ > a.roundtrip.txt
  wordpieces decode -t my-tok/ ids.txt --keep-special

Special tokens ([CLS], [SEP], [PAD] and the unknown token [UNK]) are left out by default,
as transformers' decode(..., skip_special_tokens=True) does: a line with an unknown word
then decodes without it. --keep-special keeps them.
"""

DETOKENIZE_EXAMPLES = """\
examples:
  echo "2 4 5 6 3" | wordpieces detokenize -t converter/ --member en
  wordpieces detokenize -t my-tok/ ids.txt -o words.txt

Words are joined by single spaces and reserved tokens other than the unknown token are
dropped (TensorFlow Text's detokenize as in the subword tutorial).
"""


def register(sub, parents) -> None:
    _register_encode(sub, parents)
    for name, examples, summary in (
            ("decode", DECODE_EXAMPLES, "turn lines of ids back into text"),
            ("detokenize", DETOKENIZE_EXAMPLES, "ids back to space-joined words, "
                                                "reserved tokens dropped")):
        parser = sub.add_parser(name, parents=parents, help=summary, description=summary,
                                epilog=examples,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
        add_tokenizer_option(parser)
        parser.add_argument("inputs", nargs="*", metavar="FILE",
                            help="files of space-separated ids, one sequence a line "
                                 "(default or '-': stdin)")
        parser.add_argument("-o", "--output", metavar="OUT", help="output file (default: stdout)")
        if name == "decode":
            parser.add_argument("--skip-special-tokens", action=argparse.BooleanOptionalAction,
                                default=True, help="leave out special tokens, [UNK] included "
                                                   "(default: yes)")
            parser.add_argument("--keep-special", dest="skip_special_tokens",
                                action="store_false",
                                help="keep special tokens ([UNK] too): --no-skip-special-tokens")
        parser.set_defaults(func=run_decode, detokenize=name == "detokenize")


def _register_encode(sub, parents) -> None:
    parser = sub.add_parser("encode", parents=parents, epilog=ENCODE_EXAMPLES,
                            formatter_class=argparse.RawDescriptionHelpFormatter,
                            help="tokenize text into ids, tokens, jsonl or npy",
                            description="Tokenize each input line into one output sequence.")
    add_tokenizer_option(parser)
    parser.add_argument("inputs", nargs="*", metavar="INPUT",
                        help="text files, globs, directories, URLs (.gz/.bz2/.xz too), one "
                             "sequence a line (default or '-': stdin)")
    parser.add_argument("-o", "--output", metavar="OUT",
                        help="output file (default: stdout; required for npy; a directory "
                             "with --engine dask)")
    parser.add_argument("--format", choices=FORMATS, default="ids", help="default: ids")
    parser.add_argument("--add-special-tokens", action=argparse.BooleanOptionalAction,
                        default=True, help="add [CLS]/[SEP] (or the tokenizer's template); "
                                           "default: yes, as Tokenizer.encode and "
                                           "transformers; --no-add-special-tokens for the "
                                           "bare pieces, as spm_encode")
    parser.add_argument("--max-length", type=positive_int, metavar="N",
                        help="truncate each sequence to N tokens (special tokens included)")
    parser.add_argument("--num-threads", type=positive_int, metavar="N",
                        help="threads for encoding (default: the tokenizer's choice)")
    parser.add_argument("--max-line-chars", type=positive_int, metavar="N",
                        default=MAX_LINE_CHARS,
                        help=f"refuse a line longer than N characters (default: {MAX_LINE_CHARS:,}"
                             "; memory grows 17-60x a line's size)")
    group = parser.add_argument_group("distributed encoding")
    group.add_argument("--engine", choices=("local", "dask"), default="local",
                       help="dask: one output shard per input file or block, plus "
                            "manifest.json, written under the -o directory")
    group.add_argument("--scheduler", metavar="ADDR",
                       help="Dask scheduler address (default: a local cluster)")
    group.add_argument("--num-proc", type=positive_int, metavar="N",
                       help="workers of the local Dask cluster")
    group.add_argument("--blocksize", type=positive_int, metavar="BYTES",
                       help="split files into blocks of about this many bytes "
                            "(default: one block per file)")
    parser.set_defaults(func=run_encode)


# ---------------------------------------------------------------- encode


def run_encode(args: argparse.Namespace) -> int:
    paths = input_files(args.inputs)
    tok = prepare_tokenizer(args)
    if args.engine == "dask":
        return run_distributed_encode(args, tok, paths)
    if args.format == "npy" and args.output in (None, "-"):
        raise CLIError("--format npy needs -o FILE.npy (a .npy array cannot go to a pipe)")
    reader = LineReader(paths)
    progress = make_progress(args, "encode", total=input_size(paths), unit="bytes")
    with progress:
        if args.format == "npy":
            with naming_output(args.output), NpySink(args.output, tok.vocab_size) as sink:
                totals = encode_lines(tok, reader, sink, args, progress)
        else:
            with atomic_output(args.output) as out:
                totals = encode_lines(tok, reader, TextSink(out, args.format), args, progress)
    progress.summary(f"encoded {totals[0]} lines into {totals[1]} tokens")
    return 0


def prepare_tokenizer(args: argparse.Namespace):
    """Load the tokenizer and apply the command's truncation; padding is never wanted."""
    tok = load_tokenizer(args)
    tok.no_padding()
    if args.max_length is not None:
        try:
            tok.enable_truncation(args.max_length)
        except ValueError as e:
            raise CLIError(f"--max-length {args.max_length}: {e}") from None
    return tok


def encode_lines(tok, reader: LineReader, sink, args, progress) -> tuple[int, int]:
    """Encode every line of ``reader`` into ``sink`` in batches; return (lines, tokens)."""
    def report(lines: int, tokens: int) -> None:
        progress.update(done=reader.bytes_read, lines=lines, tokens=tokens)

    return encode_batches(tok, checked_lines(reader, args.max_line_chars), sink,
                          add_special_tokens=args.add_special_tokens,
                          num_threads=args.num_threads,
                          batch_lines=1 if _interactive(reader.paths) else BATCH_LINES,
                          after_batch=report)


def checked_lines(reader: LineReader, max_chars: int):
    """The texts of ``reader``'s lines; a line over ``max_chars`` is a ``CLIError`` naming it."""
    for source, number, text in reader:
        if len(text) > max_chars:
            raise CLIError(f"{source}:{number}: a line of {len(text):,} characters is longer "
                           f"than --max-line-chars {max_chars:,} (one line is one sequence, "
                           "encoded whole: split the line, or raise the limit)")
        yield text


def _interactive(paths: list[str]) -> bool:
    """Reading a terminal: answer line by line instead of waiting for a full batch."""
    return paths == ["-"] and sys.stdin.isatty()


# ---------------------------------------------------------------- decode / detokenize


def run_decode(args: argparse.Namespace) -> int:
    paths = input_files(args.inputs)
    tok = load_tokenizer(args)
    reader = LineReader(paths)
    progress = make_progress(args, args.command, total=input_size(paths), unit="bytes")
    size, lines, unknown = tok.vocab_size, 0, 0
    dropped = _dropped_unknown_id(tok, args)
    with progress, atomic_output(args.output) as out:
        for source, number, text in reader:
            ids = parse_ids(text, source, number, size)
            out.write(_decode_one(tok, ids, args) + "\n")
            unknown += ids.count(dropped) if dropped is not None else 0
            lines += 1
            if lines % BATCH_LINES == 0:
                progress.update(done=reader.bytes_read, lines=lines)
    summary = (f"{args.command}d {lines} lines" if args.command == "decode"
               else f"detokenized {lines} lines")
    if unknown:
        summary += f"; {unknown} unknown tokens left out (--keep-special keeps them)"
    progress.summary(summary)
    return 0


def _dropped_unknown_id(tok, args) -> int | None:
    """The unknown token's id when ``decode`` leaves it out, else None (nothing to count)."""
    if args.detokenize or not args.skip_special_tokens:
        return None
    unk = tok.unk_token
    return tok.token_to_id(unk) if unk is not None and unk in tok.all_special_tokens else None


def _decode_one(tok, ids: list[int], args) -> str:
    if args.detokenize:
        return tok.detokenize(ids)
    return tok.decode(ids, skip_special_tokens=args.skip_special_tokens)


def parse_ids(text: str, source: str, number: int, vocab_size: int) -> list[int]:
    """Parse one line of space-separated ids, naming the line and value at fault."""
    ids = []
    for field in text.split():
        if not (field.isascii() and field.isdigit()):  # int() takes "+1", "7_592", "٣"
            raise CLIError(f"{source}:{number}: {field!r} is not an integer id (digits 0-9)")
        value = int(field) if len(field) <= 20 else vocab_size  # 20+ digits: out of range
        if not 0 <= value < vocab_size:
            raise CLIError(f"{source}:{number}: id {field[:30]} is out of range (the vocabulary "
                           f"has ids 0..{vocab_size - 1})")
        ids.append(value)
    return ids
