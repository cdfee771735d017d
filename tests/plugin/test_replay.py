"""Record and replay of chat-model calls through real pytest runs: the ``agent_cassette``
fixture and marker, ``--trajectory-record=none|new|all``, cassettes beside the tests, request
diffs, missing cassettes, unused and extra calls, several models, streaming, async, structured
output, parallel tool calls, LangGraph ``StateGraph`` nodes, LLM judges, repeats, pruning, and
secrets kept out of the files.

Every inner project stands a ``ScriptedChatModel`` in for the provider: with ``PROVIDER=1`` it
answers from its script (the recording run), without it the script is empty, so a replay that
asked the model would fail with ``ScriptExhaustedError``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from .conftest import SERIAL_ONLY

INNER_CONFTEST = '''
import os

import pytest
from langchain_core.tools import tool
from pytest_agenttraj.testing import ScriptedChatModel


def provider(script, **kwargs):
    """The scripted "provider": answers only in the recording run (PROVIDER=1)."""
    return ScriptedChatModel(script if os.environ.get("PROVIDER") == "1" else [], **kwargs)


@tool
def get_weather(city: str) -> str:
    """Get the weather in a city."""
    return {"SF": "75F, sunny", "NYC": "60F, rain"}.get(city, "unknown")


@tool
def get_time(city: str) -> str:
    """Get the local time in a city."""
    return "10:00"


WEATHER_SCRIPT = [
    {"tool_calls": [{"name": "get_weather", "args": {"city": "SF"}}]},
    "It is 75F and sunny in SF.",
]
PROMPT = os.environ.get("PROMPT", "You are a weather assistant.")
'''

INI = """
[pytest]
asyncio_default_fixture_loop_scope = function
addopts = -p no:hypothesispytest -p no:langsmith_plugin
"""

WEATHER_TEST = """
from langchain.agents import create_agent
from conftest import PROMPT, WEATHER_SCRIPT, get_weather, provider
from pytest_agenttraj import assert_trajectory

REFERENCE = [
    {"role": "user", "content": "Weather in SF?"},
    {"role": "assistant", "tool_calls": [{"name": "get_weather", "args": {"city": "SF"}}]},
    {"role": "tool", "content": "75F, sunny"},
    {"role": "assistant", "content": "It is 75F and sunny in SF."},
]


def test_weather(agent_cassette):
    agent = create_agent(provider(WEATHER_SCRIPT), [get_weather], system_prompt=PROMPT)
    result = agent.invoke({"messages": [("user", "Weather in SF?")]})
    assert_trajectory(result["messages"], REFERENCE)
