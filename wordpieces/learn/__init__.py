"""Learning vocabularies: ``train()``, reading sources, counting words (local
processes or Dask, one shared task module), progress, and the learners.

Not handled here: tokenizing with the result (``wordpieces.tokenizer``).
"""
