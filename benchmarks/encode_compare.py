"""The pure parts of the same-run encode benchmarks: alternate, summarise, compare, print.

``encode_forms.py`` builds the engines and the data; this module times them in turn
(``alternate``), turns the times into best and median figures with ratios against a base
engine (``summarize``), measures how many items an engine encodes exactly as HF
``tokenizers`` does (``agreement``) and writes the Markdown table (``table``). Nothing
here imports a tokenizer library, so ``tests/unit/test_benchmark_compare.py`` runs it on
fakes.

Not handled here: building engines, reading corpora, pinning to a core.
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any


def round_robin(groups: Iterable[Sequence]) -> list:
    """Interleave the groups: the first item of each, then the second of each, and so on.

    >>> round_robin([[1, 2, 3], ["a"], [10, 20]])
    [1, 'a', 10, 2, 20, 3]
    """
    groups = [list(g) for g in groups]
    longest = max((len(g) for g in groups), default=0)
    return [g[i] for i in range(longest) for g in groups if i < len(g)]


def pairs_of(texts: Sequence[str]) -> list[tuple[str, str]]:
    """Consecutive texts two by two as ``(text, pair)``; an odd last text is left out.

    >>> pairs_of(["a", "b", "c"])
    [('a', 'b')]
    """
    return list(zip(texts[0::2], texts[1::2], strict=False))


def words_of(texts: Sequence[str]) -> list[list[str]]:
    """Each text split on whitespace, as ``is_split_into_words`` takes it; empty ones left out.

    >>> words_of(["a b  c", "   ", "d"])
    [['a', 'b', 'c'], ['d']]
    """
    return [words for words in (t.split() for t in texts) if words]


def agreement(got: Sequence, reference: Sequence, strip_specials: bool = False) -> float:
    """The share of items equal to the reference's, item by item (1.0: all equal).

    ``strip_specials`` drops the first and last id of each reference item (its
    ``[CLS]``/``[SEP]``) before comparing: for engines that add no special tokens.

    >>> agreement([[1, 2], [3]], [[1, 2], [4]])
    0.5
    >>> agreement([[7]], [[101, 7, 102]], strip_specials=True)
    1.0
    """
    if len(got) != len(reference):
        raise ValueError(f"{len(got)} items to compare with {len(reference)} reference items")
    if not reference:
        return 1.0
    if strip_specials:
        reference = [list(r)[1:-1] for r in reference]
    same = sum(1 for a, b in zip(got, reference, strict=True)
               if a == b or _plain(a) == _plain(b))
    return same / len(reference)


def _plain(item: Any) -> Any:
    """Lists, tuples and their nesting compared by value (``(1, 2)`` equals ``[1, 2]``)."""
    if isinstance(item, (list, tuple)):
        return [_plain(x) for x in item]
    return item


@dataclass
class Timings:
    """What ``alternate`` measured: seconds per engine, first outputs, errors."""

    seconds: dict[str, list[float]] = field(default_factory=dict)
    outputs: dict[str, Any] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)


def alternate(calls: dict[str, Callable[[], Any]], repeat: int,
              now: Callable[[], float] = time.perf_counter,
              collect: Callable[[], Any] = gc.collect) -> Timings:
    """Time every call ``repeat`` times, engines in turn: round 1 runs each once, then round 2.

    Alternating spreads a machine's slow moments over all engines instead of one. The
    garbage collector runs (``collect``) before each timed call, outside the timing;
    what exists before the first round is frozen out of its passes (``gc.freeze``: the
    libraries' own objects, hundreds of thousands once torch is imported). The
    first round's outputs are kept (for ``agreement``); an engine that raises is timed no
    more and its error kept, named by its type and message.
    """
    if repeat < 1:
        raise ValueError(f"repeat must be at least 1, not {repeat}")
    out = Timings(seconds={name: [] for name in calls})
    collect()
    gc.freeze()
    try:
        _rounds(calls, repeat, now, collect, out)
    finally:
        gc.unfreeze()
    return out


def _rounds(calls: dict[str, Callable[[], Any]], repeat: int, now: Callable[[], float],
            collect: Callable[[], Any], out: Timings) -> None:
    """The rounds of ``alternate``, filling ``out``."""
    for round_ in range(repeat):
        for name, call in calls.items():
            if name in out.errors:
                continue
            collect()
            start = now()
            try:
                result = call()
            except Exception as e:  # a library refusing an input: reported, not fatal
                out.errors[name] = f"{type(e).__name__}: {e}"[:160]
                continue
            out.seconds[name].append(now() - start)
            if round_ == 0:
                out.outputs[name] = result
            del result


@dataclass
class Row:
    """One engine's line of a table: best and median figure, ratios, agreement."""

    label: str
    best: float | None = None
    median: float | None = None
    times_best: float | None = None  # base engine's speed over this one's (best)
    times_median: float | None = None
    accuracy: float | None = None
    error: str = ""


def summarize(seconds: Sequence[float], base: Sequence[float] | None,
              figure: Callable[[float], float]) -> Row:
    """Best and median ``figure(seconds)`` and how many times faster ``base`` is.

    ``figure`` turns a time into the figure shown (MB/s, µs per call); the ratios are
    the engine's time over the base's, best against best and median against median.

    >>> r = summarize([2.0, 4.0, 3.0], [1.0, 1.5], figure=lambda s: 6 / s)
    >>> (r.best, r.median, r.times_best, r.times_median)
    (3.0, 2.0, 2.0, 2.4)
    """
    if not seconds:
        raise ValueError("no timings to summarize")
    best, median = min(seconds), statistics.median(seconds)
    row = Row("", figure(best), figure(median))
    if base:
        row.times_best = best / min(base)
        row.times_median = median / statistics.median(base)
    return row


def table(title: str, unit: str, base_label: str, rows: Sequence[Row]) -> str:
    """A Markdown table of rows: the figure (best, median), time over the base's, agreement.

    A ratio of 20 means the engine took 20 times as long as the base engine.
    """
    lines = [f"### {title}", "",
             f"| engine | {unit} best | {unit} median | time / {base_label} (best) "
             "| (median) | same ids as HF |",
             "|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        if r.error:
            lines.append(f"| {r.label} | {r.error} | | | | |")
            continue
        lines.append(f"| {r.label} | {_num(r.best)} | {_num(r.median)} | "
                     f"{_num(r.times_best, 2)} | {_num(r.times_median, 2)} | "
                     f"{'–' if r.accuracy is None else f'{r.accuracy:.1%}'} |")
    return "\n".join(lines)


def _num(value: float | None, digits: int = 1) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def grid(title: str, rows: Sequence[str], columns: Sequence[str],
         cell: Callable[[str, str], str]) -> str:
    """A Markdown table of ``cell(row, column)`` for every row and column name.

    >>> print(grid("t", ["a"], ["x", "y"], lambda r, c: r + c))
    ### t
    <BLANKLINE>
    | | x | y |
    |---|---:|---:|
    | a | ax | ay |
    """
    lines = [f"### {title}", "", "| | " + " | ".join(columns) + " |",
             "|---|" + "---:|" * len(columns)]
    lines += [f"| {r} | " + " | ".join(cell(r, c) for c in columns) + " |" for r in rows]
    return "\n".join(lines)
