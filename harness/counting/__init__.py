"""Counting deployments: boards and pieces on square and hex grids, counters behind one contract, exact marginals.

Layers, imports flowing one way: :mod:`geometry` (grids, shapes) -> :mod:`deployment`
(the instance) -> :mod:`format` (files) -> :mod:`placements` (every way each piece can
lie) -> the counters in :mod:`harness.counting.counters` (``dp``, ``cluster``, ``dlx``,
``sharpsat``, ``cpsat``, ``sat``, ``brute``) -> :mod:`marginals`.
"""
