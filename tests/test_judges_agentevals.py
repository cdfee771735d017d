"""The LLM judges against agentevals' own, call for call: the same judge calls made through
agentevals (and openevals, which ships the same trajectory prompts) and through this package, each
with a scripted chat model that records what it was sent. With agentevals' prompt constants the
model must receive the same text, and the results must have the same keys and score types; the
reply schemas must ask for the same answer. Where the package differs on purpose
(docs/differences.md, "LLM judges"), the test says how.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

import agentevals.graph_trajectory.llm as agentevals_graph
import agentevals.trajectory.llm as agentevals_trajectory
import openevals.prompts.trajectory as openevals_prompts
import openevals.trajectory.llm as openevals_trajectory
import pytest
from judge_models import RecordingModel, score_call
from langchain_core.language_models import LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import PrivateAttr
from scripted_agents import WEATHER_QUESTION, weather_agent, weather_reference

import pytest_agenttraj as ours

Factory = Callable[..., Any]


class SchemaRecordingModel(RecordingModel):
    """A recording model that also keeps the tool schemas it was bound with."""

    _tools: list[list[dict[str, Any]]] = PrivateAttr(default_factory=list)

    @property
    def tools(self) -> list[list[dict[str, Any]]]:
        return self._tools

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        self._tools.append([convert_to_openai_tool(tool) for tool in tools])
        return super().bind_tools(tools, tool_choice=tool_choice, **kwargs)


def sent(model: RecordingModel) -> list[tuple[str, Any]]:
    """What the model got in its one call: each message's type and content."""
    [messages] = model.seen
    return [(message.type, message.content) for message in messages]


def judged(
    factory: Factory, reply: AIMessage, options: dict[str, Any], call: dict[str, Any]
) -> tuple[dict[str, Any], SchemaRecordingModel]:
    model = SchemaRecordingModel([reply])
    evaluator = factory(judge=model, **options)
    result = evaluator(**call)
    if asyncio.iscoroutine(result):
        result = asyncio.run(result)
    return dict(result), model


def same_judging(
    theirs: Factory,
    mine: Factory,
    options: dict[str, Any],
    call: dict[str, Any],
    reply: AIMessage | None = None,
) -> tuple[list[tuple[str, Any]], dict[str, Any], dict[str, Any]]:
    """Both judges asked the same; checks that the model got the same messages and that the
    results agree in keys, key, score type and comment. Returns the text and both results."""
    reply = reply or score_call(reasoning="Thus, the score should be: true.", score=True)
    their_result, their_model = judged(theirs, reply, options, call)
    my_result, my_model = judged(mine, reply, options, call)
    assert sent(my_model) == sent(their_model)
    assert set(my_result) == set(their_result) == {"key", "score", "comment", "metadata"}
    assert my_result["key"] == their_result["key"]
    assert type(my_result["score"]) is type(their_result["score"])
    assert my_result["score"] == their_result["score"]
    assert my_result["comment"] == their_result["comment"]
    assert_same_answer_asked(my_model, their_model)
    return sent(my_model), their_result, my_result


