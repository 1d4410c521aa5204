"""Turn any text source into units of work, and read a unit back as lines of text.

The one vocabulary of inputs: every place that reads text (``count_words``, ``train``,
``bert_vocab_from_dataset``, the command line's ``count``, ``train``, ``encode`` and
``inspect``) resolves its source here. A source is

- a path, a glob (``**`` recursive), a directory (every non-hidden file under it, sorted),
  ``"-"`` (stdin) or an fsspec URL (``s3://…``, ``gs://…``, ``file://…``; needs
  ``fsspec``, a friendly error otherwise), or a list or tuple of those; files may be
  ``.gz``, ``.bz2`` or ``.xz``;
- any other iterable of texts (``str`` or UTF-8 ``bytes``), or of batches of texts
  (lists, tuples, numpy arrays, tensors with ``.numpy()``), as TF Text's
  ``bert_vocab_from_dataset`` takes; a list or tuple whose items are all batches is one.

A plain file is cut into byte ranges (``Block``) that any process can read on its own: a
line belongs to the block in which it starts, so blocks never split or repeat a line.
Compressed files and stdin are read from the start, one block each.

Not handled here: what is done with the lines (``count_tasks``); how a file is read as
lines (BOM, line ends, compression, bad UTF-8: ``formats.lines``); a list of plain
strings meant as texts (a list holds paths: pass ``iter(texts)``).
"""

from __future__ import annotations

import glob
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from ..errors import FormatError
from ..formats.lines import STDIN, TextLines, compression_of, fsspec_module

NOT_A_PATH_HINT = "to read texts rather than files, pass an iterator: iter(texts)"


@dataclass(frozen=True)
class Block:
    """Bytes ``[start, end)`` of one file; ``end=None`` reads the whole (streamed) file."""

    path: str
    start: int = 0
    end: int | None = None
    compression: str | None = None
    size: int = 0  # bytes of the file this block covers, for progress

    @property
    def is_url(self) -> bool:
        return "://" in self.path


class TextStream:
    """An iterable of texts or of batches of texts, read by the caller's process.

    Iterating yields the texts one by one, batches flattened in order; an item that is
    neither a text nor a batch raises ``TypeError`` naming its position.
    """

    def __init__(self, texts: Iterable, *, name: str = "texts"):
        self.texts = texts
        self.name = name

    def __iter__(self) -> Iterator[str]:
        for index, item in enumerate(self.texts):
            if isinstance(item, str):
                yield item
            elif isinstance(item, bytes):
                yield _decoded(item, f"{self.name} item {index}")
            else:
                for position, text in enumerate(_batch_items(item, self.name, index)):
                    # the position is spelled out only for an error: batches can be long
                    yield text if type(text) is str else _batch_text(
                        text, f"{self.name} item {index}, text {position}")


def is_batch(item) -> bool:
    """Tell whether ``item`` is a batch of texts: a list, tuple, array or tensor."""
    return isinstance(item, (list, tuple)) or hasattr(item, "ravel") or hasattr(item, "numpy")


def _batch_items(item, name: str, index: int) -> Iterable:
    """The texts of one batch (a tensor or array of any shape is flattened)."""
    if hasattr(item, "numpy"):  # a TensorFlow or PyTorch tensor
        item = item.numpy()
    if isinstance(item, (str, bytes)):  # a scalar tensor holds one text
        return [item]
    if hasattr(item, "ravel"):  # a numpy array
        return item.ravel().tolist()
    if isinstance(item, Mapping):
        raise TypeError(f"{name} item {index} is a {type(item).__name__} (a dataset row?): "
                        "pass its text column, e.g. dataset['text']")
    if isinstance(item, Iterable):
        return item
    raise TypeError(f"{name} item {index} is a {type(item).__name__}: expected a text "
                    "(str or UTF-8 bytes) or a batch of texts (list, tuple, array)")


def _batch_text(text, where: str) -> str:
    if isinstance(text, str):
        return text
    if isinstance(text, bytes):
        return _decoded(text, where)
    raise TypeError(f"{where} is a {type(text).__name__}, not a str: a batch holds texts")


