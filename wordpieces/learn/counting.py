"""Count the words of a corpus, as the tokenizer will see them, on one machine or a cluster.

``count_words(source)`` streams a corpus (files, globs, stdin, URLs or any iterable of
texts; see ``sources``) through exactly the normalizer and pre-tokenizer a tokenizer will
use, and returns ``WordCounts``: word -> count, plus the fingerprint of that pipeline, so
that a vocabulary is never learned from words split another way. Counting is a map (count
one block of a file) and a reduce (sum the partial counts); memory grows with the number
of distinct words, not with the size of the corpus.

Engines: ``"local"`` (processes on this machine, ``num_proc``, here) and ``"dask"``
(``dask.distributed``, see ``dask_engine``); both run the tasks of ``count_tasks`` and
hand the finished ones to one ``Collector``: the checkpoint that lets a killed count
resume (``checkpoint``) and the sum, bounded by ``max_distinct_words`` (``bounded``).

Not handled here: learning a vocabulary (``learners``); pipelines whose objects cannot be
pickled when processes are spawned rather than forked (only the BERT stages are rebuilt
from their settings).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import multiprocessing
import numbers
import os
import sys
import warnings
from collections import Counter
from collections.abc import Collection, Iterable, Iterator, Mapping
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from types import MappingProxyType

from ..errors import FormatError, PipelineMismatchError, check_thread_count
from ..fast.word_encoder import word_splitter
from ..formats.atomic import atomic_write_text
from ..pipeline.normalizers import BertNormalizer
from ..pipeline.pre_tokenizers import BertPreTokenizer
from .bounded import BoundedTotal
from .checkpoint import Checkpoint, CheckpointMismatchError, open_checkpoint
from .count_lines import WORD_BREAK, parse_count_line
from .count_tasks import Meter, run_task, tasks
from .learners.common import checked_word_count
from .progress import make_reporter
from .sources import Block, plan

__all__ = ["WordCounts", "count_words", "pipeline_fingerprint", "PipelineMismatchError",
           "CheckpointMismatchError", "CountsPrunedWarning"]

ENGINES = ("local", "dask")
DEFAULT_BLOCKSIZE = 8 << 20
FORMAT_VERSION = 1


# ---------------------------------------------------------------- the pipeline


def _stage_config(stage) -> dict:
    config = dict(stage.to_config())
    if hasattr(stage, "flavor"):
        config["flavor"] = stage.flavor
    return config


def pipeline_config(normalizer, pre_tokenizer) -> dict:
    """The settings that decide which words a text gives (what the fingerprint hashes)."""
    return {"normalizer": _stage_config(normalizer),
            "pre_tokenizer": _stage_config(pre_tokenizer)}


def _hash_config(config: dict) -> str:
    text = json.dumps(config, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def pipeline_fingerprint(normalizer, pre_tokenizer) -> str:
    """Return a stable hash of a normalizer + pre-tokenizer's settings.

    >>> from wordpieces.pipeline.normalizers import BertNormalizer
    >>> from wordpieces.pipeline.pre_tokenizers import BertPreTokenizer
    >>> len(pipeline_fingerprint(BertNormalizer(), BertPreTokenizer()))
    16
    """
    return _hash_config(pipeline_config(normalizer, pre_tokenizer))


class Pipeline:
    """A normalizer and pre-tokenizer that can travel to worker processes.

    BERT stages are rebuilt from their settings on arrival (their character tables hold
    lambdas that plain pickle refuses); other stages must be picklable.
    """

    def __init__(self, normalizer=None, pre_tokenizer=None):
        self._set_up(normalizer, pre_tokenizer)

    def _set_up(self, normalizer, pre_tokenizer) -> None:
        self.normalizer = BertNormalizer() if normalizer is None else normalizer
        self.pre_tokenizer = BertPreTokenizer() if pre_tokenizer is None else pre_tokenizer
        self.config = pipeline_config(self.normalizer, self.pre_tokenizer)
        self.fingerprint = _hash_config(self.config)
        self._words = None

    @property
    def words(self):
        """The function from a text to its words (built once per process)."""
        if self._words is None:
            key = (self.fingerprint, type(self.normalizer), type(self.pre_tokenizer))
            self._words = _SPLITTERS.get(key)
            if self._words is None:
                self._words = _SPLITTERS[key] = word_splitter(self.normalizer,
                                                              self.pre_tokenizer)
        return self._words

    def __getstate__(self):
        return {"normalizer": _portable(self.normalizer),
                "pre_tokenizer": _portable(self.pre_tokenizer)}

    def __setstate__(self, state):
        self._set_up(_rebuilt(state["normalizer"]), _rebuilt(state["pre_tokenizer"]))


_SPLITTERS: dict = {}


def _portable(stage):
    if type(stage) is BertNormalizer:
        return ("BertNormalizer", {"clean_text": stage.clean_text,
                                   "handle_chinese_chars": stage.handle_chinese_chars,
                                   "strip_accents": stage.strip_accents,
                                   "lowercase": stage.lowercase, "flavor": stage.flavor})
    if type(stage) is BertPreTokenizer:
        return ("BertPreTokenizer", {"flavor": stage.flavor})
    return ("object", stage)


def _rebuilt(spec):
    kind, value = spec
    if kind == "BertNormalizer":
        return BertNormalizer(**value)
    if kind == "BertPreTokenizer":
        return BertPreTokenizer(**value)
    return value


# ---------------------------------------------------------------- WordCounts


class WordCounts(Mapping):
    """Word -> count, with the fingerprint of the pipeline that produced the words.

    Iteration and ``most_common`` go in canonical order: count descending, then word.
    ``pipeline`` is the settings dict of ``pipeline_config`` (``None`` if unknown, e.g.
    counts loaded from a plain TSV), and ``fingerprint`` its hash.

    >>> wc = WordCounts({"b": 2, "a": 2, "c": 5})
    >>> wc.most_common()
    [('c', 5), ('a', 2), ('b', 2)]
    >>> wc.merge(WordCounts({"a": 1}))["a"]
    3
    """

    def __init__(self, counts: Mapping | Iterable = (), *, pipeline: dict | None = None):
        self._counts = _checked_counts(counts)
        self.pipeline = pipeline
        self.fingerprint = _hash_config(pipeline) if pipeline is not None else None
        self._sorted: list[tuple[str, int]] | None = None

    def __getitem__(self, word: str) -> int:
        return self._counts[word]

    def __len__(self) -> int:
        return len(self._counts)

    def __iter__(self) -> Iterator[str]:
        return (word for word, _ in self.most_common())

    def __contains__(self, word) -> bool:
        return word in self._counts

    def __eq__(self, other) -> bool:
        if isinstance(other, WordCounts):
            return self.fingerprint == other.fingerprint and self._counts == other._counts
        return isinstance(other, Mapping) and self._counts == dict(other.items())

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        head = ", ".join(f"{w!r}: {c}" for w, c in self.most_common(3))
        more = ", …" if len(self) > 3 else ""
        return (f"WordCounts({{{head}{more}}}, words={len(self)}, "
                f"fingerprint={self.fingerprint!r})")

    def unordered(self) -> Mapping[str, int]:
        """Return a read-only view of word -> count in no set order: no copy, no sort.

        For readers whose result does not depend on the order (the learners): sorting
        millions of words costs time and a pair per word, which ``most_common`` keeps.
        """
        return MappingProxyType(self._counts)

    def most_common(self, n: int | None = None) -> list[tuple[str, int]]:
        """Return ``(word, count)`` pairs, count descending then word; the first ``n``."""
        if self._sorted is None:
            self._sorted = sorted(self._counts.items(), key=lambda p: (-p[1], p[0]))
        return list(self._sorted if n is None else self._sorted[:n])

    def total(self) -> int:
        """Return the number of word occurrences counted."""
        return sum(self._counts.values())

    def merge(self, *others: WordCounts, ignore_fingerprint: bool = False) -> WordCounts:
        """Sum these counts with ``others`` (e.g. shards counted on other machines).

        Counts made by different pipelines are refused, unless ``ignore_fingerprint``;
        the merged fingerprint is then unknown (``None``). ``WordCounts.merge(a, b, c)``
        also works.
        """
        total = Counter(self._counts)
        pipeline = self.pipeline
        for other in others:
            if not isinstance(other, WordCounts):
                other = WordCounts(other)
            if other.fingerprint != self.fingerprint:
                if not ignore_fingerprint:
                    raise PipelineMismatchError(
                        f"cannot merge word counts of pipeline {self.fingerprint} with "
                        f"counts of pipeline {other.fingerprint}: they split text into "
                        "different words (pass ignore_fingerprint=True to merge anyway)")
                pipeline = None
            total.update(other._counts)
        return WordCounts(total, pipeline=pipeline)

    def check_pipeline(self, normalizer, pre_tokenizer) -> None:
        """Raise ``PipelineMismatchError`` unless these counts came from this pipeline."""
        expected = pipeline_config(normalizer, pre_tokenizer)
        if self.pipeline == expected:
            return
        had = "an unknown pipeline" if self.pipeline is None else (
            f"pipeline {self.fingerprint} {json.dumps(self.pipeline, sort_keys=True)}")
        raise PipelineMismatchError(
            f"these word counts were made with {had}, but the tokenizer being built uses "
            f"pipeline {_hash_config(expected)} {json.dumps(expected, sort_keys=True)}; "
            "count the corpus again with that normalizer and pre-tokenizer, or pass "
            "ignore_fingerprint=True to use them anyway")

    # ------------------------------------------------------------ files

    def save(self, path: str | os.PathLike) -> None:
        """Write ``word<TAB>count`` lines (canonical order) after a ``#`` JSON header."""
        header = {"format": "wordpieces-word-counts", "version": FORMAT_VERSION,
                  "fingerprint": self.fingerprint, "pipeline": self.pipeline}
        lines = ["# " + json.dumps(header, ensure_ascii=False, sort_keys=True)]
        for word, count in self.most_common():
            if WORD_BREAK.search(word):
                raise FormatError(f"cannot save word {word!r}: it is empty or holds "
                                  "whitespace, which no counted word does")
            lines.append(f"{word}\t{count}")
        atomic_write_text(path, "\n".join(lines) + "\n")

    @classmethod
    def load(cls, path: str | os.PathLike) -> WordCounts:
        """Read counts saved by ``save`` (or any ``word<TAB>count`` file, fingerprint unknown).

        Malformed lines are rejected with ``file:line``.
        """
        path = os.fspath(path)
        with open(path, encoding="utf-8-sig", newline="\n") as f:
            try:
                return _parse_counts(path, f)
            except UnicodeDecodeError as e:
                raise FormatError(f"{path}:{_first_undecodable_line(path)}: not valid UTF-8 "
                                  f"({e.reason})") from None


