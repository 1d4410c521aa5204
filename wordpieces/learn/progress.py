"""Show the progress of long runs on stderr: a one-line status with rates and ETA, or JSON lines.

Producers (``count_words``, the learners, the CLI) call a reporter with an event name and
fields: ``reporter("count", done=bytes, total=bytes, words=n)``, ``reporter("search",
step=, thresh=, size=, target=)``, ``reporter("merge", done=, total=, token=)``, the CLI's
``update(done=bytes, lines=n, tokens=n)``, or any other event. An event with ``done`` is
measured: ``done`` (bytes when its unit is ``"B"``/``"bytes"``, else a count) gets a rate
and, when ``total`` is known, a percentage and an ETA; every other numeric field is a
counter (lines, words, tokens) shown with its rate. Rates are taken over the last
``RATE_WINDOW`` seconds, so an ETA follows a run that speeds up or slows down.

Modes: ``"bar"`` redraws one line with a carriage return (at most every ``min_interval``
seconds) and ends each stage with a summary line (average rates, time taken); ``"jsonl"``
writes one JSON object per shown update (same throttle, and always the last event of a
stage) with ``event``, ``stage``, ``done``, ``total``, ``unit``, ``rate``, ``eta_seconds``,
the counters and their ``<name>_rate``, the other fields, and ``elapsed``; ``"none"``
shows nothing; ``"auto"`` is ``"bar"`` when the stream is a terminal and ``"none"``
otherwise.

Not handled here: what the events mean to their producers; colours; nested or concurrent
bars; output written to the same terminal while a line is drawn (it gets overdrawn).
"""

from __future__ import annotations

import functools
import json
import math
import os
import sys
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ParamSpec, Protocol, TypeVar

MODES = ("auto", "bar", "jsonl", "none")
P = ParamSpec("P")
R = TypeVar("R")
BYTE_UNITS = ("B", "bytes")
RATE_WINDOW = 10.0  # seconds of history behind a rate: recent enough to follow changes
RATE_MIN_SPAN = 0.5  # a rate over less time is mostly noise (first batch, start-up)
LABELS = {"count": "counting", "search": "learning (top-down)",
          "merge": "learning (bottom-up)"}
EVENT_UNITS = {"count": "B", "merge": "tokens"}  # what ``done`` counts in library events
_MEASURES = ("done", "total", "unit")


class ProgressCallback(Protocol):
    """What producers call: ``callback("merge", done=10, total=3000)``.

    A ``Progress`` (or ``make_reporter``'s result) is one; so is any function taking an
    event name and keyword fields, which is all the learners and ``count_words`` assume.
    """

    def __call__(self, event: str, **fields) -> None: ...


