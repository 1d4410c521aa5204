"""SIGKILL a real save of each multi-file output over an earlier one: never a mix.

For a tokenizer directory (``wordpieces export --format hf``, the CLI's ``tok.save``), a
bundle directory (``Bundle.save`` from Python), an ``encode --format npy`` pair, a
directory swapped in whole (``atomic_directory``, what the TensorFlow export uses) and,
where TensorFlow is installed, the real ``export --format tensorflow``, a
writer alternates between two versions of the output over the same target and is
killed at random moments (``RANDOM_KILLS_QUICK`` per output by default,
``RANDOM_KILLS_FULL`` in the slow run) and right after each rename of its commit. After
every kill, reading the output (``wp.load``, ``cli.npy.check_pair`` + numpy) gives
the old complete set or the new complete set (a set a killed commit kept aside is put
back by the reader, ``formats.journal``), and the files on disk are then that set;
never a mix, never an error. After the next complete run on the same target there is
no temporary file left.

The full run: ``scripts/test tests/robustness/test_kills.py -m slow`` (and
``scripts/test-tensorflow tests/robustness/test_kills.py`` for the export). The save path
is the same on both backends (only ``encode`` runs the backend), so this runs once.
"""

from __future__ import annotations

import random
import textwrap
from pathlib import Path

import pytest

from tests.robustness.killing import (
    RANDOM_KILLS_FULL,
    RANDOM_KILLS_QUICK,
    SEED,
    TEMPORARY,
    Scoreboard,
    cli,
    kill_after_renames,
    kill_at_random,
    leftovers,
    python,
    run,
    snapshot,
)
from wordpieces.cli.npy import check_pair, index_path
from wordpieces.errors import FormatError
from wordpieces.formats.export_tf import EXPORT_KIND
from wordpieces.formats.load import load
from wordpieces.formats.manifest import MANIFEST, read_manifest, verify_files
from wordpieces.formats.temporaries import remove_stale_temporaries


def _set_files(folder: Path) -> dict[str, bytes]:
    """``snapshot(folder)`` without what is inside a killed writer's temporary folder
    (the previous set it was keeping aside: the next run removes it)."""
    return {name: data for name, data in snapshot(folder).items()
            if not any(TEMPORARY.search(part) for part in Path(name).parts)}


def _vocab(path: Path, size: int, prefix: str) -> str:
    special = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    words = [f"{prefix}{i}" for i in range(size)] + [f"##{c}" for c in "abcdefgh"]
    path.write_text("".join(t + "\n" for t in special + words), encoding="utf-8")
    return str(path)


class Output:
    """One multi-file output: how to write each version, and how to read and list it."""

    name = ""
    versions: dict[str, dict[str, bytes]]  # each version's complete files (the fixture's)
    seconds: float  # how long an uninterrupted run takes

    def __init__(self, folder: Path):
        self.folder = folder

    def command(self, version: str) -> list[str]:
        raise NotImplementedError

    def read(self) -> None:
        raise NotImplementedError

    def on_disk(self) -> dict[str, bytes]:
        return _set_files(self.target)

    @property
    def target(self) -> Path:
        return self.folder / "out"

    def renames(self) -> int:
        """How many renames the commit of "new" over "old" makes: the previous set kept
        aside, the manifest, its files, the kept set dropped."""
        return len(self.versions["new"]) + 3


class TokenizerDirectory(Output):
    """``wordpieces export --format hf -o DIR``: tokenizer.json, vocab.txt, ... + manifest."""

    name = "tokenizer directory"

    def __init__(self, folder: Path):
        super().__init__(folder)
        self.sources = {"old": (_vocab(folder / "old.txt", 30000, "w"), "bert"),
                        "new": (_vocab(folder / "new.txt", 9000, "z"), "huggingface")}

    def command(self, version: str) -> list[str]:
        vocab, flavor = self.sources[version]
        return cli("export", "-t", vocab, "--flavor", flavor, "--format", "hf", "--quiet",
                   "-o", str(self.target))

    def read(self) -> None:
        load(self.target)


