"""The ``simulate`` fixture in pytest runs: the ``simulation`` marker and options configure it,
``--trajectory-update`` writes the test's reference conversation (``turns``), a later run that
diverges fails naming the turn, every conversation reaches the JSON report and JUnit like any
evaluation, and errors (the app's, a persona without a model, a bad marker) name where."""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from .conftest import PROJECT_INI, SERIAL_ONLY

SIMULATION_TESTS = """
import os
import pytest
from langchain.agents import create_agent
from langgraph.checkpoint.memory import MemorySaver
from pytest_agenttraj import agent_turn, assert_tool_usage, check_turn, user_turn
from pytest_agenttraj.testing import ScriptedChatModel, tool_call

BROKEN = os.environ.get("BROKEN") == "1"


def look_up_order(order: str) -> str:
    '''Look an order up.'''
    return "order 7: 40 days old"


def give_refund(order: str) -> str:
    '''Refund an order.'''
    return "refunded"


def agent(*script):
    return create_agent(ScriptedChatModel(list(script)), tools=[look_up_order, give_refund],
                        checkpointer=MemorySaver())


LOOKUP = {"tool_calls": [tool_call("look_up_order", order="7")]}
REFUND = {"tool_calls": [tool_call("give_refund", order="7")]}


@pytest.mark.simulation(max_turns=2)
def test_refund_refused(simulate):
    second = REFUND if BROKEN else "Still no."
    result = simulate(agent(LOOKUP, "No refund after 30 days.", second, "x"),
                      ["Refund order 7", "Please?", "never sent"])
    assert result["stop_reason"] == "max_turns"


PERSONA = ScriptedChatModel(["But why?"])


@pytest.mark.simulation(persona="You want a refund and insist.", model=PERSONA)
def test_persona_scenario(simulate):
    simulate(agent("No refund.", "Because it is too old."), reference=False, steps=[
        user_turn("Refund order 7"), agent_turn(), user_turn(), agent_turn(),
        check_turn(assert_tool_usage, on="conversation", forbidden=["give_refund"]),
    ])


@pytest.mark.simulation(persona="Angry customer")
def test_persona_without_model(simulate):
    simulate(agent("x"), max_turns=1, reference=False)


def test_app_error(simulate):
    def app(message, *, thread_id):
        raise ConnectionError("orders database down")
    simulate(app, ["hi"], max_turns=1, reference=False)


def test_turns_from_the_ini_file(simulate):
    result = simulate(agent("a", "b", "c"), ["x", "y", "z"], reference=False)
    assert len(result["conversation"]) == 2


@pytest.mark.simulation(turns=3)
def test_bad_marker(simulate):
    pass
"""


def _run(project: pytest.Pytester, *args: str, broken: bool = False) -> pytest.RunResult:
    os.environ["BROKEN"] = "1" if broken else "0"
    try:
        return project.runpytest(*args)
    finally:
        del os.environ["BROKEN"]


