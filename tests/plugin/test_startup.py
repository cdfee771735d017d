"""Loading the plugin must stay cheap: pytest imports it in every run of every project."""

from __future__ import annotations

import subprocess
import sys

import pytest

# re2 (the Regex engine) is loaded when the first Regex is built
HEAVY = ("langchain_core", "langsmith", "langgraph", "yaml", "openevals", "langchain", "re2")


def test_plugin_import_leaves_heavy_packages_out() -> None:
    code = (
        "import sys, pytest_agenttraj.plugin, pytest_agenttraj\n"
        f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


def test_the_regex_engine_loads_with_the_first_regex() -> None:
    code = (
        "import sys\n"
        "from pytest_agenttraj.core import matchers, spelled\n"
        "spelled.matchers_from_spelled({'city': {'$any': True}})\n"
        "print('re2' in sys.modules)\n"
        "matchers.Regex('S.*')\n"
        "print('re2' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
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
)

PRINT_LOADED = f"""
import sys
def pytest_sessionfinish(session):
    print("loaded:", sorted(m for m in {ON_DEMAND!r} if m in sys.modules))
"""


def test_a_plain_run_loads_no_gate_rule_or_report_module(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(PRINT_LOADED)
    pytester.makepyfile("def test_plain():\n    assert True\n")
    result = pytester.runpytest_subprocess("-p", "no:langsmith_plugin", "-s")
    result.assert_outcomes(passed=1)
    assert "loaded: []" in result.stdout.str()
    # a run that uses a gate and a usage rule loads what it uses
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
        "loaded: ['pytest_agenttraj.core.matching.report', 'pytest_agenttraj.core.usage', "
        "'pytest_agenttraj.gating.pass_rate']"
    ) in result.stdout.str()
