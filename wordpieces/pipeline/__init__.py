"""The pipeline stages, one module per stage kind, in the order text meets them.

``normalizers`` (with offsets back to the original text), ``pre_tokenizers`` (words),
``models`` (WordPiece, WordLevel), ``processors`` (special tokens, pairs),
``decoders`` (ids back to text), ``added_tokens`` (literal tokens cut out first).
See docs/architecture.md.

Not handled here: the fast fused path (``wordpieces.fast``), truncation and padding
(``wordpieces.encoding``).
"""