"""


@pytest.fixture
def inner(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    monkeypatch.delenv("PROVIDER", raising=False)
    monkeypatch.delenv("PROMPT", raising=False)
    pytester.makeconftest(INNER_CONFTEST)
    pytester.makefile(".ini", pytest=INI)
    return pytester


def _record(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, *args: str, mode: str = "all"
) -> pytest.RunResult:
    monkeypatch.setenv("PROVIDER", "1")
    result = inner.runpytest(f"--trajectory-record={mode}", *args)
    monkeypatch.delenv("PROVIDER")
    return result


def _cassette(inner: pytest.Pytester, name: str) -> Any:
    return json.loads((inner.path / "cassettes" / name).read_text(encoding="utf-8"))


def test_a_recorded_agent_replays_without_its_provider(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, plugin_args: list[str]
) -> None:
    inner.makepyfile(test_weather=WEATHER_TEST)
    recorded = _record(inner, monkeypatch, *plugin_args)
    recorded.assert_outcomes(passed=1)
    recorded.stdout.fnmatch_lines(
        [
            "agenttraj: record=all (chat-model calls are recorded)",
            "*",
            "agenttraj: recorded cassette cassettes/test_weather.yaml*",
        ]
    )
    cassette = _cassette(inner, "test_weather.yaml")
    calls = cassette["calls"]
    assert len(calls) == 2
    assert calls[0]["model"] == "ScriptedChatModel"
    assert calls[0]["request"]["messages"][0] == {
        "role": "system",
        "content": "You are a weather assistant.",
    }
    assert calls[0]["request"]["tools"][0]["function"]["name"] == "get_weather"
    assert calls[0]["response"]["tool_calls"] == [
        {"name": "get_weather", "args": {"city": "SF"}, "id": "call_1"}
    ]
    assert cassette["record"] == "pytest --trajectory-record=all 'test_weather.py::test_weather'"
    replayed = inner.runpytest(*plugin_args)
    replayed.assert_outcomes(passed=1)
    assert "recorded cassette" not in replayed.stdout.str()


@SERIAL_ONLY
def test_a_changed_prompt_fails_with_the_request_diff(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, plugin_args: list[str]
) -> None:
    inner.makepyfile(test_weather=WEATHER_TEST)
    _record(inner, monkeypatch).assert_outcomes(passed=1)
    monkeypatch.setenv("PROMPT", "You are a terse weather assistant.")
    result = inner.runpytest(*plugin_args)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "Call 1 to ScriptedChatModel differs from the recorded one in "
            "cassettes/test_weather.yaml: 1 difference, first at message 0 (system).content.",
            "  message 0 (system).content:",
            '    - recorded "You are a weather assistant."',
            '    + now      "You are a terse weather assistant."',
            "If the change is intended, record the test again:",
            "    pytest --trajectory-record=all 'test_weather.py::test_weather'",
        ]
    )
    # the trajectory assertion never ran on made-up answers
    assert "TrajectoryMismatch" not in result.stdout.str()
    assert "ScriptExhaustedError" not in result.stdout.str()


def test_a_replay_mismatch_is_a_result_in_the_report_with_both_requests(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    inner.makepyfile(test_weather=WEATHER_TEST)
    _record(inner, monkeypatch).assert_outcomes(passed=1)
    monkeypatch.setenv("PROMPT", "You are a terse weather assistant.")
    inner.runpytest("--trajectory-report=report.json").assert_outcomes(failed=1)
    document = json.loads((inner.path / "report.json").read_text())
    (record,) = [r for r in document["results"] if r["key"] == "agent_cassette"]
    assert record["passed"] is False
    assert record["origin"] == "agent_cassette"
    detail = record["detail"]
    assert detail["view"] == "replay"
    assert detail["cassette"] == "cassettes/test_weather.yaml"
    assert detail["differences"][0]["where"] == "message 0 (system).content"
    assert detail["live"]["messages"][0]["content"] == "You are a terse weather assistant."
    assert detail["recorded"]["messages"][0]["content"] == "You are a weather assistant."


SIMULATION_TEST = """
from langchain.agents import create_agent
from conftest import WEATHER_SCRIPT, get_weather, provider
from pytest_agenttraj import create_llm_simulated_user, run_multiturn_simulation


def test_conversation(agent_cassette):
    agent = create_agent(
        provider([*WEATHER_SCRIPT, "Tomorrow too."]), [get_weather], system_prompt="Be brief."
    )
    user = create_llm_simulated_user(
        system="You ask about the weather in SF.",
        client=provider(["And tomorrow?"]),
        fixed_responses=["Weather in SF?"],
    )
    result = run_multiturn_simulation(app=agent, user=user, max_turns=2)
    assert result["stop_reason"] == "max_turns"
    said = [m["content"] for m in result["trajectory"] if m["role"] in ("user", "assistant")]
    print("said:", said)
