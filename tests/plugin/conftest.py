"""Fixtures for plugin tests: every test project gets the seed trajectories and an ini file
that keeps pytest-asyncio quiet, and runs can be repeated under pytest-xdist."""

from __future__ import annotations

import pytest
from scripted_agents import weather_reference

PROJECT_CONFTEST = f'''
import copy
import pytest

REFERENCE = {weather_reference()!r}


def with_code(code):
    """The reference with get_weather called for another location code."""
    out = copy.deepcopy(REFERENCE)
    out[3]["tool_calls"][0]["function"]["arguments"] = '{{"location_code": "%s"}}' % code
    return out


@pytest.fixture
def reference():
    return copy.deepcopy(REFERENCE)
'''

# Inner projects use no hypothesis; its plugin costs about 0.8 s of start-up in every process
# (the xdist workers of an inner run included). Those of the ``project`` fixture do not log to
# LangSmith either (tests/plugin/test_langsmith.py runs langsmith's plugin), another second.
INNER_ADDOPTS = "addopts = -p no:hypothesispytest"

PROJECT_INI = f"""
[pytest]
asyncio_default_fixture_loop_scope = function
{INNER_ADDOPTS} -p no:langsmith_plugin
"""


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """A pytester project with the shared conftest and ini; inner runs never write to a real CI
    step summary."""
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    pytester.makeconftest(PROJECT_CONFTEST)
    pytester.makefile(".ini", pytest=PROJECT_INI)
    return pytester


@pytest.fixture(params=[[], ["-n", "2"]], ids=["serial", "xdist"])
def plugin_args(request: pytest.FixtureRequest) -> list[str]:
    """Extra command-line arguments: none, then two xdist workers."""
    return list(request.param)


SERIAL_ONLY = pytest.mark.parametrize("plugin_args", [[]], ids=["serial"])
"""For a test of ``plugin_args`` whose claim xdist does not change: it runs serially only.
What crosses from workers to the controller (records, reference writes, cassettes, caches,
gates, the report) keeps its xdist variants in the tests whose claim that is; every inner
xdist run starts two more interpreters."""


@pytest.fixture
def every_plugin(project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """The project, its inner runs loading every installed plugin (anyio's included, which the
    suite's inner runs otherwise leave out): a run that keeps a plugin which collects tests
    from loading cannot judge which reference files are unused."""
    monkeypatch.delenv("PYTEST_ADDOPTS", raising=False)
    return project
