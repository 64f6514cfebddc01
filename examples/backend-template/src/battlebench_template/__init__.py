"""battlebench-template: a backend outside battlebench, found through its entry point."""