class BundleDirectory(Output):
    """``Bundle(...).save(DIR)`` from Python: two members, then one (a member dropped)."""

    name = "bundle directory"

    def __init__(self, folder: Path):
        super().__init__(folder)
        self.vocabs = {"old": _vocab(folder / "old.txt", 20000, "w"),
                       "new": _vocab(folder / "new.txt", 7000, "z")}

    def command(self, version: str) -> list[str]:
        members = "en=a, pt=b" if version == "old" else "en=b"
        script = textwrap.dedent(f"""
            import sys, wordpieces as wp
            a = wp.Tokenizer.from_vocab({self.vocabs["old"]!r}, flavor="huggingface")
            b = wp.Tokenizer.from_vocab({self.vocabs["new"]!r}, flavor="tensorflow")
            wp.Bundle({members}).save(sys.argv[1])
        """)
        return python("-c", script, str(self.target))

    def read(self) -> None:
        load(self.target)


class NpyPair(Output):
    """``wordpieces encode --format npy -o OUT.npy``: OUT.npy and OUT.idx.npy."""

    name = "npy pair"

    def __init__(self, folder: Path):
        super().__init__(folder)
        self.vocab = _vocab(folder / "vocab.txt", 3000, "w")
        self.corpora = {}
        for version, lines in (("old", 30000), ("new", 12000)):
            path = folder / f"{version}.txt"
            path.write_text("".join(f"w{i % 2999} w{i % 7} zz\n" for i in range(lines)))
            self.corpora[version] = str(path)

    @property
    def target(self) -> Path:
        return self.folder / "out" / "ids.npy"

    def command(self, version: str) -> list[str]:
        return cli("encode", "-t", self.vocab, self.corpora[version], "--format", "npy",
                   "--quiet", "-o", str(self.target))

    def read(self) -> None:
        numpy = pytest.importorskip("numpy")
        check_pair(str(self.target))
        ids, index = numpy.load(self.target), numpy.load(index_path(str(self.target)))
        assert index[-1] == len(ids)

    def on_disk(self) -> dict[str, bytes]:
        return snapshot(self.target.parent, [self.target.name,
                                             Path(index_path(str(self.target))).name])

class SwappedDirectory(Output):
    """``atomic_directory`` (the TensorFlow export's writer) with a SavedModel's layout."""

    name = "swapped directory"
    exchange = True  # False: the two-rename swap of systems without renameat2

    def command(self, version: str) -> list[str]:
        script = textwrap.dedent(f"""
            import os, sys
            from wordpieces.formats import atomic
            from wordpieces.formats.atomic import atomic_directory
            if not {self.exchange}:
                atomic.exchange = lambda first, second: False
            with atomic_directory(sys.argv[1], kind="tensorflow-export") as staging:
                os.makedirs(os.path.join(staging, "variables"))
                os.makedirs(os.path.join(staging, "assets"))
                for name in ("saved_model.pb", "variables/variables.data-00000-of-00001",
                             "variables/variables.index", "assets/vocab.txt"):
                    with open(os.path.join(staging, name), "w") as f:
                        f.write({version!r} * 200000)
        """)
        return python("-c", script, str(self.target))

    def read(self) -> None:
        from wordpieces.formats.atomic import read_file_set

        if read_file_set(self.target) is None:
            raise AssertionError(f"{self.target}: no manifest")

    def renames(self) -> int:
        return 1


class TensorflowExport(Output):
    """``wordpieces export --format tensorflow -o DIR``: the real SavedModel (needs TF).

    SavedModel bytes differ from run to run, so a version is told by its vocabulary
    asset and the list of files; wholeness by every file matching the export's manifest.
    """

    name = "tensorflow export"

    def __init__(self, folder: Path):
        super().__init__(folder)
        self.vocabs = {"old": _vocab(folder / "old.txt", 3000, "w"),
                       "new": _vocab(folder / "new.txt", 1000, "z")}

    def command(self, version: str) -> list[str]:
        return cli("export", "-t", self.vocabs[version], "--flavor", "tensorflow",
                   "--format", "tensorflow", "--quiet", "-o", str(self.target))

    def read(self) -> None:
        listed = read_manifest(str(self.target / MANIFEST))
        assert listed is not None and listed.kind == EXPORT_KIND
        verify_files(str(self.target), listed.files, MANIFEST, strict=True)

    def on_disk(self) -> dict[str, bytes]:
        files = snapshot(self.target)
        return {"names": "\n".join(sorted(files)).encode(),
                "vocab": files.get("assets/vocab.txt", b"")}

    def renames(self) -> int:
        return 1