def _parse_counts(path: str, lines: Iterable[str]) -> WordCounts:
    counts: dict[str, int] = {}
    first_seen: dict[str, int] = {}
    pipeline, saved_by_us = None, False
    for number, line in enumerate(lines, 1):
        ended = line.endswith("\n")
        line = line[:-1] if ended else line
        line = line[:-1] if line.endswith("\r") else line
        if number == 1 and line.startswith("#") and "\t" not in line:
            saved_by_us, pipeline = _parse_header(path, line)
            continue
        word, count = parse_count_line(f"{path}:{number}", line)
        if not ended and saved_by_us:
            raise FormatError(f"{path}:{number}: the last line has no newline: the file was "
                              "cut short (WordCounts.save ends every line with one)")
        if word in counts:
            raise FormatError(f"{path}:{number}: word {word!r} repeats line "
                              f"{first_seen[word]}")
        counts[word], first_seen[word] = count, number
    return WordCounts(counts, pipeline=pipeline)


def _first_undecodable_line(path: str) -> int | str:
    """The number of the first line of ``path`` that is not UTF-8 (read again, for the
    error only: the text reader does not say where in the file it failed)."""
    with open(path, "rb") as f:
        for number, line in enumerate(f, 1):
            try:
                line.decode("utf-8")
            except UnicodeDecodeError:
                return number
    return "?"


