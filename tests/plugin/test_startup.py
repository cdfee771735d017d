"""Loading the plugin must stay cheap: pytest imports it in every run of every project."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

# re2 (the Regex engine) is loaded when the first Regex is built
HEAVY = ("langchain_core", "langsmith", "langgraph", "yaml", "openevals", "langchain", "re2")


def _python(code: str) -> str:
    """What ``code`` prints, run in a fresh interpreter."""
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout


def test_plugin_import_leaves_heavy_packages_out() -> None:
    code = (
        "import sys, pytest_agenttraj.plugin, pytest_agenttraj\n"
        f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))\n"
    )
    out = _python(code)
    assert out.strip() == "[]"


def test_loading_the_plugins_compiles_no_annotation() -> None:
    # typing.NamedTuple compiles each field's annotation when it is a string (a ForwardRef), as
    # does subscribing a generic with a string: the modules every run loads define their named
    # tuples with annotations evaluated where they stand, and their stash keys by annotation.
    code = (
        "import builtins, importlib, json, pytest\n"
        "compiled = []\n"
        "real = builtins.compile\n"
        "def counting(source, filename, mode, *args, **kwargs):\n"
        "    if mode == 'eval':\n"
        "        compiled.append(str(source))\n"
        "    return real(source, filename, mode, *args, **kwargs)\n"
        "builtins.compile = counting\n"
        "import pytest_agenttraj.plugin as plugin\n"
        "for name in plugin.PLUGINS:\n"
        "    importlib.import_module(name)\n"
        "builtins.compile = real\n"
        "print(json.dumps(compiled))\n"
    )
    out = _python(code)
    assert json.loads(out) == []


def test_the_regex_engine_loads_with_the_first_regex() -> None:
    code = (
        "import sys\n"
        "from pytest_agenttraj.core import matchers, spelled\n"
        "spelled.matchers_from_spelled({'city': {'$any': True}})\n"
        "print('re2' in sys.modules)\n"
        "matchers.Regex('S.*')\n"
        "print('re2' in sys.modules)\n"
    )
    out = _python(code)
    assert out.split() == ["False", "True"]


def test_plugin_is_registered_by_entry_point(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_subprocess("--co", "-p", "no:langsmith_plugin")
    result.stdout.fnmatch_lines(["agenttraj: mode=strict, tool_args=exact"])


# loaded only by the runs that use them (--trajectory-baseline, --trajectory-min-pass-rate,
# --junitxml, $GITHUB_STEP_SUMMARY; a marker's tool-usage rules; the first comparison)
ON_DEMAND = (
    "pytest_agenttraj.gating.baseline_gate",
    "pytest_agenttraj.gating.pass_rate",
    "pytest_agenttraj.gating.junit",
    "pytest_agenttraj.gating.step_summary",
    "pytest_agenttraj.core.usage",
    "pytest_agenttraj.core.matching.report",
    "pytest_agenttraj.integrations.replay.intercept",
    "pytest_agenttraj.references.cassette",
    "pytest_agenttraj.core.replay",
    # the rules, scopes and reference files of a test that uses the package
    "pytest_agenttraj.core.matching.rules",
    "pytest_agenttraj.core.values",
    "pytest_agenttraj.evaluators.scope",
    "pytest_agenttraj.references.file",
    "pytest_agenttraj.references.ledger",
    "pytest_agenttraj.references.mentions",
    # the session's per-test half, a repeated test's runner, LangSmith's sink (made when
    # logging is on or a test is marked langsmith), a LangSmith test case and langsmith's live
    # table (--langsmith-output)
    "pytest_agenttraj.plugin.running",
    "pytest_agenttraj.plugin.repeat",
    "pytest_agenttraj.integrations.langsmith.case",
    "pytest_agenttraj.integrations.langsmith.payload",
    "pytest_agenttraj.integrations.langsmith.runner",
    "pytest_agenttraj.integrations.langsmith.timeouts",
    "pytest_agenttraj.integrations.langsmith.sink",
    "pytest_agenttraj.integrations.langsmith.output",
    "pytest_agenttraj.integrations.langsmith.selection",
    "pytest_agenttraj.integrations.langsmith.stats",
    "pytest_agenttraj.integrations.replay.state",
    # what lists unused reference files and cassettes (a kind's folder beside a collected test
    # file, or a run that prunes, records or updates)
    "pytest_agenttraj.plugin.unused_files",
    "pytest_agenttraj.plugin.completeness",
    "pytest_agenttraj.plugin.unused_references",
    "pytest_agenttraj.plugin.unused_cassettes",
    # what a run writes or evaluates: its records, a report file, a judge's stored answers, the
    # package's errors
    "pytest_agenttraj.evaluators.judges.cache",
    "pytest_agenttraj.plugin.results",
    "pytest_agenttraj.evaluators.result",
    "pytest_agenttraj.plugin.report_file",
    "pytest_agenttraj._files",
    "pytest_agenttraj.errors",
)

PRINT_LOADED = f"""
import sys
def pytest_sessionfinish(session):
    print("loaded:", sorted(m for m in {ON_DEMAND!r} if m in sys.modules))
