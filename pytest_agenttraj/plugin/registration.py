"""What pytest looks through when the package registers one of its plugins.

pytest reads every name ``dir()`` gives of every registered plugin, looking for fixtures (a few
microseconds a name, when the session starts or at registration), and the package registers
about a dozen plugins in every run. So each lists, as its ``dir()``, only what registration can
use: a plugin object its hooks (pytest takes a hook only from a name starting ``pytest_``), a
plugin module its hooks and what it defines (its fixtures among them), not what it imports.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["HookHolder", "module_dir"]

_HOOK_PREFIX = "pytest_"


class HookHolder:
    """Base of the package's plugin objects: ``dir()`` lists their hooks only."""

    __slots__ = ()

    def __dir__(self) -> list[str]:
        return list(_hook_names(type(self)))


_NAMES: dict[type, tuple[str, ...]] = {}


def _hook_names(kind: type) -> tuple[str, ...]:
    names = _NAMES.get(kind)
    if names is None:
        names = _NAMES[kind] = tuple(n for n in dir(kind) if n.startswith(_HOOK_PREFIX))
    return names


def module_dir(namespace: Mapping[str, Any]) -> Callable[[], list[str]]:
    """A plugin module's ``__dir__`` (``__dir__ = module_dir(globals())``): its hooks and the
    functions, classes and fixtures it defines."""
    module = namespace["__name__"]

    def __dir__() -> list[str]:
        return sorted(
            name
            for name, value in namespace.items()
            if name.startswith(_HOOK_PREFIX) or getattr(value, "__module__", None) == module
        )

    return __dir__
