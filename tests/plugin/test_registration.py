"""What the package's plugins list as their ``dir()``: only what registering a plugin can use
(pytest reads every listed name of every plugin when it looks for fixtures), and nothing that
registration needs is left out."""

from __future__ import annotations

import json
import types

import pytest

from pytest_agenttraj.plugin.registration import HookHolder, module_dir


class _Hooks(HookHolder):
    def __init__(self) -> None:
        self.state = 1

    def pytest_sessionstart(self) -> None:
        """A hook."""

    def helper(self) -> int:
        return self.state


def test_a_plugin_object_lists_its_hooks_only() -> None:
    assert dir(_Hooks()) == ["pytest_sessionstart"]


def test_a_plugin_module_lists_its_hooks_and_what_it_defines() -> None:
    module = types.ModuleType("made")
    exec(  # a module made for the test
        "import os\nfrom json import dumps\nLIMIT = 3\n"
        "def pytest_configure(config): pass\n"
        "def helper(): pass\n"
        "class Thing: pass\n"
        "pytest_collection_finish = dumps\n",
        module.__dict__,
    )
    module.__dict__["__dir__"] = module_dir(module.__dict__)
    assert dir(module) == ["Thing", "helper", "pytest_collection_finish", "pytest_configure"]


CONFTEST = """
import json

import pytest


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session):
    found = {}
    for name, plugin in session.config.pluginmanager.list_name_plugin():
        module = getattr(plugin, "__name__", None) if isinstance(plugin, type(json)) else None
        module = module or type(plugin).__module__
        if str(module).startswith("pytest_agenttraj"):
            found[name] = dir(plugin)
    print("LISTED " + json.dumps(found))
"""


def test_every_plugin_a_plain_run_registers_lists_only_hooks_and_definitions(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile("def test_plain():\n    assert True\n")
    result = pytester.runpytest_subprocess("-s", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    line = next(line for line in result.outlines if line.startswith("LISTED "))
    listed: dict[str, list[str]] = json.loads(line.removeprefix("LISTED "))
    assert {"agenttraj", "agenttraj-session", "agenttraj-collection"} <= listed.keys()
    assert "pytest_agenttraj.plugin.fixtures" in listed
    for name, names in listed.items():
        # no imported name and no dunder: pytest would read each of them
        assert not [n for n in names if n.startswith("__") or n in {"pytest", "Path"}], name
    assert "assert_trajectory_fixture" in listed["pytest_agenttraj.plugin.fixtures"]
    assert "pytest_collection_modifyitems" in listed["agenttraj-session"]


def test_the_fixtures_and_hooks_are_all_still_found(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        "def test_fixtures(assert_trajectory, captured_trace, agent_cassette):\n"
        "    assert callable(assert_trajectory)\n"
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--fixtures")
    for fixture in ("assert_trajectory", "captured_trace", "agent_cassette"):
        result.stdout.fnmatch_lines([f"{fixture}*"])
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
