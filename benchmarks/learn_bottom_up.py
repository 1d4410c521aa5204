"""Bottom-up learning: speed against HF's WordPieceTrainer, and how it scales with words.

1. ``wp.train(files, algorithm="bottom-up", vocab_size=30000)`` on all English text of
   ``../shared/corpora`` (counting and learning, ``--train-score`` (default: the default
   score), default processes)
   against HF ``tokenizers``' ``Tokenizer.train(files, WordPieceTrainer(vocab_size=30000))``
   (its default threads) on the same files, each in its own process (wall time, CPU
   time with child processes, peak RSS), best of ``--repeat`` by ``--clock`` (CPU time
   by default: on a shared machine it varies less than wall time; both are printed).
2. Scaling: ``learn_bottom_up`` alone (30,000 tokens, each score) on counts with 1x, 4x
   and 16x the distinct words of all English: English; English + Portuguese + the UDHR
   mix + synthetic rare words (a few letters drawn from the corpus's own letter
   frequencies, count 1 or 2) up to 4x; the same up to 16x. Learning CPU time, and its
   growth against 1x next to the growth of distinct words. ``--python``: each score also
   with ``WORDPIECES_BACKEND=python`` (the pure-Python merge loop), for the C loop's gain.

    .venv/bin/python benchmarks/learn_bottom_up.py --repeat 5
    .venv/bin/python benchmarks/learn_bottom_up.py --train-score likelihood \
        --scores likelihood --factors 1 --python
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora"
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
SCORES = ("count", "likelihood", "pmi")


def files_of(*folders: str) -> list[str]:
    return [str(p) for folder in folders
            for p in sorted((CORPORA / folder).rglob("*")) if p.is_file()]


def train_ours(vocab_size: int, score: str) -> dict:
    import wordpieces as wp

    tok = wp.train(files_of("english"), algorithm="bottom-up", vocab_size=vocab_size,
                   flavor="huggingface", progress="none", score=score)
    return {"vocab": tok.get_vocab_size()}


def train_hf(vocab_size: int) -> dict:
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers

    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.train(files_of("english"), trainers.WordPieceTrainer(
        vocab_size=vocab_size, special_tokens=SPECIALS, show_progress=False))
    return {"vocab": tok.get_vocab_size()}


def scaled_counts(factor: int) -> dict[str, int]:
    """All English counts, grown to ``factor`` times their distinct words."""
    from wordpieces.learn.counting import count_words

    english = dict(count_words(files_of("english"), progress=None).items())
    if factor == 1:
        return english
    counts = dict(english)
    for word, count in count_words(files_of("portuguese", "multilingual/udhr"),
                                   progress=None).items():
        counts[word] = counts.get(word, 0) + count
    letters: dict[str, int] = {}
    for word, count in english.items():
        for ch in word:
            letters[ch] = letters.get(ch, 0) + count
    alphabet, weights = list(letters), list(letters.values())
    rng = random.Random(factor)
    while len(counts) < factor * len(english):
        word = "".join(rng.choices(alphabet, weights, k=rng.randint(4, 12)))
        counts.setdefault(word, rng.randint(1, 2))
    return counts


def learn_scaled(factor: int, score: str, vocab_size: int) -> dict:
    from wordpieces.learn.learners.bottom_up import learn_bottom_up

    counts = scaled_counts(factor)
    start, cpu = time.perf_counter(), time.process_time()
    vocab = learn_bottom_up(counts, vocab_size, special_tokens=SPECIALS, score=score)
    return {"learn_s": time.perf_counter() - start, "learn_cpu_s": time.process_time() - cpu,
            "words": len(counts), "vocab": len(vocab)}


def peak_rss_mb() -> float:
    """This process's peak RSS (VmHWM: unlike ru_maxrss, not inherited from the parent)."""
    for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child(job: list[str], out: str) -> None:
    kind, *rest = job
    start, before = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF)
    if kind == "ours":
        result = train_ours(int(rest[0]), rest[1])
    elif kind == "hf":
        result = train_hf(int(rest[0]))
    else:
        result = learn_scaled(int(rest[0]), rest[1], int(rest[2]))
    usage = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    result["wall_s"] = time.perf_counter() - start
    result["cpu_s"] = (usage.ru_utime + usage.ru_stime - before.ru_utime - before.ru_stime
                       + children.ru_utime + children.ru_stime)
    result["peak_rss_mb"] = peak_rss_mb()  # this process (count_words' workers are smaller)
    Path(out).write_text(json.dumps(result), encoding="utf-8")


