"""Browser tests run only when asked for: ``-m browser`` (``scripts/test-browser``).

They need Debian's ``chromium`` and ``chromium-driver`` and the ``browser`` extra
(Selenium), which the main run does not install, so a run whose ``-m`` does not name
``browser`` deselects them (counted in pytest's "deselected").

Not handled here: installing the browser (``scripts/test-browser`` does).
"""

from __future__ import annotations

import re

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if re.search(r"\bbrowser\b", config.getoption("markexpr") or ""):
        return  # -m names the marker: pytest's own selection decides
    browser = [item for item in items if item.get_closest_marker("browser")]
    if browser:
        config.hook.pytest_deselected(items=browser)
        items[:] = [item for item in items if not item.get_closest_marker("browser")]
