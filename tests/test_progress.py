"""Progress reporters draw a bar, write JSON lines, or stay silent."""

import io
import json

import pytest

from wordpieces.progress import Progress, make_reporter


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_jsonl_throttles_but_keeps_the_last_event():
    """Same-kind events within the interval are withheld; the last one shows on close."""
    out = io.StringIO()
    with Progress("jsonl", stream=out, min_interval=60) as p:
        for done in range(1, 6):
            p("merge", done=done, total=5, token="x")
        p("count", done=1, total=None, words=3)
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [(r["event"], r.get("done")) for r in records] == [
        ("merge", 1), ("merge", 5), ("count", 1)]


def test_bar_redraws_one_line_and_ends_it():
    """The bar starts each draw with a carriage return and ends with a newline."""
    out = Terminal()
    with Progress("auto", stream=out, min_interval=0) as p:
        p("count", done=500_000, total=1_000_000, words=90_000)
        p("search", step=1, thresh=40, size=120, target=4000)
    text = out.getvalue()
    assert text.count("\r") == 2 and text.endswith("\n")
    assert "500.0 kB / 1.0 MB (50%)" in text and "threshold 40" in text


def test_auto_is_silent_when_not_a_terminal():
    """'auto' on a pipe or file shows nothing."""
    out = io.StringIO()
    with Progress("auto", stream=out) as p:
        p("count", done=1, total=2, words=1)
        p.summary("done")
    assert out.getvalue() == ""


def test_make_reporter_wraps_callables_and_names():
    """A callable receives events; None and False mean silent; bad names are refused."""
    seen = []
    with make_reporter(lambda event, **f: seen.append((event, f))) as p:
        p("merge", done=1)
    assert seen == [("merge", {"done": 1})]
    assert make_reporter(None).mode == make_reporter(False).mode == "none"
    with pytest.raises(ValueError, match="progress mode"):
        make_reporter("loud")


def test_update_and_summary_for_the_cli():
    """update() reports the stage with its total; summary() prints a final line."""
    out = io.StringIO()
    p = Progress("jsonl", stream=out, stage="encode", total=10, min_interval=0)
    p.update(done=4)
    p.summary("encoded 4 lines")
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    assert records[0]["event"] == "encode" and records[0]["total"] == 10
    assert records[-1] == {"event": "summary", "message": "encoded 4 lines",
                           "elapsed": records[-1]["elapsed"]}
