"""Scripts that probe a reference over every code point and write its table.

Run as ``python -m wordpieces.flavors.probes.make_hf_tables [OUT_DIR]`` (needs
``tokenizers``) or ``...make_tf_tables`` (needs ``tensorflow-text``); they are tools,
never imported by the library.
"""
