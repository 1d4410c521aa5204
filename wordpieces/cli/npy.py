"""Write a 1-D ``.npy`` array as a stream, without numpy and without knowing its length.

Pretraining pipelines (nanoGPT, OLMo, Megatron) read token ids as one flat uint16/uint32
array. The ``.npy`` header holds the array's length, which a stream only knows at the end,
so the header is written with room to spare and rewritten in place when the file is
closed (numpy ignores the padding spaces). The file is written through
``formats.atomic.AtomicFile`` (a temporary name, renamed at the end), so a reader never
sees a half-written array.

Not handled here: multi-dimensional arrays, Fortran order, reading.
"""

from __future__ import annotations

import sys
from array import array

from ..formats.atomic import AtomicFile

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
    """Append integers to a 1-D ``.npy`` file; ``close`` fixes the header and renames.

    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "ids.npy")
    >>> with NpyWriter(path, "uint16") as w:
    ...     w.extend([101, 7592, 102])
    >>> os.path.getsize(path)
    134
    """

    def __init__(self, path: str, dtype: str):
        if dtype not in _TYPES:
            raise ValueError(f"unsupported dtype {dtype!r}: expected one of {', '.join(_TYPES)}")
        self.path = path
        self.typecode, self.descr = _TYPES[dtype]
        if array(self.typecode).itemsize != int(self.descr[-1]):
            raise RuntimeError(f"this platform's array({self.typecode!r}) is not {dtype}")
        self.length = 0
        self._out = AtomicFile(path)
        self._file = self._out.file
        self._file.write(_header(self.descr, 0))

    def extend(self, values) -> None:
        """Append ``values`` (ints in the dtype's range; checked by ``array``)."""
        chunk = array(self.typecode, values)
        if sys.byteorder == "big":
            chunk.byteswap()
        chunk.tofile(self._file)
        self.length += len(chunk)

    def close(self) -> None:
        """Rewrite the header with the final length, then commit the file into place."""
        try:
            self._file.seek(0)
            self._file.write(_header(self.descr, self.length))
        except BaseException:
            self._out.discard()
            raise
        self._out.commit()

    def abort(self) -> None:
        """Drop the temporary file; ``path`` is left as it was."""
        self._out.discard()

    def __enter__(self) -> NpyWriter:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()


def index_path(path: str) -> str:
    """Where the line-start index of ``path`` goes: ``x.npy`` -> ``x.idx.npy``."""
    stem = path[:-4] if path.lower().endswith(".npy") else path
    return stem + ".idx.npy"
