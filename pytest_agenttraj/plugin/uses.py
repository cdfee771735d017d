"""Which tests use the plugin, decided once per test at collection, so that every other test runs
none of the plugin's per-test code.

A test uses it when it requests one of the plugin's fixtures, carries the ``trajectory`` marker,
has its own reference file (``trajectories/<test name>.yaml`` beside it), or calls the package:
its function (or a fixture it requests) names something of ``pytest_agenttraj``, directly or
through the project's own functions, classes and modules it names (followed through their code,
each once). Code outside the project root, or in installed packages, is not followed. What this
cannot see (a call made through a value built at run time) is still recorded: the session finds
the running test when the package is called in it (see ``TrajectorySession.late_scope``).
"""

from __future__ import annotations

import os
import sys
import types
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from .reference_store import FOLDER, default_name

__all__ = ["UseDetector", "is_package_name"]

_PACKAGE = "pytest_agenttraj"
_INSTALLED = ("site-packages", "dist-packages")


def is_package_name(name: object) -> bool:
    """Whether ``name`` (a module's name) is this package or one of its modules."""
    return isinstance(name, str) and (name == _PACKAGE or name.startswith(_PACKAGE + "."))


def _code_names(code: types.CodeType) -> frozenset[str]:
    """The global and attribute names ``code`` and the functions nested in it use."""
    names = frozenset(code.co_names)
    for const in code.co_consts:
        if type(const) is types.CodeType:
            names |= _code_names(const)
    return names


_CODE = types.CodeType


