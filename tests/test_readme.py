"""The README's Python snippets run as written.

Every ``python`` block is one of: a script that runs alone (executed here), a test file (run
through pytester, the quick start against a scripted ``create_agent`` agent), a fragment of a
larger file, or a snippet that needs an LLM provider. A block that fits none fails the test, so a
new snippet cannot go untried. Where the README shows what code prints (the regression diff it
opens with, a graph mismatch), the test compares the text line by line.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path
from typing import Any

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"

# Each block is known by a line of its own (a substring no other block has).
SCRIPTS = {
    "matchers": 'Regex("s(an )?f(rancisco)?", flags=re.IGNORECASE)',
    "ignored keys": 'ignore_keys=["request_id", "meta.ts"]',
    "tool usage": "max_total_calls=10,  # a budget for all calls",
    "graph path": "assert_graph_trajectory(trajectory, reference)  # node4 and node5",
    "interrupted thread": 'Command(resume="approve"), thread, previous=trajectory',
    "graded metrics": 'assert result["metadata"]["calls"][1]["differing_args"]',
    "scripted chat model": 'lambda request: f"It\'s {request.last_tool_message.content} in SF."',
}
TEST_FILES = {
    "quick start": "def test_weather_agent(agent, trajectory_evaluator):",
    "graph reference file": "def test_fan_out_by_marker(graph_trajectory_evaluator):",
}
FRAGMENTS = {
    "reference files (uses the reader's run_agent)": 'assert_trajectory(result["messages"], "weat',
    "repeats (uses the reader's run_agent)": 'repeat=5, pass_rule="majority"',
    "hook signatures": "def pytest_agenttraj_record(config, record):",
}
NEEDS_PROVIDER = {
    "LLM judge (OpenAI)": "from langchain_openai import ChatOpenAI",
}


def python_blocks() -> list[tuple[int, str]]:
    """``(line, code)`` of each ``python`` block, dedented (a block inside a list is indented)."""
    text = README.read_text(encoding="utf-8")
    blocks = []
    for match in re.finditer(r"^( *)```python\n(.*?)^\1```", text, re.S | re.M):
        line = text.count("\n", 0, match.start()) + 2
        blocks.append((line, textwrap.dedent(match.group(2))))
    return blocks


def block(marker: str) -> tuple[int, str]:
    found = [(line, code) for line, code in python_blocks() if marker in code]
    assert len(found) == 1, f"{len(found)} README blocks contain {marker!r}"
    return found[0]


def test_every_python_block_is_tried_or_said_why_not() -> None:
    markers = [
        *SCRIPTS.values(),
        *TEST_FILES.values(),
        *FRAGMENTS.values(),
        *NEEDS_PROVIDER.values(),
    ]
    blocks = python_blocks()
    assert len(blocks) >= 10
    for line, code in blocks:
        kinds = [marker for marker in markers if marker in code]
        assert len(kinds) == 1, f"README.md:{line}: a python block matched by {kinds}"


@pytest.mark.parametrize("name", SCRIPTS)
def test_script_runs(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    line, code = block(SCRIPTS[name])
    namespace: dict[str, Any] = {"__name__": f"readme_{line}"}
    # dont_inherit: this module's ``from __future__ import annotations`` is not the snippet's
    script = compile(code, f"README.md:{line}", "exec", dont_inherit=True)
    exec(script, namespace)
    printed = capsys.readouterr().out
    # the README shows what a script prints, in the plain block after it
    assert printed == (printed_block(line) if name in PRINTS else "")


PRINTS = {"graph path", "scripted chat model"}


def printed_block(line: int) -> str:
    """The plain block that follows the python block at ``line`` ("prints ...")."""
    text = README.read_text(encoding="utf-8")
    after = text.split("\n", line - 1)[-1]
    found = re.match(r".*?^```\n+prints\n+```\n(.*?)^```", after, re.S | re.M)
    assert found, f"README.md:{line}: no printed output shown after the block"
    return found.group(1)


QUICK_START_CONFTEST = """
import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage
from langchain_core.tools import tool

from pytest_agenttraj.testing import ScriptedChatModel, tool_call


@tool
def get_weather(city: str) -> str:
    \"\"\"The weather in a city.\"\"\"
    return "75F, sunny"


@pytest.fixture
def agent():
    model = ScriptedChatModel(
        [AIMessage("", tool_calls=[tool_call("get_weather", city="SF")]), "It's 75F and sunny."]
    )
    return create_agent(model=model, tools=[get_weather])
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    """A test project whose ini keeps pytest-asyncio quiet."""
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    return pytester


def test_quick_start_passes_against_a_create_agent_run(project: pytest.Pytester) -> None:
    _, code = block(TEST_FILES["quick start"])
    project.makeconftest(QUICK_START_CONFTEST)
    project.makepyfile(test_quick_start=code)
    project.runpytest().assert_outcomes(passed=1)


def test_graph_reference_file_is_written_then_holds(project: pytest.Pytester) -> None:
    _, code = block(TEST_FILES["graph reference file"])
    project.makepyfile(test_fan_out=code)
    project.runpytest("--trajectory-update").assert_outcomes(passed=2)
    written = (project.path / "trajectories" / "fan_out.yaml").read_text(encoding="utf-8")
    assert written == "steps:\n- [__start__, plan, [browse, search], answer]\n"
    project.runpytest().assert_outcomes(passed=2)
    # the file as the README shows it, header and comments added: it holds, and an update
    # leaves it as it is
    shown = yaml_block("# trajectories/fan_out.yaml")
    (project.path / "trajectories" / "fan_out.yaml").write_text(shown, encoding="utf-8")
    project.runpytest().assert_outcomes(passed=2)
    project.runpytest("--trajectory-update").assert_outcomes(passed=2)
    assert (project.path / "trajectories" / "fan_out.yaml").read_text(encoding="utf-8") == shown


def yaml_block(first_line: str) -> str:
    text = README.read_text(encoding="utf-8")
    found = re.findall(r"^```yaml\n(" + re.escape(first_line) + r".*?)^```", text, re.S | re.M)
    assert len(found) == 1
    return str(found[0])


def test_the_regression_shown_is_what_the_examples_regressed_agent_prints(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    example = README.parent / "examples" / "regression" / "test_regressed_agent.py"
    monkeypatch.setenv("AGENTTRAJ_DEMO_FAILURE", "1")
    result = pytester.runpytest(str(example), "-p", "no:randomly", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    text = README.read_text(encoding="utf-8")
    shown = re.search(
        r"^```\n(E       pytest_agenttraj\.assertion\.TrajectoryMismatch.*?)^```", text, re.S | re.M
    )
    assert shown is not None
    printed = [line.rstrip() for line in result.outlines if line.startswith("E ")]
    assert printed == shown.group(1).splitlines()
