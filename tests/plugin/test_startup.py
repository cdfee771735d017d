"""Loading the plugin must stay cheap: pytest imports it in every run of every project."""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = ("langchain_core", "langsmith", "langgraph", "yaml", "openevals", "langchain")


def test_plugin_import_leaves_heavy_packages_out() -> None:
    code = (
        "import sys, pytest_agenttraj.plugin, pytest_agenttraj\n"
        f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


def test_plugin_is_registered_by_entry_point(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_subprocess("--co", "-p", "no:langsmith_plugin")
    result.stdout.fnmatch_lines(["agenttraj: mode=strict, tool_args=exact"])
