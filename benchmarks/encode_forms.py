"""Every form of the transformers-style call, and one text per call, all engines in one run.

``python benchmarks/encode.py --forms [FORM ...]`` and ``--latency`` land here. Unlike
the rest of ``encode.py`` (one process per engine), every engine lives in this one
process, pinned to one core, and the engines take turns: round 1 runs each once, then
round 2, ``--repeat`` rounds (``encode_compare.alternate``); the table gives the best
and the median of the rounds, each engine's time over the base engine's (20: it took
20 times as long) and its agreement with HF ``tokenizers``.

Forms (``FORMS``), each against transformers' ``BertTokenizerFast`` with the same
arguments and HF ``tokenizers`` set up to do the same (special tokens, truncation,
padding enabled; its ``Encoding`` lists read into the call's three columns, made numpy
arrays or tensors where the form asks): ``lists`` ``tok(texts)``, ``truncated``
``tok(texts, truncation=True, max_length=128)`` (also flash-tokenizer and blingfire,
whose natural output this is), ``padded`` (``padding=True`` as well), ``np`` and ``pt``
(the same with ``return_tensors``; ``pt`` only where torch imports), ``pairs``
(consecutive texts as (text, pair), truncated), ``words`` (each text split on
whitespace, ``is_split_into_words=True``, truncated), ``encode-batch`` (``encode_batch``,
then every Encoding's ids, offsets and attention mask read, against HF read the same
way). Every timed call includes fetching the columns it returns (``out["input_ids"]``
…). wordpieces runs with ``flavor="huggingface"`` and ``num_threads=1``, HF and
transformers with ``RAYON_NUM_THREADS=1``, flash-tokenizer with ``parallel=False``.

Latency (``LATENCY``): one text per call over the first ``--lines`` texts of a dataset
(default: the non-blank lines of Pride and Prejudice), µs per call; the base is
flash-tokenizer's ``encode(text, "longest", 128)`` when it is installed.

"Same ids as HF" is the share of items whose ids equal those HF ``tokenizers`` gives
for the same call: padded rows with their padding, pairs with both sides and type-less
(ids only); ``encode-batch`` compares ids, offsets and attention mask together.
flash-tokenizer is compared with HF truncated at 128 with ``[CLS]``/``[SEP]`` (its
output is the same kind); blingfire adds no special tokens, so its ids (at most 126)
are compared with HF's truncated ids without their first and last id.

Not handled here: peak memory (one process holds every engine; ``encode.py``'s default
mode has it per engine), threads (``benchmarks/threads.py``), correctness beyond ids
(the differential tests in ``tests/``).
"""

from __future__ import annotations

import importlib.util
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from encode_compare import (
    Row,
    Timings,
    agreement,
    alternate,
    grid,
    pairs_of,
    summarize,
    table,
    words_of,
)
from encode_data import DATASETS, dataset_lines, item_bytes, lowercase, texts_of, vocab_path
from encode_engines import (
    MAX_LENGTH,
    blingfire_encoder,
    flash_tokenizer,
    hf_tokenizer,
    one_thread_env,
    transformers_tokenizer,
)

TRUNC = {"truncation": True, "max_length": MAX_LENGTH}
PAD = {"padding": True, **TRUNC}
# name: (what is called, the call's options)
FORMS: dict[str, tuple[str, dict[str, Any]]] = {
    "lists": ("tok(texts)", {}),
    "truncated": ("tok(texts, truncation=True, max_length=128)", TRUNC),
    "padded": ("tok(texts, padding=True, truncation=True, max_length=128)", PAD),
    "np": ("the same, return_tensors='np'", {**PAD, "return_tensors": "np"}),
    "pt": ("the same, return_tensors='pt'", {**PAD, "return_tensors": "pt"}),
    "pairs": ("tok(texts, pairs, truncation=True, max_length=128)", TRUNC),
    "words": ("tok(word_lists, is_split_into_words=True, truncation=True, max_length=128)",
              {"is_split_into_words": True, **TRUNC}),
    "encode-batch": ("encode_batch(texts), then ids, offsets, attention_mask of each read",
                     {}),
}
FORM_DATASETS = ["short-lines", "prose-lines", "paragraphs", "multilingual"]
LATENCY_DATASET = "gutenberg"
COLUMNS = ("input_ids", "token_type_ids", "attention_mask")


