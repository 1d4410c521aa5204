"""Show the progress of long runs on stderr: a one-line bar on a terminal, or JSON lines.

Producers (``count_words``, the learners, the CLI) call a reporter with an event name and
fields: ``reporter("count", done=bytes, total=bytes, words=n)``, ``reporter("search",
step=, thresh=, size=, target=)``, ``reporter("merge", done=, total=, token=)``, or any
other event. Modes: ``"bar"`` redraws one line (at most every ``min_interval`` seconds),
``"jsonl"`` writes one JSON object per line (same throttle, and always the last event of
a kind), ``"none"`` shows nothing, ``"auto"`` is ``"bar"`` when the stream is a terminal
and ``"none"`` otherwise.

Not handled here: what the events mean to their producers; colours; nested bars.
"""

from __future__ import annotations

import json
import sys
import time

MODES = ("auto", "bar", "jsonl", "none")


class Progress:
    """A progress reporter: call it with events; close it (or use ``with``) at the end.

    >>> import io
    >>> out = io.StringIO()
    >>> with Progress("jsonl", stream=out, min_interval=0) as p:
    ...     p("merge", done=3, total=10, token="ab")
    >>> json.loads(out.getvalue())["token"]
    'ab'
    """

    def __init__(self, mode: str = "auto", *, stream=None, min_interval: float = 0.2,
                 stage: str = "progress", total: int | None = None, unit: str = "bytes"):
        if mode not in MODES:
            raise ValueError(f"unknown progress mode {mode!r}: expected one of "
                             f"{', '.join(MODES)}")
        self.stream = sys.stderr if stream is None else stream
        if mode == "auto":
            mode = "bar" if _isatty(self.stream) else "none"
        self.mode, self.min_interval = mode, min_interval
        self.stage, self.total, self.unit = stage, total, unit
        self.start = time.monotonic()
        self._last_shown = float("-inf")
        self._last_event: str | None = None
        self._pending: tuple[str, dict] | None = None
        self._drawn = False

    # ------------------------------------------------------------ producer side

    def __call__(self, event: str, **fields) -> None:
        if self.mode == "none":
            return
        now = time.monotonic()
        if event != self._last_event and self._pending is not None:
            self._show(*self._pending)
        if event == self._last_event and now - self._last_shown < self.min_interval:
            self._pending = (event, fields)
            return
        self._show(event, fields)
        self._last_shown, self._last_event = now, event

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
        elif self.mode == "jsonl":
            self._write_json("summary", {"message": message})

    def close(self) -> None:
        """Show the last withheld event and end the bar's line."""
        if self._pending is not None:
            self._show(*self._pending)
        if self._drawn and self.mode == "bar":
            self.stream.write("\n")
            self.stream.flush()
        self._drawn = False

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ------------------------------------------------------------ drawing

    def _show(self, event: str, fields: dict) -> None:
        self._pending = None
        if self.mode == "jsonl":
            self._write_json(event, fields)
            return
        self.stream.write("\r" + describe(event, fields, time.monotonic() - self.start)
                          + "\x1b[K")
        self.stream.flush()
        self._drawn = True

    def _write_json(self, event: str, fields: dict) -> None:
        record = {"event": event, **fields,
                  "elapsed": round(time.monotonic() - self.start, 3)}
        self.stream.write(json.dumps(record, ensure_ascii=False, default=str) + "\n")
        self.stream.flush()


def make_reporter(progress="auto", *, stream=None, stage: str = "progress",
                  total: int | None = None, unit: str = "bytes") -> Progress:
    """Return a ``Progress`` for a mode name, or wrap a callable as one.

    ``None``/``False`` mean ``"none"``; ``True`` means ``"bar"``.
    """
    if progress is None or progress is False:
        progress = "none"
    elif progress is True:
        progress = "bar"
    if callable(progress) and not isinstance(progress, str):
        return _Forward(progress)
    return Progress(progress, stream=stream, stage=stage, total=total, unit=unit)


class _Forward(Progress):
    """Hand every event to a user's callable."""

    def __init__(self, function):
        super().__init__("none")
        self.function = function

    def __call__(self, event: str, **fields) -> None:
        self.function(event, **fields)

    callback = __call__


def describe(event: str, fields: dict, elapsed: float) -> str:
    """One human line for an event."""
    if event == "count":
        done, total, words = fields.get("done", 0), fields.get("total"), fields.get("words")
        line = f"counting: {_size(done)}" + (f" / {_size(total)} ({done / total:.0%})"
                                             if total else "")
        if words is not None and elapsed > 0:
            line += f" · {words:,} words · {words / elapsed:,.0f} words/s"
        return line
    if event == "search":
        return (f"learning (top-down): step {fields.get('step')} · threshold "
                f"{fields.get('thresh')} · vocab {fields.get('size'):,} "
                f"(target {fields.get('target'):,})")
    if event == "merge":
        done, total = fields.get("done", 0), fields.get("total") or 0
        rate = f" · {done / elapsed:,.0f} tokens/s" if elapsed > 0 else ""
        return (f"learning (bottom-up): {done:,}/{total:,} tokens"
                + (f" ({done / total:.0%})" if total else "") + rate)
    return event + ": " + " · ".join(f"{k} {v}" for k, v in fields.items())


def _size(n: float) -> str:
    for unit in ("B", "kB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n:.1f} TB"


def _isatty(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
