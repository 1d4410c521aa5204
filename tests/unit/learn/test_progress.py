"""Progress reporters draw a status line with rates and ETA, write JSON lines, or stay silent.

Every ``progress=`` of the package (``count_words``, ``train``, the learners) takes the same
values, read by ``make_reporter``: each value is tried at each entry point.
"""

import io
import json

import pytest

from wordpieces.learn.counting import count_words
from wordpieces.learn.learners.bottom_up import learn_bottom_up
from wordpieces.learn.learners.top_down import learn_top_down
from wordpieces.learn.progress import RATE_WINDOW, Progress, make_reporter
from wordpieces.learn.training import train

MB = 1_000_000


class Terminal(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self):
        return True


class Clock:
    """A monotonic clock the test moves by hand."""

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def bar(**options):
    """A bar reporter on a fake terminal with a fake clock; returns (progress, out, clock)."""
    out, clock = Terminal(), Clock()
    return Progress("bar", stream=out, clock=clock, **options), out, clock


def drawn(out) -> list[str]:
    """The successive states of the terminal line, escape codes removed."""
    return [s.replace("\x1b[K", "") for s in out.getvalue().split("\r") if s]


# ---------------------------------------------------------------- the bar


def test_bytes_line_shows_sizes_rates_counters_and_eta():
    """A CLI update in bytes shows MB done of total, MB/s, the counters, tokens/s and ETA."""
    p, out, clock = bar(stage="encode", total=45_600_000, unit="bytes")
    clock.now = 4.0
    p.update(done=12_300_000, lines=250_000, tokens=80_000)
    assert drawn(out) == ["encode: 12.3 MB / 45.6 MB (26%) · 3.1 MB/s · 250,000 lines · "
                          "20,000 tokens/s · ETA 0:11"]


def test_count_line_uses_the_events_unit():
    """A merge event counts tokens, not bytes: plain numbers with the unit's name."""
    p, out, clock = bar()
    clock.now = 10.0
    p("merge", done=1000, total=4000, token="##ing")
    assert drawn(out) == ["learning (bottom-up): 1,000 / 4,000 tokens (25%) · "
                          "100 tokens/s · ETA 0:30"]


def test_unit_field_overrides_the_default():
    """An event's own unit='B' shows sizes even for an event the reporter does not know."""
    p, out, clock = bar()
    clock.now = 2.0
    p("download", done=3 * MB, total=None, unit="B")
    assert drawn(out) == ["download: 3.0 MB · 1.5 MB/s"]


def test_unknown_total_shows_no_percent_or_eta():
    """Without a total (stdin, a text iterator) the line has amounts and rates only."""
    p, out, clock = bar()
    clock.now = 2.0
    p("count", done=5 * MB, total=None, words=800_000)
    assert drawn(out) == ["counting: 5.0 MB · 2.5 MB/s · 400,000 words/s"]


def test_no_rate_before_half_a_second():
    """A rate over a very short span is noise: the first update shows none and no ETA."""
    p, out, clock = bar(stage="encode", total=10 * MB)
    clock.now = 0.1
    p.update(done=MB, lines=10)
    assert drawn(out) == ["encode: 1.0 MB / 10.0 MB (10%) · 10 lines"]


def test_rate_follows_the_recent_window():
    """After a slowdown the rate and ETA reflect the last RATE_WINDOW seconds, not the mean."""
    p, out, clock = bar(stage="encode", total=20 * MB)
    window = int(RATE_WINDOW)
    for second in range(1, 2 * window + 1):
        clock.now = float(second)
        done = second * MB if second <= window else window * MB + (second - window) * MB // 10
        p.update(done=done)
    assert drawn(out)[-1] == "encode: 11.0 MB / 20.0 MB (55%) · 100.0 kB/s · ETA 1:30"


def test_redraws_at_most_ten_times_a_second():
    """A thousand updates within one second draw ten times, plus the final line."""
    p, out, clock = bar(stage="encode", total=1000)
    for ms in range(1000):
        clock.now = ms / 1000
        p.update(done=ms)
    p.close()
    assert out.getvalue().count("\r") == 11