@dataclass
class Engine:
    """One engine of a table: its timed call and how its ids are read from the output."""

    label: str
    run: Callable[[list], Any]
    ids: Callable[[Any], list] = lambda out: out
    strip_specials: bool = False  # compared with HF's ids without [CLS]/[SEP]


# ---------------------------------------------------------------- forms

_BUILT: dict[tuple, Any] = {}


def once(make: Callable, *args) -> Any:
    """``make(*args)``, built once per process: the forms and latency calls share tokenizers.

    Every call passes its options per call, so one tokenizer serves them all, as one
    object serves a user's calls; building a 120k-token vocabulary per table would
    only make a run longer.
    """
    key = (make.__name__, args)
    if key not in _BUILT:
        _BUILT[key] = make(*args)
    return _BUILT[key]


def wordpieces_tokenizer(vocab: str, lower: bool):
    """wordpieces' ``Tokenizer`` giving HF's exact output (``flavor="huggingface"``)."""
    import wordpieces

    return wordpieces.Tokenizer.from_vocab(vocab, lowercase=lower, flavor="huggingface")



def form_items(form: str, texts: list[str]) -> list:
    """The items a form encodes, cut from a dataset's texts."""
    if form == "pairs":
        return pairs_of(texts)
    if form == "words":
        return words_of(texts)
    return texts


def rows_of(column) -> list[list[int]]:
    """A column (lists, numpy array, tensor) as one list of ids per row."""
    return column.tolist() if hasattr(column, "tolist") else [list(r) for r in column]


def call_args(form: str, items: list) -> tuple:
    """The positional arguments of the call: texts, or texts and pairs."""
    if form == "pairs":
        return [a for a, _ in items], [b for _, b in items]
    return (items,)


def fetch(out) -> dict:
    """Fetch every column the call returned, as a user reading the dict does."""
    return {key: out[key] for key in COLUMNS if key in out}


def read(encodings) -> list[tuple]:
    """Read each Encoding's ids, offsets and attention mask (what a training loop reads)."""
    return [(e.ids, e.offsets, e.attention_mask) for e in encodings]


def needs_torch(form: str) -> None:
    """Raise ``ImportError`` when a form asks for tensors and torch does not import."""
    if FORMS[form][1].get("return_tensors") == "pt":
        import torch  # noqa: F401


def wordpieces_engine(form: str, dataset: str) -> Engine:
    """wordpieces' ``Tokenizer`` (``flavor="huggingface"``, native, ``num_threads=1``)."""
    import wordpieces

    if wordpieces.backend() != "native":
        raise NotImplementedError(f"wordpieces backend is {wordpieces.backend()}")
    needs_torch(form)
    tok = once(wordpieces_tokenizer, vocab_path(dataset), lowercase(dataset))
    label = "wordpieces (native, num_threads=1)"
    if form == "encode-batch":
        return Engine(label, lambda items: read(tok.encode_batch(items, num_threads=1)))
    options = FORMS[form][1]
    return Engine(label, lambda items: fetch(tok(*call_args(form, items), **options,
                                                 num_threads=1)),
                  lambda out: rows_of(out["input_ids"]))


def transformers_engine(form: str, dataset: str) -> Engine:
    """transformers' ``BertTokenizerFast`` with the same call."""
    if form == "encode-batch":
        raise NotImplementedError("transformers has no encode_batch")
    needs_torch(form)
    tok = once(transformers_tokenizer, vocab_path(dataset), lowercase(dataset))
    options = FORMS[form][1]
    return Engine("transformers BertTokenizerFast",
                  lambda items: fetch(tok(*call_args(form, items), **options)),
                  lambda out: rows_of(out["input_ids"]))


