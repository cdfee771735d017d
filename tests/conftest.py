"""Fixtures of the package's own test suite; the shared ones are in the root ``conftest.py``."""
