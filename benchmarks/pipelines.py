"""Encode speed of each WordPiece pipeline of issue 22, wordpieces beside HF `tokenizers`.

Each pipeline is built with HF `tokenizers` (its normalizer and pre-tokenizer around
`models.WordPiece` on a vocabulary), saved as `tokenizer.json` and loaded by
`wordpieces.Tokenizer.from_file`, so both libraries read the same file. Per pipeline,
in the same run, on one pinned core: wordpieces' native `encode_batch_ids` (one
thread), wordpieces' pure-Python backend (the same call), HF `encode_batch` with its
ids read (one thread: `RAYON_NUM_THREADS=1`), in MB/s of UTF-8 text by CPU time (it
holds on a busy machine; each side runs one thread), best of `--repeat` after a first
call (warm caches; `--cold` times the first call of a new tokenizer instead), and the
ratios against HF. The ids are compared on every line first. The call columns time
`tok(texts, truncation=True, max_length=128)` (native backend) beside transformers'
`PreTrainedTokenizerFast(tokenizer_file=path)` called the same way (`measure_call`).

    python benchmarks/pipelines.py                 # the whole book, 3 repeats
    python benchmarks/pipelines.py --quick         # 1,000 lines, 1 repeat (a smoke run)

Not handled here: the other shapes and libraries (`benchmarks/encode.py`), threads
(`benchmarks/threads.py`).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("RAYON_NUM_THREADS", "1")  # before tokenizers is imported
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

HERE = Path(__file__).resolve().parent
SHARED = Path(os.environ.get("WORDPIECES_SHARED", HERE.parent.parent / "shared"))
BOOK = SHARED / "corpora/english/gutenberg/pg1342_austen_pride_and_prejudice.txt"
VOCAB = SHARED / "vocab/bert-base-uncased.vocab.txt"


def pipelines() -> dict[str, tuple]:
    """Name -> (HF normalizer, HF pre-tokenizer): the table of issue 22 and its listed stages."""
    from tokenizers import normalizers as n
    from tokenizers import pre_tokenizers as p

    bert_n, bert_p = n.BertNormalizer, p.BertPreTokenizer
    return {
        "Bert / Bert": (bert_n(), bert_p()),
        "Seq[NFD,Lowercase,StripAccents] / Whitespace": (
            n.Sequence([n.NFD(), n.Lowercase(), n.StripAccents()]), p.Whitespace()),
        "Seq[NFKC,Lowercase] / Seq[WhitespaceSplit,Punctuation]": (
            n.Sequence([n.NFKC(), n.Lowercase()]),
            p.Sequence([p.WhitespaceSplit(), p.Punctuation()])),
        "Bert / Seq[Bert,Digits(individual)]": (
            bert_n(), p.Sequence([bert_p(), p.Digits(individual_digits=True)])),
        "Bert / Seq[Bert,Digits]": (bert_n(), p.Sequence([bert_p(), p.Digits()])),
        "Seq[Bert,NFC] / Bert": (n.Sequence([bert_n(), n.NFC()]), bert_p()),
        "Bert / WhitespaceSplit": (bert_n(), p.WhitespaceSplit()),
        "Bert / Seq[Bert,Punctuation(contiguous)]": (
            bert_n(), p.Sequence([bert_p(), p.Punctuation("contiguous")])),
        # the edit stages: alone (BERT's other stage), and after BERT's in a Sequence
        "Strip / Bert": (n.Strip(), bert_p()),
        "Seq[Bert,Strip] / Bert": (n.Sequence([bert_n(), n.Strip()]), bert_p()),
        "Replace(``->\") / Bert": (n.Replace("``", '"'), bert_p()),
        "Seq[Bert,Replace(``->\")] / Bert": (n.Sequence([bert_n(), n.Replace("``", '"')]),
                                             bert_p()),
        "Seq[Bert,Replace(--->\u2014)] / Bert": (
            n.Sequence([bert_n(), n.Replace("--", "\u2014")]), bert_p()),
        "Prepend(\u2581) / Bert": (n.Prepend("\u2581"), bert_p()),
        "Seq[Bert,Prepend(\u2581)] / Bert": (n.Sequence([bert_n(), n.Prepend("\u2581")]),
                                             bert_p()),
        "Bert / Metaspace": (bert_n(), p.Metaspace()),
        "Bert / Seq[Bert,Metaspace]": (bert_n(), p.Sequence([bert_p(), p.Metaspace()])),
    }


def lines(limit: int | None) -> list[str]:
    """The book's non-blank lines (the first ``limit`` of them)."""
    with open(BOOK, encoding="utf-8-sig") as f:
        out = [line.rstrip("\r\n") for line in f if line.strip()]
    return out[:limit] if limit else out


