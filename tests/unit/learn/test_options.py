"""The training options spec: one name and default per option in train(), CLI, saved file."""

import inspect
import json
import pathlib
import pickle
import re

import pytest

from wordpieces.cli import build_parser, main
from wordpieces.learn import counting, options, training
from wordpieces.learn.learners import learn_bottom_up, learn_top_down, learn_word_level
from wordpieces.learn.learners.merge_scores import SCORES
from wordpieces.learn.options import ALGORITHMS, OPTIONS, TRAIN_OPTIONS, resolve
from wordpieces.learn.training import train
from wordpieces.tokenizer import Tokenizer

DOCS = pathlib.Path(__file__).resolve().parents[3] / "docs"
LINES = ["the cat sat on the mat with another cat", "a dog sat on a log near the mat",
         "cats and dogs and mats and logs", "the quick brown fox jumps over the lazy dog"] * 6
LEARNERS = {"top-down": learn_top_down, "bottom-up": learn_bottom_up,
            "word-level": learn_word_level}


def corpus(tmp_path) -> str:
    path = tmp_path / "corpus.txt"
    path.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    return str(path)


def flat_help(command: str, capsys) -> str:
    with pytest.raises(SystemExit):
        build_parser().parse_args([command, "--help"])
    return " ".join(capsys.readouterr().out.split())


def test_train_signature_is_the_spec():
    """train()'s keyword options are the spec's, in its order, with its defaults."""
    params = list(inspect.signature(train).parameters.values())[1:]
    assert [p.name for p in params] == [o.name for o in TRAIN_OPTIONS]
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params)
    assert {p.name: p.default for p in params} == {o.name: o.default for o in TRAIN_OPTIONS}
    assert "| `lower_thresh` |" in train.__doc__  # help(train) lists every option


def test_cli_help_shows_every_option_with_the_python_default(capsys):
    """Each option's flags, help and default (train()'s, as the spec prints it) are in
    `train --help`; `count --help` has the normalizer and counting ones."""
    for command in ("train", "count"):
        text = flat_help(command, capsys)
        for option in TRAIN_OPTIONS:
            if command == "count" and (option.group not in ("normalizer", "counting")
                                       or option.name == "ignore_fingerprint"):
                assert option.flag not in text
                continue
            if not option.cli:
                assert option.name == "progress" and "--progress" in text
                continue
            assert all(flag in text for flag in option.flags), option.name
            shown = " ".join(f"{option.help} (".split())
            assert shown in text, option.name
            at = text.index(shown) + len(shown)
            assert re.match(r"[a-z -]*;? ?default: " + re.escape(option.shown_default()) + r"\)",
                            text[at:]), (option.name, text[at:at + 80])
    assert OPTIONS["vocab_size"].shown_default() == "30,000"  # train(vocab_size=30_000)


def test_cli_options_not_given_keep_python_defaults():
    """A flag not given leaves no value: train()'s own default applies."""
    args = build_parser().parse_args(["train", "x.txt", "-o", "out"])
    assert not any(hasattr(args, o.name) for o in TRAIN_OPTIONS if o.cli)