def hf_engine(form: str, dataset: str) -> Engine:
    """HF ``tokenizers`` set up as the call asks; its columns built as transformers does."""
    needs_torch(form)
    options = FORMS[form][1]
    tok = hf_tokenizer(vocab_path(dataset), lowercase(dataset), specials=True,
                       truncate=options.get("max_length"), pad=bool(options.get("padding")))
    words = bool(options.get("is_split_into_words"))
    label = "HF tokenizers encode_batch"
    if form == "encode-batch":
        return Engine(label + " + read", lambda items: read(tok.encode_batch(items)))
    tensors = options.get("return_tensors")
    to_column = _column_maker(tensors)

    def run(items):
        encodings = tok.encode_batch(items, is_pretokenized=words)
        return {"input_ids": to_column([e.ids for e in encodings]),
                "token_type_ids": to_column([e.type_ids for e in encodings]),
                "attention_mask": to_column([e.attention_mask for e in encodings])}

    return Engine(label + (f", columns as {tensors}" if tensors else ", columns as lists"),
                  run, lambda out: rows_of(out["input_ids"]))


def _column_maker(tensors: str | None) -> Callable[[list], Any]:
    if tensors is None:
        return lambda rows: rows
    import numpy as np

    if tensors == "np":
        return lambda rows: np.array(rows, dtype=np.int64)
    import torch

    return lambda rows: torch.from_numpy(np.array(rows, dtype=np.int64))


def flash_engine(form: str, dataset: str) -> Engine:
    """flash-tokenizer ``batch_encode(texts, "longest", 128, False)``: truncated lists."""
    if form != "truncated":
        raise NotImplementedError("flash-tokenizer has this form only")
    tok = once(flash_tokenizer, vocab_path(dataset), lowercase(dataset))
    return Engine("flash-tokenizer batch_encode(texts, 'longest', 128, False)",
                  lambda texts: tok.batch_encode(texts, "longest", MAX_LENGTH, False))


def blingfire_engine(form: str, dataset: str) -> Engine:
    """blingfire ``text_to_ids`` per text: at most 126 ids, no special tokens."""
    if form != "truncated":
        raise NotImplementedError("blingfire has this form only")
    encode = once(blingfire_encoder, DATASETS[dataset][1], vocab_path(dataset))
    return Engine("blingfire text_to_ids per text (126 ids, no [CLS]/[SEP])",
                  lambda texts: [encode(t) for t in texts], strip_specials=True)


FORM_ENGINES = {"wp": wordpieces_engine, "trf": transformers_engine, "hf": hf_engine,
                "flash": flash_engine, "blingfire": blingfire_engine}


def build(makers: dict[str, Callable], *args) -> tuple[dict[str, Engine], dict[str, str]]:
    """Build each engine; one whose library is missing or has no such form is an error row."""
    engines, errors = {}, {}
    for name, make in makers.items():
        try:
            engines[name] = make(*args)
        except ImportError as e:
            errors[name] = missing(e)
        except NotImplementedError as e:
            errors[name] = f"n/a: {e}"
    return engines, errors


def missing(error: ImportError) -> str:
    """"not installed (library)" when the library is absent; the error if it is there but broken."""
    top = (error.name or "").split(".")[0]
    if top and importlib.util.find_spec(top) is None:
        return f"not installed ({top})"
    return f"failed: ImportError: {error}"[:160]


def measure(order: list[str], engines: dict[str, Engine], errors: dict[str, str],
            items: list, warm: list, repeat: int, now: Callable[[], float], base: str,
            figure: Callable[[float], float],
            reference: Callable[[str, Timings], list | None]) -> list[Row]:
    """Warm every engine up, time them alternating, and make one row per engine of ``order``.

    ``reference(name, timings)`` gives the HF ids an engine's are compared with, or None.
    """
    labels = {name: engine.label for name, engine in engines.items()}
    for name, engine in list(engines.items()):
        try:
            engine.run(warm)
        except Exception as e:  # refused input: an error row, the others still run
            errors[name] = f"failed: {type(e).__name__}: {e}"[:160]
            del engines[name]
    timings = alternate({n: partial(e.run, items) for n, e in engines.items()}, repeat, now)
    errors.update({n: f"failed: {m}" for n, m in timings.errors.items()})
    rows = []
    for name in order:
        if name in errors or name not in engines:
            rows.append(Row(labels.get(name, name), error=errors.get(name, "not run")))
            continue
        row = summarize(timings.seconds[name], timings.seconds.get(base), figure)
        row.label = labels[name]
        ref = reference(name, timings)
        if ref is not None:
            row.accuracy = agreement(engines[name].ids(timings.outputs[name]), ref,
                                     engines[name].strip_specials)
        rows.append(row)
    timings.outputs.clear()
    return rows


