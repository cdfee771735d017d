"""The file names a reference may have, apart from what a file holds (:mod:`.file`): the
plugin's start-up reads them to find reference files, and needs nothing else of this package."""

from __future__ import annotations

__all__ = ["REFERENCE_SUFFIXES"]

REFERENCE_SUFFIXES = (".yaml", ".yml", ".json")
