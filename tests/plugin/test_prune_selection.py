"""``--trajectory-prune-unused`` through every way pytest has of running less than every test:
whatever the selection, no file a test uses is deleted; a run that saw every test still
deletes the files no test uses.

The project has tests in ``tests/`` and ``tests/sub/`` that use their files in each way a test
can (a literal name, its own default file, its marker's ``reference=``, a name built from a
parameter), and two files no test uses. Each case adds what it needs (a failure on demand, a
module that skips itself, a plugin that collects) and runs with the option once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

RUN = """
import os
import pytest
from pytest_agenttraj import assert_trajectory

def run():
    return [
        {"role": "user", "content": "Weather?"},
        {"role": "assistant", "tool_calls": [
            {"name": "get_weather", "args": {"location_code": "location-123"}}]},
    ]
"""

TEST_A = (
    RUN
    + """
def test_literal():
    assert_trajectory(run(), "a.yaml")

def test_default():
    assert_trajectory(run())

@pytest.mark.trajectory(reference="m.yaml")
def test_marker(trajectory_reference):
    assert_trajectory(run(), trajectory_reference)

@pytest.mark.parametrize("case", ["x", "y"])
def test_built(case):
    assert_trajectory(run(), f"p_{case}.yaml")
"""
)

TEST_B = (
    RUN
    + """
def test_fails_on_demand():
    assert not os.environ.get("FAIL"), "asked to fail"

def test_crashes_on_demand():
    if os.environ.get("CRASH"):
        os._exit(3)
    if os.environ.get("INTERRUPT"):
        pytest.exit("interrupted, as Ctrl-C does")

@pytest.mark.slow
def test_b():
    assert_trajectory(run(), "b.yaml")
"""
)

TEST_C = (
    RUN
    + """
def test_c():
    assert_trajectory(run(), "c.yaml")
"""
)

REFERENCE = """\
- content: Weather?
  role: user
- role: assistant
  tool_calls:
  - args:
      location_code: location-123
    name: get_weather
"""

USED = [
    "tests/trajectories/a.yaml",
    "tests/trajectories/test_default.yaml",
    "tests/trajectories/m.yaml",
    "tests/trajectories/p_x.yaml",
    "tests/trajectories/p_y.yaml",
    "tests/trajectories/b.yaml",
    "tests/sub/trajectories/c.yaml",
]
UNUSED = ["tests/trajectories/stale.yaml", "tests/sub/trajectories/old.yaml"]

NOT_CHECKED = "agenttraj: unused references were not checked, so nothing was deleted: "

SKIPPED_MODULE = (
    RUN
    + """
pytest.skip("not on this machine", allow_module_level=True)

def test_skipped_module():
    assert_trajectory(run())
"""
)

OPTIONAL_MODULE = (
    RUN
    + """
pytest.importorskip("a_module_nobody_installed")

@pytest.mark.trajectory(reference="optional.yaml")
def test_optional(trajectory_reference):
    assert_trajectory(run(), trajectory_reference)
"""
)

BROKEN_MODULE = (
    RUN
    + """
import a_module_nobody_installed

def test_broken():
    assert_trajectory(run())
"""
)

DESELECTING_CONFTEST = """
def pytest_collection_modifyitems(config, items):
    dropped = [item for item in items if item.name == "test_c"]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = [item for item in items if item not in dropped]
"""

SPEC_PLUGIN = """
import pytest

def pytest_collect_file(file_path, parent):
    if file_path.name.startswith("spec_") and file_path.suffix == ".py":
        return pytest.Module.from_parent(parent, path=file_path)
"""

# the same plugin, its hook named otherwise and bound to the hook by ``specname`` (as
# pytest-asyncio before 1.4 collects async tests)
SPEC_PLUGIN_RENAMED = """
import pytest

@pytest.hookimpl(specname="pytest_collect_file")
def collect_spec_files(file_path, parent):
    if file_path.name.startswith("spec_") and file_path.suffix == ".py":
        return pytest.Module.from_parent(parent, path=file_path)
"""

SPEC_MODULE = (
    RUN
    + """
def test_spec():
    assert_trajectory(run())
