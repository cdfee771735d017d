"""Who is asked for the running test's scope when none was entered (:mod:`.scope`), kept apart
from the scopes themselves: the plugin registers its session here in every run, and loads the
scopes only for tests that use the package."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .scope import TestScope

__all__ = ["PROVIDERS", "scope_provider"]

PROVIDERS: list[Callable[[], TestScope | None]] = []
"""Asked, the last added first, for the scope of a running test that entered none (the plugin
enters scopes only around tests it found using the package at collection)."""


def scope_provider(provider: Callable[[], TestScope | None]) -> Callable[[], None]:
    """Ask ``provider`` for the scope when none is current (the innermost pytest session's, when
    sessions nest); returns the function that stops asking it."""
    PROVIDERS.append(provider)

    def remove() -> None:
        if provider in PROVIDERS:
            PROVIDERS.remove(provider)

    return remove
