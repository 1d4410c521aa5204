"""Write a 1-D ``.npy`` array as a stream, without numpy and without knowing its length.

Pretraining pipelines (nanoGPT, OLMo, Megatron) read token ids as one flat uint16/uint32
array. The ``.npy`` header holds the array's length, which a stream only knows at the end,
so the header is written with room to spare and rewritten in place when the file is
closed (numpy ignores the padding spaces). The writer streams into a file it is given:
``cli.sinks.NpySink`` writes the ids and their index as one ``formats.atomic.FileSet``
(temporaries renamed at the end behind ``NAME.manifest.json``), so a reader never sees a
half-written array; a run killed between the pair's two renames leaves the previous
pair kept aside, which ``check_pair`` (like the next run) puts back before checking, so
the pair read is one run's. A reader that checks nothing (``np.load`` alone) can tell a
mixed pair too: the index's last entry is the ids' length.

Not handled here: multi-dimensional arrays, Fortran order, reading the arrays (numpy).
"""

from __future__ import annotations

import os
import sys
from array import array
from typing import IO

from ..formats.atomic import read_file_set

MAGIC = b"\x93NUMPY\x01\x00"
HEADER_BYTES = 128  # magic + length + dict, a multiple of 64 as the format asks
# array typecode, npy descr: chosen by item size, since 'I'/'L' sizes vary by platform
_TYPES = {"uint16": ("H", "<u2"), "uint32": ("I", "<u4"), "int64": ("q", "<i8")}


def _header(descr: str, length: int) -> bytes:
    text = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': ({length},), }}"
    room = HEADER_BYTES - len(MAGIC) - 2 - 1
    if len(text) > room:
        raise ValueError(f"npy header too long for {length} items")
    text = text.ljust(room) + "\n"
    return MAGIC + len(text).to_bytes(2, "little") + text.encode("latin-1")


class NpyWriter:
    """Append integers to a 1-D ``.npy`` array in ``stream``; ``finish`` fixes the header.

    >>> import io
    >>> stream = io.BytesIO()
    >>> w = NpyWriter(stream, "uint16")
    >>> w.extend([101, 7592, 102]); w.finish()
    >>> len(stream.getvalue())
    134
    """

    def __init__(self, stream: IO[bytes], dtype: str):
        if dtype not in _TYPES:
            raise ValueError(f"unsupported dtype {dtype!r}: expected one of {', '.join(_TYPES)}")
        self.typecode, self.descr = _TYPES[dtype]
        if array(self.typecode).itemsize != int(self.descr[-1]):
            raise RuntimeError(f"this platform's array({self.typecode!r}) is not {dtype}")
        self.length = 0
        self._file = stream
        self._file.write(_header(self.descr, 0))

    def extend(self, values) -> None:
        """Append ``values`` (ints in the dtype's range; checked by ``array``)."""
        chunk = array(self.typecode, values)
        if sys.byteorder == "big":
            chunk.byteswap()
        chunk.tofile(self._file)
        self.length += len(chunk)

    def finish(self) -> None:
        """Rewrite the header with the final length (the stream stays open)."""
        self._file.seek(0)
        self._file.write(_header(self.descr, self.length))
        self._file.seek(0, os.SEEK_END)


def _stem(path: str) -> str:
    return path[:-4] if path.lower().endswith(".npy") else path


def index_path(path: str) -> str:
    """Where the line-start index of ``path`` goes: ``x.npy`` -> ``x.idx.npy``."""
    return _stem(path) + ".idx.npy"


def manifest_path(path: str) -> str:
    """Where the manifest of the pair ``path`` goes: ``x.npy`` -> ``x.manifest.json``."""
    return _stem(path) + ".manifest.json"


def check_pair(path: str) -> None:
    """Check that ``path`` and its index come from the same run (``FormatError`` if not).

    A pair a killed run left half-renamed is first put back to the previous pair (when
    the folder can be written). Reads both files once (SHA-256). A pair written before
    manifests existed, or without one, passes unchecked.
    """
    folder = os.path.dirname(os.path.abspath(path))
    read_file_set(folder, manifest=os.path.basename(manifest_path(path)))
