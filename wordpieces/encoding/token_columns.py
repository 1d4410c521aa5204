"""What a batch finished in C says of its tokens, read from its columns: no Encodings.

``tok(...)`` on the native path returns its rows without ``Encoding`` objects. Its
``BatchEncoding`` answers ``tokens(i)`` from the row's ids (the native path never holds
a literal added token, so each id names its token), and ``word_ids(i)`` /
``sequence_ids(i)`` from the word and sequence columns when C wrote them (-1 where a
token has none: special tokens, padding).

Not handled here: offsets and the char/word/token conversions (``Encoding`` has them;
``BatchEncoding`` builds its Encodings for those).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence


class TokenColumns:
    """Per-token facts of a finished batch: its id rows and optional word/sequence columns.

    ``splits`` (int64 bytes, rows + 1) bound each row in ``words`` and ``sequences``
    (int64 bytes, or None: not written); None when neither is.
    """

    def __init__(self, id_rows: Sequence, id_to_token: Callable[[int], str | None],
                 splits: bytes | None, words: bytes | None = None,
                 sequences: bytes | None = None):
        if splits is None and (words is not None or sequences is not None):
            raise ValueError("word or sequence columns need the row splits")
        self._id_rows = id_rows
        self._id_to_token = id_to_token
        self._splits = memoryview(splits or bytes(8)).cast("q")
        self._words = None if words is None else memoryview(words).cast("q")
        self._sequences = None if sequences is None else memoryview(sequences).cast("q")

    def __len__(self) -> int:
        return len(self._id_rows)

    @property
    def has_words(self) -> bool:
        return self._words is not None

    @property
    def has_sequences(self) -> bool:
        return self._sequences is not None

    def tokens(self, row: int) -> list[str]:
        """The tokens of ``row``, named from its ids."""
        ids = self._id_rows[self._checked(row)]
        ids = ids.tolist() if hasattr(ids, "tolist") else ids
        return [self._id_to_token(i) or "" for i in ids]

    def word_ids(self, row: int) -> list[int | None]:
        """The word of each token of ``row`` (None: special or padding)."""
        if self._words is None:
            raise ValueError("this batch has no word column")
        return self._read(self._words, row)

    def sequence_ids(self, row: int) -> list[int | None]:
        """The sequence (0, 1) of each token of ``row`` (None: special or padding)."""
        if self._sequences is None:
            raise ValueError("this batch has no sequence column")
        return self._read(self._sequences, row)

    def _read(self, column: memoryview, row: int) -> list[int | None]:
        row = self._checked(row)
        return [None if x < 0 else x
                for x in column[self._splits[row]:self._splits[row + 1]].tolist()]

    def _checked(self, row: int) -> int:
        n = len(self)
        if not -n <= row < n:
            raise IndexError(f"batch index {row} is out of range for {n} rows")
        return row % n