"""


def test_a_simulated_conversation_replays_offline_user_and_agent(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    inner.makepyfile(test_simulated_chat=SIMULATION_TEST)
    recorded = _record(inner, monkeypatch, "-s")
    recorded.assert_outcomes(passed=1)
    models = [call["model"] for call in _cassette(inner, "test_conversation.yaml")["calls"]]
    assert len(models) == 4  # the agent twice in turn 1, the simulated user, the agent again
    said = [line.split("said:")[1] for line in recorded.outlines if "said:" in line]
    # replay: every script is empty, so each answer comes from the cassette
    replayed = inner.runpytest("-s")
    replayed.assert_outcomes(passed=1)
    assert [line.split("said:")[1] for line in replayed.outlines if "said:" in line] == said
    assert said == [
        " ['Weather in SF?', '', 'It is 75F and sunny in SF.', 'And tomorrow?', 'Tomorrow too.']"
    ]


def test_a_changed_tool_schema_names_the_tool_and_field(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    inner.makepyfile(test_weather=WEATHER_TEST)
    _record(inner, monkeypatch).assert_outcomes(passed=1)
    inner.makepyfile(
        test_weather=WEATHER_TEST.replace(
            "from conftest import PROMPT, WEATHER_SCRIPT, get_weather, provider",
            "from conftest import PROMPT, WEATHER_SCRIPT, provider\n"
            "from langchain_core.tools import tool\n\n\n"
            "@tool\ndef get_weather(city: str, unit: str = 'F') -> str:\n"
            '    """Get the weather in a city."""\n    return "75F, sunny"\n',
        )
    )
    result = inner.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["  tool get_weather: function.parameters.properties.unit:", "    - recorded (absent)"]
    )


def test_a_missing_cassette_fails_with_the_command_that_records_it(
    inner: pytest.Pytester,
) -> None:
    inner.makepyfile(test_weather=WEATHER_TEST)
    result = inner.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "No recording in cassettes/test_weather.yaml: the cassette does not exist.",
            "    pytest --trajectory-record=new 'test_weather.py::test_weather'",
        ]
    )
    assert not (inner.path / "cassettes").exists()


def test_fewer_or_more_calls_than_recorded_fail(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    inner.makepyfile(
        test_calls="""
        import os
        from conftest import provider

        def test_calls(agent_cassette):
            model = provider(["one", "two", "three"])
            for _ in range(int(os.environ.get("CALLS", "2"))):
                model.invoke("hello")
        """
    )
    _record(inner, monkeypatch).assert_outcomes(passed=1)
    monkeypatch.setenv("CALLS", "1")
    fewer = inner.runpytest()
    fewer.assert_outcomes(failed=1)
    fewer.stdout.fnmatch_lines(
        [
            "1 recorded call(s) in cassettes/test_calls.yaml were never made: the agent made "
            "fewer model calls than were recorded.",
            "  call 2 to ScriptedChatModel: recorded, never made",
        ]
    )
    monkeypatch.setenv("CALLS", "3")
    more = inner.runpytest()
    more.assert_outcomes(failed=1)
    more.stdout.fnmatch_lines(["Call 3 to ScriptedChatModel has no recorded call left in *"])


def test_new_records_only_what_the_cassette_lacks(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    inner.makepyfile(
        test_calls="""
        from conftest import provider

        def test_calls(agent_cassette):
            assert provider(["first"]).invoke("a").text == "first"
        """
    )
    _record(inner, monkeypatch, mode="new").assert_outcomes(passed=1)
    assert len(_cassette(inner, "test_calls.yaml")["calls"]) == 1
    # "first" is replayed, so the provider is asked once, for the call the cassette lacks
    # (had it been asked twice, its one reply would have answered the first call)
    inner.makepyfile(
        test_calls="""
        from conftest import provider

        def test_calls(agent_cassette):
            model = provider(["second"])
            assert model.invoke("a").text == "first"
            assert model.invoke("b").text == "second"
        """
    )
    _record(inner, monkeypatch, mode="new").assert_outcomes(passed=1)
    calls = _cassette(inner, "test_calls.yaml")["calls"]
    assert [c["response"]["content"] for c in calls] == ["first", "second"]
    inner.runpytest().assert_outcomes(passed=1)
    # a run of new that records nothing leaves the file alone
    before = (inner.path / "cassettes" / "test_calls.yaml").stat().st_mtime_ns
    _record(inner, monkeypatch, mode="new").assert_outcomes(passed=1)
    assert (inner.path / "cassettes" / "test_calls.yaml").stat().st_mtime_ns == before


def test_the_marker_on_a_module_and_a_class(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    inner.makepyfile(
        test_marked="""
        import pytest
        from conftest import provider

        pytestmark = pytest.mark.agent_cassette

        def test_module_level():
            assert provider(["hi"]).invoke("hello").text == "hi"

        @pytest.mark.agent_cassette
        class TestGreeting:
            def test_in_class(self):
                assert provider(["hey"]).invoke("hello").text == "hey"
        """
    )
    _record(inner, monkeypatch, "--strict-markers").assert_outcomes(passed=2)
    assert sorted(p.name for p in (inner.path / "cassettes").iterdir()) == [
        "test_in_class.yaml",
        "test_module_level.yaml",
    ]
    inner.runpytest("--strict-markers").assert_outcomes(passed=2)


def test_stream_astream_ainvoke_batch_and_structured_output_replay(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    inner.makepyfile(
        test_ways="""
        import asyncio
        from pydantic import BaseModel
        from conftest import get_weather, provider


        class Answer(BaseModel):
            city: str
            degrees: int


        def test_ways(agent_cassette):
            model = provider([
                "streamed words",
                "async streamed",
                "async answer",
                "batch one",
                {"tool_calls": [{"name": "Answer", "args": {"city": "SF", "degrees": 75}}]},
                {"tool_calls": [{"name": "get_weather", "args": {"city": "NYC"}}]},
            ])
            text = "".join(chunk.text for chunk in model.stream("stream it"))
            assert text == "streamed words"

            async def run():
                parts = [chunk.text async for chunk in model.astream("astream it")]
                answer = await model.ainvoke("ainvoke it")
                return "".join(parts), answer.text

            assert asyncio.run(run()) == ("async streamed", "async answer")
            assert [m.text for m in model.batch(["batch it"])] == ["batch one"]
            answer = model.with_structured_output(Answer).invoke("structured")
            assert answer == Answer(city="SF", degrees=75)
            called = model.bind_tools([get_weather]).invoke("tools")
            assert called.tool_calls[0]["args"] == {"city": "NYC"}
        """
    )
    _record(inner, monkeypatch).assert_outcomes(passed=1)
    calls = _cassette(inner, "test_ways.yaml")["calls"]
    assert len(calls) == 6
    assert calls[4]["request"]["tool_choice"]
    inner.runpytest().assert_outcomes(passed=1)


PARALLEL_TEST = """
import operator
from typing import Annotated, TypedDict

