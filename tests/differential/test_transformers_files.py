"""Files shared with ``transformers``: ``tok.save(dir)`` read by ``AutoTokenizer``, and
directories ``save_pretrained`` wrote read by ``wp.load``; the flavor warning on save.

"Same" means the same ``tok(...)`` dict (ids, type ids, masks) under padding and
truncation, on real lines of the shared corpora.
"""

from __future__ import annotations

import ast
import json
import warnings
from pathlib import Path

import pytest

from tests.hf_reference import sample_lines
from tests.shared_data import shared_path
from tests.transformers_reference import as_plain, hub_dir, quiet, transformers
from wordpieces.formats.load import load
from wordpieces.tokenizer import Tokenizer

pytestmark = pytest.mark.shared_data

UNCASED = ("vocab", "bert-base-uncased.vocab.txt")
CALLS = [dict(padding=True), dict(padding=True, truncation=True, max_length=24),
         dict(padding="max_length", max_length=48, truncation=True),
         dict(truncation=True, padding=True)]


@pytest.fixture(scope="module")
def lines():
    return sample_lines("english", 10, seed=3) + sample_lines("chinese", 4, seed=3)


def _auto(directory):
    with quiet():
        return transformers.AutoTokenizer.from_pretrained(str(directory))


def _assert_same_calls(ours, theirs, lines):
    long_text = " ".join(sample_lines("english", 80, seed=4))
    for options in CALLS:
        for args in ((lines,), (lines[:5], lines[5:10]), ([long_text, lines[0]],)):
            with quiet():
                expected = as_plain(theirs(*args, **options))
            if "truncation" in options and "max_length" not in options \
                    and ours.model_max_length is None:
                continue  # no limit on either side: nothing to compare
            assert as_plain(ours(*args, **options)) == expected, options


def _saved(tok, directory):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the huggingface flavor saves without a warning
        tok.save(directory)
    return directory


def test_saved_minilm_loads_in_transformers(tmp_path, lines):
    """A tokenizer loaded with from_file, saved: AutoTokenizer pads and truncates as ours."""
    ours = Tokenizer.from_file(shared_path("vocab", "all-MiniLM-L6-v2.tokenizer.json"))
    ours.model_max_length = 128
    theirs = _auto(_saved(ours, tmp_path / "saved"))
    assert theirs.model_max_length == 128 and theirs.pad_token == "[PAD]"
    _assert_same_calls(ours, theirs, lines)


@pytest.mark.parametrize("side", ["left", "right"])
def test_saved_from_vocab_loads_in_transformers(tmp_path, lines, side):
    """from_vocab (huggingface flavor) with sides and a maximum length, saved and reloaded."""
    ours = Tokenizer.from_vocab(shared_path(*UNCASED), flavor="huggingface")
    ours.model_max_length = 64
    ours.padding_side = ours.truncation_side = side
    theirs = _auto(_saved(ours, tmp_path / "saved"))
    assert (theirs.padding_side, theirs.truncation_side) == (side, side)
    assert theirs.all_special_tokens == ours.all_special_tokens
    _assert_same_calls(ours, theirs, lines)


def test_without_config_transformers_cannot_pad(tmp_path):
    """Why the config files are written: tokenizer.json alone leaves transformers no pad token.

    (The issue's report: ``padding=True`` raised after a save without them.)
    """
    ours = Tokenizer.from_vocab(shared_path(*UNCASED), flavor="huggingface")
    ours.save(tmp_path / "only.json")  # a .json path: tokenizer.json alone
    (tmp_path / "dir").mkdir()
    (tmp_path / "only.json").rename(tmp_path / "dir" / "tokenizer.json")
    theirs = _auto(tmp_path / "dir")
    assert theirs.pad_token is None
    assert _auto(_saved(ours, tmp_path / "full")).pad_token == "[PAD]"


def test_load_reads_save_pretrained(tmp_path, lines):
    """wp.load(dir) of transformers' save_pretrained gives the same calls and settings."""
    (tmp_path / "hub").mkdir()
    theirs = _auto(hub_dir(tmp_path / "hub"))
    theirs.padding_side = "left"
    with quiet():
        theirs.save_pretrained(str(tmp_path / "pretrained"))
    ours = load(tmp_path / "pretrained")
    assert (ours.model_max_length, ours.padding_side) == (512, "left")
    _assert_same_calls(ours, _auto(tmp_path / "pretrained"), lines)