def test_learner_defaults_equal_the_spec():
    """The learners' own keyword defaults are the spec's (one default per option)."""
    for option in TRAIN_OPTIONS:
        if option.group not in options.LEARNER_GROUPS and option.name != "min_frequency":
            continue
        for algorithm in option.algorithms:
            param = inspect.signature(LEARNERS[algorithm]).parameters[option.name]
            default = option.default if option.default is not None else None
            assert param.default == default or (param.default == () == tuple(default)), (
                option.name, algorithm)
    assert options.SCORES == SCORES
    assert options.BLOCKSIZE == counting.DEFAULT_BLOCKSIZE
    count_params = inspect.signature(counting.count_words).parameters
    for name in ("engine", "scheduler", "num_proc", "blocksize", "checkpoint",
                 "max_distinct_words"):
        assert count_params[name].default == OPTIONS[name].default, name


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_saved_file_keeps_every_option_of_the_algorithm(algorithm, tmp_path):
    """wordpieces.json's "training" holds each saved option of the algorithm, by its name,
    with its default when not given; reloaded, it trains the same vocabulary again."""
    given = {"lower_thresh": 1} if algorithm == "top-down" else {"min_frequency": 1}
    tok = train(corpus(tmp_path), algorithm=algorithm, vocab_size=60, progress="none",
                num_proc=1, **given)
    tok.save(tmp_path / "tok")
    saved = json.loads((tmp_path / "tok" / "wordpieces.json").read_text())["training"]
    expected = [o.name for o in TRAIN_OPTIONS if o.saved and algorithm in o.algorithms]
    assert list(saved) == expected
    for name in expected:
        default = OPTIONS[name].default
        want = given.get(name, list(default) if isinstance(default, tuple) else default)
        assert saved[name] == ({"algorithm": algorithm, "vocab_size": 60}.get(name, want))
    loaded = Tokenizer.from_file(tmp_path / "tok")
    assert loaded.training_options == saved
    assert pickle.loads(pickle.dumps(tok)).training_options == saved
    again = train(corpus(tmp_path), progress="none", num_proc=1, **loaded.training_options)
    assert again.get_vocab() == tok.get_vocab()


def test_cli_and_python_learn_the_same_vocabulary(tmp_path):
    """The same options through `wordpieces train` and train() give the same files."""
    path = corpus(tmp_path)
    status = main(["train", path, "-o", str(tmp_path / "cli"), "-q", "--algorithm",
                   "bottom-up", "--vocab-size", "70", "--joiner", "@@", "--no-lowercase",
                   "--min-frequency", "2", "--reserved-tokens", "[UNK],[CLS],[SEP]",
                   "--num-proc", "1"])
    assert status == 0
    tok = train(path, algorithm="bottom-up", vocab_size=70, continuing_subword_prefix="@@",
                lowercase=False, min_frequency=2, special_tokens=["[UNK]", "[CLS]", "[SEP]"],
                progress="none", num_proc=1)
    tok.save(tmp_path / "py")
    for name in ("vocab.txt", "tokenizer.json", "wordpieces.json"):
        assert (tmp_path / "cli" / name).read_text() == (tmp_path / "py" / name).read_text()
    assert "@@" in "".join(tok.get_vocab())


def test_aliases_are_the_same_option(tmp_path):
    """joiner, reserved_tokens and --max-words name the same options; clashes are refused."""
    path = corpus(tmp_path)
    common = {"vocab_size": 60, "lower_thresh": 1, "progress": "none", "num_proc": 1}
    by_alias = train(path, joiner="@", reserved_tokens=["[UNK]", "[PAD]"], **common)
    by_name = train(path, continuing_subword_prefix="@", special_tokens=["[UNK]", "[PAD]"],
                    **common)
    assert by_alias.get_vocab() == by_name.get_vocab()
    assert by_alias.training_options == by_name.training_options
    assert "joiner" not in by_alias.training_options  # saved by the one name
    with pytest.raises(ValueError, match="joiner and continuing_subword_prefix are the same"):
        resolve({"continuing_subword_prefix": "##", "joiner": "@"})
    parse = build_parser().parse_args
    assert parse(["count", "x", "-o", "y", "--max-words", "5"]).max_distinct_words == 5
    assert parse(["train", "x", "-o", "y", "--joiner", "@"]).continuing_subword_prefix == "@"
    counts = {"b": 3, "a": 2, "c": 1}
    assert learn_word_level(counts, max_size=3) == learn_word_level(counts, vocab_size=3)
    assert learn_top_down(counts, 10, [], lower_thresh=1, joiner="@") == learn_top_down(
        counts, 10, [], lower_thresh=1, continuing_subword_prefix="@")


