"""Bottom-up WordPiece (likelihood) against HF tokenizers' WordPieceTrainer (BPE underneath).

Both learn a ``--vocab-size`` vocabulary from all English text in ../shared/corpora except
every 20th line, which is held back. Each side runs in its own process (time, peak RSS);
then both vocabularies tokenize the held-back text with the same greedy WordPiece
(HF's ``WordPiece`` model, BERT normalizer and pre-tokenizer, lowercase) to compare
tokens per word.

    .venv/bin/python benchmarks/learn_bottom_up.py --vocab-size 30000
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ENGLISH = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "english"
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
HOLD_EVERY = 20


def split_lines():
    """(training lines, held-back lines) of every English file."""
    train, held = [], []
    for path in sorted(p for p in ENGLISH.rglob("*") if p.is_file()):
        lines = [ln for ln in path.read_text(encoding="utf-8-sig").splitlines() if ln.strip()]
        for i, line in enumerate(lines):
            (held if i % HOLD_EVERY == HOLD_EVERY - 1 else train).append(line)
    return train, held


def run_ours(vocab_size: int) -> dict:
    from wordpieces.learn.counting import count_words
    from wordpieces.learn.learners.bottom_up import learn_bottom_up
    from wordpieces.pipeline.normalizers import BertNormalizer
    from wordpieces.pipeline.pre_tokenizers import BertPreTokenizer

    train, _ = split_lines()
    start = time.perf_counter()
    counts = count_words(iter(train), normalizer=BertNormalizer(flavor="huggingface"),
                         pre_tokenizer=BertPreTokenizer(flavor="huggingface"), num_proc=1)
    counted = time.perf_counter()
    vocab = learn_bottom_up(counts, vocab_size, special_tokens=SPECIALS)
    done = time.perf_counter()
    return {"count_s": counted - start, "learn_s": done - counted, "vocab": vocab,
            "words": len(counts)}


def run_hf(vocab_size: int) -> dict:
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers

    train, _ = split_lines()
    start = time.perf_counter()
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    trainer = trainers.WordPieceTrainer(vocab_size=vocab_size, special_tokens=SPECIALS,
                                        show_progress=False)
    tok.train_from_iterator(train, trainer)
    vocab = tok.get_vocab()
    return {"count_s": None, "learn_s": time.perf_counter() - start,
            "vocab": sorted(vocab, key=vocab.get), "words": None}


def tokens_per_word(vocab: list[str], held: list[str]) -> dict:
    """Tokenize held-back lines with greedy WordPiece over ``vocab``."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

    tok = Tokenizer(models.WordPiece({t: i for i, t in enumerate(vocab)}, unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    words = pieces = unknown = whole = 0
    for enc in tok.encode_batch(held, add_special_tokens=False):
        per_word: dict[int, int] = {}
        for wid in enc.word_ids:
            per_word[wid] = per_word.get(wid, 0) + 1
        words += len(per_word)
        pieces += len(enc.ids)
        whole += sum(1 for n in per_word.values() if n == 1)
        unknown += enc.tokens.count("[UNK]")
    return {"tokens_per_word": pieces / words, "single_token_words": whole / words,
            "unk_rate": unknown / pieces, "held_words": words}


def child(side: str, vocab_size: int, out: str) -> None:
    before = resource.getrusage(resource.RUSAGE_SELF)
    result = (run_ours if side == "ours" else run_hf)(vocab_size)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    result["cpu_s"] = (usage.ru_utime + usage.ru_stime) - (before.ru_utime + before.ru_stime)
    result["peak_rss_mb"] = usage.ru_maxrss / 1024
    Path(out).write_text(json.dumps(result), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vocab-size", type=int, default=30000)
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], args.vocab_size, args.child[1])
        return
    _, held = split_lines()
    results = {}
    with tempfile.TemporaryDirectory() as folder:
        for side in ("ours", "hf"):
            out = str(Path(folder) / f"{side}.json")
            subprocess.run([sys.executable, __file__, "--vocab-size", str(args.vocab_size),
                            "--child", side, out], check=True)
            results[side] = json.loads(Path(out).read_text(encoding="utf-8"))
    print("| learner | vocab | count s | learn s | total s (CPU s) | peak RSS MB | held-back "
          "tokens/word | single-token words | [UNK] rate |")
    print("|---|---|---|---|---|---|---|---|---|")
    names = {"ours": "wordpieces learn_bottom_up (likelihood)",
             "hf": "HF tokenizers WordPieceTrainer (BPE counts)"}
    for side, r in results.items():
        q = tokens_per_word(r["vocab"], held)
        count = "-" if r["count_s"] is None else f"{r['count_s']:.1f}"
        total = r["learn_s"] + (r["count_s"] or 0)
        print(f"| {names[side]} | {len(r['vocab']):,} | {count} | {r['learn_s']:.1f} | "
              f"{total:.1f} ({r['cpu_s']:.1f}) | {r['peak_rss_mb']:.0f} | "
              f"{q['tokens_per_word']:.4f} | {q['single_token_words']:.2%} | "
              f"{q['unk_rate']:.4%} |")
    ours, hf = set(results["ours"]["vocab"]), set(results["hf"]["vocab"])
    print(f"\nshared tokens: {len(ours & hf):,}; only ours: {len(ours - hf):,}; "
          f"only HF: {len(hf - ours):,}; held-back words: {q['held_words']:,}")


if __name__ == "__main__":
    main()