def test_load_reads_a_slow_only_save(tmp_path, lines):
    """vocab.txt + tokenizer_config.json (no tokenizer.json): built as transformers converts it."""
    (tmp_path / "slow").mkdir()
    directory = hub_dir(tmp_path / "slow", {"vocab.txt": "bert-base-cased.vocab.txt"})
    config = {"do_lower_case": False, "model_max_length": 40, "tokenizer_class": "BertTokenizer",
              "unk_token": "[UNK]", "pad_token": "[PAD]", "cls_token": "[CLS]",
              "sep_token": "[SEP]", "mask_token": "[MASK]"}
    (directory / "tokenizer_config.json").write_text(json.dumps(config))
    ours = load(directory)
    assert ours.flavor == "huggingface" and ours.model_max_length == 40
    _assert_same_calls(ours, _auto(directory), lines)


def test_model_max_length_written_and_read(tmp_path):
    """model_max_length goes to tokenizer_config.json and comes back from it."""
    ours = Tokenizer.from_vocab(shared_path(*UNCASED), flavor="huggingface")
    ours.model_max_length = 77
    _saved(ours, tmp_path / "saved")
    config = json.loads((tmp_path / "saved" / "tokenizer_config.json").read_text())
    assert config["model_max_length"] == 77
    assert load(tmp_path / "saved").model_max_length == 77


def test_no_limit_value_reads_as_no_limit(tmp_path):
    """transformers' huge "no limit" model_max_length (as it saves it) reads as None."""
    directory = tmp_path / "nolimit"
    directory.mkdir()
    with quiet():
        theirs = transformers.BertTokenizerFast.from_pretrained(
            str(hub_dir(directory, {"vocab.txt": "bert-base-uncased.vocab.txt"})))
        theirs.save_pretrained(str(tmp_path / "saved"))
    saved = json.loads((tmp_path / "saved" / "tokenizer_config.json").read_text())
    assert saved["model_max_length"] >= 10**18
    assert load(tmp_path / "saved").model_max_length is None


# ---------------------------------------------------------------- flavors (issue 11, item 2)

FLAVOR_TEXT = "Fill the [MASK] in ΣΑΣ"


def test_bert_flavor_save_warns_and_names_the_differences(tmp_path):
    """from_vocab's default flavor 'bert': save warns, naming the sigma and [MASK] rules."""
    ours = Tokenizer.from_vocab(shared_path(*UNCASED))
    with pytest.warns(UserWarning, match="flavor 'bert'") as caught:
        ours.save(tmp_path / "bert")
    message = str(caught[0].message)
    assert "[MASK]" in message and "sigma" in message and "huggingface" in message
    extras = json.loads((tmp_path / "bert" / "wordpieces.json").read_text())
    assert extras["flavor"] == "bert"
    assert load(tmp_path / "bert").flavor == "bert"


def test_the_warning_is_true(tmp_path):
    """HF reading the bert-flavor save differs on the warned text; the huggingface flavor not."""
    bert = Tokenizer.from_vocab(shared_path(*UNCASED))
    hf_flavor = Tokenizer.from_vocab(shared_path(*UNCASED), flavor="huggingface")
    with pytest.warns(UserWarning):
        bert.save(tmp_path / "bert")
    _saved(hf_flavor, tmp_path / "hf")
    theirs_bert, theirs_hf = _auto(tmp_path / "bert"), _auto(tmp_path / "hf")
    assert bert(FLAVOR_TEXT)["input_ids"] != theirs_bert(FLAVOR_TEXT)["input_ids"]
    assert hf_flavor(FLAVOR_TEXT)["input_ids"] == theirs_hf(FLAVOR_TEXT)["input_ids"]


def test_tensorflow_flavor_names_its_differences(tmp_path):
    """The tensorflow flavor's warning names casefolding, whitespace and the byte limit."""
    ours = Tokenizer.from_vocab(shared_path(*UNCASED), flavor="tensorflow")
    differences = " ".join(ours.hf_differences())
    assert "NFKC_Casefold" in differences and "ASCII whitespace" in differences
    assert "UTF-8 bytes" in differences
    assert Tokenizer.from_vocab(shared_path(*UNCASED), flavor="huggingface").hf_differences() == []


# ---------------------------------------------------------------- the docs' examples

ROOT = Path(__file__).resolve().parents[2]
TRANSFORMERS_DOC = ROOT / "docs" / "transformers.md"
README = ROOT / "README.md"
SWAP = ('tok = AutoTokenizer.from_pretrained("minilm")',
        'import wordpieces as wp; tok = wp.load("minilm")')


def _python_block(path: Path, heading: str) -> str:
    """The first python block after ``heading`` in ``path``."""
    text = path.read_text(encoding="utf-8")
    assert heading in text, f"no {heading!r} section in {path}"
    section = text[text.index(heading):]
    assert "```python\n" in section, f"no python block under {heading!r} in {path}"
    start = section.index("```python\n") + 10
    return section[start:section.index("```\n", start)]


