"""The playground page in a real browser: headless Chromium (Debian's) driven by Selenium.

``wordpieces serve`` runs as a user would start it, on a free loopback port; the page's
pieces, colours and ids are checked against ``Tokenizer.encode``, a clicked word's trace
against ``tools.explain``, then switching tokenizers, the side-by-side view, the
vocabulary panel, a 390 px window and the Tab order. Screenshots go to
``$WORDPIECES_SCREENSHOTS`` (default: a temporary folder, named in the output).

Not handled here: other browsers; the API's error answers (tests/unit/tools/test_playground.py).
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from tests.cli.test_serve import beside_shared_bert, serving
from tests.shared_data import shared_path
from wordpieces.tokenizer import Tokenizer
from wordpieces.tools.explain import explain
from wordpieces.tools.playground.api import toy_vocabulary

pytestmark = pytest.mark.browser

TOY_PLUS = toy_vocabulary() + ["run", "##ning", "##n", "the", "was", "bad"]
# The page's colours (style.css), as the browser reports computed backgrounds.
COLOURS = {"start": "rgb(245, 176, 65)", "continuation": "rgb(93, 173, 226)",
           "special": "rgb(213, 216, 220)", "unk": "rgb(231, 76, 60)"}
SENTENCES = ["The player was playing", "Players played badly, running!", "playfully unplayed"]


def kind(token: str, special: int) -> str:
    """The kind the page must show for a token of an encoding."""
    if token == "[UNK]":
        return "unk"
    return "special" if special else "continuation" if token.startswith("##") else "start"


# ---------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def toy_url(tmp_path_factory):
    """The playground with the toy vocabulary and a larger teaching one (toy-plus)."""
    folder = tmp_path_factory.mktemp("vocabs")
    (folder / "toy.vocab.txt").write_text("\n".join(toy_vocabulary()) + "\n")
    (folder / "toy-plus.vocab.txt").write_text("\n".join(TOY_PLUS) + "\n")
    with serving("-t", "toy.vocab.txt", "-t", "toy-plus.vocab.txt", cwd=folder) as (_, url):
        yield url + "/"


@pytest.fixture(scope="module")
def screenshots(tmp_path_factory) -> Path:
    folder = Path(os.environ.get("WORDPIECES_SCREENSHOTS")
                  or tmp_path_factory.mktemp("screenshots"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="module")
def driver():
    """Headless Chromium from Debian (chromium + chromium-driver), never a downloaded one."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    chromedriver = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    browser = shutil.which("chromium") or "/usr/bin/chromium"
    if not (os.path.exists(chromedriver) and os.path.exists(browser)):
        pytest.fail("needs Debian's chromium and chromium-driver: scripts/test-browser "
                    "installs them")
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--window-size=1100,900", "--force-device-scale-factor=1"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})  # failed loads: favicon
    chrome = webdriver.Chrome(options=options, service=Service(executable_path=chromedriver))
    yield chrome
    chrome.quit()


@pytest.fixture
def page(driver, toy_url):
    """The page freshly loaded, a normal window, its first answer drawn."""
    driver.set_window_size(1100, 900)
    driver.get(toy_url)
    wait_for(driver, lambda: pane(driver, "pane-main").get_attribute("data-text") is not None)
    return driver


# ---------------------------------------------------------------- reading the page


