"""Tools to see why text tokenizes as it does: ``explain`` (the greedy trace)
and ``inspect_vocab`` (vocabulary and corpus figures).
"""