def _without_descriptions(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {k: _without_descriptions(v) for k, v in schema.items() if k != "description"}
    if isinstance(schema, list):
        return [_without_descriptions(v) for v in schema]
    return schema


def assert_same_answer_asked(mine: SchemaRecordingModel, theirs: SchemaRecordingModel) -> None:
    """The same tool, properties, types, allowed values and required keys; the descriptions
    are the package's own words."""
    [[my_tool]], [[their_tool]] = mine.tools, theirs.tools
    assert my_tool["function"]["name"] == their_tool["function"]["name"] == "score"
    assert _without_descriptions(my_tool) == _without_descriptions(their_tool)


@pytest.fixture(autouse=True)
def no_tracing(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("LANGSMITH_TRACING", "LANGCHAIN_TRACING_V2", "LANGSMITH_API_KEY"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="module")
def weather_run() -> list[BaseMessage]:
    result = weather_agent().invoke({"messages": [{"role": "user", "content": WEATHER_QUESTION}]})
    return list(result["messages"])


PROMPTS = {
    "agentevals": (
        agentevals_trajectory.TRAJECTORY_ACCURACY_PROMPT,
        agentevals_trajectory.TRAJECTORY_ACCURACY_PROMPT_WITH_REFERENCE,
    ),
    "openevals": (
        openevals_prompts.TRAJECTORY_ACCURACY_PROMPT,
        openevals_prompts.TRAJECTORY_ACCURACY_PROMPT_WITH_REFERENCE,
    ),
}
PEERS = {
    "agentevals": (
        agentevals_trajectory.create_trajectory_llm_as_judge,
        agentevals_trajectory.create_async_trajectory_llm_as_judge,
    ),
    "openevals": (
        openevals_trajectory.create_trajectory_llm_as_judge,
        openevals_trajectory.create_async_trajectory_llm_as_judge,
    ),
}
MINE = (ours.create_trajectory_llm_as_judge, ours.create_async_trajectory_llm_as_judge)


# ---------------------------------------------------------------- trajectory judge


@pytest.mark.parametrize("peer", ["agentevals", "openevals"])
@pytest.mark.parametrize("face", [0, 1], ids=["sync", "async"])
@pytest.mark.parametrize("form", ["langchain", "openai-dicts", "state-dict"])
def test_trajectory_prompt_without_reference(
    weather_run: list[BaseMessage], peer: str, face: int, form: str
) -> None:
    outputs: Any = {
        "langchain": weather_run,
        "openai-dicts": weather_reference(),
        "state-dict": {"messages": weather_run},
    }[form]
    plain, _ = PROMPTS[peer]
    [(kind, text)] = same_judging(
        PEERS[peer][face], MINE[face], {"prompt": plain}, {"outputs": outputs}
    )[0]
    assert kind == "human"
    assert "<assistant>\n<tool_call>\n<name>look_up_location_code</name>\n" in text


@pytest.mark.parametrize("peer", ["agentevals", "openevals"])
@pytest.mark.parametrize("face", [0, 1], ids=["sync", "async"])
def test_trajectory_prompt_with_reference(
    weather_run: list[BaseMessage], peer: str, face: int
) -> None:
    _, with_reference = PROMPTS[peer]
    call = {"outputs": weather_run, "reference_outputs": weather_reference()}
    [(_, text)] = same_judging(PEERS[peer][face], MINE[face], {"prompt": with_reference}, call)[0]
    assert "<reference_trajectory>\n<user>\nWhat's the weather in 苏州?\n</user>" in text


def test_agentevals_default_prompt_is_its_reference_prompt(weather_run: list[BaseMessage]) -> None:
    """agentevals' factory defaults to its reference prompt; passed to ours, the same text."""
    call = {"outputs": weather_run, "reference_outputs": weather_reference()}
    their_model = SchemaRecordingModel([score_call(reasoning="r", score=True)])
    agentevals_trajectory.create_trajectory_llm_as_judge(judge=their_model)(**call)
    my_model = SchemaRecordingModel([score_call(reasoning="r", score=True)])
    ours.create_trajectory_llm_as_judge(
        judge=my_model, prompt=agentevals_trajectory.TRAJECTORY_ACCURACY_PROMPT_WITH_REFERENCE
    )(**call)
    assert sent(my_model) == sent(their_model)


def test_reference_prompt_without_a_reference_is_filled_with_nothing_as_agentevals_does(
    weather_run: list[BaseMessage],
) -> None:
    with_reference = agentevals_trajectory.TRAJECTORY_ACCURACY_PROMPT_WITH_REFERENCE
    [(_, text)] = same_judging(
        agentevals_trajectory.create_trajectory_llm_as_judge,
        ours.create_trajectory_llm_as_judge,
        {"prompt": with_reference},
        {"outputs": weather_run},
    )[0]
    assert "<reference_trajectory>\n\n</reference_trajectory>" in text


FEW_SHOT = [
    {"inputs": "weather in Paris?", "outputs": "get_weather(Paris)", "score": True},
    {
        "inputs": {"question": "time?"},
        "outputs": "no tools",
        "reasoning": "it guessed",
        "score": False,
    },
]


def test_few_shot_examples(weather_run: list[BaseMessage]) -> None:
    [(_, text)] = same_judging(
        agentevals_trajectory.create_trajectory_llm_as_judge,
        ours.create_trajectory_llm_as_judge,
        {"prompt": agentevals_trajectory.TRAJECTORY_ACCURACY_PROMPT, "few_shot_examples": FEW_SHOT},
        {"outputs": weather_run},
    )[0]
    assert text.endswith(
        "<example>\n<input>{'question': 'time?'}</input>\n<output>no tools</output>\n"
        "<reasoning>it guessed</reasoning>\n<score>False</score>\n</example>"
    )


@pytest.mark.parametrize(
    ("options", "score"),
    [
        ({"continuous": True}, 0.75),
        ({"choices": [0.0, 0.5, 1.0]}, 0.5),
        ({"use_reasoning": False}, True),
    ],
    ids=["continuous", "choices", "no-reasoning"],
)
def test_continuous_choices_and_reasoning(
    weather_run: list[BaseMessage], options: dict[str, Any], score: Any
) -> None:
    reasoning = {} if options.get("use_reasoning") is False else {"reasoning": "mostly"}
    _, theirs, mine = same_judging(
        agentevals_trajectory.create_trajectory_llm_as_judge,
        ours.create_trajectory_llm_as_judge,
        {"prompt": agentevals_trajectory.TRAJECTORY_ACCURACY_PROMPT, **options},
        {"outputs": weather_run},
        reply=score_call(score=score, **reasoning),
    )
    assert theirs["score"] == mine["score"] == score


# ---------------------------------------------------------------- graph judge

THREAD = {
    "inputs": [{"question": "weather in 苏州?"}, "yes"],
    "results": [{"answer": "which unit?"}, {"answer": "22°C"}],
    "steps": [["__start__", "agent", "__interrupt__"], ["agent", "tools", "agent"]],
}


@pytest.mark.parametrize("face", [0, 1], ids=["sync", "async"])
@pytest.mark.parametrize("with_reference", [True, False], ids=["reference", "no-reference"])
def test_graph_prompt(face: int, with_reference: bool) -> None:
    factories = (
        (
            agentevals_graph.create_graph_trajectory_llm_as_judge,
            ours.create_graph_trajectory_llm_as_judge,
        ),
        (
            agentevals_graph.create_async_graph_trajectory_llm_as_judge,
            ours.create_async_graph_trajectory_llm_as_judge,
        ),
    )[face]
    call: dict[str, Any] = {"inputs": THREAD["inputs"], "outputs": THREAD}
    if with_reference:
        call["reference_outputs"] = THREAD
    [(_, text)] = same_judging(
        *factories, {"prompt": agentevals_graph.DEFAULT_REF_COMPARE_PROMPT}, call
    )[0]
    assert "<trajectory>\n['__start__', 'agent', '__interrupt__']\n</trajectory>" in text
    assert ("<reference_thread>" in text) is with_reference


def test_graph_few_shot_examples_and_choices() -> None:
    same_judging(
        agentevals_graph.create_graph_trajectory_llm_as_judge,
        ours.create_graph_trajectory_llm_as_judge,
        {
            "prompt": agentevals_graph.DEFAULT_REF_COMPARE_PROMPT,
            "few_shot_examples": FEW_SHOT,
            "choices": [0.0, 1.0],
        },
        {"inputs": THREAD["inputs"], "outputs": THREAD},
        reply=score_call(reasoning="fine", score=1.0),
    )


# ---------------------------------------------------------------- inputs and extra variables


def test_a_users_prompt_gets_inputs_and_extra_variables_in_both(
    weather_run: list[BaseMessage],
) -> None:
    """A user's own template: both fill {inputs} and {rubric}; the trajectory itself is shown in
    each package's own form (a deliberate difference)."""
    prompt = "Task: {inputs}\nRubric: {rubric}\nSteps:\n{outputs}"
    call = {"outputs": weather_run, "inputs": {"question": "weather?"}, "rubric": "be brief"}
    reply = score_call(reasoning="ok", score=True)
    theirs, their_model = judged(
        agentevals_trajectory.create_trajectory_llm_as_judge, reply, {"prompt": prompt}, call
    )
    mine, my_model = judged(ours.create_trajectory_llm_as_judge, reply, {"prompt": prompt}, call)
    [(_, their_text)], [(_, my_text)] = sent(their_model), sent(my_model)
    for text in (their_text, my_text):
        assert text.startswith('Task: {"question": "weather?"}\nRubric: be brief\nSteps:\n')
    assert their_text.endswith("<assistant>\nThe weather in 苏州 is: Sunny, 22°C.\n</assistant>")
    assert my_text.endswith("6. assistant: The weather in 苏州 is: Sunny, 22°C.")
    assert (mine["key"], type(mine["score"])) == (theirs["key"], type(theirs["score"]))


def _marked_reference() -> list[dict[str, Any]]:
    reference = weather_reference()
    reference[-1]["content"] = "MARKER-REFERENCE"
    return reference


@pytest.mark.parametrize(
    ("given", "value", "marker"),
    [
        ("inputs", {"question": "MARKER-INPUT"}, "MARKER-INPUT"),
        ("rubric", "MARKER-RUBRIC", "MARKER-RUBRIC"),
        ("reference_outputs", None, "MARKER-REFERENCE"),
    ],
)
def test_what_agentevals_drops_the_package_refuses(
    weather_run: list[BaseMessage], given: str, value: Any, marker: str
) -> None:
    """agentevals' plain prompt has no place for inputs, extra variables or a reference:
    agentevals drops them without a word; the package refuses the call."""
    plain = agentevals_trajectory.TRAJECTORY_ACCURACY_PROMPT
    call = {"outputs": weather_run, given: value if value is not None else _marked_reference()}
    their_model = SchemaRecordingModel([score_call(reasoning="r", score=True)])
    agentevals_trajectory.create_trajectory_llm_as_judge(judge=their_model, prompt=plain)(**call)
    [(_, their_text)] = sent(their_model)
    assert marker not in their_text  # dropped
    my_model = SchemaRecordingModel([])
    judge = ours.create_trajectory_llm_as_judge(judge=my_model, prompt=plain)
    with pytest.raises(ValueError, match=f"^the prompt has no place for {given} "):
        judge(**call)
    assert my_model.seen == []


def test_the_package_prompts_are_its_own_texts() -> None:
    """Same names, other words: the package's constants are not agentevals' texts."""
    assert ours.TRAJECTORY_ACCURACY_PROMPT != agentevals_trajectory.TRAJECTORY_ACCURACY_PROMPT
    assert (
        ours.TRAJECTORY_ACCURACY_PROMPT_WITH_REFERENCE
        != agentevals_trajectory.TRAJECTORY_ACCURACY_PROMPT_WITH_REFERENCE
    )