"""


def test_a_plain_run_loads_only_what_it_uses(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(PRINT_LOADED)
    pytester.makepyfile("def test_plain():\n    assert True\n")
    result = pytester.runpytest_subprocess("-p", "no:langsmith_plugin", "-s")
    result.assert_outcomes(passed=1)
    assert "loaded: []" in result.stdout.str()
    # a run that uses a gate and a usage rule loads what it uses (the marker, whose reference=
    # may name a file elsewhere, has the listers of unused files look at the test)
    pytester.makepyfile(
        "import pytest\n"
        "@pytest.mark.trajectory(forbidden=['delete'])\n"
        "def test_plain(assert_trajectory):\n"
        "    assert_trajectory([{'role': 'user', 'content': 'q'}], "
        "[{'role': 'user', 'content': 'q'}], allow_empty=True)\n"
    )
    result = pytester.runpytest_subprocess(
        "-p", "no:langsmith_plugin", "-s", "--trajectory-min-pass-rate=0.5"
    )
    result.assert_outcomes(passed=1)
    assert (
        "loaded: ['pytest_agenttraj._files', 'pytest_agenttraj.core.matching.report', "
        "'pytest_agenttraj.core.matching.rules', 'pytest_agenttraj.core.usage', "
        "'pytest_agenttraj.core.values', 'pytest_agenttraj.errors', "
        "'pytest_agenttraj.evaluators.judges.cache', "
        "'pytest_agenttraj.evaluators.result', 'pytest_agenttraj.evaluators.scope', "
        "'pytest_agenttraj.gating.pass_rate', 'pytest_agenttraj.plugin.completeness', "
        "'pytest_agenttraj.plugin.results', 'pytest_agenttraj.plugin.running', "
        "'pytest_agenttraj.plugin.unused_cassettes', "
        "'pytest_agenttraj.plugin.unused_files', 'pytest_agenttraj.plugin.unused_references', "
        "'pytest_agenttraj.references.file']"
    ) in result.stdout.str()


# Counts, per test, the calls of the package's functions made while the test runs (its whole
# runtest protocol: setup, call, teardown, their reports), by a profile function. The per-test
# hooks, registered once some test uses the plugin, are counted apart ("dispatch"): for any
# other test each only looks the test up in the set collection made, and returns.
COUNT_CALLS = """
import collections, json, os, sys
import pytest
import pytest_agenttraj
from pytest_agenttraj.plugin.running import TestHooks

PACKAGE = os.path.dirname(pytest_agenttraj.__file__) + os.sep
CALLS = collections.defaultdict(collections.Counter)
DISPATCH = {
    getattr(value, "__code__", None)
    for value in vars(TestHooks).values()
    if getattr(value, "__name__", "").startswith("pytest_")
}


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_protocol(item):
    counted = CALLS[item.nodeid]

    def profile(frame, event, arg):
        code = frame.f_code
        if event == "call" and code.co_filename.startswith(PACKAGE):
            where = "dispatch" if code in DISPATCH else code.co_filename[len(PACKAGE):]
            counted[where + ":" + code.co_name] += 1

    sys.setprofile(profile)
    try:
        return (yield)
    finally:
        sys.setprofile(None)


def pytest_unconfigure(config):
    print("calls:", json.dumps({k: dict(v) for k, v in CALLS.items()}, sort_keys=True))
"""

PLAIN_TESTS = """
import pytest


@pytest.fixture
def numbers(tmp_path):
    yield [1, 2]


def test_plain():
    assert 1 + 1 == 2


@pytest.mark.parametrize("n", [1, 2])
def test_parametrized(n, numbers):
    assert n in numbers


class TestInAClass:
    def test_method(self):
        assert "a" < "b"


def test_fails():
    assert [1] == [2]


@pytest.mark.skip(reason="not today")
def test_skipped():
    pass
"""

USES_THE_PLUGIN = """
MESSAGES = [{"role": "user", "content": "q"}]


def test_fixture(assert_trajectory):
    assert_trajectory(MESSAGES, MESSAGES, allow_empty=True)