def wait_for(driver, condition, timeout: float = 10.0):
    """Poll ``condition`` until it is truthy (then return it) or fail after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"the page did not get there in {timeout} s")
        time.sleep(0.05)


def pane(driver, pane_id: str):
    from selenium.webdriver.common.by import By

    return driver.find_element(By.ID, pane_id)


def settled(driver) -> bool:
    """No keystroke is waiting for its answer (the panes' aria-busy is not on)."""
    return pane(driver, "panes").get_attribute("aria-busy") != "true"


def type_text(driver, text: str, pane_id: str = "pane-main") -> None:
    """Replace the text box's content by typing, and wait for the pieces of ``text``.

    Waiting for the pieces alone is not enough when ``text`` is already shown (the page's
    own starting text): an answer to a keystroke in between may still redraw them.
    """
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    box = driver.find_element(By.ID, "text")
    box.send_keys(Keys.CONTROL, "a")
    box.send_keys(Keys.DELETE)
    box.send_keys(text)
    wait_for(driver, lambda: settled(driver)
             and pane(driver, pane_id).get_attribute("data-text") == text)


def paste_text(driver, text: str) -> None:
    """Put ``text`` in the box at once, as a paste does (typing thousands of characters
    takes minutes), and wait until the page has answered it."""
    driver.execute_script("""
        const box = document.getElementById('text');
        box.value = arguments[0];
        box.dispatchEvent(new Event('input'));""", text)
    wait_for(driver, lambda: settled(driver)
             and (pane(driver, "pane-main").get_attribute("data-text") == text
                  or pane(driver, "error").is_displayed()))


def rendered(driver, pane_id: str = "pane-main") -> list[dict]:
    """The pieces a pane shows: token, id, kind, offsets and background colour."""
    return driver.execute_script("""
        return Array.from(document.querySelectorAll(`#${arguments[0]} .piece`)).map((b) => ({
          token: b.querySelector('.token').textContent,
          id: Number(b.querySelector('.id').textContent),
          kind: b.dataset.kind, start: Number(b.dataset.start), end: Number(b.dataset.end),
          colour: getComputedStyle(b).backgroundColor}));""", pane_id)


def select(driver, select_id: str, name: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    Select(driver.find_element(By.ID, select_id)).select_by_value(name)


def toy(vocab=None) -> Tokenizer:
    return Tokenizer.from_vocab(vocab or toy_vocabulary())


# ---------------------------------------------------------------- tests


@pytest.mark.parametrize("text", SENTENCES)
def test_typed_pieces_colours_and_ids_are_encodes(page, text):
    type_text(page, text)
    enc = toy().encode(text)
    shown = rendered(page)
    assert [p["token"] for p in shown] == enc.tokens
    assert [p["id"] for p in shown] == enc.ids
    assert [(p["start"], p["end"]) for p in shown] == enc.offsets
    kinds = [kind(t, s) for t, s in zip(enc.tokens, enc.special_tokens_mask, strict=True)]
    assert [p["kind"] for p in shown] == kinds
    assert [p["colour"] for p in shown] == [COLOURS[k] for k in kinds]


def test_every_kind_has_its_own_colour(page):
    type_text(page, "Players running")
    assert {p["kind"] for p in rendered(page)} == set(COLOURS)
    assert len(set(COLOURS.values())) == 4


def test_hovering_a_piece_marks_its_source_characters(page, screenshots):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    text = "The players were playing"
    type_text(page, text)
    buttons = page.find_elements(By.CSS_SELECTOR, "#pane-main .piece")
    for button in buttons[1:-1]:
        ActionChains(page).move_to_element(button).perform()
        start, end = int(button.get_attribute("data-start")), int(button.get_attribute("data-end"))
        mark = wait_for(page, lambda: page.find_elements(By.CSS_SELECTOR, "#source mark"))
        assert mark[0].text == text[start:end]
    page.save_screenshot(str(screenshots / "playground-hover.png"))


def test_clicking_a_word_shows_the_explain_trace(page, screenshots):
    from selenium.webdriver.common.by import By

    text = "The player was playing"
    type_text(page, text)
    page.find_elements(By.CSS_SELECTOR, "#pane-main .piece.continuation")[0].click()
    body = page.find_element(By.ID, "trace-body")
    wait_for(page, lambda: body.get_attribute("data-word") == "playing")
    trace = next(t for t in explain(toy(), text) if t.original == "playing")
    shown = [[(a.get_attribute("data-candidate"), a.get_attribute("data-found") == "true")
              for a in li.find_elements(By.CSS_SELECTOR, ".attempt")]
             for li in body.find_elements(By.CSS_SELECTOR, "li.position")]
    assert shown == [[(a.candidate, a.found) for a in p.attempts] for p in trace.positions]
    page.save_screenshot(str(screenshots / "playground-trace.png"))


def test_clicking_an_unknown_word_says_why(page):
    from selenium.webdriver.common.by import By

    type_text(page, "running")
    page.find_element(By.CSS_SELECTOR, "#pane-main .piece.unk").click()
    body = page.find_element(By.ID, "trace-body")
    wait_for(page, lambda: body.get_attribute("data-word") == "running")
    reason = explain(toy(), "running")[0].unk_reason
    assert body.find_element(By.CSS_SELECTOR, ".why-unk").text == f"why [UNK]: {reason}"


def test_switching_tokenizer_redraws_with_the_other_vocabulary(page):
    type_text(page, "running")
    select(page, "tokenizer", "toy-plus")
    wait_for(page, lambda: pane(page, "pane-main").get_attribute("data-tokenizer") == "toy-plus")
    assert [p["token"] for p in rendered(page)] == toy(TOY_PLUS).encode("running").tokens
    assert [p["token"] for p in rendered(page)][1:-1] == ["run", "##ning"]


def test_side_by_side_shows_both_with_token_counts(page, screenshots):
    from selenium.webdriver.common.by import By

    text = "The player was running badly"
    type_text(page, text)
    page.find_element(By.ID, "side-by-side").click()
    select(page, "other-tokenizer", "toy-plus")
    other = pane(page, "pane-other")
    wait_for(page, lambda: other.is_displayed()
             and other.get_attribute("data-tokenizer") == "toy-plus")
    left, right = toy().encode(text), toy(TOY_PLUS).encode(text)
    assert [p["token"] for p in rendered(page, "pane-other")] == right.tokens
    assert [p["id"] for p in rendered(page, "pane-main")] == left.ids
    titles = [e.text for e in page.find_elements(By.CSS_SELECTOR, ".pane-title")]
    assert titles == [f"toy: {len(left.ids)} tokens", f"toy-plus: {len(right.ids)} tokens"]
    page.save_screenshot(str(screenshots / "playground-side-by-side.png"))


def test_vocabulary_panel_gives_size_share_and_many_piece_words(page):
    from selenium.webdriver.common.by import By

    type_text(page, "playerss playings")  # player ##s ##s; play ##ing ##s
    select(page, "tokenizer", "toy")
    panel = page.find_element(By.ID, "vocab-body")
    wait_for(page, lambda: "12 tokens" in panel.text)
    assert "71.4% (5 of 7 pieces)" in panel.text  # 5 ## pieces of 7 non-special entries
    assert "player ##ing ##ed ##er ##ly play ##s" in " ".join(panel.text.split())
    type_text(page, "playingsss")  # play ##ing ##s ##s ##s: 5 pieces
    wait_for(page, lambda: "playingsss (5)" in panel.text)


def test_phone_width_has_no_horizontal_scroll(page, screenshots):
    page.set_window_size(390, 844)
    width = page.execute_script("return window.innerWidth")
    assert width <= 390
    type_text(page, "The players were playing " * 6 + "playerplayerplayerplayerplayerplayer")
    page.find_element("id", "side-by-side").click()
    wait_for(page, lambda: pane(page, "pane-other").is_displayed())
    scroll, client = page.execute_script(
        "return [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    assert scroll <= client
    page.save_screenshot(str(screenshots / "playground-390px.png"))


def test_every_control_is_reachable_with_tab(page):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    page.find_element(By.ID, "side-by-side").click()  # enables the second selector
    wait_for(page, lambda: pane(page, "pane-other").is_displayed())
    page.execute_script("document.activeElement.blur(); window.focus();")
    reached = set()
    for _ in range(40):
        page.switch_to.active_element.send_keys(Keys.TAB)
        reached.add(page.execute_script(
            "const e = document.activeElement; return e.id || e.className;"))
    assert {"text", "tokenizer", "side-by-side", "other-tokenizer"} <= reached
    assert any(name.startswith("piece ") for name in reached)


def test_enter_on_a_focused_piece_traces_its_word(page):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    type_text(page, "played")
    button = page.find_elements(By.CSS_SELECTOR, "#pane-main .piece")[2]  # ##ed
    button.send_keys(Keys.ENTER)
    body = page.find_element(By.ID, "trace-body")
    wait_for(page, lambda: body.get_attribute("data-word") == "played")


@pytest.mark.shared_data
def test_readme_screenshot_toy_beside_bert(tmp_path, driver, screenshots):
    """The default serve (toy + ../shared's BERT uncased), as the README shows it."""
    from selenium.webdriver.common.by import By

    with serving(cwd=beside_shared_bert(tmp_path)) as (_, url):
        driver.set_window_size(1000, 1100)
        driver.get(url)
        wait_for(driver, lambda: pane(driver, "pane-main").get_attribute("data-text"))
        text = "The players were playing unaffable games"
        select(driver, "tokenizer", "toy")  # the page starts with BERT; the picture has both
        type_text(driver, text)
        driver.find_element(By.ID, "side-by-side").click()
        select(driver, "other-tokenizer", "bert-base-uncased")
        wait_for(driver, lambda: pane(driver, "pane-other").get_attribute("data-tokenizer")
                 == "bert-base-uncased")
        bert = Tokenizer.from_vocab(shared_path("vocab", "bert-base-uncased.vocab.txt"))
        assert [p["id"] for p in rendered(driver, "pane-other")] == bert.encode(text).ids
        driver.find_element(By.CSS_SELECTOR, "#pane-main .piece.continuation").click()
        wait_for(driver, lambda: driver.find_element(By.ID, "trace-body")
                 .get_attribute("data-word") == "players")
        driver.save_screenshot(str(screenshots / "playground.png"))


# ---------------------------------------------------------------- as a newcomer meets it


def test_a_trace_is_cleared_when_the_text_changes(page):
    """A trace belongs to the text it was made for: typing on removes it."""
    from selenium.webdriver.common.by import By

    type_text(page, "The player was playing")
    page.find_elements(By.CSS_SELECTOR, "#pane-main .piece.continuation")[0].click()
    body = page.find_element(By.ID, "trace-body")
    wait_for(page, lambda: body.get_attribute("data-word") == "playing")
    type_text(page, "The player was playing badly")
    assert body.text == "" and body.get_attribute("data-word") == ""
    assert not page.find_elements(By.CSS_SELECTOR, ".piece.selected")


def long_text() -> str:
    """About 4,900 characters in paragraphs and lines, as the issue's long text."""
    line = "The player was playing, the players were running"
    paragraph = "\n".join([line] * 4)
    return "\n\n".join([paragraph] * 25)


def rows_of_pieces(driver) -> list[dict]:
    """Each piece's source start and where it sits in its box (left edge, row top)."""
    return driver.execute_script("""
        const box = document.querySelector('#pane-main .pieces').getBoundingClientRect();
        return Array.from(document.querySelectorAll('#pane-main .piece')).map((b) => {
          const r = b.getBoundingClientRect();
          return {start: Number(b.dataset.start), end: Number(b.dataset.end),
                  kind: b.dataset.kind, left: Math.round(r.left - box.left),
                  top: Math.round(r.top + b.parentNode.scrollTop)};
        });""")


def test_long_text_keeps_its_line_breaks_and_is_not_repeated_above(page, screenshots):
    """4,900 characters made a 7,773 px page: the whole text again above the pieces, its
    lines run together. Now each line of the text starts a row of pieces, the pieces scroll
    in their pane, and the source box shows only the hovered piece's line."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    text = long_text()
    assert 4800 < len(text) < 5000
    paste_text(page, text)
    assert page.find_element(By.ID, "source").text == ""  # the text box shows the text
    height = page.execute_script("return document.documentElement.scrollHeight")
    assert height <= 2 * page.execute_script("return window.innerHeight"), height
    shown = rows_of_pieces(page)
    first_left = shown[0]["left"]  # [CLS], at the start of the first row
    pieces = [p for p in shown if p["end"] > p["start"]]
    starts_a_line = [p for p in pieces if p["start"] > 0 and text[p["start"] - 1] == "\n"]
    assert len(starts_a_line) == text.count("\n") - text.count("\n\n")
    for before, piece in zip(pieces, pieces[1:], strict=False):
        if piece in starts_a_line:
            assert piece["left"] == first_left and piece["top"] > before["top"], piece
    gaps = page.find_elements(By.CSS_SELECTOR, "#pane-main .line-break.paragraph")
    assert len(gaps) == text.count("\n\n")
    button = page.find_elements(By.CSS_SELECTOR, "#pane-main .piece")[40]
    ActionChains(page).move_to_element(button).perform()
    mark = wait_for(page, lambda: page.find_elements(By.CSS_SELECTOR, "#source mark"))
    start, end = int(button.get_attribute("data-start")), int(button.get_attribute("data-end"))
    assert mark[0].text == text[start:end]
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    assert page.find_element(By.ID, "source").text == text[line_start:line_end]
    page.save_screenshot(str(screenshots / "playground-long-text.png"))


def test_an_over_limit_error_leaves_no_old_pieces(page):
    from selenium.webdriver.common.by import By

    type_text(page, "played")
    paste_text(page, "play " * 1001)  # 5,005 characters
    error = page.find_element(By.ID, "error")
    assert error.is_displayed() and "over the limit of 5000" in error.text
    assert not page.find_elements(By.CSS_SELECTOR, ".pieces .piece")
    assert page.find_element(By.CSS_SELECTOR, "#pane-main .pane-title").text == ""
    type_text(page, "played")  # and the page recovers
    assert not error.is_displayed() and len(rendered(page)) == 4


def test_the_page_has_an_icon_and_no_failed_load(driver, toy_url):
    """The browser asks for an icon unprompted: it was a 404 in the console."""
    driver.get_log("browser")  # what earlier pages logged
    driver.get(toy_url)
    wait_for(driver, lambda: settled(driver))
    status = driver.execute_async_script(
        "fetch('/favicon.ico').then((r) => arguments[0](r.status))")
    assert status == 200
    deadline = time.monotonic() + 2  # the icon is fetched after the page has loaded
    logged = []
    while time.monotonic() < deadline:
        logged += driver.get_log("browser")
        time.sleep(0.2)
    failed = [entry["message"] for entry in logged if entry["level"] == "SEVERE"]
    assert failed == []


@pytest.mark.shared_data
def test_the_page_starts_with_bert_not_the_toy(tmp_path, driver):
    """With BERT loaded beside the toy, the starting text is BERT's pieces, not 2 [UNK] of 5."""
    from selenium.webdriver.common.by import By

    with serving(cwd=beside_shared_bert(tmp_path)) as (_, url):
        driver.get(url)
        wait_for(driver, lambda: settled(driver)
                 and pane(driver, "pane-main").get_attribute("data-text"))
        assert driver.find_element(By.ID, "tokenizer").get_attribute("value") == \
            "bert-base-uncased"
        assert driver.find_element(By.ID, "other-tokenizer").get_attribute("value") == "toy"
        text = driver.find_element(By.ID, "text").get_attribute("value")
        bert = Tokenizer.from_vocab(shared_path("vocab", "bert-base-uncased.vocab.txt"))
        assert [p["token"] for p in rendered(driver)] == bert.encode(text).tokens
        assert "[UNK]" not in bert.encode(text).tokens


@pytest.mark.shared_data
def test_a_padded_tokenizer_shows_the_text_s_pieces_and_what_truncation_cuts(
        tmp_path, driver, screenshots):
    """all-MiniLM-L6-v2's tokenizer.json pads to 128 and truncates at 128: ~117 [PAD] chips
    and a text cut at 128 before. Now its pieces are the vocabulary's, the note names what
    was left out, the pieces its truncation would cut are greyed, and its count beside the
    same vocabulary as a vocab.txt is the same."""
    from selenium.webdriver.common.by import By

    minilm = shared_path("vocab", "all-MiniLM-L6-v2.tokenizer.json")
    uncased = shared_path("vocab", "bert-base-uncased.vocab.txt")
    bert = Tokenizer.from_vocab(uncased)
    with serving("-t", str(minilm), "-t", str(uncased), cwd=tmp_path) as (_, url):
        driver.set_window_size(1100, 900)
        driver.get(url)
        wait_for(driver, lambda: settled(driver)
                 and pane(driver, "pane-main").get_attribute("data-text"))
        assert driver.find_element(By.ID, "tokenizer").get_attribute("value") == \
            "all-MiniLM-L6-v2"
        text = "The players were playing unaffable games"
        type_text(driver, text)
        assert [p["token"] for p in rendered(driver)] == bert.encode(text).tokens
        note = driver.find_element(By.CSS_SELECTOR, "#pane-main .pane-note")
        assert note.text == ("Shown without its padding (to 128 tokens) and truncation (at 128 "
                             "tokens). This text fits within its truncation.")
        long = " ".join(["The players were playing unaffable games."] * 20)
        count = len(bert.encode(long).ids)
        assert count > 128
        paste_text(driver, long)
        driver.find_element(By.ID, "side-by-side").click()
        wait_for(driver, lambda: settled(driver)
                 and pane(driver, "pane-other").get_attribute("data-tokenizer")
                 == "bert-base-uncased")
        cut = driver.find_elements(By.CSS_SELECTOR, "#pane-main .piece.cut")
        assert len(cut) == count - 128
        assert [b.get_attribute("data-token") for b in cut] == bert.encode(long).tokens[127:-1]
        assert note.text.endswith(f"Its truncation would cut the {count - 128} greyed pieces.")
        assert not driver.find_elements(By.CSS_SELECTOR, "#pane-other .piece.cut")
        titles = [e.text for e in driver.find_elements(By.CSS_SELECTOR, ".pane-title")]
        assert titles == [f"all-MiniLM-L6-v2: {count} tokens",
                          f"bert-base-uncased: {count} tokens"]
        assert "[PAD]" not in [p["token"] for p in rendered(driver)]
        driver.execute_script("""window.scrollTo(0, 0);  // the last pieces: the greyed ones
            document.querySelectorAll('.pieces').forEach((b) => {
              b.scrollTop = b.scrollHeight; });""")
        driver.save_screenshot(str(screenshots / "playground-padded.png"))
