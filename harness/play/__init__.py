"""Playing the two-player game: the engine, hidden deployments drawn uniformly, strategies behind one contract, games as runs."""