@SERIAL_ONLY
def test_simulate_records_writes_and_compares_reference_conversations(
    project: pytest.Pytester, plugin_args: list[str]
) -> None:
    project.makepyfile(test_support=SIMULATION_TESTS)
    project.makefile(".ini", pytest=PROJECT_INI + "simulation_max_turns = 2\n")
    written = _run(project, "--trajectory-update", *plugin_args)
    written.assert_outcomes(passed=3, failed=2, errors=1)
    reference = Path(project.path, "trajectories", "test_refund_refused.yaml")
    text = reference.read_text(encoding="utf-8")
    assert text.startswith("turns:\n- - content: Refund order 7\n    role: user\n")
    assert "name: look_up_order" in text
    # the persona's test compared nothing, so it wrote nothing
    assert not Path(project.path, "trajectories", "test_persona_scenario.yaml").exists()

    summary = Path(project.path, "summary.md")
    os.environ["GITHUB_STEP_SUMMARY"] = str(summary)
    try:
        broken = _run(
            project, "--trajectory-report=report.json", "--junitxml=junit.xml", *plugin_args,
            broken=True,
        )  # fmt: skip
    finally:
        del os.environ["GITHUB_STEP_SUMMARY"]
    broken.assert_outcomes(passed=2, failed=3, errors=1)
    assert "| conversation\\_strict\\_match | strict/exact | false |" in summary.read_text(
        encoding="utf-8"
    )
    output = broken.stdout.str()
    for expected in (
        "ConversationMismatch: The conversation diverged from its reference at turn 2 "
        "(strict mode, exact args): expected 2 messages, got 4.",
        "  turn 1: matches",
        "  turn 2: expected 2 messages, got 4 <- diverged here",
        "2. message 1 (assistant calling [give_refund]) is not in the reference",
        "model: a persona needs a chat model to play it",
        "turn 1, app: raised ConnectionError: orders database down",
        "@pytest.mark.simulation got turns; it takes max_turns, persona, model by keyword",
    ):
        assert expected in output
    records = json.loads(Path(project.path, "report.json").read_text())["results"]
    by_test = {(r["nodeid"].split("::")[1], r["key"]): r for r in records}
    simulation = by_test["test_refund_refused", "simulation"]
    assert (simulation["passed"], simulation["turns"], simulation["stop_reason"]) == (
        True, 2, "max_turns",
    )  # fmt: skip
    mismatch = by_test["test_refund_refused", "conversation_strict_match"]
    assert mismatch["passed"] is False
    assert "diverged from its reference at turn 2" in mismatch["comment"]
    assert "turn 2: expected 2 messages, got 4 <- diverged here" in mismatch["diff"]
    assert by_test["test_persona_scenario", "simulation"]["settings"]["persona"] == (
        "You want a refund and insist."
    )
    assert by_test["test_app_error", "simulation"]["stop_reason"] == "error"
    junit = ET.parse(Path(project.path, "junit.xml"))
    names = {prop.get("name") for prop in junit.iter("property")}
    assert any(name and "conversation_strict_match" in name for name in names)


def test_a_bad_max_turns_option_is_a_usage_error(project: pytest.Pytester) -> None:
    project.makepyfile(test_nothing="def test_nothing():\n    pass\n")
    result = project.runpytest("--simulation-max-turns=0")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--simulation-max-turns: must be a whole number >= 1, got '0'*"])


ASYNC_TESTS = """
import pytest
from pytest_agenttraj import agent_turn, check_turn, user_turn
from pytest_agenttraj.testing import ScriptedChatModel


async def app(message, *, thread_id):
    return {"role": "assistant", "content": "No refund, sorry."}


@pytest.mark.simulation(persona="You insist on a refund.", max_turns=2)
@pytest.mark.asyncio
async def test_async_persona(simulate):
    persona = ScriptedChatModel(["Refund!", "Why not?"])
    result = await simulate.arun(app, model=persona)
    assert [m["content"] for m in result["trajectory"]][::2] == ["Refund!", "Why not?"]


@pytest.mark.asyncio
async def test_async_scenario(simulate):
    async def sorry(context):
        return "sorry" in context.messages[-1]["content"]

    result = await simulate.arun(app, steps=[user_turn("Refund?"), agent_turn(), check_turn(sorry)])
    assert result["stop_reason"] == "user_ended"
"""


def test_simulate_in_async_tests(project: pytest.Pytester) -> None:
    project.makepyfile(test_async=ASYNC_TESTS)
    result = project.runpytest("--trajectory-report=report.json")
    result.assert_outcomes(passed=2)
    records = json.loads(Path(project.path, "report.json").read_text())["results"]
    assert [(r["key"], r["turns"], r["stop_reason"]) for r in records] == [
        ("simulation", 2, "max_turns"),
        ("simulation", 1, "user_ended"),
    ]
