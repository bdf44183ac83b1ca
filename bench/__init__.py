"""Benchmarks that print figures measured in one run (not timed tests). Run all: `python -m bench`."""
