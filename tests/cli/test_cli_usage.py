"""Usage errors name the subcommand; ``demo`` finds the shared data from where it is run;
library warnings show as the command's one-line messages.

An unknown option after a subcommand must print that subcommand's usage (argparse would
print the top-level one); ``demo`` looks in ``$WORDPIECES_SHARED``, then in ``../shared``
relative to the working directory (a checkout's root), never beside the installed package.
A tiny vocabulary written under a temporary ``shared/`` stands for the real one.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

# Each subcommand with its required arguments (never read: parsing fails first).
SUBCOMMANDS = {"demo": [], "count": ["c.txt", "-o", "c.tsv"], "train": ["-o", "tok"],
               "encode": ["-t", "v.txt"], "decode": ["-t", "v.txt"],
               "explain": ["-t", "v.txt"], "inspect": ["-t", "v.txt"],
               "export": ["-t", "v.txt", "--format", "hf", "-o", "out"],
               "bundle": ["en=v.txt", "-o", "b.zip"]}
TINY_VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "hello", ",", "world", "!"]


def run(*args, cwd=None, env_shared: str | None = None) -> subprocess.CompletedProcess:
    """Run ``python -m wordpieces ARGS`` with ``$WORDPIECES_SHARED`` as given (or unset)."""
    env = {k: v for k, v in os.environ.items() if k != "WORDPIECES_SHARED"}
    if env_shared is not None:
        env["WORDPIECES_SHARED"] = env_shared
    env["NO_COLOR"] = "1"
    return subprocess.run([sys.executable, "-m", "wordpieces", *args], capture_output=True,
                          text=True, cwd=cwd, env=env, timeout=300)


@pytest.mark.parametrize("command", SUBCOMMANDS)
def test_unknown_option_prints_the_subcommands_usage(command):
    """An unknown option is exit 2 with the subcommand's usage and its name in the error."""
    proc = run(command, *SUBCOMMANDS[command], "--no-such-option")
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"usage: wordpieces {command} ")
    assert proc.stderr.rstrip().splitlines()[-1] == (
        f"wordpieces {command}: error: unrecognized arguments: --no-such-option")


def test_unknown_option_before_any_subcommand_prints_the_top_level_usage():
    """Without a subcommand, the top-level usage is the right one."""
    proc = run("--no-such-option")
    assert proc.returncode == 2
    assert proc.stderr.startswith("usage: wordpieces [-h]")


def _fake_shared(root) -> str:
    vocab = root / "shared" / "vocab"
    vocab.mkdir(parents=True)
    (vocab / "bert-base-uncased.vocab.txt").write_text("\n".join(TINY_VOCAB) + "\n")
    return str(vocab / "bert-base-uncased.vocab.txt")


def test_demo_finds_shared_beside_the_working_directory(tmp_path):
    """Run from a checkout's root, demo uses ../shared relative to it."""
    expected = _fake_shared(tmp_path)
    (tmp_path / "checkout").mkdir()
    proc = run("demo", "-o", tmp_path / "demo", cwd=tmp_path / "checkout")  # -o: none kept in /tmp
    assert proc.returncode == 0, proc.stderr
    assert f"1. tokenizer: BERT's vocabulary {expected} " in proc.stdout
    assert "vocab_size=9" in proc.stdout


def test_demo_prefers_the_environment_variable(tmp_path):
    """$WORDPIECES_SHARED, when set, wins over ../shared."""
    (tmp_path / "a").mkdir()
    _fake_shared(tmp_path / "a")
    expected = _fake_shared(tmp_path / "b")
    (tmp_path / "a" / "checkout").mkdir()
    proc = run("demo", "-o", tmp_path / "demo", cwd=tmp_path / "a" / "checkout",
               env_shared=str(tmp_path / "b" / "shared"))
    assert proc.returncode == 0, proc.stderr
    assert f"BERT's vocabulary {expected} " in proc.stdout


def test_demo_without_shared_data_reads_the_shipped_vocabulary(tmp_path):
    """With no shared data anywhere it looks, demo reads the vocabulary the package ships."""
    (tmp_path / "checkout").mkdir()
    proc = run("demo", "-o", tmp_path / "demo", cwd=tmp_path / "checkout")
    assert proc.returncode == 0, proc.stderr
    assert "1. tokenizer: the demo vocabulary that ships with wordpieces" in proc.stdout


def test_library_warnings_are_one_line_naming_the_command(tmp_path):
    """A warning raised while a command runs (saving a bert-flavor tokenizer, which Hugging
    Face reads differently) is one 'wordpieces CMD: warning:' line; --quiet hides it."""
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("the cat sat on the mat\n" * 20, encoding="utf-8")
    train = ["train", str(corpus), "--vocab-size", "40", "--lower-thresh", "1",
             "--num-proc", "1"]
    proc = run(*train, "-o", str(tmp_path / "tok"))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.splitlines()
    assert lines and all(line.startswith("wordpieces train: warning: ") for line in lines)
    assert "flavor 'bert'" in proc.stderr and "UserWarning" not in proc.stderr
    quiet = run(*train, "-o", str(tmp_path / "tok2"), "--quiet")
    assert (quiet.returncode, quiet.stderr) == (0, "")