"""
)


Prepare = Callable[[pytest.Pytester, pytest.MonkeyPatch], list[str]]
"""Changes a case makes to the project before its run; returns the files it adds a use of."""


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.fixture
def tree(every_plugin: pytest.Pytester) -> pytest.Pytester:
    project = every_plugin
    _write(project.path / "tests" / "test_a.py", TEST_A)
    _write(project.path / "tests" / "test_b.py", TEST_B)
    _write(project.path / "tests" / "sub" / "test_c.py", TEST_C)
    for name in USED + UNUSED:
        _write(project.path / name, REFERENCE)
    conftest = project.path / "conftest.py"
    conftest.write_text(
        conftest.read_text(encoding="utf-8")
        + '\ndef pytest_configure(config):\n    config.addinivalue_line("markers", "slow")\n',
        encoding="utf-8",
    )
    return project


def _present(project: pytest.Pytester, names: list[str]) -> list[str]:
    return [name for name in names if (project.path / name).exists()]


def _module(name: str, text: str, *used: str) -> Prepare:
    """Add a test module (and the files it uses); returns those files."""

    def add(project: pytest.Pytester, _: pytest.MonkeyPatch) -> list[str]:
        _write(project.path / "tests" / name, text)
        for reference in used:
            _write(project.path / reference, REFERENCE)
        return list(used)

    return add


def _ini(line: str) -> Prepare:
    def add(project: pytest.Pytester, _: pytest.MonkeyPatch) -> list[str]:
        ini = project.path / "pytest.ini"
        ini.write_text(ini.read_text(encoding="utf-8") + f"\n{line}\n", encoding="utf-8")
        return []

    return add


def _conftest(folder: str, text: str) -> Prepare:
    def add(project: pytest.Pytester, _: pytest.MonkeyPatch) -> list[str]:
        _write(project.path / folder / "conftest.py", text)
        return []

    return add


def _spec_plugin(source: str) -> Prepare:
    """A plugin (loaded by the root conftest) that collects ``spec_*.py`` files."""

    def prepare(project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> list[str]:
        _write(project.path / "spec_plugin.py", source)
        conftest = project.path / "conftest.py"
        conftest.write_text(
            'pytest_plugins = ["spec_plugin"]\n' + conftest.read_text(encoding="utf-8"),
            encoding="utf-8",
        )
        spec = _module("spec_weather.py", SPEC_MODULE, "tests/trajectories/test_spec.yaml")
        return spec(project, monkeypatch)

    return prepare


def _failed_before(*args: str) -> Prepare:
    """A run before the one that prunes, with ``test_fails_on_demand`` failing (for the
    cache that --lf, --ff and --sw read)."""

    def run(project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> list[str]:
        with monkeypatch.context() as env:
            env.setenv("FAIL", "1")
            failed = project.runpytest(*args)
        assert failed.ret in (pytest.ExitCode.TESTS_FAILED, pytest.ExitCode.INTERRUPTED)
        return []

    return run


def _in_subfolder(project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    monkeypatch.chdir(project.path / "tests" / "sub")
    return []


@dataclass
class Case:
    args: list[str]
    reason: str | None  # what the summary says, or None for a run that judges
    prepare: Prepare | None = None
    env: dict[str, str] = field(default_factory=dict)
    lines: list[str] = field(default_factory=list)


CASES = {
    "every test": Case([], None),
    "every test, named by their folder": Case(["tests"], None),
    "every test, with a plugin that collects": Case([], None, prepare=_spec_plugin(SPEC_PLUGIN)),
    "every test, xdist": Case(["-n", "2"], None),
    "a file": Case(
        ["tests/test_a.py"],
        "2 test file(s) under the rootdir did not collect*",
        lines=["    tests/sub/test_c.py: not collected: outside the run's arguments"],
    ),
    "a folder": Case(["tests/sub"], "2 test file(s) under the rootdir did not collect*"),
    "a test id": Case(["tests/test_a.py::test_literal"], "the run selected tests (a test id)*"),
    "started in a subfolder": Case(
        [],
        "2 test file(s)*",
        prepare=_in_subfolder,
        lines=["    tests/test_a.py: not collected: outside the folder the run started in"],
    ),
    "-k": Case(["-k", "literal"], "the run selected tests (-k)"),
    "-m": Case(["-m", "slow"], "the run selected tests (-m)"),
    "--deselect": Case(["--deselect", "tests/test_b.py::test_b"], "*(--deselect)"),
    "--lf": Case(["--lf"], "the run selected tests (--lf)", prepare=_failed_before()),
    "--ff": Case(["--ff"], "the run selected tests (--ff)", prepare=_failed_before()),
    "--sw": Case(["--sw"], "the run selected tests (--sw)", prepare=_failed_before("--sw")),
    "--ignore": Case(
        ["--ignore=tests/test_b.py"],
        "1 test file(s) under the rootdir did not collect*",
        lines=["    tests/test_b.py: not collected: --ignore"],
    ),
    "--ignore of a folder": Case(
        ["--ignore=tests/sub"],
        "1 test file(s)*",
        lines=["    tests/sub/test_c.py: not collected: --ignore"],
    ),
    "--ignore-glob": Case(
        ["--ignore-glob=*/test_b.py"],
        "1 test file(s)*",
        lines=["    tests/test_b.py: not collected: --ignore-glob"],
    ),
    "testpaths": Case(
        [],
        "2 test file(s)*",
        prepare=_ini("testpaths = tests/test_a.py"),
        lines=["    tests/test_b.py: not collected: outside testpaths"],
    ),
    "collect_ignore": Case(
        [],
        "1 test file(s)*",
        prepare=_conftest("tests", 'collect_ignore = ["test_b.py"]\n'),
        lines=["    tests/test_b.py: not collected (collect_ignore, a conftest or a plugin *)"],
    ),
    "a plugin that deselects": Case(
        [],
        "1 test(s) were deselected*",
        prepare=_conftest("tests/sub", DESELECTING_CONFTEST),
    ),
    "--collect-only": Case(["--collect-only"], "the run selected tests (--collect-only)*"),
    "-x": Case(["-x"], "the run stopped early*", env={"FAIL": "1"}),
    "--maxfail": Case(["--maxfail=1"], "the run stopped early*", env={"FAIL": "1"}),
    "plugin autoloading off": Case(
        ["-p", "pytest_agenttraj.plugin"],
        "plugins that collect tests were not loaded (*asyncio*)*",
        env={"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
    ),
    "interrupted": Case([], "the run was interrupted*", env={"INTERRUPT": "1"}),
    "a crashed xdist worker": Case(
        ["-n", "2"], "pytest-xdist worker(s) gw* crashed*", env={"CRASH": "1"}
    ),
    "-p no: of a plugin that collects": Case(
        ["-p", "no:spec_plugin"],
        "plugins that collect tests were not loaded (spec_plugin)*",
        prepare=_spec_plugin(SPEC_PLUGIN),
    ),
    "-p no: of a plugin whose collecting hook has another name": Case(
        ["-p", "no:spec_plugin"],
        "plugins that collect tests were not loaded (spec_plugin)*",
        prepare=_spec_plugin(SPEC_PLUGIN_RENAMED),
    ),
    "a collection error": Case(
        ["--continue-on-collection-errors"],
        "1 test file(s)*",
        prepare=_module("test_broken.py", BROKEN_MODULE, "tests/trajectories/test_broken.yaml"),
        lines=["    tests/test_broken.py: did not collect (an error)"],
    ),
    "a module-level skip": Case(
        [],
        "1 test file(s)*",
        prepare=_module(
            "test_skipped.py", SKIPPED_MODULE, "tests/trajectories/test_skipped_module.yaml"
        ),
        lines=["    tests/test_skipped.py: skipped at module level (not on this machine)"],
    ),
    "importorskip": Case(
        [],
        "1 test file(s)*",
        prepare=_module("test_optional.py", OPTIONAL_MODULE, "tests/trajectories/optional.yaml"),
        lines=["    tests/test_optional.py: skipped at module level (could not import *)"],
    ),
    "importorskip, xdist": Case(
        ["-n", "2"],
        "1 test file(s)*",
        prepare=_module("test_optional.py", OPTIONAL_MODULE, "tests/trajectories/optional.yaml"),
        lines=["    tests/test_optional.py: skipped at module level (could not import *)"],
    ),
}


@pytest.mark.parametrize("case", list(CASES.values()), ids=list(CASES))
def test_prune_never_deletes_a_used_file(
    tree: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, case: Case
) -> None:
    used = USED + (case.prepare(tree, monkeypatch) if case.prepare else [])
    for name, value in case.env.items():
        monkeypatch.setenv(name, value)
    result = tree.runpytest("--trajectory-prune-unused", *case.args)
    assert _present(tree, used) == used, result.stdout.str()
    if case.reason is None:
        assert result.ret == pytest.ExitCode.OK, result.stdout.str()
        assert _present(tree, UNUSED) == []
        result.stdout.fnmatch_lines(
            [f"agenttraj: deleted unused reference {name}" for name in sorted(UNUSED)],
            consecutive=True,
        )
    else:
        assert _present(tree, UNUSED) == UNUSED
        result.stdout.fnmatch_lines([NOT_CHECKED + case.reason, *case.lines])
        assert "deleted unused" not in result.stdout.str()
