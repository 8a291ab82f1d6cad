"""The test suite (a package so that shared helpers import as tests.support)."""