def test_close_prints_a_final_summary_line():
    """Closing redraws the last state with average rates and the time taken, then a newline."""
    p, out, clock = bar(stage="encode", total=4 * MB)
    clock.now = 1.0
    p.update(done=3 * MB, lines=30)
    clock.now = 1.05
    p.update(done=4 * MB, lines=40)  # withheld by the throttle, shown by close()
    clock.now = 2.0
    p.close()
    assert out.getvalue().endswith("\n")
    assert drawn(out)[-1] == ("encode: 4.0 MB / 4.0 MB (100%) · 3.8 MB/s · 40 lines · "
                              "38 lines/s · done in 0:01\n")


def test_error_exit_says_stopped():
    """Leaving the ``with`` block by an exception ends the line with 'stopped after'."""
    p, out, clock = bar(stage="encode")
    with pytest.raises(KeyboardInterrupt), p:
        clock.now = 65.0
        p.update(done=MB)
        raise KeyboardInterrupt
    assert drawn(out)[-1].endswith("· stopped after 1:05\n")


def test_a_new_stage_ends_the_previous_line():
    """Counting then learning leaves the counting summary on its own line."""
    p, out, clock = bar()
    clock.now = 2.0
    p("count", done=2 * MB, total=2 * MB, words=100)
    clock.now = 3.0
    p("search", step=1, thresh=40, size=120, target=4000)
    lines = out.getvalue().split("\n")
    assert lines[0].endswith("counting: 2.0 MB / 2.0 MB (100%) · 1.0 MB/s · 100 words · "
                             "50 words/s · done in 0:02\x1b[K")
    assert lines[1] == ("\rlearning (top-down): step 1 · threshold 40 · vocab 120 "
                        "(target 4,000)\x1b[K")


@pytest.mark.parametrize("width, expected", [
    (80, "encode: 12.3 MB / 45.6 MB (26%) · 3.1 MB/s · 20,000 tokens/s · ETA 0:11"),
    (60, "encode: 12.3 MB / 45.6 MB (26%) · 3.1 MB/s · ETA 0:11"),
    (30, "encode: 12.3 MB / 45.6 MB (26"),
])
def test_narrow_terminal_drops_counts_then_rates(width, expected):
    """Counts go first, then the product's rate, then the byte rate; amounts and ETA stay."""
    p, out, clock = bar(stage="encode", total=45_600_000, width=width)
    clock.now = 4.0
    p.update(done=12_300_000, lines=250_000, tokens=80_000)
    assert drawn(out) == [expected]
    assert len(expected) < width


def test_auto_is_silent_when_not_a_terminal():
    """'auto' on a pipe or file shows nothing, summary included."""
    out = io.StringIO()
    with Progress("auto", stream=out) as p:
        p("count", done=1, total=2, words=1)
        p.summary("done")
    assert out.getvalue() == ""


def test_auto_draws_on_a_terminal():
    """'auto' on a terminal is the bar."""
    assert Progress("auto", stream=Terminal()).mode == "bar"


# ---------------------------------------------------------------- JSON lines


def test_jsonl_record_has_stage_rates_eta_and_counters():
    """Each JSON object holds stage, done, total, unit, rate, eta_seconds and counter rates."""
    out, clock = io.StringIO(), Clock()
    p = Progress("jsonl", stream=out, clock=clock, stage="encode", total=10 * MB)
    clock.now = 2.0
    p.update(done=4 * MB, lines=1000, tokens=9000)
    assert json.loads(out.getvalue()) == {
        "event": "encode", "stage": "encode", "done": 4 * MB, "total": 10 * MB, "unit": "B",
        "rate": 2 * MB, "eta_seconds": 3.0, "lines": 1000, "lines_rate": 500.0,
        "tokens": 9000, "tokens_rate": 4500.0, "elapsed": 2.0}


def test_jsonl_passes_other_fields_through():
    """Fields that are not measures (a search step, a merged token) are written as given."""
    out = io.StringIO()
    with Progress("jsonl", stream=out, min_interval=0, clock=Clock()) as p:
        p("search", step=2, thresh=40, size=120, target=4000)
    assert json.loads(out.getvalue()) == {"event": "search", "stage": "search", "step": 2,
                                          "thresh": 40, "size": 120, "target": 4000,
                                          "elapsed": 0.0}


def test_jsonl_throttles_but_keeps_the_last_event():
    """Same-kind events within the interval are withheld; the last one shows at the end."""
    out = io.StringIO()
    with Progress("jsonl", stream=out, min_interval=60) as p:
        for done in range(1, 6):
            p("merge", done=done, total=5, token="x")
        p("count", done=1, total=None, words=3)
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [(r["event"], r.get("done")) for r in records] == [
        ("merge", 1), ("merge", 5), ("count", 1)]


