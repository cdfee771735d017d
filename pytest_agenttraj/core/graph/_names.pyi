"""The C loop of strict graph matching (``_names.c``), when it was built."""

from collections.abc import Sequence

def shared_names(one: Sequence[object], other: Sequence[object], /) -> int:
    """How many leading entries ``one`` and ``other`` (lists or tuples) share while both are
    exact ``str``."""
