"""battlebench-counter-template: a counter outside battlebench, found through its entry point."""
