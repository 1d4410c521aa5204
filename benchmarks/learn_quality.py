"""Vocabulary quality of every learner on books it never saw, English and Portuguese.

For each language, whole books are held back (``HELD_OUT``); the learners see the rest of
``../shared/corpora/<language>`` and learn 8,000 and 30,000 tokens (final vocabulary
lengths, special tokens and alphabet included; top-down lands where TF's algorithm lands,
and its actual size is reported):

- wordpieces top-down (``learn_top_down``, TF Text's algorithm, default options),
- wordpieces bottom-up with each score (``learn_bottom_up(score=...)``),
- wordpieces bottom-up by count, refined for greedy longest match
  (``learn_bottom_up(refine=True)``, ``learners/refine.py``; its loop runs in C when the
  learner extension is built, as the merge loop does),
- HF ``tokenizers``' ``WordPieceTrainer`` (``Tokenizer.train(files, trainer)``, its
  default threads; BPE by count underneath),
- SentencePiece's unigram trainer on the same counted words, where ``sentencepiece`` is
  installed (the ``[bench]`` extra, or ``pip install sentencepiece``; its pieces read
  by MaxMatch: ``▁x`` as ``x``, others as ``##x``, plus the alphabet in both forms, cut
  to the size; its trainer stops short of a size the words cannot fill).

Every run is a child process that counts and learns (train time = counting + learning,
wall clock; CPU time of the process, HF's threads included; peak RSS of the process).
The held-back books are then tokenized by one greedy WordPiece
(HF's ``WordPiece`` model, BERT normalizer and pre-tokenizer, lowercase) over each
vocabulary: tokens per whitespace word, the share of pre-tokenized words that become
``[UNK]``, and the share kept whole (one token that is not ``[UNK]``).

    .venv/bin/python benchmarks/learn_quality.py               # the README's table
    .venv/bin/python benchmarks/learn_quality.py --languages english --sizes 30000
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

CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora"
HELD_OUT = {
    "english": ["gutenberg/pg345_stoker_dracula.txt",
                "nltk/us_inaugural_addresses_1789-2021.txt"],
    "portuguese": ["machado_quincas_borba.txt", "aluisio_azevedo_o_cortico.txt"],
}
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
LEARNERS = ("top-down", "bottom-up likelihood", "bottom-up pmi", "bottom-up count",
            "bottom-up refine", "hf", "sentencepiece")
NAMES = {"top-down": "wordpieces top-down",
         "bottom-up refine": "wordpieces bottom-up, `refine=True` (count, then MaxMatch swaps)",
         "sentencepiece": "SentencePiece unigram, read by MaxMatch",
         "bottom-up likelihood": "wordpieces bottom-up, `score=\"likelihood\"`",
         "bottom-up pmi": "wordpieces bottom-up, `score=\"pmi\"`",
         "bottom-up count": "wordpieces bottom-up, `score=\"count\"` (default)",
         "hf": "HF `WordPieceTrainer`"}


def split_files(language: str) -> tuple[list[str], list[str]]:
    """(training files, held-back files) of one language."""
    folder = CORPORA / language
    held = [folder / name for name in HELD_OUT[language]]
    missing = [str(p) for p in held if not p.is_file()]
    if missing:
        raise SystemExit(f"held-out books not found: {', '.join(missing)}")
    files = sorted(p for p in folder.rglob("*") if p.is_file() and p not in held)
    return [str(p) for p in files], [str(p) for p in held]


def learn_ours(learner: str, files: list[str], vocab_size: int) -> dict:
    from wordpieces.learn.counting import count_words
    from wordpieces.learn.learners.bottom_up import learn_bottom_up
    from wordpieces.learn.learners.top_down import learn_top_down
    from wordpieces.pipeline.normalizers import BertNormalizer
    from wordpieces.pipeline.pre_tokenizers import BertPreTokenizer

    start = time.perf_counter()
    counts = count_words(files, normalizer=BertNormalizer(flavor="huggingface"),
                         pre_tokenizer=BertPreTokenizer(flavor="huggingface"), progress=None)
    counted = time.perf_counter()
    if learner == "top-down":
        vocab = learn_top_down(counts, vocab_size, SPECIALS)
    elif learner == "bottom-up refine":
        vocab = learn_bottom_up(counts, vocab_size, special_tokens=SPECIALS, refine=True)
    elif learner == "sentencepiece":
        vocab = learn_sentencepiece(counts, vocab_size)
    else:
        vocab = learn_bottom_up(counts, vocab_size, special_tokens=SPECIALS,
                                score=learner.split()[-1])
    done = time.perf_counter()
    return {"count_s": counted - start, "learn_s": done - counted, "vocab": vocab,
            "words": len(counts)}


def learn_hf(files: list[str], vocab_size: int) -> dict:
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers

    start = time.perf_counter()
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    trainer = trainers.WordPieceTrainer(vocab_size=vocab_size, special_tokens=SPECIALS,
                                        show_progress=False)
    tok.train(files, trainer)
    vocab = tok.get_vocab()
    return {"count_s": None, "learn_s": time.perf_counter() - start,
            "vocab": sorted(vocab, key=lambda token: vocab[token]), "words": None}


def has_sentencepiece() -> bool:
    try:
        import sentencepiece  # noqa: F401
    except ImportError:
        return False
    return True


def learn_sentencepiece(counts, vocab_size: int) -> list[str]:
    """A unigram model on the counted words, its pieces as a WordPiece vocabulary.

    Each word is one sentence, repeated as often as counted (at most 1,000 times).
    SentencePiece is asked for as many pieces as the room left after the special tokens
    and the alphabet (both forms of every character) plus the alphabet's length, since
    its single characters come back as tokens already there; the pieces are then cut to
    the size, lowest scores (its last pieces) out. ``▁x`` reads as ``x``, ``x`` as ``##x``.
    """
    import io

    import sentencepiece as spm

    alphabet = sorted({f for word in counts for ch in word for f in (ch, "##" + ch)})
    room = max(0, vocab_size - len(SPECIALS) - len(alphabet))
    model = io.BytesIO()
    words = (word for word, count in counts.items() for _ in range(min(count, 1000)))
    spm.SentencePieceTrainer.train(sentence_iterator=words, model_writer=model,
                                   model_type="unigram", vocab_size=room + len(alphabet) + 4,
                                   character_coverage=1.0, hard_vocab_limit=False,
                                   minloglevel=2)
    processor = spm.SentencePieceProcessor(model_proto=model.getvalue())
    pieces = [processor.id_to_piece(i) for i in range(processor.get_piece_size())
              if not (processor.is_control(i) or processor.is_unknown(i))]
    tokens = [p[1:] if p.startswith("\u2581") else "##" + p for p in pieces if p != "\u2581"]
    taken = set(alphabet)
    merged = [t for t in dict.fromkeys(tokens) if t not in taken]
    return SPECIALS + alphabet + merged[:room]


def cpu_s() -> float:
    """CPU seconds of this process (every thread) and of its finished children (counting)."""
    return sum(usage.ru_utime + usage.ru_stime
               for usage in (resource.getrusage(resource.RUSAGE_SELF),
                             resource.getrusage(resource.RUSAGE_CHILDREN)))


def peak_rss_mb() -> float:
    """This process's peak RSS (VmHWM: unlike ru_maxrss, not inherited from the parent)."""
    for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child(learner: str, language: str, vocab_size: int, out: str) -> None:
    started = cpu_s()  # the interpreter's own start-up is not training
    files, _ = split_files(language)
    if learner == "hf":
        result = learn_hf(files, vocab_size)
    else:
        result = learn_ours(learner, files, vocab_size)
    result["peak_rss_mb"] = peak_rss_mb()
    result["cpu_s"] = cpu_s() - started
    Path(out).write_text(json.dumps(result), encoding="utf-8")


