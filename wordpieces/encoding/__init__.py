"""What a tokenizer returns: ``Encoding``, its lazy batch form, padding and
truncation, and the transformers-style ``BatchEncoding`` dict.

Not handled here: producing tokens (``wordpieces.fast``, ``wordpieces.pipeline``).
"""
