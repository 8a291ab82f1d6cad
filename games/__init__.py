"""The games a table can play: one folder per game (its engine and its presentation), each found by the registry."""
