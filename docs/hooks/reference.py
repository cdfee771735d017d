"""MkDocs hook: the reference page (options, ini keys, markers, fixtures, hooks) built from the
plugin itself when the site is built, so that it cannot drift from the code.

The plugin is found as pytest finds it, through its ``pytest11`` entry point, and the modules
it names in ``pytest_plugins`` or registers itself (its ``PLUGINS``) are followed. Each
``pytest_addoption`` is called with a parser that only records what is added; the markers come
from the ``MARKERS`` tuple that the plugin's ``pytest_configure`` registers; the fixtures are
the pytest fixture objects defined in those modules, and the hooks the specifications added by
``pytest_addhooks``. Anything the generator cannot find (an entry point, a module, a section
left empty) fails the build with :class:`ReferencePageError` rather than publishing a page with
a hole in it.
"""

from __future__ import annotations

import importlib
import inspect
import re
import textwrap
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from types import ModuleType
from typing import Any

__all__ = ["PAGE", "ReferencePageError", "collect", "on_files", "render"]

PAGE = "reference.md"
PACKAGE = "pytest_agenttraj"
ENTRY_POINT_GROUP = "pytest11"
UNSET = object()


class ReferencePageError(RuntimeError):
    """The reference page cannot be generated: something it reads has moved or gone."""


# ------------------------------------------------------------------ what pytest would be told


@dataclass(frozen=True)
class Option:
    names: tuple[str, ...]
    group: str
    metavar: str | None
    action: str | None
    default: Any
    help: str


@dataclass(frozen=True)
class Ini:
    name: str
    type: str
    default: Any
    help: str


@dataclass(frozen=True)
class Marker:
    name: str
    signature: str
    help: str


@dataclass(frozen=True)
class Fixture:
    name: str
    scope: str
    module: str
    doc: str


@dataclass(frozen=True)
class Hook:
    name: str
    signature: str
    module: str
    doc: str


@dataclass
class Reference:
    modules: list[str] = field(default_factory=list)
    groups: dict[str, str] = field(default_factory=dict)
    options: list[Option] = field(default_factory=list)
    inis: list[Ini] = field(default_factory=list)
    markers: list[Marker] = field(default_factory=list)
    fixtures: list[Fixture] = field(default_factory=list)
    hooks: list[Hook] = field(default_factory=list)


class RecordingGroup:
    """Stands for ``pytest.OptionGroup``: keeps each option added to it."""

    def __init__(self, reference: Reference, name: str) -> None:
        self._reference = reference
        self._name = name

    def addoption(self, *names: str, **attrs: Any) -> None:
        known = {option for added in self._reference.options for option in added.names}
        clash = sorted(set(names) & known)
        if clash:  # pytest refuses this too
            raise ValueError(f"option names {clash} already added")
        self._reference.options.append(
            Option(
                names=names,
                group=self._name,
                metavar=attrs.get("metavar"),
                action=attrs.get("action"),
                default=attrs.get("default", UNSET),
                help=attrs.get("help", ""),
            )
        )


class RecordingParser:
    """Stands for ``pytest.Parser`` in ``pytest_addoption``: records options and ini keys."""

    def __init__(self, reference: Reference) -> None:
        self._reference = reference

    def getgroup(self, name: str, description: str = "", after: str | None = None) -> Any:
        del after  # where pytest lists the group in --help; the page lists them as added
        known = self._reference.groups.get(name, "")
        self._reference.groups[name] = known or description or name
        return RecordingGroup(self._reference, name)

    def addoption(self, *names: str, **attrs: Any) -> None:
        self.getgroup("general").addoption(*names, **attrs)

    def addini(self, name: str, help: str, type: str | None = None, default: Any = UNSET) -> None:
        self._reference.inis.append(Ini(name, type or "string", default, help))


