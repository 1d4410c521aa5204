"""Character tables probed from the reference tokenizers, and the scripts that made them.

``huggingface.txt`` and ``tensorflow.txt`` are package data, written by
``make_hf_tables.py`` and ``make_tf_tables.py`` (run as scripts) in the format of
``tablefile``; ``wordpieces.tables`` reads them.
"""