OUTPUTS = [TokenizerDirectory, BundleDirectory, NpyPair, SwappedDirectory]


def _prepared(out: Output) -> Output:
    """``out`` with both versions written once (to know their files) and "old" in place."""
    versions = {}
    for version in ("new", "old"):
        run(out.command(version))
        versions[version] = out.on_disk()
    out.versions = versions
    out.seconds = run(out.command("old"))
    return out


@pytest.fixture(params=OUTPUTS, ids=lambda o: o.name.replace(" ", "-"))
def output(request, tmp_path):
    """Each multi-file output, prepared."""
    return _prepared(request.param(tmp_path))


@pytest.fixture
def tensorflow_export(tmp_path):
    pytest.importorskip("tensorflow_text")
    return _prepared(TensorflowExport(tmp_path))


def _record(board: Scoreboard, output) -> str:
    """Read the output (which may put a kept set back), then classify the files left."""
    try:
        output.read()
    except FormatError as e:
        failure: FormatError | None = e
    else:
        failure = None

    def read_again() -> None:
        if failure is not None:
            raise failure

    return board.record(read_again, output.on_disk(), FormatError)


def _random_kills(output, kills: int) -> Scoreboard:
    rng = random.Random(f"{SEED}-{output.name}")
    board = Scoreboard(output.versions)
    for attempt in range(kills):
        version = ("new", "old")[attempt % 2]
        kill_at_random(output.command(version), output.seconds, rng)
        _record(board, output)
        board.left_behind = max(board.left_behind, len(leftovers(_folder_of(output))))
    return board


def _folder_of(output) -> Path:
    """Where the output's temporaries go: its own folder, or beside an npy pair."""
    return output.target.parent if isinstance(output, NpyPair) else output.folder


def _check_next_run_cleans_up(output) -> None:
    run(output.command("new"))
    assert leftovers(_folder_of(output)) == []
    assert output.on_disk() == output.versions["new"]
    output.read()


def test_random_kills_leave_old_new_or_an_error(output):
    """RANDOM_KILLS_QUICK kills at random moments: never a mix; no leftovers after."""
    board = _random_kills(output, RANDOM_KILLS_QUICK)
    assert board.mixes == [], board.outcomes
    assert set(board.outcomes) <= {"old", "new"}, board.outcomes
    _check_next_run_cleans_up(output)


@pytest.mark.slow
def test_many_random_kills_leave_old_new_or_an_error(output):
    """RANDOM_KILLS_FULL kills at random moments: never a mix; no leftovers after."""
    board = _random_kills(output, RANDOM_KILLS_FULL)
    print(f"{output.name}: {RANDOM_KILLS_FULL} random kills: {dict(board.outcomes)}; "
          f"at most {board.left_behind} temporaries left by killed runs before a run "
          f"completed")
    assert board.mixes == [] and set(board.outcomes) <= {"old", "new"}, board.outcomes
    _check_next_run_cleans_up(output)


def test_kills_between_renames_leave_old_or_new_whole(output):
    """Old complete, then new killed right after each rename of its commit: the old or
    the new set, whole."""
    board = Scoreboard(output.versions)
    killed = 0
    for renames in range(1, output.renames() + 1):
        run(output.command("old"))
        killed += kill_after_renames(output.command("new"), renames)
        _record(board, output)
    print(f"{output.name}: {killed} kills between renames: {dict(board.outcomes)}")
    assert killed == output.renames()
    assert board.mixes == [] and set(board.outcomes) <= {"old", "new"}, board.outcomes
    _check_next_run_cleans_up(output)


