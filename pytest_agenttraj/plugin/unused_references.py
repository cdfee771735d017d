"""Reference files no test uses: listed after a run of every test, deleted with
``--trajectory-prune-unused``. A CI tool must never delete a file in use, so the rules lean to
keeping:

* only a run that collected and ran every test under the rootdir judges (no file or directory
  argument, ``--lf``, ``--ff``, ``-k``, ``-m``, ``--deselect``, no test stopped early, no
  collection error);
* a file counts as used when a test evaluated it, when a test names it without evaluating it
  (its marker's ``reference=``, its own ``<test name>.yaml``) whatever became of the test
  (skipped, xfailed, errored), or when its name is a string anywhere in a test module;
* only regular files inside ``trajectories/`` folders are candidates: links are never followed
  and never deleted, nor is anything a link points to.
"""

from __future__ import annotations

import ast
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..references.file import REFERENCE_SUFFIXES
from .reference_store import FOLDER, relative

if TYPE_CHECKING:
    from .session import TrajectorySession

__all__ = ["NAMED_PROPERTY", "UnusedReferences", "candidates", "string_names"]

NAMED_PROPERTY = "agenttraj_named"
"""Name of the teardown report's entry listing the files a test names (JSON list)."""


def candidates(folder: Path) -> list[Path]:
    """The regular reference files inside ``folder``, links neither followed nor listed."""
    found: list[Path] = []
    for top, dirs, files in os.walk(folder, followlinks=False):
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(top, d))]
        for name in files:
            path = Path(top, name)
            if path.suffix not in REFERENCE_SUFFIXES:
                continue
            try:
                mode = os.lstat(path).st_mode
            except OSError:
                continue
            if stat.S_ISREG(mode):
                found.append(path)
    return sorted(found)


def string_names(module: Path) -> set[str]:
    """The base names of the reference files that strings in a module's source name."""
    try:
        tree = ast.parse(module.read_bytes(), filename=str(module))
    except (OSError, SyntaxError, ValueError):
        return set()
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value.strip()
            if text.endswith(REFERENCE_SUFFIXES) and "\n" not in text:
                names.add(os.path.basename(text))
    return names


class UnusedReferences:
    """Registered on the controlling process: learns from the test reports which modules ran and
    which files they name, reads which files were evaluated from the session's results, and at
    the end lists (or deletes) the rest."""

    def __init__(self, config: pytest.Config, prune: bool, session: TrajectorySession) -> None:
        self.config = config
        self.prune = prune
        self.session = session
        self.root = config.rootpath
        self.modules: set[Path] = set()
        self.incomplete: str | None = self._selection()
        self.written: list[str] = []
        self.unused: list[str] = []
        self.kept: list[str] = []
        self.removed: list[str] = []
        self.checked = False

    def _selection(self) -> str | None:
        """Why this run cannot tell unused files from the options alone, if it cannot."""
        option, config = self.config.option, self.config
        source = config.args_source
        if source == pytest.Config.ArgsSource.ARGS:
            roots = {Path(config.invocation_params.dir, a).resolve() for a in config.args}
            if roots != {self.root.resolve()}:
                return "the run was given files or directories"
        elif source == pytest.Config.ArgsSource.INVOCATION_DIR and (
            Path(config.invocation_params.dir).resolve() != self.root.resolve()
        ):
            return "the run started below the rootdir"
        flags = {
            "--lf": getattr(option, "lf", False),
            "--ff": getattr(option, "failedfirst", False),
            "-k": getattr(option, "keyword", ""),
            "-m": getattr(option, "markexpr", ""),
            "--deselect": getattr(option, "deselect", None),
            "--sw": getattr(option, "stepwise", False),
            "--collect-only": getattr(option, "collectonly", False),
        }
        used = [flag for flag, value in flags.items() if value]
        return f"the run selected tests ({', '.join(used)})" if used else None

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        if items and self.incomplete is None:
            self.incomplete = "some tests were deselected"

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed and self.incomplete is None:
            self.incomplete = "a test module did not collect"

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.modules.add(self.root / report.fspath)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        evaluated: set[str] = set()
        for record in self.session.results.records:
            name = record.get("reference_file")
            if isinstance(name, str):
                evaluated.add(name)
                if record.get("reference_written") and name not in self.written:
                    self.written.append(name)
        if self.incomplete is None and (session.shouldstop or session.shouldfail):
            self.incomplete = "the run stopped early"
        if self.incomplete is None and exitstatus == pytest.ExitCode.INTERRUPTED:
            self.incomplete = "the run was interrupted"
        if self.incomplete is not None:
            return
        self.checked = True
        self._judge(evaluated)

    def _judge(self, evaluated: set[str]) -> None:
        strings: set[str] = set()
        sources = self.modules | {m.parent / "conftest.py" for m in self.modules}
        for module in sources:
            strings |= string_names(module)
        folders = sorted({module.parent / FOLDER for module in self.modules})
        for folder in folders:
            if folder.is_symlink() or not folder.is_dir():
                continue
            for path in candidates(folder):
                name = relative(path, self.root)
                if name in evaluated:
                    continue
                if name in self.session.named or path.name in strings:
                    self.kept.append(name)
                else:
                    self.unused.append(name)
        if self.prune:
            for name in self.unused:
                path = self.root / name
                if stat.S_ISREG(os.lstat(path).st_mode):  # still a regular file
                    path.unlink()
                    self.removed.append(name)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        write = terminalreporter.write_line
        for name in self.written:
            write(f"agenttraj: wrote reference {name}", yellow=True)
        for name in self.removed:
            write(f"agenttraj: deleted unused reference {name}")
        if self.unused and not self.removed:
            write(
                f"agenttraj: {len(self.unused)} reference file(s) no test used "
                "(--trajectory-prune-unused deletes them):",
                yellow=True,
            )
            for name in self.unused:
                write(f"    {name}")
        if self.kept and (self.prune or self.unused):
            write(
                f"agenttraj: kept {len(self.kept)} reference file(s) that no evaluation read "
                "but a test names (its marker, its own file name, or a string in its module):"
            )
            for name in self.kept:
                write(f"    {name}")
        if self.prune and not self.checked:
            write(f"agenttraj: unused references were not checked: {self.incomplete}")
        elif self.prune and not self.unused:
            write("agenttraj: no unused reference files")
