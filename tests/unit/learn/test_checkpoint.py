"""count_words(checkpoint=DIR): finished blocks are recorded, reused, and never mixed up.

The kills of a real run are in tests/robustness/test_checkpoint_kills.py; here a kill is
stood in for by removing recorded blocks, and every refusal is checked.
"""

import hashlib
import json
import os
import random
from collections import Counter

import pytest

from tests.shared_data import shared_path
from wordpieces.learn.checkpoint import INDEX, CheckpointMismatchError
from wordpieces.learn.counting import count_words
from wordpieces.pipeline.normalizers import BertNormalizer
from wordpieces.pipeline.pre_tokenizers import BertPreTokenizer

BLOCKSIZE = 4096


@pytest.fixture
def corpus(tmp_path):
    """Two files of made-up sentences with punctuation and accents, ~40 blocks in all."""
    rng = random.Random(7)
    words = ["Hello", "world", "café", "naïve", "co-op", "don't", "42", "ÉTÉ", "x", "über"]
    paths = []
    for name in ("a.txt", "b.txt"):
        lines = (" ".join(rng.choice(words) + rng.choice(["", ",", "!", "."])
                          for _ in range(rng.randint(1, 12))) for _ in range(4000))
        path = tmp_path / name
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths.append(str(path))
    return paths


def recorded_blocks(folder):
    return sorted(name for name in os.listdir(folder) if name.startswith("block-"))


def test_checkpointed_count_equals_plain_count(corpus, tmp_path):
    """A first run with a checkpoint gives the counts a run without one gives."""
    plain = count_words(corpus, num_proc=1, blocksize=BLOCKSIZE)
    checked = count_words(corpus, num_proc=1, blocksize=BLOCKSIZE, checkpoint=tmp_path / "ck")
    assert checked == plain


