"""Executing campaigns: config, workers under limits, executors, progress."""