def _parse_header(path: str, line: str) -> tuple[bool, dict | None]:
    """Whether ``WordCounts.save`` wrote this header line, and the pipeline it names."""
    try:
        header = json.loads(line[1:])
    except (ValueError, RecursionError):  # "# [[[[…": nested too deeply for json
        return False, None  # a foreign comment line: no fingerprint known
    if not isinstance(header, dict) or header.get("format") != "wordpieces-word-counts":
        return False, None
    pipeline = header.get("pipeline")
    if pipeline is not None and (not isinstance(pipeline, dict)
                                 or _hash_config(pipeline) != header.get("fingerprint")):
        raise FormatError(f"{path}:1: the header's fingerprint does not match its pipeline")
    return True, pipeline


def _checked_counts(counts) -> dict[str, int]:
    """Sum the items of ``counts``, each checked, refusing counts that are not whole."""
    items = counts.items() if isinstance(counts, Mapping) else counts
    out: dict[str, int] = {}
    for index, item in enumerate(items):
        word, count = checked_word_count(index, item)
        if not isinstance(count, numbers.Integral) or count < 0:
            raise ValueError(f"count of {word!r} must be an integer >= 0, not {count!r}")
        out[word] = out.get(word, 0) + int(count)
    bad = _first_unwordlike(out)
    if bad is not None:
        raise ValueError(f"counts word {bad!r} is empty or holds ASCII whitespace: no "
                         "pre-tokenizer gives such a word, and a vocabulary cannot hold it")
    return out