"""


def _counted_calls(result: pytest.RunResult) -> dict[str, dict[str, int]]:
    line = next(line for line in result.outlines if line.startswith("calls: "))
    counted: dict[str, dict[str, int]] = json.loads(line.removeprefix("calls: "))
    return counted


@pytest.mark.parametrize("langsmith", [True, False], ids=["with-langsmith", "without"])
def test_a_plain_test_runs_none_of_the_package_code(
    pytester: pytest.Pytester, langsmith: bool
) -> None:
    """Beside a test that uses the plugin (so that its per-test hooks are registered), tests
    that do not use it call no function of the package while they run but those hooks, which
    return at once."""
    pytester.makeconftest(COUNT_CALLS)
    pytester.makepyfile(test_plain=PLAIN_TESTS, test_uses=USES_THE_PLUGIN)
    args = ["-s", "-p", "no:cacheprovider", "-p", "no:hypothesispytest"]
    if not langsmith:
        args += ["-p", "no:langsmith_plugin"]
    result = pytester.runpytest_subprocess(*args)
    result.assert_outcomes(passed=5, failed=1, skipped=1)
    counted = _counted_calls(result)
    plain = [nodeid for nodeid in counted if nodeid.startswith("test_plain.py")]
    assert len(plain) == 6  # every plain test was counted (the skipped one too)
    ran = {
        nodeid: {
            where: n for where, n in counted[nodeid].items() if not where.startswith("dispatch:")
        }
        for nodeid in plain
    }
    assert ran == {nodeid: {} for nodeid in plain}
    assert counted["test_plain.py::test_plain"] == {
        "dispatch:pytest_runtest_protocol": 1,
        # a new-style wrapper's generator is called when started and when resumed
        **{f"dispatch:pytest_runtest_{phase}": 2 for phase in ("setup", "call", "teardown")},
        "dispatch:pytest_runtest_makereport": 6,
        "dispatch:pytest_runtest_logreport": 6,
    }
    # the counter sees the package's code where a test runs it
    used = counted["test_uses.py::test_fixture"]
    assert used.get("plugin/running.py:run_phase", 0) >= 3
    assert used.get("assertions/trajectory.py:assert_trajectory") == 1


def test_a_run_of_plain_tests_registers_no_per_test_hook(pytester: pytest.Pytester) -> None:
    """Without a test that uses the plugin, none of its per-test hooks is even registered."""
    pytester.makeconftest(
        "def pytest_collection_finish(session):\n"
        "    pm = session.config.pluginmanager\n"
        "    hooks = ('pytest_runtest_setup', 'pytest_runtest_call', 'pytest_runtest_teardown',"
        " 'pytest_runtest_makereport', 'pytest_runtest_logreport', 'pytest_runtest_protocol',"
        " 'pytest_report_teststatus')\n"
        "    ours = sorted({f'{name}: {impl.plugin_name}' for name in hooks"
        " for impl in getattr(pm.hook, name).get_hookimpls()"
        " if 'agenttraj' in str(impl.plugin_name) or 'agenttraj' in"
        " getattr(impl.plugin, '__name__', '')})\n"
        "    print('per-test hooks:', ours)\n"
    )
    pytester.makepyfile(test_plain=PLAIN_TESTS)
    result = pytester.runpytest_subprocess("-s", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=4, failed=1, skipped=1)
    assert "per-test hooks: []" in result.stdout.str()


# pytest looks every name a plugin lists in ``pytest_plugins`` up among all installed entry
# points (a scan of every distribution's metadata); the plugin registers its own modules instead
COUNT_ENTRY_POINT_SCANS = """
import sys
import pytest
from _pytest.config import PytestPluginManager

scans = []
original = PytestPluginManager.load_setuptools_entrypoints


def counted(self, group, name=None):
    scans.append(name)
    return original(self, group, name=name)


PytestPluginManager.load_setuptools_entrypoints = counted
code = pytest.main(["-q", "-p", "no:cacheprovider", *sys.argv[1:]])
print("scans:", len(scans), "exit:", int(code))
"""


def test_starting_the_plugin_scans_the_entry_points_no_more_than_pytest_does(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_plain="def test_plain():\n    assert True\n")
    script = pytester.makepyfile(count_scans=COUNT_ENTRY_POINT_SCANS)

    def scans(*args: str) -> str:
        out = subprocess.run(
            [sys.executable, str(script), "test_plain.py", *args],
            capture_output=True,
            text=True,
            check=False,
            cwd=pytester.path,
        ).stdout
        return next(line for line in out.splitlines() if line.startswith("scans:"))

    without = scans("-p", "no:agenttraj")
    assert without == "scans: 1 exit: 0"
    assert scans() == without
    # its modules are still plugins of their own, which -p no: turns off one by one
    assert "--trajectory-langsmith" in pytester.runpytest_subprocess("--help").stdout.str()
    result = pytester.runpytest_subprocess(
        "-p", "no:pytest_agenttraj.integrations.langsmith", "--help"
    )
    assert "--trajectory-html" in result.stdout.str()
    assert "--trajectory-langsmith" not in result.stdout.str()