def run(job: list[str], folder: str, env: dict[str, str] | None = None) -> dict:
    out = str(Path(folder) / "result.json")
    subprocess.run([sys.executable, __file__, "--child", out, *job], check=True,
                   env={**os.environ, **(env or {})})
    return json.loads(Path(out).read_text(encoding="utf-8"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vocab-size", type=int, default=30000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--factors", nargs="+", type=int, default=[1, 4, 16])
    parser.add_argument("--scores", nargs="+", default=list(SCORES), choices=SCORES)
    parser.add_argument("--train-score", default="count", choices=SCORES,
                        help="the score of wp.train in the comparison with HF (default: count)")
    parser.add_argument("--python", action="store_true",
                        help="scaling: each score also in the pure-Python merge loop")
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu",
                        help="the time that picks the best run (default: cpu)")
    parser.add_argument("--skip-train", action="store_true")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[1:], args.child[0])
        return
    with tempfile.TemporaryDirectory() as folder:
        if not args.skip_train:
            compare_training(args, folder)
        scaling(args, folder)


def compare_training(args, folder: str) -> None:
    """Both trainers in turn, ``--repeat`` times (interleaved: load changes hit both)."""
    key = "cpu_s" if args.clock == "cpu" else "wall_s"
    sides = (("ours", f"`wp.train(files, algorithm=\"bottom-up\", score=\"{args.train_score}\")`"),
             ("hf", "HF `Tokenizer.train(files, WordPieceTrainer)`"))
    runs: dict[str, list[dict]] = {side: [] for side, _ in sides}
    for _ in range(args.repeat):
        for side, _ in sides:
            job = [side, str(args.vocab_size)] + ([args.train_score] if side == "ours" else [])
            runs[side].append(run(job, folder))
    print(f"| all English, {args.vocab_size:,} tokens (best of {args.repeat} by {args.clock}) "
          "| CPU s | wall s | peak RSS MB | vocab |")
    print("|---|---:|---:|---:|---:|")
    for side, name in sides:
        best = min(runs[side], key=lambda r: r[key])
        print(f"| {name} | {best['cpu_s']:.2f} | {best['wall_s']:.2f} | "
              f"{best['peak_rss_mb']:.0f} | {best['vocab']:,} |", flush=True)
    print()


def scaling(args, folder: str) -> None:
    print("| distinct words | score | learn CPU s | wall s | time / 1x | words / 1x "
          "| peak RSS MB |")
    print("|---:|---|---:|---:|---:|---:|---:|")
    first: dict[str, dict] = {}
    loops = [("", {})] + ([(" (Python)", {"WORDPIECES_BACKEND": "python"})] if args.python else [])
    for factor in args.factors:
        for score, (label, env) in ((s, loop) for s in args.scores for loop in loops):
            r = run(["scale", str(factor), score, str(args.vocab_size)], folder, env)
            base = first.setdefault(score + label, r)
            print(f"| {r['words']:,} ({factor}x) | {score}{label} | {r['learn_cpu_s']:.2f} | "
                  f"{r['learn_s']:.2f} | {r['learn_cpu_s'] / base['learn_cpu_s']:.1f} | "
                  f"{r['words'] / base['words']:.1f} | {r['peak_rss_mb']:.0f} |", flush=True)


if __name__ == "__main__":
    main()