def test_aliases_are_documented(capsys):
    """Every alias is named in --help and in the docs' table."""
    text = flat_help("train", capsys)
    table = options.options_table()
    for option in TRAIN_OPTIONS:
        for alias in option.aliases:
            assert f"(alias {alias}" in text and f"(alias `{alias}`)" in table


def test_an_option_of_another_algorithm_is_refused_by_name(tmp_path):
    """Python: a ValueError naming the option and what the algorithm takes."""
    with pytest.raises(ValueError) as caught:
        train(iter(LINES), algorithm="bottom-up", lower_thresh=2, progress="none")
    assert str(caught.value).startswith(
        "lower_thresh is a top-down option; algorithm='bottom-up' takes: min_frequency, ")
    with pytest.raises(ValueError, match="refine is a bottom-up option; algorithm='word-le"):
        train(iter(LINES), algorithm="word-level", refine=True, progress="none")


def test_the_cli_refuses_it_in_one_line(tmp_path, capsys):
    """CLI: exit status 2 and one line naming the flag, before any counting."""
    status = main(["train", corpus(tmp_path), "-o", str(tmp_path / "out"), "--algorithm",
                   "bottom-up", "--lower-thresh", "2"])
    err = capsys.readouterr().err.strip()
    assert status == 2 and "\n" not in err
    assert err.startswith("wordpieces train: error: --lower-thresh applies to --algorithm "
                          "top-down, not bottom-up (which takes --min-frequency"), err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(("given", "message"), [
    ({"lower_tresh": 1}, "unknown training option lower_tresh (did you mean lower_thresh?)"),
    ({"vocab_size": "big"}, "vocab_size must be an integer, not 'big'"),
    ({"lowercase": "yes"}, "lowercase must be True or False, not 'yes'"),
    ({"score": "bleu"}, "score='bleu': expected one of count, likelihood, pmi"),
    ({"special_tokens": "[UNK]"}, "special_tokens must be a list of strings, not '[UNK]'"),
    ({"slack_ratio": -1.0}, "slack_ratio=-1.0: must be at least 0"),
])
def test_bad_values_name_the_option(given, message):
    """An unknown name or a value of the wrong type is an error naming the option."""
    with pytest.raises(ValueError) as caught:
        resolve({"algorithm": "bottom-up" if "score" in given else "top-down", **given})
    assert str(caught.value).startswith(message), caught.value


def test_train_hands_the_counting_pipeline_to_the_tokenizer(monkeypatch):
    """The tokenizer's normalizer and pre-tokenizer are the objects counting used."""
    seen = {}

    def recording(source, **kwargs):
        seen.update(kwargs)
        return counting.count_words(source, **kwargs)

    monkeypatch.setattr(training, "count_words", recording)
    tok = train(iter(LINES), vocab_size=60, lower_thresh=1, flavor="tensorflow",
                lowercase=False, progress="none", num_proc=1)
    assert tok.normalizer is seen["normalizer"]
    assert tok.pre_tokenizer is seen["pre_tokenizer"]
    assert tok.normalizer.lowercase is False


@pytest.mark.parametrize("flavor", ["bert", "huggingface", "tensorflow"])
def test_trained_tokenizer_equals_from_vocab(flavor):
    """Built from the counting pipeline, the tokenizer is the one from_vocab gives."""
    tok = train(iter(LINES), vocab_size=60, lower_thresh=1, flavor=flavor, strip_accents=False,
                progress="none", num_proc=1)
    rebuilt = Tokenizer.from_vocab(tok.get_vocab(with_added_tokens=False), flavor=flavor,
                                   strip_accents=False,
                                   special_tokens=tok.training_options["special_tokens"],
                                   reserved_tokens=tok.training_options["special_tokens"])
    assert tok.to_str() == rebuilt.to_str()
    assert tok == rebuilt  # the training options are provenance, not part of equality


def test_docs_table_is_the_spec():
    """docs/training.md holds the table options_table() prints (regenerate it from there)."""
    text = (DOCS / "training.md").read_text(encoding="utf-8")
    assert options.options_table() in text
