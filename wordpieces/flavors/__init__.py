"""Each reference's character rules: which "BERT" a tokenizer reproduces.

``rules`` holds the three flavors (``bert``, ``huggingface``, ``tensorflow``);
``tables`` loads the character tables probed from the references (``data/``), written
by the scripts in ``probes/`` (``table_file`` is their file format).

Not handled here: applying the rules to text (``wordpieces.pipeline``).
"""