from langchain.agents import create_agent
from langchain_core.messages import AnyMessage
from langgraph.graph import END, START, StateGraph
from conftest import get_time, get_weather, provider
from pytest_agenttraj import assert_trajectory


def test_parallel_tool_calls(agent_cassette):
    model = provider([
        {"tool_calls": [
            {"name": "get_weather", "args": {"city": "SF"}},
            {"name": "get_time", "args": {"city": "SF"}},
        ]},
        "75F and 10:00 in SF.",
    ])
    agent = create_agent(model, [get_weather, get_time])
    result = agent.invoke({"messages": [("user", "Weather and time in SF?")]})
    assert_trajectory(result["messages"], [
        {"role": "user", "content": "Weather and time in SF?"},
        {"role": "assistant", "tool_calls": [
            {"name": "get_time", "args": {"city": "SF"}},
            {"name": "get_weather", "args": {"city": "SF"}},
        ]},
        {"role": "tool", "content": "75F, sunny"},
        {"role": "tool", "content": "10:00"},
        {"role": "assistant", "content": "75F and 10:00 in SF."},
    ])


class State(TypedDict):
    question: str
    notes: Annotated[list[str], operator.add]
    messages: Annotated[list[AnyMessage], operator.add]


def test_graph_with_two_models_in_parallel_nodes(agent_cassette):
    planner = provider(["plan: look it up"], name="planner")
    critic = provider(["critique: fine"], name="critic")
    writer = provider(["final: 75F"], name="writer")

    def plan(state):
        return {"notes": [planner.invoke(state["question"]).text]}

    def critique(state):
        return {"notes": [critic.invoke(state["question"]).text]}

    def write(state):
        reply = writer.invoke(" | ".join(sorted(state["notes"])))
        return {"messages": [reply]}

    graph = StateGraph(State)
    graph.add_node("plan", plan)
    graph.add_node("critique", critique)
    graph.add_node("write", write)
    graph.add_edge(START, "plan")
    graph.add_edge(START, "critique")
    graph.add_edge(["plan", "critique"], "write")
    graph.add_edge("write", END)
    result = graph.compile().invoke({"question": "Weather?", "notes": [], "messages": []})
    assert result["messages"][-1].text == "final: 75F"
    assert sorted(result["notes"]) == ["critique: fine", "plan: look it up"]
