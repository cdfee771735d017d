"""Files tests keep in a folder beside them (reference files in ``trajectories/``) that no test
uses: listed after a run that saw every test, deleted on request. A CI tool must never delete a
file in use, so the rule leans to keeping.

A file is **used** when a test file under the rootdir names it, decided from the test files
themselves, collected or not, never from which tests happened to run:

* a test evaluated it in this run;
* a collected test names it without running (its own file name, its marker's), whatever
  became of the test;
* a string in a test file, a ``conftest.py`` above one, or another Python file beside one, is
  its name (its last path part);
* a name built at run time there (an f-string, ``+``, ``%``, ``str.format``, a glob) could be
  it, and a test that may not have got that far did not pass: one of the function's own tests,
  or, for a name built outside a test function, any test at or below that file's folder.

Only a run that collected every test file under the rootdir and ran every test it collected
judges (see :mod:`.collection`); any other lists nothing and deletes nothing, and, asked to
prune, says why and which test files it could not check. Only regular files inside the kind's
folders beside test files are candidates: links are never followed and never deleted. The kind
of file is a parameter (:class:`FileKind`), so every kind is pruned by the same rule.
"""

# No ``from __future__ import annotations``: ``typing.NamedTuple`` compiles each string
# annotation of its fields, and every run defines this module's at start-up.

import fnmatch
import os
import stat
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import pytest

from .collection import Collection, Namer
from .completeness import problems, shown, test_files, unchecked
from .reference_store import relative

if TYPE_CHECKING:  # read only once a run has files to judge
    from ..references.mentions import Mentions, Pattern

__all__ = ["FileKind", "UnusedFiles", "Verdict", "candidates"]


class FileKind(NamedTuple):
    """A kind of file tests keep in ``folder`` beside them: its ``suffixes``, what to call one
    (``noun``), and the names a test gives such files without running (``names``:
    each as the test would write it, relative to the folder, with why it names it). A named
    tuple: every run builds the kinds at start-up, where a frozen dataclass costs several times
    as much to define."""

    folder: str
    suffixes: tuple[str, ...]
    noun: str
    names: Callable[[pytest.Item], Iterable[tuple[str, str]]]
    marker: str = ""
    """The marker whose arguments may name a file elsewhere; without the folder beside it and
    without this marker, a test names no file (and ``names`` is not asked)."""


def candidates(folder: Path, suffixes: tuple[str, ...]) -> list[Path]:
    """The regular files with one of ``suffixes`` inside ``folder``, links neither followed nor
    listed."""
    found: list[Path] = []
    for top, dirs, files in os.walk(folder, followlinks=False):
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(top, d))]
        for name in files:
            path = Path(top, name)
            if path.suffix not in suffixes:
                continue
            try:
                mode = os.lstat(path).st_mode
            except OSError:
                continue
            if stat.S_ISREG(mode):
                found.append(path)
    return sorted(found)


def _base(nodeid: str) -> str:
    """The function a test id runs (its parameters left out)."""
    return nodeid.rsplit("::", 1)[-1].split("[", 1)[0]


def namer(kind: FileKind, root: Path) -> Namer:
    """The files a test names for ``kind``, relative to the rootdir; a name outside it, or
    without one of the kind's suffixes, names none."""
    return _FileNamer(kind, root)