def hf_reference(engines: dict[str, Engine], errors: dict[str, str]):
    """The forms' reference: the ids of the ``hf`` engine's own first output (read once)."""
    cache: dict[str, list] = {}

    def reference(name: str, timings: Timings) -> list | None:
        if "hf" in errors or "hf" not in timings.outputs:
            return None
        if "ids" not in cache:
            cache["ids"] = engines["hf"].ids(timings.outputs["hf"])
        return cache["ids"]

    return reference


def mb_per_s(size: int, seconds: float) -> float:
    """MB/s of ``size`` bytes encoded in ``seconds``."""
    return size / seconds / 1e6


def warm_texts(texts: list[str]) -> list[str]:
    """What each engine sees before the timing: the dataset's alphabet, then a few texts."""
    return [" ".join(sorted(set("".join(texts)))), *texts[:99]]


def run_forms(forms: list[str], datasets: list[str], repeat: int, max_mb: float | None,
              now: Callable[[], float]) -> dict[tuple[str, str], dict[str, Row]]:
    """Print one table per dataset and form, then the summary; return the rows by engine."""
    results = {}
    for dataset in datasets:
        texts = texts_of(dataset_lines(dataset, max_mb))
        for form in forms:
            items = form_items(form, texts)
            size = sum(map(item_bytes, items))
            engines, errors = build(FORM_ENGINES, form, dataset)
            rows = measure(list(FORM_ENGINES), engines, errors, items,
                           form_items(form, warm_texts(texts)), repeat, now, "wp",
                           partial(mb_per_s, size), hf_reference(engines, errors))
            named = zip(FORM_ENGINES, rows, strict=True)
            results[dataset, form] = {name: row for name, row in named
                                      if not row.error.startswith("n/a")}  # no such form
            title = (f"{dataset}, {form}: {FORMS[form][0]} ({size / 1e6:.2f} MB, "
                     f"{len(items):,} items, vocab {DATASETS[dataset][1]})")
            print("\n" + table(title, "MB/s", "wordpieces",
                               list(results[dataset, form].values())), flush=True)
    print("\n" + grid("summary: wordpieces MB/s (best), and how many times faster than "
                      "transformers / flash-tokenizer (best against best)", forms, datasets,
                      lambda form, dataset: summary_cell(results[dataset, form])), flush=True)
    return results


def summary_cell(rows: dict[str, Row]) -> str:
    """wordpieces' MB/s and its speed over transformers' and flash-tokenizer's, if they ran."""
    wp = rows.get("wp")
    if wp is None or wp.best is None:
        return wp.error if wp else "–"
    parts = [f"{wp.best:.1f}"]
    for name, short in (("trf", "trf"), ("flash", "flash")):
        row = rows.get(name)
        if row is not None and row.times_best is not None:
            parts.append(f"{row.times_best:.1f}× {short}")
    return ", ".join(parts)


# ---------------------------------------------------------------- latency