def test_update_and_summary_for_the_cli():
    """update() reports the stage with its total; summary() writes a final object."""
    out = io.StringIO()
    p = Progress("jsonl", stream=out, stage="encode", total=10, min_interval=0)
    p.update(done=4)
    p.summary("encoded 4 lines")
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    assert records[0]["event"] == "encode" and records[0]["total"] == 10
    assert records[-1] == {"event": "summary", "message": "encoded 4 lines",
                           "elapsed": records[-1]["elapsed"]}


def test_bar_summary_prints_the_message_after_the_line():
    """summary() in bar mode ends the status line, then prints the message on its own line."""
    p, out, clock = bar(stage="encode")
    clock.now = 1.0
    p.update(done=10)
    p.summary("encoded 4 lines")
    assert out.getvalue().endswith("done in 0:01\x1b[K\nencoded 4 lines\n")


# ---------------------------------------------------------------- make_reporter


def test_make_reporter_wraps_callables_and_names():
    """A callable receives events; None and False mean silent; bad names are refused."""
    seen = []
    with make_reporter(lambda event, **f: seen.append((event, f))) as p:
        p("merge", done=1)
    assert seen == [("merge", {"done": 1})]
    assert make_reporter(None).mode == make_reporter(False).mode == "none"
    with pytest.raises(ValueError, match="progress mode"):
        make_reporter("loud")


# ---------------------------------------------------------------- every entry point alike

COUNTS = {"the": 9, "cat": 4, "cats": 3, "sat": 2, "mat": 2}


def _count(progress):
    return count_words(iter(["the cat sat on the mat"] * 5), num_proc=1, progress=progress)


def _train(progress):
    return train(iter(["the cat sat on the mat"] * 5), vocab_size=40, lower_thresh=1,
                 num_proc=1, progress=progress)


def _top_down(progress):
    return learn_top_down(COUNTS, 30, ["[UNK]"], lower_thresh=1, progress=progress)


def _bottom_up(progress):
    return learn_bottom_up(COUNTS, 30, progress=progress)


ENTRY_POINTS = {"count_words": (_count, "count"), "train": (_train, "count"),
                "learn_top_down": (_top_down, "search"),
                "learn_bottom_up": (_bottom_up, "merge")}


@pytest.mark.parametrize("entry", ENTRY_POINTS)
@pytest.mark.parametrize("value", [None, False, "none", "auto"], ids=repr)
def test_quiet_values_print_nothing(entry, value, capsys):
    """None, False, "none" and "auto" off a terminal print nothing, at every entry point."""
    ENTRY_POINTS[entry][0](value)
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("entry", ENTRY_POINTS)
def test_jsonl_writes_the_entry_points_events(entry, capsys):
    """"jsonl" writes JSON lines holding the entry point's own event, everywhere."""
    function, event = ENTRY_POINTS[entry]
    function("jsonl")
    records = [json.loads(line) for line in capsys.readouterr().err.splitlines()]
    assert records and event in {r["event"] for r in records}


@pytest.mark.parametrize("entry", ENTRY_POINTS)
@pytest.mark.parametrize("value", [True, "bar"], ids=repr)
def test_bar_values_draw_a_finished_status_line(entry, value, capsys):
    """True and "bar" draw a status line that ends with its summary, everywhere."""
    ENTRY_POINTS[entry][0](value)
    err = capsys.readouterr().err
    assert err.startswith("\r") and "done in" in err and err.endswith("\n")


@pytest.mark.parametrize("entry", ENTRY_POINTS)
def test_a_callable_gets_the_events(entry):
    """A callable gets (event, **fields) calls, everywhere."""
    function, event = ENTRY_POINTS[entry]
    seen = []
    function(lambda name, **fields: seen.append(name))
    assert event in seen


@pytest.mark.parametrize("entry", ENTRY_POINTS)
@pytest.mark.parametrize("value", ["loud", 3], ids=repr)
def test_an_unknown_value_is_refused_naming_the_choices(entry, value):
    """Any other value is a ValueError naming the modes, at every entry point."""
    with pytest.raises(ValueError, match="auto, bar, jsonl, none"):
        ENTRY_POINTS[entry][0](value)
