"""The encode engine: one entry point (``engine.run``) for every encode call, its
settings snapshot and output forms, the sequence encoder, native batches, Encodings,
finishing, pre-split words and the transformers-style call.
"""