def test_every_block_is_recorded(corpus, tmp_path):
    """One block file per block of the plan (sizes over BLOCKSIZE, rounded up)."""
    count_words(corpus, num_proc=1, blocksize=BLOCKSIZE, checkpoint=tmp_path / "ck")
    expected = sum(-(-os.path.getsize(p) // BLOCKSIZE) for p in corpus)
    assert len(recorded_blocks(tmp_path / "ck")) == expected


@pytest.mark.parametrize("num_proc", [1, 2])
def test_resume_after_lost_blocks_equals_uninterrupted(corpus, tmp_path, num_proc):
    """With some recorded blocks gone (a kill before them), a re-run gives the same counts."""
    folder = tmp_path / "ck"
    plain = count_words(corpus, num_proc=1, blocksize=BLOCKSIZE)
    count_words(corpus, num_proc=num_proc, blocksize=BLOCKSIZE, checkpoint=folder)
    blocks = recorded_blocks(folder)
    for name in random.Random(num_proc).sample(blocks, len(blocks) // 2):
        os.remove(folder / name)
    resumed = count_words(corpus, num_proc=num_proc, blocksize=BLOCKSIZE, checkpoint=folder)
    assert resumed == plain
    assert recorded_blocks(folder) == blocks


def _edit_first_count(path, *, checksum: bool) -> str:
    """Add 1000 to the first count of a block file (its checksum updated if ``checksum``)."""
    header, *lines = path.read_text(encoding="utf-8").splitlines()
    word, count = lines[0].split("\t")
    lines[0] = f"{word}\t{int(count) + 1000}"
    body = "".join(line + "\n" for line in lines)
    if checksum:
        fields = json.loads(header)
        fields["sha256"] = hashlib.sha256(body.encode("utf-8")).hexdigest()
        header = json.dumps(fields)
    path.write_text(header + "\n" + body, encoding="utf-8")
    return word


def test_recorded_blocks_are_read_not_recounted(corpus, tmp_path):
    """A re-run takes a block's counts from its file: an edited count shows in the result."""
    folder = tmp_path / "ck"
    plain = count_words(corpus, num_proc=1, blocksize=BLOCKSIZE, checkpoint=folder)
    word = _edit_first_count(folder / "block-000000.tsv", checksum=True)
    again = count_words(corpus, num_proc=1, blocksize=BLOCKSIZE, checkpoint=folder)
    assert again[word] == plain[word] + 1000


def test_a_block_edited_without_its_checksum_is_refused(corpus, tmp_path):
    """A changed count with the old checksum: refused, naming the block file."""
    folder = tmp_path / "ck"
    count_words(corpus, num_proc=1, blocksize=BLOCKSIZE, checkpoint=folder)
    _edit_first_count(folder / "block-000000.tsv", checksum=False)
    with pytest.raises(CheckpointMismatchError,
                       match=r"block-000000\.tsv: its lines do not match the checksum"):
        count_words(corpus, num_proc=1, blocksize=BLOCKSIZE, checkpoint=folder)


def test_changed_file_is_refused(corpus, tmp_path):
    """A file that grew since the checkpoint was made is refused, naming it."""
    folder = tmp_path / "ck"
    count_words(corpus, num_proc=1, blocksize=BLOCKSIZE, checkpoint=folder)
    with open(corpus[1], "a", encoding="utf-8") as f:
        f.write("more words\n")
    with pytest.raises(CheckpointMismatchError, match=r"b\.txt changed \(size"):
        count_words(corpus, num_proc=1, blocksize=BLOCKSIZE, checkpoint=folder)


def test_other_files_are_refused(corpus, tmp_path):
    """A checkpoint made for a.txt alone is refused for a.txt + b.txt."""
    folder = tmp_path / "ck"
    count_words(corpus[:1], num_proc=1, blocksize=BLOCKSIZE, checkpoint=folder)
    with pytest.raises(CheckpointMismatchError, match=r"other files: .*b\.txt was not"):
        count_words(corpus, num_proc=1, blocksize=BLOCKSIZE, checkpoint=folder)


def test_other_blocksize_is_refused(corpus, tmp_path):
    folder = tmp_path / "ck"
    count_words(corpus, num_proc=1, blocksize=BLOCKSIZE, checkpoint=folder)
    with pytest.raises(CheckpointMismatchError, match="blocksize 4096, this run has 8192"):
        count_words(corpus, num_proc=1, blocksize=2 * BLOCKSIZE, checkpoint=folder)


def test_other_pipeline_is_refused(corpus, tmp_path):
    """Counts split another way (cased) never resume a lowercased count."""
    folder = tmp_path / "ck"
    count_words(corpus, num_proc=1, blocksize=BLOCKSIZE, checkpoint=folder)
    with pytest.raises(CheckpointMismatchError, match="pipeline"):
        count_words(corpus, normalizer=BertNormalizer(lowercase=False),
                    pre_tokenizer=BertPreTokenizer(), num_proc=1, blocksize=BLOCKSIZE,
                    checkpoint=folder)


def test_foreign_index_is_refused(corpus, tmp_path):
    folder = tmp_path / "ck"
    folder.mkdir()
    (folder / INDEX).write_text(json.dumps({"format": "something else"}), encoding="utf-8")
    with pytest.raises(CheckpointMismatchError, match="not a wordpieces count checkpoint"):
        count_words(corpus, num_proc=1, blocksize=BLOCKSIZE, checkpoint=folder)


def test_cut_block_file_is_refused(corpus, tmp_path):
    """A block file missing its last lines (not written by the atomic writer) is refused."""
    folder = tmp_path / "ck"
    count_words(corpus, num_proc=1, blocksize=BLOCKSIZE, checkpoint=folder)
    path = folder / "block-000003.tsv"
    lines = path.read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join(lines[:-2]) + "\n", encoding="utf-8")
    with pytest.raises(CheckpointMismatchError, match=r"block-000003\.tsv: holds"):
        count_words(corpus, num_proc=1, blocksize=BLOCKSIZE, checkpoint=folder)


def test_block_file_of_another_block_is_refused(corpus, tmp_path):
    folder = tmp_path / "ck"
    count_words(corpus, num_proc=1, blocksize=BLOCKSIZE, checkpoint=folder)
    os.replace(folder / "block-000001.tsv", folder / "block-000002.tsv")
    with pytest.raises(CheckpointMismatchError, match=r"block-000002\.tsv:1: .*does not"):
        count_words(corpus, num_proc=1, blocksize=BLOCKSIZE, checkpoint=folder)


def test_stream_is_refused(tmp_path):
    """Texts from an iterator cannot be read again after a kill: refused up front."""
    with pytest.raises(ValueError, match="a checkpoint needs files"):
        count_words(iter(["a b"]), num_proc=1, checkpoint=tmp_path / "ck")


def test_checkpoint_counts_a_compressed_file_whole(tmp_path):
    """A .gz file is one block; its checkpointed count equals the plain one."""
    import gzip

    path = tmp_path / "c.txt.gz"
    with gzip.open(path, "wt", encoding="utf-8") as f:
        f.write("the cat\nthe dog!\n" * 500)
    counts = count_words([str(path)], num_proc=1, checkpoint=tmp_path / "ck")
    assert dict(counts) == {"the": 1000, "cat": 500, "dog": 500, "!": 500}
    assert recorded_blocks(tmp_path / "ck") == ["block-000000.tsv"]


@pytest.mark.shared_data
def test_resume_on_shared_corpus_equals_staged_counts(tmp_path):
    """On real text, a resumed count equals the pipeline applied line by line."""
    source = shared_path("corpora", "english", "tinyshakespeare.txt")
    folder = tmp_path / "ck"
    count_words([source], num_proc=2, blocksize=1 << 16, checkpoint=folder)
    for name in recorded_blocks(folder)[::3]:
        os.remove(folder / name)
    resumed = count_words([source], num_proc=2, blocksize=1 << 16, checkpoint=folder)
    normalizer, pre_tokenizer = BertNormalizer(), BertPreTokenizer()
    with open(source, encoding="utf-8") as f:
        expected = Counter(w for line in f for w, _ in
                           pre_tokenizer.pre_tokenize(normalizer.normalize(line.rstrip("\n"))))
    assert dict(resumed) == dict(expected)


def test_dask_resumes_from_a_local_checkpoint(corpus, tmp_path):
    """The Dask engine reads and writes the same checkpoint: its resumed counts are equal."""
    distributed = pytest.importorskip("distributed")
    folder = tmp_path / "ck"
    plain = count_words(corpus, num_proc=1, blocksize=BLOCKSIZE)
    count_words(corpus, num_proc=1, blocksize=BLOCKSIZE, checkpoint=folder)
    for name in recorded_blocks(folder)[1::2]:
        os.remove(folder / name)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as client:
        resumed = count_words(corpus, engine="dask", scheduler=client, blocksize=BLOCKSIZE,
                              checkpoint=folder)
    assert resumed == plain


@pytest.mark.parametrize("option", ["checkpoint", "max_distinct_words"])
def test_train_from_counts_refuses_counting_options(tmp_path, option):
    """Counts given ready-made are not counted: a counting option is refused, not ignored."""
    from wordpieces.learn.training import train

    value = tmp_path / "ck" if option == "checkpoint" else 5
    with pytest.raises(ValueError, match=f"{option}= applies to counting a corpus"):
        train(count_words(iter(["a b"]), num_proc=1), vocab_size=40, progress="none",
              **{option: value})


def test_a_file_given_twice_is_not_the_same_inputs(corpus, tmp_path):
    """The index lists files in order, repeats included: [a, a] is not [a]."""
    folder = tmp_path / "ck"
    count_words(corpus[:1], num_proc=1, blocksize=BLOCKSIZE, checkpoint=folder)
    listed = r"other files: it counted \[.*a\.txt'\] \(1 in all, in this order\)"
    with pytest.raises(CheckpointMismatchError, match=listed):
        count_words(corpus[:1] * 2, num_proc=1, blocksize=BLOCKSIZE, checkpoint=folder)


def test_resume_with_a_word_bound_gives_the_exact_top(corpus, tmp_path):
    """Checkpoint and max_distinct_words together: the resumed result is the full top N."""
    import warnings

    from wordpieces.learn.counting import CountsPrunedWarning

    folder = tmp_path / "ck"
    full = count_words(corpus, num_proc=1, blocksize=BLOCKSIZE)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CountsPrunedWarning)
        count_words(corpus, num_proc=1, blocksize=BLOCKSIZE, checkpoint=folder,
                    max_distinct_words=7)
        for name in recorded_blocks(folder)[::2]:
            os.remove(folder / name)
        resumed = count_words(corpus, num_proc=2, blocksize=BLOCKSIZE, checkpoint=folder,
                              max_distinct_words=7)
    assert resumed.most_common() == full.most_common(7)
