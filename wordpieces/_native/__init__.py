"""C sources of the optional native extension ``wordpieces._native._core``.

Built by ``setup.py`` when a C compiler is available; ``wordpieces.backend`` uses it
when present and falls back to the pure-Python reference otherwise. Not handled here:
anything at import time (this package holds no Python code).
"""
