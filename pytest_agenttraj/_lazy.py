"""Packages whose public names are imported when first used: pytest imports the plugin in every
run of every project that has it installed, and most runs touch little of the package.

A package lists each public name once, as an explicit re-export inside ``if TYPE_CHECKING:``
(``from .module import Name as Name``), which is what type checkers read; ``lazy_exports``
derives the run-time table, ``__all__`` and ``__dir__`` from that same block of the package's
source, so the listing cannot disagree with itself.
"""

from __future__ import annotations

import ast
import importlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["exported_names", "lazy_exports"]


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def exported_names(source: str) -> dict[str, str]:
    """Each name a package's ``if TYPE_CHECKING:`` block re-exports (``from .x import N as N``)
    -> the module, relative to the package (``.x``), that provides it."""
    where: dict[str, str] = {}
    for node in ast.parse(source).body:
        if not (isinstance(node, ast.If) and _is_type_checking(node.test)):
            continue
        for statement in node.body:
            if not isinstance(statement, ast.ImportFrom) or not statement.level:
                raise ValueError(
                    "a package's TYPE_CHECKING block holds only `from .x import N as N`"
                )
            module = "." * statement.level + (statement.module or "")
            for alias in statement.names:
                if alias.asname != alias.name:
                    raise ValueError(
                        f"re-export {alias.name} as itself: `{alias.name} as {alias.name}`"
                    )
                where[alias.name] = module
    return where


def lazy_exports(
    package: str, source_file: str, eager: tuple[str, ...] = ()
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package``, whose ``__init__`` is
    ``source_file``: each name its ``TYPE_CHECKING`` block re-exports is imported on first access,
    then kept. ``__all__`` (``eager``, the names the package defines itself, then the table's) is
    one of those names: the block is read only when a name is first asked for, not when the
    package is imported (which pytest does in every run, for the plugin)."""
    table: dict[str, str] = {}

    def where() -> dict[str, str]:
        if not table:
            table.update(exported_names(Path(source_file).read_text(encoding="utf-8")))
        return table

    def __getattr__(name: str) -> Any:
        if name == "__all__":
            value: Any = [*eager, *sorted(where())]
        else:
            module = where().get(name)
            if module is None:
                raise AttributeError(f"module {package!r} has no attribute {name!r}")
            value = getattr(importlib.import_module(module, package), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(where()) | {"__all__"})

    return __getattr__, __dir__