class RecordingPluginManager:
    """Stands for ``pytest.PytestPluginManager``: no plugin is blocked (pytest's default), and
    hook specifications added are kept."""

    def __init__(self, reference: Reference) -> None:
        self._reference = reference
        self.hookspec_modules: list[ModuleType] = []

    def is_blocked(self, name: str) -> bool:
        del name
        return False

    def add_hookspecs(self, module: ModuleType) -> None:
        self.hookspec_modules.append(module)

    def has_plugin(self, name: str) -> bool:
        """Every plugin module counts as registered: the generator follows the modules a plugin
        registers itself (:func:`plugin_modules`), so none is registered here."""
        del name
        return True


# ------------------------------------------------------------------------- finding the plugin


def entry_module() -> str:
    """The module the package's ``pytest11`` entry point names (pytest loads it in every run)."""
    found = [
        point.value
        for point in entry_points(group=ENTRY_POINT_GROUP)
        if point.value.split(":")[0].split(".")[0] == PACKAGE
    ]
    if len(found) != 1:
        raise ReferencePageError(
            f"expected one {ENTRY_POINT_GROUP} entry point into {PACKAGE}, found {found}: "
            "is the package installed (make install)?"
        )
    return found[0].split(":")[0]


def plugin_modules(entry: str) -> list[ModuleType]:
    """The entry module and every module its ``pytest_plugins`` or ``PLUGINS`` name,
    recursively, in the order they are registered."""
    modules: list[ModuleType] = []
    pending = [entry]
    while pending:
        name = pending.pop(0)
        if any(module.__name__ == name for module in modules):
            continue
        try:
            module = importlib.import_module(name)
        except ImportError as error:
            named_by = "pytest_plugins or PLUGINS"
            if name == entry:
                named_by = f"the {ENTRY_POINT_GROUP} entry point"
            raise ReferencePageError(
                f"cannot import the plugin module {name!r} ({error}); it was named by {named_by}"
            ) from error
        modules.append(module)
        for attribute in ("pytest_plugins", "PLUGINS"):
            named = getattr(module, attribute, ())
            pending.extend([named] if isinstance(named, str) else list(named))
    return modules


def _call(hook: Callable[..., Any], module: ModuleType, **available: Any) -> None:
    """Call a hook implementation as pluggy does, with the arguments it names."""
    wanted = list(inspect.signature(hook).parameters)
    missing = [name for name in wanted if name not in available]
    if missing:
        raise ReferencePageError(
            f"{module.__name__}.{hook.__name__} takes {missing}, which the reference generator "
            f"does not provide (it provides {sorted(available)}): teach docs/hooks/reference.py"
        )
    hook(**{name: available[name] for name in wanted})


def _fixture(value: Any) -> tuple[str, str] | None:
    """``(name, scope)`` of a pytest fixture object, or None for anything else."""
    marker = getattr(value, "_fixture_function_marker", None)  # pytest >= 8.4
    if marker is None:
        marker = getattr(value, "_pytestfixturefunction", None)  # pytest < 8.4
    if marker is None:
        return None
    name = marker.name or getattr(value, "name", None) or value.__name__
    scope = marker.scope if isinstance(marker.scope, str) else "dynamic"
    return str(name), scope


def _fixtures(module: ModuleType) -> Iterator[Fixture]:
    found = False
    for value in vars(module).values():
        fixture = _fixture(value)
        function = getattr(value, "_fixture_function", value)  # pytest >= 8.4 wraps it
        if fixture is None or function.__module__ != module.__name__:  # defined elsewhere
            continue
        found = True
        yield Fixture(fixture[0], fixture[1], module.__name__, inspect.getdoc(value) or "")
    if not found and "@pytest.fixture" in inspect.getsource(module):
        raise ReferencePageError(
            f"{module.__name__} defines fixtures, but none was recognised as one: pytest's "
            "fixture objects have changed, teach docs/hooks/reference.py (_fixture)"
        )


