"""The playground: a local web page and JSON API to watch WordPiece split text.

``api`` answers the questions (encode, explain, compare, vocabulary) on named tokenizers;
``server`` serves the page in ``static/`` and that API over the standard library's
``http.server``; ``wordpieces serve`` (``cli/serve.py``) starts it.

Not handled here: the tokenizers' work itself (``tools.explain``, ``tools.inspect_vocab``
and the ``Tokenizer`` answer every question).
"""