class Progress:
    """A progress reporter: call it with events; close it (or use ``with``) at the end.

    ``clock`` (seconds, monotonic) and ``width`` (terminal columns; by default asked of
    the stream when it is a terminal) exist so that output can be tested exactly.

    >>> import io
    >>> out = io.StringIO()
    >>> with Progress("jsonl", stream=out, min_interval=0) as p:
    ...     p("merge", done=3, total=10, token="ab")
    >>> json.loads(out.getvalue())["token"]
    'ab'
    """

    def __init__(self, mode: str = "auto", *, stream=None, min_interval: float = 0.1,
                 stage: str = "progress", total: int | None = None, unit: str = "bytes",
                 clock=time.monotonic, width: int | None = None):
        if mode not in MODES:
            raise ValueError(f"unknown progress mode {mode!r}: expected one of "
                             f"{', '.join(MODES)}")
        self.stream = sys.stderr if stream is None else stream
        if mode == "auto":
            mode = "bar" if _isatty(self.stream) else "none"
        self.mode, self.min_interval = mode, min_interval
        self.stage, self.total, self.unit = stage, total, unit
        self.clock, self.width = clock, width
        self.start = clock()
        self._stage: _Stage | None = None
        self._last_time = self.start  # when the latest event arrived: the next stage's start

    # ------------------------------------------------------------ producer side

    def __call__(self, event: str, **fields) -> None:
        if self.mode == "none":
            return
        now = self.clock()
        if self._stage is None or event != self._stage.event:
            self._end_stage()
            self._stage = _Stage(event, self._unit_of(event, fields), self._last_time)
        self._last_time = now
        stage = self._stage
        stage.last = (fields, now)
        if now - stage.shown_at < self.min_interval:
            stage.pending = True
            return
        self._show(stage, fields, now)

    callback = __call__  # the name the CLI uses

    def update(self, **fields) -> None:
        """Report progress of this reporter's ``stage`` (CLI style)."""
        if self.total is not None:
            fields.setdefault("total", self.total)
        self(self.stage, **fields)

    def summary(self, message: str) -> None:
        """Finish the line and print a closing message (not in ``none`` mode)."""
        self.close()
        if self.mode == "bar":
            self.stream.write(message + "\n")
            self.stream.flush()
        elif self.mode == "jsonl":
            self._write({"event": "summary", "message": message,
                         "elapsed": round(self.clock() - self.start, 3)})

    def close(self, *, ending: str = "done") -> None:
        """Show the last withheld event and end the stage with its summary line."""
        self._end_stage(ending)

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self.close(ending="done" if exc_type is None else "stopped")

    # ------------------------------------------------------------ drawing

    def _unit_of(self, event: str, fields: dict) -> str:
        unit = fields.get("unit") or (self.unit if event == self.stage
                                      else EVENT_UNITS.get(event, ""))
        return "B" if unit in BYTE_UNITS else unit

    def _end_stage(self, ending: str = "done") -> None:
        stage, self._stage = self._stage, None
        if stage is None or stage.last is None:
            return
        fields, at = stage.last
        if self.mode == "jsonl":
            if stage.pending:
                self._show(stage, fields, at)
            return
        status = stage.status(fields, at, ending=ending)
        self._draw(format_status(status, self._columns()), end="\n")

    def _show(self, stage: _Stage, fields: dict, now: float) -> None:
        stage.pending, stage.shown_at = False, now
        status = stage.status(fields, now)
        if self.mode == "jsonl":
            self._write(record(status, elapsed=now - self.start))
        else:
            self._draw(format_status(status, self._columns()))

    def _draw(self, line: str, *, end: str = "") -> None:
        """Overwrite the terminal line: back to column 0, the text, clear what is left."""
        self.stream.write("\r" + line + "\x1b[K" + end)
        self.stream.flush()

    def _write(self, obj: dict) -> None:
        self.stream.write(json.dumps(obj, ensure_ascii=False, default=str) + "\n")
        self.stream.flush()

    def _columns(self) -> int | None:
        if self.width is not None:
            return self.width
        try:
            columns = os.get_terminal_size(self.stream.fileno()).columns
        except (AttributeError, ValueError, OSError):
            return None  # not a terminal (or a test's stream): nothing to wrap
        return columns or None  # 0: a pseudo-terminal that never got a size


# ---------------------------------------------------------------- stages and rates


@dataclass
class Status:
    """What one update shows: the amount done, rates per second, ETA or how it ended."""

    event: str
    fields: dict
    unit: str = ""
    rates: dict = field(default_factory=dict)
    eta: float | None = None
    elapsed: float = 0.0  # of this stage
    ending: str | None = None  # "done" or "stopped" on a stage's last line

    @property
    def measured(self) -> bool:
        return _is_number(self.fields.get("done"))

    @property
    def counters(self) -> dict:
        return {k: v for k, v in self.fields.items()
                if k not in _MEASURES and _is_number(v)}


class _Stage:
    """One run of same-named events: its start, the last update and its rate history."""

    def __init__(self, event: str, unit: str, start: float):
        self.event, self.unit, self.start = event, unit, start
        self.last: tuple[dict, float] | None = None
        self.pending = False
        self.shown_at = float("-inf")
        self.history: deque[tuple[float, dict]] = deque([(start, {})])

    def status(self, fields: dict, now: float, *, ending: str | None = None) -> Status:
        """The status for ``fields`` at ``now``; a stage's ending uses its average rates."""
        status = Status(self.event, fields, self.unit, elapsed=now - self.start,
                        ending=ending)
        if not status.measured:
            return status
        values = {"done": fields["done"], **status.counters}
        since = (self.start, {}) if ending else self._window(now, values)
        if ending or now - since[0] >= RATE_MIN_SPAN:
            status.rates = _rates(since, now, values)
        if ending is None:
            status.eta = _eta(fields["done"], fields.get("total"), status.rates.get("done"))
        return status

    def _window(self, now: float, values: dict) -> tuple[float, dict]:
        """Record a sample; return the newest one at least ``RATE_WINDOW`` seconds old."""
        self.history.append((now, values))
        while len(self.history) > 2 and now - self.history[1][0] >= RATE_WINDOW:
            self.history.popleft()
        return self.history[0]