def held_out_lines(files: list[str]) -> list[str]:
    lines: list[str] = []
    for path in files:
        text = Path(path).read_text(encoding="utf-8-sig")
        lines.extend(line for line in text.splitlines() if line.strip())
    return lines


def quality(vocab: list[str], lines: list[str]) -> dict:
    """Tokens per whitespace word, [UNK] and whole-word shares over pre-tokenized words."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

    tok = Tokenizer(models.WordPiece({t: i for i, t in enumerate(vocab)}, unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    unk = vocab.index("[UNK]")
    tokens = words = unknown = whole = 0
    for enc in tok.encode_batch(lines, add_special_tokens=False):
        per_word: dict[int | None, list[int]] = {}
        for wid, tid in zip(enc.word_ids, enc.ids, strict=True):
            per_word.setdefault(wid, []).append(tid)
        tokens += len(enc.ids)
        words += len(per_word)
        unknown += sum(1 for ids in per_word.values() if ids == [unk])
        whole += sum(1 for ids in per_word.values() if len(ids) == 1 and ids != [unk])
    spaced = sum(len(line.split()) for line in lines)
    return {"tokens_per_word": tokens / spaced, "unk_rate": unknown / words,
            "whole": whole / words, "spaced_words": spaced}


def run(learner: str, language: str, size: int, folder: str) -> dict:
    out = str(Path(folder) / f"{language}-{learner.replace(' ', '_')}-{size}.json")
    subprocess.run([sys.executable, __file__, "--child", learner, language, str(size), out],
                   check=True)
    return json.loads(Path(out).read_text(encoding="utf-8"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--languages", nargs="+", default=list(HELD_OUT),
                        choices=list(HELD_OUT))
    parser.add_argument("--sizes", nargs="+", type=int, default=[8000, 30000])
    parser.add_argument("--learners", nargs="+", default=list(LEARNERS), choices=LEARNERS)
    parser.add_argument("--json", metavar="FILE", help="also write every result here")
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        learner, language, size, out = args.child
        child(learner, language, int(size), out)
        return
    learners = [name for name in args.learners
                if name != "sentencepiece" or has_sentencepiece()]
    print("| language, vocabulary | learner | size | tokens/word | vs HF | [UNK] words | "
          "words kept whole | train s (count + learn) | CPU s | peak RSS MB |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for language in args.languages:
            _, held = split_files(language)
            lines = held_out_lines(held)
            for size in args.sizes:
                hf_rate = None
                for learner in sorted(learners, key=lambda name: name != "hf"):
                    r = run(learner, language, size, folder)
                    q = quality(r["vocab"], lines)
                    if learner == "hf":
                        hf_rate = q["tokens_per_word"]
                    versus = ("" if hf_rate is None or learner == "hf"
                              else f"{q['tokens_per_word'] / hf_rate - 1:+.2%}")
                    total = r["learn_s"] + (r["count_s"] or 0)
                    split = ("" if r["count_s"] is None
                             else f" ({r['count_s']:.1f} + {r['learn_s']:.1f})")
                    print(f"| {language} {size:,} | {NAMES[learner]} | {len(r['vocab']):,} | "
                          f"{q['tokens_per_word']:.4f} | {versus} | {q['unk_rate']:.4%} | "
                          f"{q['whole']:.1%} | {total:.1f}{split} | {r['cpu_s']:.1f} | "
                          f"{r['peak_rss_mb']:.0f} |", flush=True)
                    rows.append({"language": language, "size": size, "learner": learner,
                                 "vocab_len": len(r["vocab"]), **q,
                                 **{k: v for k, v in r.items() if k != "vocab"}})
    held_names = "; ".join(f"{lang}: {', '.join(HELD_OUT[lang])}" for lang in args.languages)
    print(f"\nheld out: {held_names}")
    if "sentencepiece" in args.learners and not has_sentencepiece():
        print("SentencePiece: not installed, left out")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
