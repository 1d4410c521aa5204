"""Files: loading, ``tokenizer.json``, bundles, strict JSON, atomic writes,
the TensorFlow SavedModel export.

Named ``formats`` rather than ``io`` so that no module of the package can shadow the
standard library's ``io``. Not handled here: what the files describe (the pipeline).
"""