def _first_unwordlike(words: Collection[str]) -> str | None:
    """The first word ``WORD_BREAK`` refuses, else None.

    One join and six substring scans (0.1 s for 3 million words) instead of a regular
    expression per word; the word is looked for only when there is one.
    """
    joined = "".join(words)
    if "" not in words and not any(c in joined for c in " \t\n\r\x0b\x0c"):
        return None
    return next(word for word in words if WORD_BREAK.search(word))


# ---------------------------------------------------------------- counting


def count_words(source, *, normalizer=None, pre_tokenizer=None, num_proc: int | None = None,
                engine: str = "local", scheduler=None, blocksize: int = DEFAULT_BLOCKSIZE,
                progress=None, checkpoint: str | os.PathLike | None = None,
                max_distinct_words: int | None = None) -> WordCounts:
    """Count the words of ``source`` as ``pre_tokenizer(normalizer(text))`` gives them.

    ``source``: a path, a glob, a directory, ``"-"`` (stdin), an fsspec URL, a list or
    tuple of those, or any other iterable of texts or of batches of texts (each text is
    split as a whole; file lines are split one by one; see ``sources``). Defaults:
    ``BertNormalizer(lowercase=True, flavor="bert")`` and
    ``BertPreTokenizer(flavor="bert")``. ``engine="local"`` uses ``num_proc`` processes
    (default: all cores; 1 counts in this process);
    ``engine="dask"`` runs on the ``dask.distributed`` cluster at ``scheduler`` (an
    address, a ``Client`` or a cluster; ``None`` starts a local one). ``progress``: what
    ``train`` takes (``None``/``"none"``, ``"auto"``, ``"bar"``, ``"jsonl"``, a bool, or a
    callable, called as ``progress("count", done=bytes, total=bytes, words=n)``).
    ``checkpoint``: a folder recording each finished block of local files, so that a
    run killed midway resumes where it stopped, with the same result (see
    ``checkpoint``). ``max_distinct_words``: keep only the N words of highest total count
    (ties: by word), with exact counts, summing in memory for N words and spilling the
    rest to a temporary folder (see ``bounded``); a ``CountsPrunedWarning`` says how
    many words were left out and the highest count among them.

    >>> count_words(iter(["Hello, hello world!"])).most_common()
    [('hello', 2), ('!', 1), (',', 1), ('world', 1)]
    """
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}: expected one of {', '.join(ENGINES)}")
    check_thread_count(num_proc, "num_proc")
    if blocksize < 1:
        raise ValueError(f"blocksize must be >= 1, not {blocksize}")
    _check_max_words(max_distinct_words)
    pipeline = Pipeline(normalizer, pre_tokenizer)
    units = plan(source, blocksize=blocksize)
    saved = None if checkpoint is None else open_checkpoint(
        checkpoint, units, pipeline=pipeline.config, fingerprint=pipeline.fingerprint,
        blocksize=blocksize)
    total = BoundedTotal(max_distinct_words)
    with make_reporter(progress) as reporter:  # every progress= value, as train() takes
        collector = Collector(Meter(units, reporter), total, saved)
        if engine == "dask":
            from .dask_engine import count_dask
            counts = count_dask(units, pipeline, scheduler=scheduler, num_proc=num_proc,
                                collector=collector)
        else:
            _count_local(units, pipeline, num_proc or os.cpu_count() or 1, collector)
            counts = total.result()
    _warn_pruned(total)
    return WordCounts(counts, pipeline=pipeline.config)