"""


@SERIAL_ONLY
def test_parallel_tool_calls_and_a_graph_of_several_models(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, plugin_args: list[str]
) -> None:
    inner.makepyfile(test_parallel=PARALLEL_TEST)
    _record(inner, monkeypatch, *plugin_args).assert_outcomes(passed=2)
    graph = _cassette(inner, "test_graph_with_two_models_in_parallel_nodes.yaml")["calls"]
    models = sorted(c["model"] for c in graph)
    assert models == [
        "ScriptedChatModel[critic]",
        "ScriptedChatModel[planner]",
        "ScriptedChatModel[writer]",
    ]
    inner.runpytest(*plugin_args).assert_outcomes(passed=2)


JUDGED_TEST = """
from conftest import provider
from pytest_agenttraj import create_trajectory_llm_as_judge

TRAJECTORY = [
    {"role": "user", "content": "Weather in SF?"},
    {"role": "assistant", "content": "It is 75F."},
]


def test_judged(agent_cassette):
    judge_model = provider(
        [{"tool_calls": [{"name": "score", "args": {"reasoning": "Answers it.", "score": True}}]}],
        name="judge",
    )
    judge = create_trajectory_llm_as_judge(judge=judge_model, cache=True)
    result = judge(outputs=TRAJECTORY)
    assert result["score"] is True, result["comment"]
"""


def test_a_judged_test_replays_offline(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    inner.makepyfile(test_judged=JUDGED_TEST)
    _record(inner, monkeypatch, "-p", "cacheprovider").assert_outcomes(passed=1)
    calls = _cassette(inner, "test_judged.yaml")["calls"]
    assert [c["model"] for c in calls] == ["ScriptedChatModel[judge]"]
    # twice: the judge cache (on, in pytest's cache folder) does not answer in its place
    inner.runpytest("-p", "cacheprovider").assert_outcomes(passed=1)
    inner.runpytest("-p", "cacheprovider").assert_outcomes(passed=1)


def test_secrets_are_never_written_and_redactions_apply(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    inner.makefile(
        ".ini",
        pytest=INI + "trajectory_record_redact =\n    sk-[A-Za-z0-9]+\n    \\d{3}-\\d{4}\n",
    )
    inner.makepyfile(
        test_secret="""
        from conftest import provider

        def test_secret(agent_cassette):
            model = provider(["Call 555-1234 with key sk-abc123."], name="support")
            model = model.bind(temperature=0.2, api_key="sk-supersecret", timeout=30)
            reply = model.invoke("My key is sk-zzz999, call me at 555-9876")
            assert reply.text.startswith("Call")
        """
    )
    _record(inner, monkeypatch).assert_outcomes(passed=1)
    text = (inner.path / "cassettes" / "test_secret.yaml").read_text(encoding="utf-8")
    for secret in ("sk-supersecret", "sk-zzz999", "sk-abc123", "555-1234", "555-9876"):
        assert secret not in text
    call = json.loads(text)["calls"][0]
    assert (
        call["request"]["messages"][0]["content"] == "My key is [REDACTED], call me at [REDACTED]"
    )
    assert call["request"]["params"] == {"temperature": 0.2}
    assert call["response"]["content"] == "Call [REDACTED] with key [REDACTED]."
    inner.runpytest().assert_outcomes(passed=1)


def test_a_bad_record_mode_is_a_usage_error(inner: pytest.Pytester) -> None:
    result = inner.runpytest("--trajectory-record=sometimes")
    result.stderr.fnmatch_lines(
        ["*invalid --trajectory-record value 'sometimes': use one of none, new, all*"]
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR


def test_parametrized_tests_get_a_cassette_each(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    inner.makepyfile(
        test_params="""
        import pytest
        from conftest import provider

        @pytest.mark.parametrize("city", ["San Francisco", "a/b: c?"])
        def test_city(agent_cassette, city):
            assert provider([f"in {city}"]).invoke(city).text == f"in {city}"
        """
    )
    _record(inner, monkeypatch).assert_outcomes(passed=2)
    assert sorted(p.name for p in (inner.path / "cassettes").iterdir()) == [
        "test_city[San_Francisco].yaml",
        "test_city[a_b_c_].yaml",
    ]
    inner.runpytest().assert_outcomes(passed=2)


def test_two_tests_of_one_name_cannot_record_one_cassette(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    inner.makepyfile(
        test_twins="""
        from conftest import provider

        class TestA:
            def test_same(self, agent_cassette):
                provider(["a"]).invoke("a")

        class TestB:
            def test_same(self, agent_cassette):
                provider(["b"]).invoke("b")
        """
    )
    result = _record(inner, monkeypatch)
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(
        ["*cassettes/test_same.yaml is the cassette of test_twins.py::TestA::test_same too*"]
    )


FLAKY_TEST = """
import itertools
import pytest
from conftest import provider

