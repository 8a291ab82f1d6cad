"""Helpers shared by the test packages: a whole table as processes, an HTTP client, waiting helpers."""