def _rates(since: tuple[float, dict], now: float, values: dict) -> dict:
    start, before = since
    span = now - start
    if span <= 0:
        return {}
    return {name: (value - before.get(name, 0)) / span for name, value in values.items()}


def _eta(done, total, rate) -> float | None:
    if not total or not rate or rate <= 0:
        return None
    return max(total - done, 0) / rate


# ---------------------------------------------------------------- formatting


# How long a part of the line survives on a narrow terminal: higher stays longer.
KEEP, RATE, PRODUCT_RATE, COUNT = 0, 3, 2, 1


def format_status(status: Status, width: int | None = None) -> str:
    """One human line for a status, fitted to ``width`` columns.

    While a stage runs, its last counter (the product: words, tokens) shows as a rate,
    the others as counts; a stage's final line shows every count.

    >>> format_status(Status("encode", {"done": 2_000_000, "total": 8_000_000,
    ...     "lines": 10_000, "tokens": 90_000}, "B", {"done": 1e6, "tokens": 45_000}, eta=6))
    'encode: 2.0 MB / 8.0 MB (25%) · 1.0 MB/s · 10,000 lines · 45,000 tokens/s · ETA 0:06'
    """
    label = LABELS.get(status.event, status.event)
    if status.event == "search" and not status.measured:
        parts = _search_parts(label, status.fields)
    elif status.measured:
        parts = _measured_parts(label, status)
    else:
        parts = [(label + ": " + " · ".join(f"{k} {v}" for k, v in status.fields.items()),
                  KEEP)]
    if status.ending:
        verb = "done in" if status.ending == "done" else "stopped after"
        parts.append((f"{verb} {_clock(status.elapsed)}", KEEP))
    elif status.eta is not None:
        parts.append((f"ETA {_clock(status.eta, up=True)}", KEEP))
    return _fit(parts, width)


def _measured_parts(label: str, status: Status) -> list[tuple[str, int]]:
    fields, unit, rates = status.fields, status.unit, status.rates
    done, total = fields["done"], fields.get("total")
    amount = _amount(done, unit)
    if total:
        head = _size(done) if unit == "B" else f"{done:,.0f}"
        amount = f"{head} / {_amount(total, unit)} ({math.floor(100 * done / total)}%)"
    parts = [(f"{label}: {amount}", KEEP)]
    if "done" in rates:
        parts.append((_rate(rates["done"], unit), RATE))
    counters = status.counters
    product = list(counters)[-1] if counters else None
    for name, value in counters.items():
        if name != product or status.ending or name not in rates:
            parts.append((f"{value:,.0f} {name}", COUNT))
    if product is not None and product in rates:
        parts.append((_rate(rates[product], product), PRODUCT_RATE))
    return parts


def _search_parts(label: str, fields: dict) -> list[tuple[str, int]]:
    parts = [(f"{label}: step {fields.get('step')}", KEEP),
             (f"threshold {fields.get('thresh')}", COUNT)]
    size, target = fields.get("size"), fields.get("target")
    if _is_number(size) and _is_number(target):
        parts.append((f"vocab {size:,} (target {target:,})", RATE))
    return parts


def _fit(parts: list[tuple[str, int]], width: int | None) -> str:
    """Join the parts; if the line is too wide, drop the least important ones, then cut.

    A line as wide as the terminal would wrap, and the carriage return would then redraw
    only its last row: the limit is one column less than the width.
    """
    parts = list(parts)
    line = " · ".join(text for text, _ in parts)
    while width is not None and len(line) >= width:
        droppable = [i for i, (_, level) in enumerate(parts) if level != KEEP]
        if not droppable:
            return line[:max(width - 1, 0)]
        del parts[min(droppable, key=lambda i: (parts[i][1], -i))]
        line = " · ".join(text for text, _ in parts)
    return line