def _hooks(module: ModuleType) -> Iterator[Hook]:
    for name, value in vars(module).items():
        if name.startswith("pytest_") and hasattr(value, "pytest_spec"):
            signature = str(inspect.signature(value)).replace("'", "")
            yield Hook(name, signature, module.__name__, inspect.getdoc(value) or "")


def _marker(line: str, module: ModuleType) -> Marker:
    """A ``name(signature): help`` line, as pytest's ``markers`` ini takes it."""
    name = re.match(r"[A-Za-z_]\w*", line)
    if name is None:
        raise ReferencePageError(f"{module.__name__}.MARKERS: {line[:40]!r} has no marker name")
    end = name.end()
    if line[end : end + 1] == "(":  # the signature ends at the parenthesis closing this one
        depth = 0
        for end in range(name.end(), len(line)):
            depth += {"(": 1, ")": -1}.get(line[end], 0)
            if depth == 0:
                break
        end += 1
    if not line[end:].startswith(": "):
        raise ReferencePageError(
            f"{module.__name__}.MARKERS: {line[:40]!r} is not 'name(...): help'"
        )
    return Marker(name.group(0), line[:end], line[end + 2 :])


def collect(entry: str | None = None) -> Reference:
    """Everything the plugin registers, read from its modules."""
    reference = Reference()
    modules = plugin_modules(entry or entry_module())
    reference.modules = [module.__name__ for module in modules]
    parser = RecordingParser(reference)
    manager = RecordingPluginManager(reference)
    # the order pytest calls them in: options first, then the late ones
    for hook_name in ("pytest_addhooks", "pytest_addoption", "pytest_load_initial_conftests"):
        for module in modules:
            hook = getattr(module, hook_name, None)
            if hook is not None:
                _call(hook, module, parser=parser, pluginmanager=manager)
    for module in modules:
        reference.markers.extend(_marker(line, module) for line in getattr(module, "MARKERS", ()))
        reference.fixtures.extend(_fixtures(module))
    for module in manager.hookspec_modules:
        reference.hooks.extend(_hooks(module))
    _check(reference)
    return reference


def _check(reference: Reference) -> None:
    empty = [
        section
        for section in ("options", "inis", "markers", "fixtures", "hooks")
        if not getattr(reference, section)
    ]
    if empty:
        raise ReferencePageError(
            f"the plugin ({', '.join(reference.modules)}) registers no {', '.join(empty)}: "
            "a module was moved or renamed, or the generator no longer finds them"
        )


# ------------------------------------------------------------------------------- the page

_CODE = re.compile(r"(`+)(.+?)\1", re.S)


def _text(text: str, *, in_table: bool = False) -> str:
    """Plain text as Markdown: code spans kept, everything else shown as written."""
    out = []
    position = 0
    for span in _CODE.finditer(text):
        out.append(_escape(text[position : span.start()], in_table))
        out.append(span.group(0))  # MkDocs keeps a code span whole in a table cell
        position = span.end()
    out.append(_escape(text[position:], in_table))
    return "".join(out)


def _escape(text: str, in_table: bool) -> str:
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = re.sub(r"([\\*_\[\]])", r"\\\1", text)
    return text.replace("|", "\\|") if in_table else text


def _doc(doc: str) -> str:
    """A docstring as Markdown: paragraphs as text, ``Example::`` blocks as code."""
    parts = re.split(r"^(.*)::\n\n((?:(?: {4}.*)?\n?)+)", doc + "\n", flags=re.M)
    lines = []
    for index in range(0, len(parts), 3):
        paragraphs = parts[index].strip()
        if paragraphs:
            lines.extend([_text(" ".join(p.split())) for p in paragraphs.split("\n\n")])
        if index + 2 < len(parts):
            lines.append(_text(parts[index + 1].strip()) + ":")
            code = textwrap.dedent(parts[index + 2]).strip("\n")
            lines.append(f"```python\n{code}\n```")
    return "\n\n".join(lines)


