"""Helpers shared by every harness: JSON conventions, timestamps, ids. No I/O beyond files."""
