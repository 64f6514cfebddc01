"""Puzzle generation: planted fleets, hints until unique (SAT oracle), certified by a pair."""