def record(status: Status, *, elapsed: float) -> dict:
    """The JSON object for a status: measured fields first, then the rest as given."""
    fields = status.fields
    obj: dict = {"event": status.event, "stage": status.event}
    if status.measured:
        obj.update(done=fields["done"], total=fields.get("total"), unit=status.unit or None,
                   rate=_round(status.rates.get("done")), eta_seconds=_round(status.eta))
        for name, value in status.counters.items():
            obj[name] = value
            obj[f"{name}_rate"] = _round(status.rates.get(name))
    obj.update((k, v) for k, v in fields.items() if k not in obj and k != "unit")
    obj["elapsed"] = round(elapsed, 3)
    return obj


def _amount(n: float, unit: str) -> str:
    if unit == "B":
        return _size(n)
    return f"{n:,.0f}" + (f" {unit}" if unit else "")


def _rate(per_second: float, unit: str) -> str:
    if unit == "B":
        return _size(per_second) + "/s"
    number = f"{per_second:,.1f}" if per_second < 10 else f"{per_second:,.0f}"
    return f"{number} {unit}/s" if unit else f"{number}/s"


def _size(n: float) -> str:
    """Bytes in decimal units, as disk and network tools show them."""
    for unit in ("B", "kB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n:.1f} TB"  # unreachable: GB is the last unit


def _clock(seconds: float, *, up: bool = False) -> str:
    """``M:SS`` or ``H:MM:SS``; an ETA rounds ``up`` so that it reaches 0:00 only at the end."""
    whole = math.ceil(seconds) if up else round(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02}:{secs:02}" if hours else f"{minutes}:{secs:02}"


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _isatty(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


# ---------------------------------------------------------------- construction


# What every ``progress=`` of the package takes (``count_words``, ``train``, the learners;
# the command line's ``--progress`` takes the mode names): see ``make_reporter``.
ProgressOption = str | bool | None | ProgressCallback


def make_reporter(progress: ProgressOption = "auto", *, stream=None,
                  stage: str = "progress", total: int | None = None,
                  unit: str = "bytes") -> Progress:
    """Return a ``Progress`` for any ``progress=`` value: the one place they are read.

    A mode name (``"auto"``, ``"bar"``, ``"jsonl"``, ``"none"``); ``None``/``False`` mean
    ``"none"``, ``True`` means ``"bar"``; a callable (``ProgressCallback``, e.g. another
    ``Progress``) gets every event. Anything else is a ``ValueError`` naming the choices.

    >>> make_reporter(None).mode, make_reporter(True).mode
    ('none', 'bar')
    """
    if progress is None or progress is False:
        progress = "none"
    elif progress is True:
        progress = "bar"
    if callable(progress) and not isinstance(progress, str):
        return _Forward(progress)
    if not isinstance(progress, str):
        raise ValueError(f"progress={progress!r}: expected one of {', '.join(MODES)}, "
                         "None, a bool or a callable taking (event, **fields)")
    return Progress(progress, stream=stream, stage=stage, total=total, unit=unit)


def accepts_progress(function: Callable[P, R]) -> Callable[P, R]:
    """Let ``function``'s keyword ``progress=`` take every ``make_reporter`` value.

    The wrapped function keeps its simple contract (``progress`` is ``None`` or a
    callable); a mode name or a bool becomes a reporter that is closed when it returns,
    so a learner called on its own shows the same bar or JSON lines as ``train``.
    """
    @functools.wraps(function)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        progress = kwargs.get("progress")
        if progress is None or (callable(progress) and not isinstance(progress, str)):
            return function(*args, **kwargs)
        with make_reporter(progress) as reporter:  # type: ignore[arg-type]
            kwargs["progress"] = reporter
            return function(*args, **kwargs)

    return wrapper


class _Forward(Progress):
    """Hand every event to a user's callable."""

    def __init__(self, function):
        super().__init__("none")
        self.function = function

    def __call__(self, event: str, **fields) -> None:
        self.function(event, **fields)

    callback = __call__
