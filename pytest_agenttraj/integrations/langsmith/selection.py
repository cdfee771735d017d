"""Which tests LangSmith logging tracks: those that use this plugin's fixtures or marker, and
those in a module that imports ``pytest_agenttraj``. Tracking every test would put unit tests of
helpers into the experiment and cost a run and an example each."""

from __future__ import annotations

import types

import pytest

from ...plugin.session import uses_plugin

__all__ = ["TrajectoryTests"]


class TrajectoryTests:
    """Decides per test, remembering each module's answer."""

    def __init__(self) -> None:
        self._modules: dict[str, bool] = {}

    def __contains__(self, item: pytest.Function) -> bool:
        if uses_plugin(item):
            return True
        module = item.getparent(pytest.Module)
        if module is None:
            return False
        known = self._modules.get(module.nodeid)
        if known is None:
            known = self._modules[module.nodeid] = _imports_package(module.obj)
        return known


def _imports_package(module: types.ModuleType) -> bool:
    """Whether the module holds anything of ``pytest_agenttraj`` (a module, a function, a class
    or an instance of one)."""
    for value in list(vars(module).values()):
        if isinstance(value, types.ModuleType):
            name = value.__name__
        elif isinstance(value, types.FunctionType | type):
            name = value.__module__
        else:
            name = type(value).__module__
        if name == "pytest_agenttraj" or name.startswith("pytest_agenttraj."):
            return True
    return False
