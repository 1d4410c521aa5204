"""Time learn_top_down against TF Text's learner on the golden cases, side by side.

With tensorflow-text importable, TF's ``learn()`` runs here on the same counts and the
outputs are compared; without it, TF's time is the one recorded in the golden's
``seconds.txt`` (measured when the golden was made).

    .venv/bin/python benchmarks/learn.py                  # ours + recorded TF times
    PYTHONPATH=. .venv-tf/bin/python benchmarks/learn.py   # ours + TF live
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from wordpieces.learn.learners.top_down import learn_top_down

GOLDEN = Path(__file__).resolve().parents[2] / "shared" / "golden" / "learner"
NOT_LEARN_PARAMS = ("corpus_files", "lower_case", "counts_order")


def load_case(folder: Path):
    counts = []
    for line in (folder / "counts.tsv").read_text(encoding="utf-8").splitlines():
        word, count = line.split("\t")
        counts.append((word, int(count)))
    meta = json.loads((folder / "params.json").read_text(encoding="utf-8"))
    params = {k: v for k, v in meta.items() if k not in NOT_LEARN_PARAMS}
    golden = (folder / "vocab.txt").read_text(encoding="utf-8").split("\n")[:-1]
    recorded = float((folder / "seconds.txt").read_text().strip())
    return counts, params, golden, recorded


def best_time(function, counts, params, repeat: int):
    """Best wall time and best CPU time of ``repeat`` runs, and the last result."""
    walls, cpus, result = [], [], None
    for _ in range(repeat):
        start, cpu = time.perf_counter(), time.process_time()
        result = function(counts, **params)
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
    return min(walls), min(cpus), result


def tf_learn():
    try:
        from tensorflow_text.tools.wordpiece_vocab import wordpiece_tokenizer_learner_lib
    except ImportError:
        return None
    return wordpiece_tokenizer_learner_lib.learn


def row(folder: Path, tf, repeat: int) -> str:
    """One table row: ours against TF (live, or as recorded) on one golden case."""
    counts, params, golden, recorded = load_case(folder)
    wall, cpu, vocab = best_time(learn_top_down, counts, params, repeat)
    out = f"| {folder.name} | {len(counts):,} | {len(vocab):,} | {wall:.3f} ({cpu:.3f}) | "
    if tf is None:
        return out + f"{recorded:.2f} | {recorded / wall:.0f}x | {vocab == golden} |"
    tf_wall, _, tf_vocab = best_time(tf, counts, params, 1)
    return out + (f"{tf_wall:.2f} | {tf_wall / wall:.0f}x | {vocab == golden} | "
                  f"{vocab == tf_vocab} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs of ours (best is kept)")
    args = parser.parse_args()
    tf = tf_learn()
    source = "TF Text live" if tf else "TF Text (recorded, seconds.txt)"
    print(f"| case | words | vocab | ours s (CPU s) | {source} s | speed-up | identical to "
          "golden |" + (" identical to TF live |" if tf else ""))
    print("|---|---|---|---|---|---|---|" + ("---|" if tf else ""))
    for folder in sorted(GOLDEN.iterdir()):
        print(row(folder, tf, args.repeat), flush=True)


if __name__ == "__main__":
    main()
