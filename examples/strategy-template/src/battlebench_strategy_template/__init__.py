"""battlebench-strategy-template: a strategy outside battlebench, found through its entry point."""
