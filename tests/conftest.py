"""Fixtures of the package's own test suite; the shared ones are in the root ``conftest.py``.

pytester's inline runs drop from ``sys.modules`` whatever was first imported inside them. A
module imported again afterwards is a second copy whose classes the first copy's objects are not
instances of (a report built by one copy, rendered by the other, fails ``isinstance``), and
yaml's C extension cannot be imported twice at all (its loader builds nodes of the first
import's classes). So every module of the package, and yaml, is imported once, here, before any
inline run; a subset of the suite (``pytest tests/plugin``) then behaves as the whole does.
"""

import importlib
import pkgutil

import yaml  # noqa: F401

import pytest_agenttraj

for _module in pkgutil.walk_packages(pytest_agenttraj.__path__, "pytest_agenttraj."):
    importlib.import_module(_module.name)

# Property tests check answers, not speed: a deadline per example fails them on a loaded machine
# (the suite runs its workers beside each other), which says nothing about the code.
from hypothesis import settings as _hypothesis_settings  # noqa: E402

_hypothesis_settings.register_profile("suite", deadline=None)
_hypothesis_settings.load_profile("suite")
