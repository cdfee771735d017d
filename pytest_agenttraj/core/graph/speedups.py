"""The C loop of strict graph matching, when the package was installed with it built
(``_names.c``, an optional extension): ``shared_names`` is then the C function, else ``None`` and
the matching compares in Python, with the same results."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from importlib import import_module

__all__ = ["shared_names"]

shared_names: Callable[[Sequence[object], Sequence[object]], int] | None
try:  # by name: the import graph's checker reads Python files, and this one is compiled
    shared_names = import_module(f"{__package__}._names").shared_names
except ImportError:  # installed where the extension could not be built
    shared_names = None