class _FileNamer:
    """``namer``'s answer: looks the kind's folder up once per test file (its items share the
    path)."""

    __slots__ = ("_folders", "kind", "root")

    def __init__(self, kind: FileKind, root: Path) -> None:
        self.kind = kind
        self.root = root.resolve()
        self._folders: dict[Path, tuple[Path, bool]] = {}

    def _folder_of(self, item: pytest.Item) -> tuple[Path, bool]:
        """The kind's folder beside the test (resolved when it exists), and whether it does."""
        known = self._folders.get(item.path)
        if known is None:
            folder = item.path.parent / self.kind.folder
            exists = folder.is_dir()
            known = self._folders[item.path] = (folder.resolve() if exists else folder, exists)
        return known

    def __call__(self, item: pytest.Item, marks: frozenset[str]) -> list[tuple[str, str]]:
        kind = self.kind
        found: list[tuple[str, str]] = []
        if kind.marker not in marks and not self._folder_of(item)[1]:
            return found
        for name, why in kind.names(item):
            path = Path(name)
            simple = len(path.parts) == 1
            if not path.is_absolute():
                folder, exists = self._folder_of(item)
                if simple and not exists:  # nothing there to keep
                    continue
                path = folder / path
            if not simple:  # it may lead up, or through links
                path = path.resolve()
            if path.suffix in kind.suffixes and path.is_relative_to(self.root):
                found.append((path.relative_to(self.root).as_posix(), f"{item.nodeid}: {why}"))
        return found


class Verdict:
    """What a run decided: ``problems`` and ``unchecked`` test files when it could not judge;
    else the ``unused`` files and those ``kept`` (each with why), and those ``removed``."""

    __slots__ = ("kept", "problems", "removed", "unchecked", "unused")

    def __init__(self, problems: list[str] | None = None) -> None:
        self.problems: list[str] = [] if problems is None else problems
        self.unchecked: dict[str, str] = {}
        self.unused: list[str] = []
        self.kept: dict[str, str] = {}
        self.removed: list[str] = []

    @property
    def checked(self) -> bool:
        return not self.problems and not self.unchecked


