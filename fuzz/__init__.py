"""Coverage-guided fuzzing of the parsers and the native encoder (atheris).

``python -m fuzz.run TARGET --runs N`` (or ``--seconds S``) fuzzes one target from its
seed corpus; ``python -m fuzz.seeds`` writes the seeds, made by the project's own code;
``python -m fuzz.run --all --seconds S`` is the short CI run. Inputs that crashed are
kept in ``fuzz/findings/TARGET/`` and replayed by ``tests/robustness/test_fuzz_findings.py``.
See ``fuzz/README.md``.
"""
