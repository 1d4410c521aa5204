"""C sources of the optional native extension ``wordpieces.fast._native._core``.

Built by ``setup.py`` when a C compiler is available; ``wordpieces.fast.backend`` uses it
when present and falls back to the pure-Python reference otherwise. Not handled here:
anything at import time (this package holds no Python code).
"""
