"""The differential tests run in strict mode: a native path that falls back to Python fails.

``WORDPIECES_STRICT_NATIVE`` makes any fallback from the native path to Python an error
(``wordpieces.errors.native_fallback``), so a comparison with the references that passes
here passed on the native path wherever that path should run, not on the reference path
behind it. What is Python by design (the pure-Python backend, stages or processors C does
not compile) runs as before.
"""

from __future__ import annotations

import pytest

from wordpieces.errors import STRICT_NATIVE_VARIABLE


@pytest.fixture(autouse=True)
def strict_native(monkeypatch):
    monkeypatch.setenv(STRICT_NATIVE_VARIABLE, "1")