def _default(value: Any) -> str:
    if value is UNSET or value is None or value == "" or value == []:
        return "unset"
    return f"`{value!r}`"


def _option_row(option: Option) -> str:
    names = ", ".join(f"`{name}`" for name in option.names)
    if option.action in ("store_true", "store_false"):
        value = "flag"
    else:
        value = f"`{option.metavar}`" if option.metavar else "value"
        if option.action == "append":
            value += " (repeatable)"
    return f"| {names} | {value} | {_text(' '.join(option.help.split()), in_table=True)} |"


def _options(reference: Reference) -> list[str]:
    lines = ["## Command-line options", ""]
    for group, description in reference.groups.items():
        options = [option for option in reference.options if option.group == group]
        if not options:
            continue
        lines += [f"In `pytest --help` under **{_text(description)}**:", ""]
        lines += ["| option | takes | what it does |", "| --- | --- | --- |"]
        lines += [_option_row(option) for option in options]
        lines.append("")
    if "langsmith" in reference.groups:
        lines += [
            "`--langsmith-output` is also the flag of langsmith's own pytest plugin: with that "
            "plugin loaded, it registers the flag (and `pytest --help` shows its text); with "
            "`-p no:langsmith_plugin`, this plugin does. Either way it logs each trajectory "
            "result.",
            "",
        ]
    return lines


def _inis(reference: Reference) -> list[str]:
    lines = [
        "## Ini keys",
        "",
        "In `pytest.ini`, `[tool.pytest.ini_options]` of `pyproject.toml`, `tox.ini` or "
        "`setup.cfg`, or for one run as `-o key=value`.",
        "",
        "| key | type | default | what it sets |",
        "| --- | --- | --- | --- |",
    ]
    for ini in reference.inis:
        help = _text(" ".join(ini.help.split()), in_table=True)
        lines.append(f"| `{ini.name}` | {ini.type} | {_default(ini.default)} | {help} |")
    return [*lines, ""]


def _markers(reference: Reference) -> list[str]:
    lines = ["## Markers", ""]
    for marker in reference.markers:
        lines += [f"### `@pytest.mark.{marker.name}`", "", "```", marker.signature, "```", ""]
        lines += [_text(" ".join(marker.help.split())), ""]
    return lines


def _fixtures_section(reference: Reference) -> list[str]:
    lines = ["## Fixtures", "", "`pytest --fixtures` shows the same text.", ""]
    for fixture in sorted(reference.fixtures, key=lambda fixture: fixture.name):
        scope = "" if fixture.scope == "function" else f" ({fixture.scope} scope)"
        lines += [f"### `{fixture.name}`{scope}", "", f"Defined in `{fixture.module}`.", ""]
        lines += [_doc(fixture.doc), ""]
    return lines


def _hooks_section(reference: Reference) -> list[str]:
    lines = ["## Hooks", "", "Implement them in a `conftest.py` or a plugin.", ""]
    for hook in reference.hooks:
        lines += [f"### `{hook.name}`", "", "```python", f"def {hook.name}{hook.signature}: ..."]
        lines += ["```", "", _doc(hook.doc), ""]
    return lines


def render(reference: Reference) -> str:
    """The page's Markdown."""
    lines = [
        "# Reference",
        "",
        "Every command-line option, ini key, marker, fixture and hook of the plugin. This page is "
        "generated from the plugin's own modules when the site is built "
        f"({', '.join(f'`{name}`' for name in reference.modules)}), so it says what the "
        "installed code registers. The [guides](index.md#guides) explain how they fit together.",
        "",
    ]
    for section in (_options, _inis, _markers, _fixtures_section, _hooks_section):
        lines += section(reference)
    return "\n".join(lines).rstrip("\n") + "\n"


def on_files(files: Any, config: Any) -> Any:
    """MkDocs: add the generated page to the site's files."""
    from mkdocs.structure.files import File

    files.append(File.generated(config, PAGE, content=render(collect())))
    return files