ATTEMPT = itertools.count(1)


@pytest.mark.trajectory(repeat=3, pass_rule="majority")
def test_flaky(agent_cassette):
    # the "provider" answers differently each attempt; the second answer is wrong
    answer = provider([f"answer {next(ATTEMPT)}"]).invoke("same question").text
    assert answer in ("answer 1", "answer 3")
"""


@SERIAL_ONLY
def test_each_attempt_of_a_repeated_test_replays_its_own_recording(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, plugin_args: list[str]
) -> None:
    inner.makepyfile(test_flaky=FLAKY_TEST)
    recorded = _record(inner, monkeypatch, *plugin_args)
    recorded.assert_outcomes(passed=1)
    recorded.stdout.fnmatch_lines(["*2 of 3 attempts passed*"])
    attempts = _cassette(inner, "test_flaky.yaml")["attempts"]
    answers = [[c["response"]["content"] for c in a["calls"]] for a in attempts]
    assert answers == [["answer 1"], ["answer 2"], ["answer 3"]]
    replayed = inner.runpytest(*plugin_args)
    replayed.assert_outcomes(passed=1)
    replayed.stdout.fnmatch_lines(["*2 of 3 attempts passed*"])
    # more attempts than were recorded: the fourth has no recording
    inner.makepyfile(test_flaky=FLAKY_TEST.replace("repeat=3", "repeat=4"))
    more = inner.runpytest(*plugin_args, "-rA")
    more.stdout.fnmatch_lines(
        ["*No recording in cassettes/test_flaky.yaml (attempt 4): it holds 3 attempt(s)*"]
    )


def test_prune_unused_deletes_cassettes_no_test_uses(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PYTEST_ADDOPTS", raising=False)
    inner.makepyfile(test_weather=WEATHER_TEST)
    _record(inner, monkeypatch).assert_outcomes(passed=1)
    orphan = inner.path / "cassettes" / "test_removed_long_ago.yaml"
    orphan.write_text('{"calls": []}\n', encoding="utf-8")
    for args in ([], ["-n", "2"]):  # under xdist, a worker says which cassettes it read
        listed = inner.runpytest(*args)
        listed.assert_outcomes(passed=1)
        listed.stdout.fnmatch_lines(
            [
                "agenttraj: 1 cassette file(s) no test used (--trajectory-prune-unused deletes "
                "them):",
                "    cassettes/test_removed_long_ago.yaml",
            ]
        )
        assert "test_weather.yaml" not in listed.stdout.str()
    selected = inner.runpytest("--trajectory-prune-unused", "-k", "weather")
    selected.stdout.fnmatch_lines(["agenttraj: unused cassettes were not checked*"])
    assert orphan.exists()
    pruned = inner.runpytest("--trajectory-prune-unused")
    pruned.assert_outcomes(passed=1)
    pruned.stdout.fnmatch_lines(["agenttraj: deleted unused cassette cassettes/test_removed*"])
    assert not orphan.exists()
    assert (inner.path / "cassettes" / "test_weather.yaml").exists()


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("calls: &c [*c]\n", "*test_weather.yaml:1: anchors and aliases (&name, *name) are not*"),
        ('{"calls": [{"model": "M"}]}', "*test_weather.yaml: calls?0?.request: a mapping*"),
    ],
)
def test_a_bad_cassette_fails_the_test_naming_the_file(
    inner: pytest.Pytester, text: str, problem: str
) -> None:
    inner.makepyfile(test_weather=WEATHER_TEST)
    (inner.path / "cassettes").mkdir()
    (inner.path / "cassettes" / "test_weather.yaml").write_text(text, encoding="utf-8")
    result = inner.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([problem])


def test_an_agent_that_swallows_the_mismatch_still_fails_with_it(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    inner.makepyfile(
        test_swallow="""
        import os
        from conftest import provider

        def test_swallow(agent_cassette):
            try:
                answer = provider(["fine"]).invoke(os.environ.get("QUESTION", "hello")).text
            except Exception:
                answer = "fine"  # an agent that retries or falls back on any error
            assert answer == "fine"
        """
    )
    _record(inner, monkeypatch).assert_outcomes(passed=1)
    monkeypatch.setenv("QUESTION", "goodbye")
    result = inner.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "Call 1 to ScriptedChatModel differs from the recorded one in *",
            "  message 0 (human).content:",
            "FAILED test_swallow.py::test_swallow - pytest_agenttraj.ReplayMismatch: *",
        ]
    )


TIMED_TEST = """
import os
import time