class CountsPrunedWarning(UserWarning):
    """``max_distinct_words`` left words out of the counts."""


def _check_max_words(max_words) -> None:
    if max_words is None:
        return
    if isinstance(max_words, bool) or not isinstance(max_words, numbers.Integral) \
            or max_words < 1:
        raise ValueError(f"max_distinct_words must be an integer >= 1, not {max_words!r}")


def _warn_pruned(total: BoundedTotal) -> None:
    if total.pruned_words:
        warnings.warn(CountsPrunedWarning(
            f"max_distinct_words={total.max_words} left out {total.pruned_words:,} rarer "
            f"distinct words; the highest count among them is {total.pruned_max_count:,}"),
            stacklevel=3)


class Collector:
    """Where finished tasks go: the checkpoint, the running total and the meter.

    Tasks are numbered in the order ``tasks`` yields them; ``pending`` skips (and adds)
    the blocks a checkpoint already holds, so every engine resumes alike.
    """

    def __init__(self, meter: Meter, total: BoundedTotal, saved: Checkpoint | None):
        self.meter, self.total, self.saved = meter, total, saved

    def pending(self, units) -> Iterator[tuple[int, str, object, int]]:
        """Yield ``(number, kind, payload, size)`` for the tasks still to run."""
        for number, (kind, payload, size) in enumerate(tasks(units)):
            done = None
            if self.saved is not None and isinstance(payload, Block):  # only blocks: see plan
                done = self.saved.recorded(number, payload)
            if done is None:
                yield number, kind, payload, size
            else:
                self.meter.add(size, done)
                self.total.add(done)

    def finish(self, number: int, payload, size: int, partial: Counter) -> None:
        """Record one finished task and add its counts to the total."""
        if self.saved is not None:
            self.saved.record(number, payload, partial)
        self.meter.add(size, partial)
        self.total.add(partial)


# ---------------------------------------------------------------- local engine


def _count_local(units, pipeline: Pipeline, num_proc: int, collector: Collector) -> None:
    work = collector.pending(units)
    first = next(work, None)
    second = next(work, None) if first is not None else None
    if second is None or num_proc == 1:
        for number, kind, payload, size in itertools.chain(filter(None, (first, second)),
                                                           work):
            collector.finish(number, payload, size, run_task(kind, payload, pipeline))
        return
    _count_in_pool([first, second], work, pipeline, num_proc, collector)


def _count_in_pool(head, work, pipeline, num_proc, collector: Collector) -> None:
    """Run tasks in ``num_proc`` processes, at most two per process in flight."""
    context = multiprocessing.get_context("fork" if sys.platform.startswith("linux")
                                          else "spawn")
    with ProcessPoolExecutor(num_proc, mp_context=context, initializer=_init_worker,
                             initargs=(pipeline,)) as pool:
        pending = {}
        queue = itertools.chain(head, work)  # lazily: a stream may be long
        try:
            for number, kind, payload, size in queue:
                future = pool.submit(_worker_task, kind, payload)
                pending[future] = (number, payload, size)
                while len(pending) >= 2 * num_proc:
                    _collect(pending, collector)
            while pending:
                _collect(pending, collector)
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise


def _collect(pending: dict, collector: Collector) -> None:
    done, _ = wait(pending, return_when=FIRST_COMPLETED)
    for future in done:
        number, payload, size = pending.pop(future)
        collector.finish(number, payload, size, future.result())


_WORKER_PIPELINE: Pipeline | None = None


def _init_worker(pipeline: Pipeline) -> None:
    global _WORKER_PIPELINE
    _WORKER_PIPELINE = pipeline


def _worker_task(kind: str, payload) -> Counter:
    return run_task(kind, payload, _WORKER_PIPELINE)