def best(call, repeat: int) -> float:
    """The best CPU time of ``repeat`` calls (each a whole batch)."""
    times = []
    for _ in range(repeat):
        start = time.process_time()
        call()
        times.append(time.process_time() - start)
    return min(times)


CALL = {"truncation": True, "max_length": 128}  # the call column's arguments, both sides


def measure_call(path: str, texts: list[str], repeat: int) -> tuple[float, float]:
    """(wordpieces MB/s, transformers MB/s) of ``tok(texts, **CALL)``, native backend.

    wordpieces' ``Tokenizer.from_file(path)`` beside transformers'
    ``PreTrainedTokenizerFast(tokenizer_file=path)``, each called with the same
    arguments; their ``input_ids`` are compared first.
    """
    from transformers import PreTrainedTokenizerFast

    import wordpieces

    mb = sum(len(t.encode("utf-8")) for t in texts) / 1e6
    ours = wordpieces.Tokenizer.from_file(path)
    theirs = PreTrainedTokenizerFast(tokenizer_file=path)
    if ours(texts, **CALL)["input_ids"] != theirs(texts, **CALL)["input_ids"]:
        raise SystemExit(f"{path}: tok(texts) ids differ from transformers")
    return (mb / best(lambda: ours(texts, **CALL), repeat),
            mb / best(lambda: theirs(texts, **CALL), repeat))


def measure(name: str, texts: list[str], repeat: int, folder: str, cold: bool) -> tuple:
    """(native MB/s, python MB/s, HF MB/s, backend, call MB/s ours, theirs) of a pipeline."""
    from tokenizers import Tokenizer, models

    import wordpieces
    from wordpieces.fast import backend as wp_backend

    normalizer, pre_tokenizer = pipelines()[name]
    hf = Tokenizer(models.WordPiece.from_file(str(VOCAB), unk_token="[UNK]"))
    hf.normalizer, hf.pre_tokenizer = normalizer, pre_tokenizer
    path = os.path.join(folder, "tokenizer.json")
    hf.save(path)
    mb = sum(len(t.encode("utf-8")) for t in texts) / 1e6
    reference = [e.ids for e in hf.encode_batch(texts, add_special_tokens=False)]
    out = []
    for choice in ("auto", "python"):
        os.environ["WORDPIECES_BACKEND"] = choice
        tok = wordpieces.Tokenizer.from_file(path)
        start = time.process_time()
        got = tok.encode_batch_ids(texts, add_special_tokens=False, num_threads=1)
        first = time.process_time() - start
        if got != reference:
            raise SystemExit(f"{name}: ids differ from HF on {choice}")
        seconds = first if cold else best(
            lambda t=tok: t.encode_batch_ids(texts, add_special_tokens=False, num_threads=1),
            repeat)
        out.append(mb / seconds)
        if choice == "auto":
            where = wp_backend.explain_backend(tok)
    os.environ.pop("WORDPIECES_BACKEND")
    seconds = best(lambda: [e.ids for e in hf.encode_batch(texts, add_special_tokens=False)],
                   repeat)
    return (out[0], out[1], mb / seconds, where, *measure_call(path, texts, repeat))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="1,000 lines, one repeat")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--lines", type=int, default=None, help="the first N lines only")
    parser.add_argument("--only", help="pipelines whose name holds this text")
    parser.add_argument("--cold", action="store_true",
                        help="time wordpieces' first call on a new tokenizer")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity") and len(os.sched_getaffinity(0)) > 1:
        core = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {core})
    limit, repeat = (1000, 1) if args.quick else (args.lines, args.repeat)
    texts = lines(limit)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, cwd=HERE).stdout.strip()
    timing = "first call" if args.cold else f"best of {repeat}"
    print(f"{len(texts)} lines of {BOOK.name}, {VOCAB.name}, {timing}, CPU time, one core, "
          f"commit {commit}")
    print("| pipeline | native MB/s | python MB/s | HF MB/s | native/HF | python/HF "
          "| tok() MB/s | transformers MB/s | tok()/transformers | path |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    with tempfile.TemporaryDirectory() as folder:
        for name in pipelines():
            if args.only and args.only not in name:
                continue
            native, python, hf, where, call, fast = measure(name, texts, repeat, folder,
                                                             args.cold)
            print(f"| `{name}` | {native:.1f} | {python:.2f} | {hf:.2f} | {native / hf:.1f}x "
                  f"| {python / hf:.2f}x | {call:.1f} | {fast:.2f} | {call / fast:.1f}x "
                  f"| {where} |", flush=True)


if __name__ == "__main__":
    sys.exit(main())