def _decoded(data: bytes, where: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise FormatError(f"{where}: not valid UTF-8 (byte {e.start}: {e.reason})") from None


def plan(source, *, blocksize: int) -> list[Block | TextStream]:
    """Resolve ``source`` into blocks of files and streams of texts, in order."""
    if isinstance(source, (str, os.PathLike)):
        paths = _with_hint(resolve_paths, [source])
    elif isinstance(source, (list, tuple)) and source and all(map(is_batch, source)):
        return [TextStream(source)]
    elif isinstance(source, (list, tuple)):
        paths = _with_hint(resolve_paths, source)
    elif isinstance(source, bytes):
        raise TypeError("source is bytes: pass a path as str, or texts as an iterable of str")
    elif isinstance(source, Mapping):
        raise TypeError("source is a mapping (word counts?), not a corpus: counts need no "
                        "counting; wrap them as WordCounts(...) to train or merge")
    elif isinstance(source, Iterable):
        return [TextStream(source)]
    else:
        raise TypeError(f"cannot read texts from a {type(source).__name__}: expected a "
                        "path, a glob, '-', a list of paths or an iterable of texts "
                        "or of batches of texts")
    units: list[Block | TextStream] = []
    for path in paths:
        if path == STDIN:
            units.append(TextStream(stdin_lines(), name="stdin"))
        else:
            units.extend(file_blocks(path, blocksize))
    return units


def iter_texts(source) -> Iterator[str]:
    """Yield every text of ``source`` in order: each line of each file, each text given.

    For readers that need the texts one by one in the caller's process (first-seen order
    matters to ``bert_vocab_from_dataset``); counting uses ``plan``.

    >>> list(iter_texts(iter([["a b", b"c"], "d"])))
    ['a b', 'c', 'd']
    """
    for unit in plan(source, blocksize=1 << 62):
        yield from (block_lines(unit) if isinstance(unit, Block) else unit)


def _with_hint(resolve, items):
    """Resolve paths given from Python, hinting how to pass texts when one is missing."""
    try:
        return resolve(items)
    except FileNotFoundError as e:
        raise FileNotFoundError(f"{e} ({NOT_A_PATH_HINT})") from None


def resolve_paths(items: Iterable) -> list[str]:
    """Expand paths, globs, directories, URLs and ``"-"`` into files, in the order given.

    Each item expands to its files sorted by path; the command line's inputs and
    ``count_words``' lists both go through here.
    """
    checked = [_path_item(item) for item in items]  # a wrong type before a missing file
    return [path for item in checked for path in resolve_path(item)]


def _path_item(item):
    if not isinstance(item, (str, os.PathLike)):
        raise TypeError(f"a list source must hold paths (or only batches of texts), not "
                        f"a {type(item).__name__}: {NOT_A_PATH_HINT}")
    return item


def resolve_path(path) -> list[str]:
    """Expand one path, glob, directory, URL or ``"-"`` into file paths, sorted."""
    path = os.fspath(path)
    if path == STDIN:
        return [STDIN]
    if "://" in path:
        return _resolve_url(path)
    if glob.has_magic(path):
        found = sorted(p for p in glob.glob(path, recursive=True) if os.path.isfile(p))
        if not found:
            raise FileNotFoundError(f"{path}: no file matches this pattern")
        return found
    if os.path.isdir(path):
        return _files_under(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path}: no such file or directory")
    return [path]


def _files_under(directory: str) -> list[str]:
    """Every regular, non-hidden file below ``directory``, sorted by path."""
    found: list[str] = []
    for root, dirs, files in os.walk(directory):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        found.extend(os.path.join(root, f) for f in files if not f.startswith("."))
    if not found:
        raise FileNotFoundError(f"{directory}: the directory holds no file")
    return sorted(found)


def _resolve_url(url: str) -> list[str]:
    """Expand a URL as a local path is: a glob, a folder (every non-hidden file), a file."""
    fsspec = fsspec_module(url)
    fs, _, paths = fsspec.get_fs_token_paths(url)
    protocol = fs.protocol[0] if isinstance(fs.protocol, (tuple, list)) else fs.protocol
    found: list[str] = []
    if glob.has_magic(url):  # hidden names are matched by a pattern only when it says so
        root = _glob_root(url.split("://", 1)[1])
        paths = [p for p in paths if not _hidden_below(p, root)]
    for path in paths:
        if fs.isdir(path):
            found.extend(p for p in fs.find(path) if not _hidden_below(p, path))
        elif fs.isfile(path):
            found.append(path)
    if not found:
        what = "no file matches this URL" if glob.has_magic(url) else (
            "the folder holds no file" if paths and fs.isdir(paths[0])
            else "no such file or directory")
        raise FileNotFoundError(f"{url}: {what}")
    return sorted(p if "://" in p else f"{protocol}://{p}" for p in found)


def _glob_root(pattern: str) -> str:
    """The folders of ``pattern`` before its first wildcard (``b/d`` of ``b/d/**/*.txt``)."""
    parts = pattern.split("/")
    fixed = next(i for i, part in enumerate(parts) if glob.has_magic(part))
    return "/".join(parts[:fixed])


def _hidden_below(path: str, root: str) -> bool:
    """Tell whether a part of ``path`` below ``root`` starts with a dot (skipped, as locally)."""
    relative = path[len(root.rstrip("/")):].strip("/")
    return any(part.startswith(".") for part in relative.split("/"))


def file_blocks(path: str, blocksize: int) -> list[Block]:
    """Cut a file into byte ranges of about ``blocksize``; compressed files stay whole."""
    compression = compression_of(path)
    size = _size(path)
    if compression or size <= blocksize:
        return [Block(path, 0, None, compression, size)]
    starts = range(0, size, blocksize)
    return [Block(path, s, min(s + blocksize, size), None, min(blocksize, size - s))
            for s in starts]


def _size(path: str) -> int:
    if "://" in path:
        fsspec = fsspec_module(path)
        fs, fs_path = fsspec.core.url_to_fs(path)
        return fs.size(fs_path)
    return os.path.getsize(path)


# ---------------------------------------------------------------- reading


def block_lines(block: Block) -> Iterator[str]:
    """Yield the lines of ``block``, decoded, without line terminators."""
    return iter(TextLines(block.path, block.start, block.end))


def stdin_lines() -> Iterator[str]:
    """Yield the lines of standard input (read as UTF-8 bytes), without terminators."""
    return iter(TextLines(STDIN))