class UnusedFiles:
    """Judges one kind of file at the end of a run, from what ``collection`` saw."""

    def __init__(self, config: pytest.Config, kind: FileKind, collection: Collection) -> None:
        self.config = config
        self.kind = kind
        self.collection = collection
        self.root = config.rootpath
        self._mentions: dict[Path, Mentions] = {}
        self._names: dict[str, Path] | None = None

    def judge(
        self, session: pytest.Session, exitstatus: int, used: set[str], *, explain: bool
    ) -> Verdict:
        """Decide which files are unused; ``used`` holds those the run's tests evaluated. A run
        that cannot judge finds the test files it could not check only when ``explain``."""
        collection = self.collection
        if not explain and not self._has_folders():
            return Verdict()  # nothing to list
        verdict = Verdict(problems=problems(collection, session, exitstatus))
        if verdict.problems and not explain:
            return verdict
        tests = self._test_files()
        verdict.unchecked = unchecked(collection, tests)
        if not verdict.checked:
            return verdict
        named = collection.named.get(self.kind.folder, {})
        sources = self._sources(tests)
        for path in self._candidates(tests):
            name = relative(path, self.root)
            if name in used:
                continue
            why = named.get(name) or self._mentioned(path, sources)
            if why:
                verdict.kept[name] = why
            else:
                verdict.unused.append(name)
        return verdict

    def prune(self, verdict: Verdict) -> None:
        """Delete the unused files that are still regular files."""
        for name in verdict.unused:
            path = self.root / name
            if stat.S_ISREG(os.lstat(path).st_mode):
                path.unlink()
                verdict.removed.append(name)

    def _has_folders(self) -> bool:
        """Whether a folder of this kind is beside a collected test file (a run that saw every
        test file has nothing to list without one)."""
        return self.collection.has_folder(self.kind.folder)

    def _test_files(self) -> list[Path]:
        walked = test_files(self.config)
        known = {self.collection.rel(p) for p in walked}
        extra = [self.root / rel for rel in sorted(self.collection.collected - known)]
        return walked + [p for p in extra if p.is_file()]

    def _candidates(self, tests: list[Path]) -> list[Path]:
        found: list[Path] = []
        root = self.root.resolve()
        for folder in sorted({test.parent / self.kind.folder for test in tests}):
            if folder.is_symlink() or not folder.is_dir():
                continue
            if folder.resolve().is_relative_to(root):
                found += candidates(folder, self.kind.suffixes)
        return found

    def _sources(self, tests: list[Path]) -> list[Path]:
        """The files whose text may name a file: the test files, the ``conftest.py`` files
        above them (up to the rootdir), and the other Python files beside them."""
        sources = dict.fromkeys(tests)
        for folder in sorted({test.parent for test in tests}):
            sources.update(dict.fromkeys(sorted(folder.glob("*.py"))))
            for above in [folder, *folder.parents]:
                if not above.is_relative_to(self.root):
                    break
                if (above / "conftest.py").is_file():
                    sources[above / "conftest.py"] = None
        return list(sources)

    def _mentioned(self, path: Path, sources: list[Path]) -> str | None:
        """Why a source's text names ``path``, if one does."""
        if self._names is None:
            self._names = {}
            for source in sources:
                for name in self._read(source).names:
                    self._names.setdefault(name, source)
        named_in = self._names.get(path.name)
        if named_in is not None:
            return f"a string in {self.collection.rel(named_in)} names it"
        for source in sources:
            inside = path.is_relative_to(source.parent)
            for pattern in self._read(source).patterns:
                if not (pattern.folders or inside):
                    continue
                test = fnmatch.fnmatchcase(path.name, pattern.glob) and self._unpassed(
                    source, pattern
                )
                if test:
                    return (
                        f"a name built at {self.collection.rel(source)}:{pattern.line} "
                        f"({pattern.text}) could be it, and {test} did not pass"
                    )
        return None

    def _unpassed(self, source: Path, pattern: "Pattern") -> str | None:
        """A test that did not pass, and so may not have got to build ``pattern``'s name: one
        of its function's own tests, else any test at or below the source's folder."""
        collection = self.collection
        if pattern.owner is not None:
            prefix = collection.rel(source) + "::"
            own = sorted(
                t for t in collection.tests if t.startswith(prefix) and _base(t) == pattern.owner
            )
            if own:
                return next((t for t in own if t in collection.unpassed), None)
        below = (
            t
            for t in sorted(collection.unpassed)
            if (self.root / t.split("::", 1)[0]).is_relative_to(source.parent)
        )
        return next(below, None)

    def _read(self, source: Path) -> "Mentions":
        if source not in self._mentions:
            from ..references.mentions import mentions

            try:
                text = source.read_text(encoding="utf-8", errors="replace")
            except OSError:
                text = ""
            self._mentions[source] = mentions(
                text, self.kind.suffixes, python=source.suffix == ".py"
            )
        return self._mentions[source]

    def lines(self, verdict: Verdict, *, prune: bool) -> Iterator[tuple[str, bool]]:
        """The terminal summary's lines for ``verdict``, each with whether it is a warning."""
        noun = self.kind.noun
        if not verdict.checked:
            if prune:
                yield from self._unchecked_lines(verdict)
            return
        for name in verdict.removed:
            yield f"agenttraj: deleted unused {noun} {name}", False
        if verdict.unused and not verdict.removed:
            yield (
                f"agenttraj: {len(verdict.unused)} {noun} file(s) no test used "
                "(--trajectory-prune-unused deletes them):",
                True,
            )
            yield from ((f"    {name}", False) for name in verdict.unused)
        if verdict.kept and (prune or verdict.unused):
            yield (
                f"agenttraj: kept {len(verdict.kept)} {noun} file(s) that no evaluation read "
                "but a test file names:",
                False,
            )
            yield from ((f"    {name}: {why}", False) for name, why in verdict.kept.items())
        if prune and not verdict.unused:
            yield f"agenttraj: no unused {noun} files", False

    def _unchecked_lines(self, verdict: Verdict) -> Iterator[tuple[str, bool]]:
        reasons = list(verdict.problems)
        if verdict.unchecked:
            reasons.append(
                f"{len(verdict.unchecked)} test file(s) under the rootdir did not collect, so "
                "what they name is unknown"
            )
        yield (
            f"agenttraj: unused {self.kind.noun}s were not checked, so nothing was deleted: "
            + "; ".join(reasons),
            True,
        )
        yield from ((line, False) for line in shown(verdict.unchecked))