import pytest
from langchain.agents import create_agent
from conftest import WEATHER_SCRIPT, get_weather, provider
from pytest_agenttraj import ToolUsageViolation, assert_tool_usage
from pytest_agenttraj.testing import ScriptedChatModel


class SlowProvider(ScriptedChatModel):
    def _generate(self, *args, **kwargs):
        time.sleep(0.2)  # the provider's latency, only ever paid while recording
        return super()._generate(*args, **kwargs)


def test_timed(agent_cassette):
    script = WEATHER_SCRIPT if os.environ.get("PROVIDER") == "1" else []
    agent = create_agent(SlowProvider(script), [get_weather])
    started = time.perf_counter()
    result = agent.invoke({"messages": [("user", "Weather in SF?")]})
    took = time.perf_counter() - started
    recorded = agent_cassette.recorded_duration_s
    print(f"RECORDED {recorded} TOOK {took:.3f}")
    run = {**result, "duration_s": recorded}
    assert_tool_usage(run, max_duration_s=5)
    with pytest.raises(ToolUsageViolation, match="more than max_duration_s=0.3"):
        assert_tool_usage(run, max_duration_s=0.3)
"""


def test_the_cassette_keeps_each_calls_time_for_run_budgets(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    inner.makepyfile(test_timed=TIMED_TEST)
    _record(inner, monkeypatch, "-s").assert_outcomes(passed=1)
    calls = _cassette(inner, "test_timed.yaml")["calls"]
    assert [call["duration_s"] >= 0.2 for call in calls] == [True, True]
    replayed = inner.runpytest("-s")
    replayed.assert_outcomes(passed=1)
    (line,) = [line for line in replayed.stdout.lines if "RECORDED" in line]
    recorded, took = float(line.split()[-3]), float(line.split()[-1])
    # the replay is quick; the budget judges the time the model took when recorded
    assert recorded == pytest.approx(sum(call["duration_s"] for call in calls), abs=2e-3)
    assert took < recorded
    # a cassette without timings cannot answer for a duration budget
    path = inner.path / "cassettes" / "test_timed.yaml"
    document = json.loads(path.read_text(encoding="utf-8"))
    for call in document["calls"]:
        del call["duration_s"]
    path.write_text(json.dumps(document), encoding="utf-8")
    untimed = inner.runpytest()
    untimed.assert_outcomes(failed=1)
    untimed.stdout.fnmatch_lines(["*no recorded duration (duration_s*"])
