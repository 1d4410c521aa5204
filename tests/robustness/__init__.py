"""Hostile and careless inputs: each case of issue 14, asserting the fixed behaviour."""