def _readme_example() -> str:
    """The python block of docs/transformers.md ("Coming from transformers")."""
    return _python_block(TRANSFORMERS_DOC, "# Coming from transformers")


def _run_example(source: str) -> tuple[list, dict]:
    """Run the example statement by statement: the values of its expressions (as data; not
    save_pretrained's list of files, which differs), and its variables."""
    namespace: dict = {}
    values = []
    for statement in ast.parse(source).body:
        if isinstance(statement, ast.Expr):
            code = compile(ast.Expression(statement.value), "README.md", "eval")
            value = eval(code, namespace)  # the README's own example, nothing else
            if "save_pretrained" not in ast.unparse(statement):
                values.append(as_plain(value) if hasattr(value, "keys") else value)
        else:
            exec(compile(ast.Module([statement], []), "README.md", "exec"), namespace)
    return values, namespace


def test_readme_example_gives_the_same_with_both_libraries(tmp_path, monkeypatch):
    """The README's example run with transformers, then with wp.load: the same values, and
    the values its comments claim ("..., both")."""
    torch = pytest.importorskip("torch", reason="the README example uses return_tensors='pt'")
    (tmp_path / "minilm").mkdir()
    hub_dir(tmp_path / "minilm")
    monkeypatch.chdir(tmp_path)
    source = _readme_example()
    assert SWAP[0] in source
    with quiet():
        theirs, _ = _run_example(source)
    ours, namespace = _run_example(source.replace(*SWAP))
    assert [str(v) for v in ours] == [str(v) for v in theirs]
    assert load(tmp_path / "out" / "minilm-copy") == namespace["tok"]
    claims = [line.split("#", 1) for line in source.splitlines()
              if line.rstrip().endswith(", both") and not line.startswith("#")]
    assert len(claims) == 5
    for code, comment in claims:
        expected = eval(comment.strip().removesuffix(", both"), {"torch": torch})
        assert eval(code, namespace) == expected, code


def _shown_values(source: str) -> list[tuple[str, str]]:
    """(expression, value shown) for each line of ``source`` that is an expression followed
    by a comment holding a Python literal (the value the docs claim it gives)."""
    shown = []
    for line in source.splitlines():
        code, _, comment = line.partition("#")
        try:
            ast.literal_eval(comment.strip())
            expression = ast.parse(code.strip(), mode="eval")
        except (SyntaxError, ValueError):
            continue
        shown.append((ast.unparse(expression), comment.strip()))
    return shown


def test_readme_quickstart_prints_what_it_shows(tmp_path, monkeypatch):
    """The README's quickstart runs in a clone beside ../shared with a hub-style minilm/
    folder; every value its comments show is the value it gives; the save loads back."""
    pytest.importorskip("numpy", reason="the quickstart uses return_tensors='np'")
    source = _python_block(README, "## Quickstart")
    (tmp_path / "shared").symlink_to(shared_path(), target_is_directory=True)
    clone = tmp_path / "clone"
    (clone / "minilm").mkdir(parents=True)
    hub_dir(clone / "minilm")
    monkeypatch.chdir(clone)
    shown = _shown_values(source)
    assert len(shown) >= 6, "the quickstart shows fewer values than it did"
    namespace: dict = {}
    checked = []
    with quiet():
        for statement in ast.parse(source).body:
            exec(compile(ast.Module([statement], []), "README.md", "exec"), namespace)
            code = ast.unparse(statement)
            for expression, value in shown:
                if code == expression:
                    assert eval(expression, namespace) == ast.literal_eval(value), expression
                    checked.append(expression)
    assert len(checked) == len(shown)
    assert load(clone / "my-tokenizer") == namespace["tok"]


def test_saved_tutorial_style_tokenizer_loads_in_transformers(tmp_path, lines):
    """A [START] $A [END] template and a learned vocabulary (the TF tutorial's shape), saved:
    AutoTokenizer gives the same calls; roles it has no token for stay None on both sides."""
    from wordpieces.learn.training import train

    ours = train(iter(lines * 3), vocab_size=2000, reserved_tokens=["[PAD]", "[UNK]", "[START]",
                                                             "[END]"], flavor="huggingface")
    assert ours(["a"])["input_ids"][0][0] == ours.token_to_id("[START]")
    theirs = _auto(_saved(ours, tmp_path / "saved"))
    assert (theirs.cls_token, theirs.pad_token) == (ours.cls_token, ours.pad_token) == (None,
                                                                                       "[PAD]")
    _assert_same_calls(ours, theirs, lines)
