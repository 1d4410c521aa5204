"""Write each fuzz target's seed corpus with the project's own code: ``python -m fuzz.seeds``.

Seeds are small valid inputs (and a few near-misses) made by ``Tokenizer.save``,
``WordCounts.save``, ``Bundle.save`` and friends, so that the fuzzer starts inside the
formats instead of guessing JSON from nothing. Nothing is copied from ``../shared``.
Files are named by content hash: running it again adds nothing new.

Not handled here: running the fuzzer (``fuzz.run``).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import sys
import tempfile
import warnings
import zipfile

from wordpieces import Bundle, Tokenizer
from wordpieces.learn.counting import WordCounts
from wordpieces.pipeline.safe_regex import risky_examples

HERE = os.path.dirname(os.path.abspath(__file__))
VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "cat", "##s", "sat", "日",
         "é", "##é", "un", "##aff", "##able"]


def _tokenizers() -> list[Tokenizer]:
    plain = Tokenizer.from_vocab(VOCAB)
    padded = Tokenizer.from_vocab(VOCAB, flavor="huggingface", lowercase=False)
    padded.enable_padding(length=16, pad_to_multiple_of=8)
    padded.enable_truncation(12, stride=2)
    padded.add_special_tokens(["<extra>"])
    tf = Tokenizer.from_vocab(VOCAB, flavor="tensorflow", template=None)
    return [plain, padded, tf]


def _saved(tok: Tokenizer) -> dict[str, bytes]:
    with tempfile.TemporaryDirectory() as scratch, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Hugging Face will not read this exactly": known
        tok.save(scratch)
        return {name: open(os.path.join(scratch, name), "rb").read()
                for name in ("tokenizer.json", "vocab.txt", "wordpieces.json")}


def seeds() -> dict[str, list[bytes]]:
    """Target name -> seed inputs."""
    files = [_saved(tok) for tok in _tokenizers()]
    out: dict[str, list[bytes]] = {
        "vocab_txt": [f["vocab.txt"] for f in files] + [b"[UNK]\r\nx \n\xef\xbb\xbfy\n\n"],
        "tokenizer_json": [f["tokenizer.json"] for f in files],
        "wordpieces_json": [f["wordpieces.json"] for f in files],
        "counts": _counts(), "bundle": [_bundle()],
        "regex": [p.encode() for p in (r"\s+", r"\w+|[^\w\s]+", r"(\d{1,3}\.)+",
                                       *risky_examples())],
        "encode": [bytes(range(0, 256, 3)), b"\x01" * 64, "héllo wörld 日本".encode() * 4],
        "saved_folder": _folder_shapes()}
    first = json.loads(files[0]["tokenizer.json"])
    first["post_processor"]["special_tokens"]["[CLS]"]["ids"] = [70000]
    out["tokenizer_json"].append(json.dumps(first).encode())
    return out


def _folder_shapes() -> list[bytes]:
    """Draws for ``targets.saved_folder``: a tokenizer (or bundle) folder, then shapes put in.

    Each is (bundle?, shapes - 1, then per shape: a name of ``FOLDER_NAMES``, a shape of
    ``FOLDER_SHAPES``): issue 25's cases of links, FIFOs and manifest entries.
    """
    from fuzz.targets import FOLDER_NAMES, FOLDER_SHAPES

    def draw(bundle: bool, *shapes: tuple[str, str]) -> bytes:
        out = [int(bundle), len(shapes) - 1]
        for name, shape in shapes:
            out += [FOLDER_NAMES.index(name), FOLDER_SHAPES.index(shape)]
        return bytes(out)

    return [draw(False, ("lnk", "link to the outside folder"),
                 ("lnk/victim.txt", "list in the manifest")),
            draw(False, ("vocab.txt", "link to the outside file")),
            draw(False, ("vocab.txt", "drop from the manifest"),
                 ("vocab.txt", "link to the outside file")),
            draw(False, ("wordpieces.json", "fifo")),
            draw(False, ("tokenizer_config.json", "fifo")),
            draw(False, ("wordpieces-manifest.json", "fifo")),
            draw(False, ("x.txt", "link to the outside file"), ("x.txt", "list in the manifest")),
            draw(False, ("wordpieces-manifest.json", "bytes")),
            draw(True, ("en", "link to the outside folder")),
            draw(True, ("en/wordpieces.json", "fifo")),
            draw(True, ("en/vocab.txt", "link to the outside file"))]


def _counts() -> list[bytes]:
    with tempfile.TemporaryDirectory() as scratch:
        path = os.path.join(scratch, "c.tsv")
        WordCounts({"the": 12, "cat": 3, "日本": 1, "##": 2}).save(path)
        saved = open(path, "rb").read()
    return [saved, b"the\t12\ncat\t5", b"the\t12\ncat\t5\n"]


def _bundle() -> bytes:
    with tempfile.TemporaryDirectory() as scratch:
        path = os.path.join(scratch, "b.zip")
        tok = Tokenizer.from_vocab(VOCAB)
        Bundle(en=tok, pt=Tokenizer.from_vocab(VOCAB, lowercase=False)).save(path)
        return _without_dates(path)


def _without_dates(path: str) -> bytes:
    """The zip at ``path`` with every date set to 1980: the same bytes on every run."""
    out = io.BytesIO()
    with zipfile.ZipFile(path) as source, zipfile.ZipFile(out, "w") as target:
        for info in source.infolist():
            fixed = zipfile.ZipInfo(info.filename, date_time=(1980, 1, 1, 0, 0, 0))
            fixed.compress_type = info.compress_type
            target.writestr(fixed, source.read(info))
    return out.getvalue()


def write(root: str = os.path.join(HERE, "corpus")) -> int:
    """Write every seed under ``root/TARGET/seed-HASH``; return how many are new."""
    new = 0
    for target, inputs in seeds().items():
        folder = os.path.join(root, target)
        os.makedirs(folder, exist_ok=True)
        for data in inputs:
            path = os.path.join(folder, "seed-" + hashlib.sha256(data).hexdigest()[:16])
            if not os.path.exists(path):
                with open(path, "wb") as f:
                    f.write(data)
                new += 1
    return new


if __name__ == "__main__":
    print(f"fuzz.seeds: {write()} new seed files under {os.path.join(HERE, 'corpus')}")
    sys.exit(0)