def test_a_kill_after_the_manifest_rename_keeps_the_old_tokenizer(tmp_path):
    """The issue's case: killed with the new manifest in and old files beside it, the
    old tokenizer loads whole (it was kept aside) and is what the folder holds again."""
    out = TokenizerDirectory(tmp_path)
    run(out.command("old"))
    old = out.on_disk()
    assert kill_after_renames(out.command("new"), 2)  # the kept set, then the manifest
    assert load(out.target).vocab_size == 30000 + 5 + 8
    assert out.on_disk() == old


def test_a_directory_swap_cut_between_its_two_renames_is_undone(tmp_path):
    """Without an exchange rename: killed with the old directory moved aside, the next
    run in the folder puts it back before anything else."""
    out = SwappedDirectory(tmp_path)
    out.exchange = False
    run(out.command("old"))
    old = out.on_disk()
    assert kill_after_renames(out.command("new"), 1)  # moved aside, new not yet in
    assert not out.target.exists() and len(leftovers(tmp_path)) == 2  # .old and .tmp
    remove_stale_temporaries(str(tmp_path))
    assert out.on_disk() == old and leftovers(tmp_path) == []


@pytest.mark.tensorflow
def test_random_kills_of_a_tensorflow_export(tensorflow_export):
    """RANDOM_KILLS_QUICK kills of the real export: the old or new SavedModel, whole."""
    board = _random_kills(tensorflow_export, RANDOM_KILLS_QUICK)
    assert board.mixes == [] and set(board.outcomes) <= {"old", "new"}, board.outcomes
    _check_next_run_cleans_up(tensorflow_export)


@pytest.mark.slow
@pytest.mark.tensorflow
def test_many_random_kills_of_a_tensorflow_export(tensorflow_export):
    """RANDOM_KILLS_FULL kills of the real export, and one right at its swap."""
    board = _random_kills(tensorflow_export, RANDOM_KILLS_FULL)
    assert kill_after_renames(tensorflow_export.command("new"), 1)
    _record(board, tensorflow_export)
    print(f"tensorflow export: {RANDOM_KILLS_FULL} random kills + 1 at the swap: "
          f"{dict(board.outcomes)}")
    assert board.mixes == [] and set(board.outcomes) <= {"old", "new"}, board.outcomes
    _check_next_run_cleans_up(tensorflow_export)


def test_killed_single_file_outputs_leave_no_temporary_after_the_next_run(tmp_path):
    """The issue's 'encode -o' runs: kills leave temporaries; the next run removes them."""
    out = NpyPair(tmp_path)
    command = cli("encode", "-t", out.vocab, out.corpora["old"], "--quiet", "-o",
                  str(tmp_path / "out.ids"))
    seconds = run(command)
    rng = random.Random(f"{SEED}-single")
    for _ in range(RANDOM_KILLS_QUICK):
        kill_at_random(command, seconds, rng)
    run(command)
    assert leftovers(tmp_path) == []


def test_train_killed_right_after_tokenizer_json_keeps_the_old_tokenizer(tmp_path):
    """The issue's case: 'train -o tok' over an earlier tokenizer of another flavor and
    size, killed right after tokenizer.json is renamed: the old tokenizer loads whole."""
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("".join(f"word{i % 700} other{i % 300} tail\n" for i in range(5000)))

    def train(size: int, flavor: str) -> list[str]:
        return cli("train", str(corpus), "--vocab-size", str(size), "--flavor", flavor,
                   "--algorithm", "bottom-up", "--quiet", "-o", str(tmp_path / "tok"))

    run(train(400, "huggingface"))
    old = load(tmp_path / "tok").vocab_size
    # renames in order: the kept set, the manifest, special_tokens_map.json, tokenizer.json
    assert kill_after_renames(train(900, "bert"), 4)
    assert load(tmp_path / "tok").vocab_size == old
    run(train(900, "bert"))
    assert load(tmp_path / "tok").vocab_size != old and leftovers(tmp_path) == []