def latency_engines(dataset: str) -> dict[str, Callable[[], Engine]]:
    """The one-text calls, each with the HF call it is compared with ("plain"/"truncated")."""
    vocab, lower = vocab_path(dataset), lowercase(dataset)

    def wp():
        import wordpieces

        if wordpieces.backend() != "native":
            raise NotImplementedError(f"wordpieces backend is {wordpieces.backend()}")
        return once(wordpieces_tokenizer, vocab, lower)

    def each(call: Callable[[str], Any]) -> Callable[[list], list]:
        return lambda texts: [call(t) for t in texts]

    def wp_engine(label: str, call: Callable[[Any], Callable[[str], Any]]):
        return lambda: Engine(label, each(call(wp())))

    def trf():
        tok = once(transformers_tokenizer, vocab, lower)
        return Engine("transformers tok(text)", each(lambda t: tok(t)["input_ids"]))

    def hf():
        tok = hf_tokenizer(vocab, lower, specials=True)
        return Engine("HF tokenizers encode(text).ids", each(lambda t: tok.encode(t).ids))

    def flash():
        tok = once(flash_tokenizer, vocab, lower)
        return Engine("flash-tokenizer encode(text, 'longest', 128)",
                      each(lambda t: tok.encode(t, "longest", MAX_LENGTH)))

    def blingfire():
        return Engine("blingfire text_to_ids(text) (126 ids, no [CLS]/[SEP])",
                      each(once(blingfire_encoder, DATASETS[dataset][1], vocab)),
                      strip_specials=True)

    return {
        "wp-encode-ids": wp_engine("wordpieces encode_ids(text)", lambda t: t.encode_ids),
        "wp-encode": wp_engine("wordpieces encode(text).ids", lambda t: lambda s: t.encode(s).ids),
        "wp-call": wp_engine("wordpieces tok(text)", lambda t: lambda s: t(s)["input_ids"]),
        "wp-call-trunc": wp_engine(
            "wordpieces tok(text, truncation=True, max_length=128)",
            lambda t: lambda s: t(s, truncation=True, max_length=MAX_LENGTH)["input_ids"]),
        "hf": hf, "trf": trf, "flash": flash, "blingfire": blingfire,
    }


# the latency engines compared with HF truncated at 128 (the others: no truncation)
TRUNCATED_LATENCY = {"wp-call-trunc", "flash", "blingfire"}


def run_latency(dataset: str, lines: int, repeat: int, max_mb: float | None,
                now: Callable[[], float]) -> list[Row]:
    """Print the one-text-per-call table; return its rows."""
    texts = texts_of(dataset_lines(dataset, max_mb))[:lines]
    makers = latency_engines(dataset)
    engines, errors = build(makers)
    references = latency_references(dataset, texts)
    base = "flash" if "flash" in engines else "wp-encode-ids"

    def reference(name: str, timings: Timings) -> list | None:
        return references.get("truncated" if name in TRUNCATED_LATENCY else "plain")

    base_label = engines[base].label if base in engines else base
    rows = measure(list(makers), engines, errors, texts, texts[:50], repeat, now, base,
                   lambda s: s / len(texts) * 1e6, reference)
    title = (f"latency: one text per call, {dataset} ({len(texts):,} texts, "
             f"{sum(map(item_bytes, texts)) / len(texts):.0f} B on average, "
             f"vocab {DATASETS[dataset][1]})")
    print("\n" + table(title, "µs/call", base_label, rows), flush=True)
    return rows


def latency_references(dataset: str, texts: list[str]) -> dict[str, list]:
    """HF's ids of each text with special tokens, untruncated and truncated at 128."""
    try:
        plain = hf_tokenizer(vocab_path(dataset), lowercase(dataset), specials=True)
        cut = hf_tokenizer(vocab_path(dataset), lowercase(dataset), specials=True,
                           truncate=MAX_LENGTH)
    except ImportError:
        return {}
    return {"plain": [e.ids for e in plain.encode_batch(texts)],
            "truncated": [e.ids for e in cut.encode_batch(texts)]}


# ---------------------------------------------------------------- entry


def pin_one_core() -> int:
    """Pin this process to one core and ask every library for one thread; return the core."""
    core = min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {core})
    one_thread_env()
    return core


def main(forms: list[str] | None, latency: bool, datasets: list[str] | None, repeat: int,
         max_mb: float | None, lines: int, clock: str) -> None:
    """Run the forms tables and/or the latency table, as ``encode.py`` was asked."""
    core = pin_one_core()
    now = time.process_time if clock == "cpu" else time.perf_counter
    import wordpieces

    print(f"# wordpieces encode benchmark, same run: {' '.join(sys.argv)}\n"
          f"# one core ({core}), {clock} clock, {repeat} rounds, engines alternating; "
          f"wordpieces backend {wordpieces.backend()}", flush=True)
    if forms is not None:
        run_forms(forms or list(FORMS), datasets or FORM_DATASETS, repeat, max_mb, now)
    if latency:
        for dataset in datasets or [LATENCY_DATASET]:
            run_latency(dataset, lines, repeat, max_mb, now)
