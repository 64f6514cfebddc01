"""Puzzles: the instance, the board, file formats and the independent verifier."""
