"""Test-suite hooks: markers, and one closing line on tests that needed ../shared."""

from __future__ import annotations
