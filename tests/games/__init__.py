"""The games' conformance suite (test_conformance.py) and a test game in one folder (high_card/)."""
