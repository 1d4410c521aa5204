"""The hot path: pick a backend and turn texts into ids and offsets quickly.

``backend`` chooses the native extension (``_native``: C, GIL released) or the
pure-Python fused encoder (``word_encoder``); differential tests keep them identical.

Not handled here: special tokens, pairs, truncation, padding (``wordpieces.tokenizer``).
"""
