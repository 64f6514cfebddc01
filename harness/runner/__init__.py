"""Executing campaigns, task-agnostic: config, workers under limits, executors, races, progress."""