class UseDetector:
    """Decides per test whether it uses the plugin; remembers each function, class, module and
    reference folder it looked at, so a session of many tests pays once for what they share."""

    def __init__(self, root: Path, fixtures: frozenset[str]) -> None:
        self.fixtures = fixtures
        self.root = str(root.resolve()) + os.sep
        self._code: dict[types.CodeType, bool] = {}
        self._classes: dict[type, bool] = {}
        self._modules: dict[str, bool] = {}
        self._files: dict[Path, frozenset[str]] = {}
        self._definitions: dict[Any, bool] = {}
        self._names: dict[tuple[int, frozenset[str]], bool] = {}
        self._scopes: dict[int, _Module] = {}
        self._kinds: dict[type, bool] = {}
        self._files_ours: dict[str, bool] = {}
        self._plain: _Plain | None = None

    def __call__(self, item: pytest.Item, *, marked: bool) -> bool:
        """Whether ``item`` uses the plugin; ``marked``: whether it carries one of the plugin's
        markers (the caller has read them)."""
        if marked or not self.fixtures.isdisjoint(getattr(item, "fixturenames", ())):
            return True
        parent = item.parent  # ``item.cls`` looks the class up the whole chain of parents
        plain = self._plain
        if plain is not None and parent is plain.parent and self._like(item, plain):
            return False
        if self._has_reference(item):
            return True
        if not isinstance(item, pytest.Function):
            return False
        func = item.obj
        if type(parent) is not pytest.Module and isinstance(parent, pytest.Class):
            return self._function(func, parent.obj) or self._fixtures(item)
        if not self._names_nothing(func) and self._function(func, None):
            return True
        if self._fixtures(item):
            return True
        self._plain = self._plain_sibling(item, func)
        return False

    def _plain_sibling(self, item: pytest.Function, func: Any) -> _Plain | None:
        """What makes the next test of ``item``'s module decided as ``item`` was (which uses
        nothing): a module none of whose values may lead, an own plain function, the same
        fixture definitions, no reference file. A module lists its tests together, so most
        tests are decided by this look alone."""
        module = self._scopes.get(id(getattr(func, "__globals__", None)))
        if module is None or not module.clean or func not in module.own:
            return None
        definitions = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", None)
        references = bool(self._files.get(item.path))  # listed by ``_has_reference`` just now
        return _Plain(item.parent, type(item), module.own, definitions, references)

    def _like(self, item: pytest.Item, plain: _Plain) -> bool:
        """Whether ``item``, of the module ``plain`` was made for, is decided as that test was."""
        return (
            type(item) is plain.kind
            and item.obj in plain.own  # type: ignore[attr-defined]
            and item._fixtureinfo.name2fixturedefs == plain.definitions  # type: ignore[attr-defined]
            and not (plain.references and self._has_reference(item))
        )

    def _names_nothing(self, func: Any) -> bool:
        """Whether ``func``, a function of its module, certainly names nothing that may lead to
        the package: none of the names it (or code nested in it) uses is one of its module's
        globals whose value may (``_may_lead``, decided once per module and name). The common
        case, decided without following anything; else ``_function`` follows what it names. A
        module none of whose values may lead (most test modules) is decided once for all its
        own functions."""
        if type(func) is not types.FunctionType:
            return False
        scope = func.__globals__
        module = self._scopes.get(id(scope))  # the module's globals live as long as its functions
        if module is None:
            module = self._scopes[id(scope)] = self._module_of(scope)
        if func in module.own:  # looked at with its module
            return module.clean or (
                not module.ours and self._uses_none(func.__code__, scope, module.leads)
            )
        if func.__closure__ is not None or getattr(func, "__wrapped__", None) is not None:
            return False
        if module.ours or (
            func.__module__ != scope.get("__name__") and is_package_name(func.__module__)
        ):
            return False
        return module.clean or self._uses_none(func.__code__, scope, module.leads)

    def _module_of(self, scope: dict[str, Any]) -> _Module:
        """What ``_names_nothing`` keeps of a module: its globals' ``_may_lead``, whether the
        module is the package's, its own plain functions, and whether none of its values may
        lead, those functions aside (they reach nothing but through the module's other
        values)."""
        leads: dict[str, bool] = {}
        own: set[types.FunctionType] = set()
        clean = True
        name = scope.get("__name__")
        function = types.FunctionType
        for key, value in list(scope.items()):
            if (  # an own plain function can name only the module's values: they decide
                type(value) is function
                and value.__globals__ is scope
                and value.__module__ == name
                and value.__closure__ is None
                and getattr(value, "__wrapped__", None) is None
            ):
                own.add(value)
                continue
            lead = leads[key] = self._may_lead(value)
            clean = clean and not lead
        ours = is_package_name(name)
        return _Module(leads, frozenset(own), ours, clean and not ours)

    def _uses_none(
        self, code: types.CodeType, scope: dict[str, Any], leads: dict[str, bool]
    ) -> bool:
        """Whether ``code`` and the code nested in it name none of ``scope``'s values that may
        lead to the package (``leads`` remembers each name's answer)."""
        for name in scope.keys() & code.co_names:
            lead = leads.get(name)
            if lead is None:
                lead = leads[name] = self._may_lead(scope[name])
            if lead:
                return False
        if _CODE not in map(type, code.co_consts):
            return True
        return all(
            self._uses_none(const, scope, leads) for const in code.co_consts if type(const) is _CODE
        )

    def _may_lead(self, value: Any) -> bool:
        kind = type(value)
        if kind is types.FunctionType or kind is types.MethodType:  # neither has subclasses
            func = value.__func__ if kind is types.MethodType else value
            code = getattr(func, "__code__", None)
            return is_package_name(func.__module__) or (
                isinstance(code, types.CodeType) and self._file_is_ours(code.co_filename)
            )
        if isinstance(value, types.ModuleType):
            return is_package_name(value.__name__) or self._module_is_ours(value.__name__, value)
        if isinstance(value, type):
            kind = value
        known = self._kinds.get(kind)
        if known is None:
            known = self._kinds[kind] = any(
                is_package_name(name := getattr(klass, "__module__", None))
                or self._module_is_ours(name)
                for klass in kind.__mro__
            )
        return known

    def _file_is_ours(self, filename: str) -> bool:
        known = self._files_ours.get(filename)  # a module's functions share their file
        if known is None:
            known = self._files_ours[filename] = self._ours(filename)
        return known

    def _fixtures(self, item: pytest.Function) -> bool:
        """Whether the definition of a fixture ``item`` requests (each one in force) may call
        the package; each definition is looked at once (an autouse fixture is requested by
        every test)."""
        info = getattr(item, "_fixtureinfo", None)
        definitions = getattr(info, "name2fixturedefs", None) or {}
        seen = self._definitions
        for name in item.fixturenames:
            for definition in definitions.get(name, ()):
                known = seen.get(definition)
                if known is None:
                    known = seen[definition] = self._function(definition.func, None)
                if known:
                    return True
        return False

    def _has_reference(self, item: pytest.Item) -> bool:
        names = self._files.get(item.path)  # the items of a test file share its path
        if names is None:
            try:
                names = frozenset(os.listdir(item.path.parent / FOLDER))
            except OSError:
                names = frozenset()
            self._files[item.path] = names
        return bool(names) and default_name(item) in names

    def _function(self, func: Any, cls: type | None) -> bool:
        """Whether calling ``func`` (a method of ``cls`` when given) may call the package."""
        func = getattr(func, "__func__", func)
        if is_package_name(getattr(func, "__module__", None)):
            return True
        wrapped = getattr(func, "__wrapped__", None)  # under a decorator: both are looked at
        if wrapped is not None and wrapped is not func and self._function(wrapped, cls):
            return True
        code = getattr(func, "__code__", None)
        if not isinstance(code, types.CodeType):
            return False
        known = self._code.get(code)
        if known is not None:
            return known
        self._code[code] = False  # a function that names itself is looked at once
        names = _code_names(code)
        scope: dict[str, Any] = getattr(func, "__globals__", {})
        closure = getattr(func, "__closure__", None)
        if cls is None and not closure:
            found = self._module_values(scope, names)
        else:
            found = self._values(scope, names, cls, closure)
        self._code[code] = found
        return found

    def _module_values(self, scope: dict[str, Any], names: frozenset[str]) -> bool:
        """``_values`` of a plain function: what it finds depends only on the values its names
        have in its module, so the functions of a module that name the same things (its
        tests, often) are decided once."""
        key = (id(scope), names)  # the module's globals live as long as its functions
        found = self._names.get(key)
        if found is None:
            self._names[key] = False  # functions that name each other are looked at once
            found = self._names[key] = self._values(scope, names, None, None)
        return found

    def _values(
        self, scope: dict[str, Any], names: frozenset[str], cls: type | None, closure: Any
    ) -> bool:
        """Whether the values ``names`` have (in ``scope``, on ``cls``, in ``closure``) may lead
        to the package."""
        values: list[Any] = [scope[name] for name in names if name in scope]
        if cls is not None:
            values.extend(_class_values(cls, names))
        for cell in closure or ():
            try:
                values.append(cell.cell_contents)
            except ValueError:  # an empty cell
                continue
        return any(self._value(value, names) for value in values)

    def _value(self, value: Any, names: frozenset[str]) -> bool:
        """Whether a value a function names is, or may lead to, the package."""
        if isinstance(value, types.ModuleType):
            return self._module(value, names)
        if isinstance(value, types.FunctionType | types.MethodType):
            if is_package_name(getattr(value, "__module__", None)):
                return True
            code = getattr(getattr(value, "__func__", value), "__code__", None)
            return (
                isinstance(code, types.CodeType)
                and self._ours(code.co_filename)
                and (self._function(value, None))
            )
        kind = value if isinstance(value, type) else type(value)
        return self._class(kind)

    def _module(self, module: types.ModuleType, names: frozenset[str]) -> bool:
        if is_package_name(module.__name__):
            return True
        if not self._module_is_ours(module.__name__, module):  # once per module
            return False
        return any(
            self._value(value, names)
            for name in sorted(names)
            if isinstance(value := module.__dict__.get(name), types.FunctionType | type)
        )

    def _class(self, kind: type) -> bool:
        """Whether a class is the package's, or one of the project's with a method (along its
        bases) that may call the package."""
        known = self._classes.get(kind)
        if known is not None:
            return known
        self._classes[kind] = False
        found = False
        for klass in kind.__mro__:
            name = getattr(klass, "__module__", None)
            if is_package_name(name):
                found = True
            elif self._module_is_ours(name):
                found = any(
                    self._function(func, klass)
                    for attribute in vars(klass).values()
                    if isinstance(
                        func := getattr(attribute, "__func__", attribute), types.FunctionType
                    )
                )
            if found:
                break
        self._classes[kind] = found
        return found

    def _module_is_ours(self, name: object, module: types.ModuleType | None = None) -> bool:
        """Whether the module ``name`` (``module`` when given, else the one imported under that
        name) is the project's own; decided once per name (every rewritten test names pytest's
        helpers)."""
        known = self._modules.get(name) if isinstance(name, str) else False
        if known is None:
            found = module if module is not None else sys.modules.get(str(name))
            known = self._modules[str(name)] = self._ours(getattr(found, "__file__", None) or "")
        return bool(known)

    def _ours(self, filename: str) -> bool:
        """Whether a file is the project's own (under the root, not in an installed package)."""
        return filename.startswith(self.root) and not any(p in filename for p in _INSTALLED)


class _Module:
    """What the detector keeps of one module (``UseDetector._module_of``)."""

    __slots__ = ("clean", "leads", "ours", "own")

    def __init__(
        self,
        leads: dict[str, bool],
        own: frozenset[types.FunctionType],
        ours: bool,
        clean: bool,
    ) -> None:
        self.leads = leads
        self.own = own
        self.ours = ours
        self.clean = clean


class _Plain:
    """The last test decided through its module's quick look (``UseDetector._plain_sibling``);
    ``references``: whether its file's ``trajectories/`` folder holds any file."""

    __slots__ = ("definitions", "kind", "own", "parent", "references")

    def __init__(
        self,
        parent: object,
        kind: type,
        own: frozenset[types.FunctionType],
        definitions: object,
        references: bool,
    ) -> None:
        self.parent = parent
        self.kind = kind
        self.own = own
        self.definitions = definitions
        self.references = references


def _class_values(cls: type, names: Iterable[str]) -> list[Any]:
    """What ``names`` are on ``cls`` (its methods and attributes, along its bases)."""
    found = []
    for name in names:
        for klass in cls.__mro__:
            if name in vars(klass):
                found.append(vars(klass)[name])
                break
    return found
