"""LLM judges with scripted langchain-core chat models (no network): prompt formatting,
structured output through tool calling and JSON in text, the retry, reasoning as the comment,
validation when built, async concurrency, the cache, and LangSmith's ``run_evaluator``."""

from __future__ import annotations

import asyncio
import inspect
import json
import sys
import threading
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from judge_models import (
    HangingModel,
    RecordingModel,
    RecordingTextModel,
    SlowModel,
    SyncHangingModel,
    TextOnlyModel,
    score_call,
)
from langchain_core.messages import AIMessage
from langsmith.evaluation.evaluator import run_evaluator
from langsmith.schemas import Example, Run
from scripted_agents import WEATHER_QUESTION, ScriptExhaustedError, weather_agent

from pytest_agenttraj import (
    GRAPH_TRAJECTORY_ACCURACY_PROMPT,
    TRAJECTORY_ACCURACY_PROMPT,
    TRAJECTORY_ACCURACY_PROMPT_WITH_REFERENCE,
    JudgeCache,
    JudgeError,
    create_agent_goal_accuracy_evaluator,
    create_async_agent_goal_accuracy_evaluator,
    create_async_graph_trajectory_llm_as_judge,
    create_async_topic_adherence_evaluator,
    create_async_trajectory_llm_as_judge,
    create_graph_trajectory_llm_as_judge,
    create_topic_adherence_evaluator,
    create_trajectory_llm_as_judge,
)
from pytest_agenttraj.errors import JudgeCacheWarning
from pytest_agenttraj.evaluators import scope
from pytest_agenttraj.evaluators.judges.deadline import worker_threads
from pytest_agenttraj.evaluators.judges.model import JudgeModel, model_identity

FORMATTED_WEATHER_RUN = """\
1. user: What's the weather in 苏州?
2. assistant calls look_up_location_code({"city": "苏州"})
3. tool result (look_up_location_code): location-123
4. assistant calls get_weather({"location_code": "location-123"})
5. tool result (get_weather): Sunny, 22°C
6. assistant: The weather in 苏州 is: Sunny, 22°C."""


@pytest.fixture(scope="module")
def weather_run() -> list[Any]:
    """The weather agent's real trajectory (LangChain messages, tool calls with ids)."""
    result = weather_agent().invoke({"messages": [{"role": "user", "content": WEATHER_QUESTION}]})
    return list(result["messages"])


@pytest.fixture(autouse=True)
def no_tracing(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("LANGSMITH_TRACING", "LANGCHAIN_TRACING_V2", "LANGSMITH_API_KEY"):
        monkeypatch.delenv(name, raising=False)


def sent_text(model: RecordingModel, call: int = 0) -> str:
    """The text of the last message the model got in call number ``call``."""
    return str(model.seen[call][-1].content)


# ---------------------------------------------------------------- structured output


def test_structured_judge_returns_score_and_reasoning(weather_run: list[Any]) -> None:
    model = RecordingModel(
        [score_call(reasoning="Two lookups, then the answer.", score=True, tokens=120)]
    )
    judge = create_trajectory_llm_as_judge(judge=model)
    result = judge(outputs=weather_run)
    assert result == {
        "key": "trajectory_accuracy",
        "score": True,
        "comment": "Two lookups, then the answer.",
        "metadata": {
            "cached": False,
            "model_calls": 1,
            "usage": {"input_tokens": 96, "output_tokens": 24, "total_tokens": 120},
            "judge_model": "RecordingModel",
            "method": "tool_calling",
        },
    }
    assert sent_text(model) == TRAJECTORY_ACCURACY_PROMPT.format(outputs=FORMATTED_WEATHER_RUN)


def test_reference_prompt_gets_both_trajectories(weather_run: list[Any]) -> None:
    from scripted_agents import weather_reference

    model = RecordingModel([score_call(reasoning="Same steps.", score=True)])
    judge = create_trajectory_llm_as_judge(
        judge=model, prompt=TRAJECTORY_ACCURACY_PROMPT_WITH_REFERENCE, feedback_key="same_steps"
    )
    result = judge(outputs=weather_run, reference_outputs=weather_reference())
    assert result["key"] == "same_steps"
    text = sent_text(model)
    assert "<reference_trajectory>\n1. user: What's the weather in 苏州?\n" in text
    assert f"<trajectory>\n{FORMATTED_WEATHER_RUN}\n</trajectory>" in text
    with pytest.raises(ValueError, match=r"uses \{reference_outputs\}, which this evaluation"):
        judge(outputs=weather_run)


def test_custom_prompt_fills_inputs_and_extra_keywords(weather_run: list[Any]) -> None:
    model = RecordingModel([score_call(reasoning="ok", score=True)])
    prompt = "Task: {inputs}\nRubric: {rubric}\nSteps:\n{outputs}"
    judge = create_trajectory_llm_as_judge(judge=model, prompt=prompt)
    judge(outputs=weather_run, inputs={"question": "weather?"}, rubric="be brief")
    assert sent_text(model) == (
        'Task: {"question": "weather?"}\nRubric: be brief\nSteps:\n' + FORMATTED_WEATHER_RUN
    )


def test_default_judge_grades_against_a_given_reference(weather_run: list[Any]) -> None:
    from scripted_agents import weather_reference

    model = RecordingModel([score_call(reasoning="Same steps.", score=True)])
    create_trajectory_llm_as_judge(judge=model)(
        outputs=weather_run, reference_outputs=weather_reference()
    )
    assert sent_text(model) == TRAJECTORY_ACCURACY_PROMPT_WITH_REFERENCE.format(
        outputs=FORMATTED_WEATHER_RUN,
        reference_outputs=FORMATTED_WEATHER_RUN.replace(
            "tool result (look_up_location_code)", "tool result"
        ).replace("tool result (get_weather)", "tool result"),
    )


def test_package_prompts_show_what_they_have_no_place_for(weather_run: list[Any]) -> None:
    model = RecordingModel([score_call(reasoning="ok", score=True)])
    judge = create_trajectory_llm_as_judge(judge=model)
    judge(outputs=weather_run, inputs={"question": "weather?"}, rubric="be brief", unset=None)
    assert sent_text(model) == (
        TRAJECTORY_ACCURACY_PROMPT.format(outputs=FORMATTED_WEATHER_RUN).rstrip()
        + "\n\nAlso given with this evaluation:\n"
        + '<inputs>\n{"question": "weather?"}\n</inputs>\n<rubric>\nbe brief\n</rubric>\n'
    )


def test_goal_and_topic_prompts_show_what_they_have_no_place_for(weather_run: list[Any]) -> None:
    goal_model = RecordingModel([goal_reply(True)])
    goal = create_agent_goal_accuracy_evaluator(judge=goal_model)
    goal(outputs=weather_run, inputs="weather in 苏州")
    assert sent_text(goal_model).endswith("<inputs>\nweather in 苏州\n</inputs>\n")
    topic_model = RecordingModel([score_call("topic_adherence", reasoning="r", topics=TOPICS)])
    topics = create_topic_adherence_evaluator(reference_topics=["weather"], judge=topic_model)
    topics(outputs=weather_run, policy="no recipes")
    assert sent_text(topic_model).endswith("<policy>\nno recipes\n</policy>\n")


NO_PLACE = r"^the prompt has no place for {} \(it takes {}\): add {} to the prompt, or leave"


@pytest.mark.parametrize("refused", ["reference_outputs", "inputs", "rubric"])
def test_a_value_a_users_prompt_has_no_place_for_is_refused(
    weather_run: list[Any], refused: str
) -> None:
    from scripted_agents import weather_reference

    given = {
        "reference_outputs": weather_reference(),
        "inputs": {"question": "weather?"},
        "rubric": "be brief",
    }
    model = RecordingModel([])
    judge = create_trajectory_llm_as_judge(judge=model, prompt="Grade:\n{outputs}")
    message = NO_PLACE.format(refused, r"\{outputs\}", r"\{" + refused + r"\}")
    with pytest.raises(ValueError, match=message):
        judge(outputs=weather_run, **{refused: given[refused]})
    assert model.calls_made == 0


def test_every_judge_refuses_what_its_prompt_has_no_place_for(weather_run: list[Any]) -> None:
    graph = create_graph_trajectory_llm_as_judge(judge=RecordingModel([]), prompt="{thread}")
    steps = {"inputs": ["q"], "results": ["a"], "steps": [["__start__", "agent"]]}
    with pytest.raises(ValueError, match=NO_PLACE.format("reference_outputs", ".*", ".*")):
        graph(outputs=steps, reference_outputs=steps)
    with pytest.raises(ValueError, match=NO_PLACE.format("rubric", ".*", ".*")):
        graph(outputs=steps, rubric="short paths")
    with pytest.raises(ValueError, match="'thread' is filled by the judge itself"):
        graph(outputs=steps, thread="mine")
    goal = create_agent_goal_accuracy_evaluator(judge=RecordingModel([]), prompt="{outputs}")
    with pytest.raises(ValueError, match=NO_PLACE.format("reference_outputs", ".*", ".*")):
        goal(outputs=weather_run, reference_outputs="It is sunny")
    topics = create_topic_adherence_evaluator(
        reference_topics=["weather"], judge=RecordingModel([]), prompt="{outputs}"
    )
    with pytest.raises(ValueError, match=NO_PLACE.format("reference_topics", ".*", ".*")):
        topics(outputs=weather_run)


def test_graph_inputs_are_placed_in_the_thread() -> None:
    model = RecordingModel([score_call(reasoning="ok", score=True)])
    graph = create_graph_trajectory_llm_as_judge(judge=model, prompt="{thread}")
    graph(outputs={"inputs": None, "results": ["a"], "steps": [["agent"]]}, inputs=["hello"])
    assert sent_text(model) == "invocation 1:\n  input: hello\n  nodes: agent\n  result: a"


def test_callable_and_langchain_prompts_refuse_what_they_do_not_take(
    weather_run: list[Any],
) -> None:
    from langchain_core.prompts import ChatPromptTemplate

    def strict(outputs: str) -> list[dict[str, str]]:
        return [{"role": "user", "content": outputs}]

    def open_ended(**params: str) -> list[dict[str, str]]:
        return [{"role": "user", "content": "\n".join(f"{k}={v}" for k, v in params.items())}]

    template = ChatPromptTemplate.from_messages([("user", "{outputs}")])
    for prompt in (strict, template):
        judge = create_trajectory_llm_as_judge(judge=RecordingModel([]), prompt=prompt)
        with pytest.raises(ValueError, match=NO_PLACE.format("inputs", ".*", ".*")):
            judge(outputs=weather_run, inputs="weather?")
    model = RecordingModel([score_call(reasoning="ok", score=True)])
    create_trajectory_llm_as_judge(judge=model, prompt=open_ended)(
        outputs=weather_run, inputs="weather?"
    )
    assert sent_text(model).endswith("inputs=weather?")


def test_callable_and_langchain_prompts(weather_run: list[Any]) -> None:
    from langchain_core.prompts import ChatPromptTemplate

    def messages(**params: str) -> list[dict[str, str]]:
        return [
            {"role": "system", "content": "Be strict."},
            {"role": "user", "content": f"Grade:\n{params['outputs']}"},
        ]

    template = ChatPromptTemplate.from_messages([("system", "Be kind."), ("user", "{outputs}")])
    for prompt, system in ((messages, "Be strict."), (template, "Be kind.")):
        model = RecordingModel([score_call(reasoning="ok", score=False)])
        assert (
            create_trajectory_llm_as_judge(judge=model, prompt=prompt)(outputs=weather_run)["score"]
            is False
        )
        assert [m.type for m in model.seen[0]] == ["system", "human"]
        assert model.seen[0][0].content == system
        assert FORMATTED_WEATHER_RUN in str(model.seen[0][1].content)


def test_continuous_and_choices(weather_run: list[Any]) -> None:
    continuous = create_trajectory_llm_as_judge(
        judge=RecordingModel([score_call(reasoning="mostly", score=0.75)]), continuous=True
    )
    assert continuous(outputs=weather_run)["score"] == 0.75
    choices = create_trajectory_llm_as_judge(
        judge=RecordingModel([score_call(reasoning="half", score=0.5)]), choices=[0, 0.5, 1]
    )
    assert choices(outputs=weather_run)["score"] == 0.5


def test_without_reasoning_there_is_no_comment(weather_run: list[Any]) -> None:
    model = RecordingModel([score_call(score=True)])
    result = create_trajectory_llm_as_judge(judge=model, use_reasoning=False)(outputs=weather_run)
    assert (result["score"], result["comment"]) == (True, None)


def test_few_shot_examples_are_appended(weather_run: list[Any]) -> None:
    model = RecordingModel([score_call(reasoning="ok", score=True)])
    examples = [
        {"inputs": "weather in Paris?", "outputs": "asked get_weather", "score": True},
        {"inputs": "time?", "outputs": "no tools", "reasoning": "it guessed", "score": False},
    ]
    create_trajectory_llm_as_judge(judge=model, few_shot_examples=examples)(outputs=weather_run)
    text = sent_text(model)
    assert text.startswith(TRAJECTORY_ACCURACY_PROMPT.format(outputs=FORMATTED_WEATHER_RUN))
    assert (
        "Graded examples, for reference:\n<example>\n<input>\nweather in Paris?\n</input>\n"
        "<output>\nasked get_weather\n</output>\n<score>true</score>\n</example>"
    ) in text
    assert "<reasoning>\nit guessed\n</reasoning>\n<score>false</score>" in text


# ---------------------------------------------------------------- JSON in text


@pytest.mark.parametrize(
    "reply",
    [
        '{"reasoning": "fine", "score": true}',
        'Here is my grade:\n```json\n{"reasoning": "fine", "score": true}\n```\nThanks.',
        'I think {"reasoning": "fine", "score": true} sums it up.',
    ],
    ids=["bare", "fenced", "in-prose"],
)
def test_model_without_tool_calling_answers_json_in_text(
    weather_run: list[Any], reply: str
) -> None:
    model = RecordingTextModel([reply])
    result = create_trajectory_llm_as_judge(judge=model)(outputs=weather_run)
    assert (result["score"], result["comment"]) == (True, "fine")
    assert result["metadata"]["method"] == "json_text"
    text = sent_text(model)
    assert "Answer with a single JSON object and nothing else" in text
    assert '"required": [\n    "reasoning",\n    "score"\n  ]' in text


def test_unparseable_reply_is_retried_once(weather_run: list[Any]) -> None:
    model = RecordingTextModel(["It looks fine to me.", '{"reasoning": "fine", "score": false}'])
    result = create_trajectory_llm_as_judge(judge=model)(outputs=weather_run)
    assert result["score"] is False
    assert result["metadata"]["model_calls"] == 2
    retry = model.seen[1]
    assert retry[-2].content == "It looks fine to me."
    assert str(retry[-1].content).startswith(
        "That reply cannot be used: the reply holds no JSON object. Answer with a single JSON"
    )


def test_structured_reply_without_a_tool_call_is_retried(weather_run: list[Any]) -> None:
    model = RecordingModel(["I would say yes.", score_call(reasoning="yes", score=True)])
    result = create_trajectory_llm_as_judge(judge=model)(outputs=weather_run)
    assert (result["score"], result["metadata"]["model_calls"]) == (True, 2)


def test_second_bad_reply_raises_judge_error_quoting_it(weather_run: list[Any]) -> None:
    model = TextOnlyModel(["no idea", '{"reasoning": "hm", "score": "maybe"}'])
    with pytest.raises(JudgeError) as raised:
        create_trajectory_llm_as_judge(judge=model)(outputs=weather_run)
    text = str(raised.value)
    assert text.startswith(
        "the judge (TextOnlyModel) gave no usable answer in 2 attempts: 'score' must be true or "
        "false, got 'maybe'"
    )
    assert text.endswith('the judge replied:\n{"reasoning": "hm", "score": "maybe"}')


def test_out_of_range_scores_are_refused(weather_run: list[Any]) -> None:
    model = RecordingModel(
        [score_call(reasoning="a", score=1.5), score_call(reasoning="b", score=0.3)]
    )
    judge = create_trajectory_llm_as_judge(judge=model, choices=[0.0, 0.5, 1.0])
    with pytest.raises(JudgeError, match=r"'score' must be one of \[0.0, 0.5, 1.0\], got 0.3"):
        judge(outputs=weather_run)


def _deep_list(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


DEEP = "[" * 50_000 + "]" * 50_000


@pytest.mark.parametrize(
    "reply", [DEEP, '{"reasoning": "x", "score": ' + DEEP + "}"], ids=["array", "in-an-object"]
)
def test_deeply_nested_json_reply_is_a_judge_error_naming_the_model(
    weather_run: list[Any], reply: str
) -> None:
    model = TextOnlyModel([reply, reply])
    with pytest.raises(JudgeError) as raised:
        create_trajectory_llm_as_judge(judge=model)(outputs=weather_run)
    assert str(raised.value).startswith(
        "the judge (TextOnlyModel) gave no usable answer in 2 attempts: its JSON nests too "
        "deeply\nthe judge replied:\n"
    )
    assert model.calls_made == 2


def test_deeply_nested_tool_call_is_a_judge_error_naming_the_model(
    weather_run: list[Any], tmp_path: Path
) -> None:
    deep = score_call(reasoning="x", score=_deep_list(50_000))
    model = RecordingModel([deep, deep])  # an unusable reply is asked for once more
    judge = create_trajectory_llm_as_judge(judge=model, cache=tmp_path)
    with pytest.raises(JudgeError, match=r"^the judge \(RecordingModel\) gave "):
        judge(outputs=weather_run)
    assert not list(tmp_path.rglob("*.json"))


def test_long_values_in_reply_errors_are_shortened(weather_run: list[Any]) -> None:
    reply = json.dumps({"reasoning": "x", "score": "maybe " * 10_000})
    with pytest.raises(JudgeError) as raised:
        create_trajectory_llm_as_judge(judge=TextOnlyModel([reply, reply]))(outputs=weather_run)
    problem = raised.value.problem
    assert problem.startswith("the judge (TextOnlyModel) gave no usable answer in 2 attempts: ")
    assert "'score' must be true or false, got 'maybe maybe" in problem
    assert len(problem) < 400


# ---------------------------------------------------------------- validation


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({}, ValueError, "needs judge= .* or model="),
        ({"judge": "gpt-4o"}, TypeError, "judge must be a langchain-core chat model"),
        ({"model": ""}, ValueError, "model must be a 'provider:model' string"),
        ({"continuous": "yes"}, ValueError, "invalid continuous 'yes'"),
        ({"choices": []}, ValueError, "invalid choices"),
        ({"choices": [True]}, ValueError, "invalid choices"),
        ({"use_reasoning": None}, ValueError, "invalid use_reasoning"),
        ({"feedback_key": ""}, ValueError, "invalid feedback_key"),
        ({"prompt": 42}, ValueError, "prompt must be a template string"),
        ({"prompt": "unbalanced {"}, ValueError, "invalid prompt template"),
        ({"few_shot_examples": [{"inputs": "x"}]}, ValueError, r"few_shot_examples\[0\]"),
        ({"cache": 3}, ValueError, "cache must be None, True"),
    ],
)
def test_judges_validate_when_built(
    options: dict[str, Any], error: type[Exception], message: str
) -> None:
    if "judge" not in options and "model" not in options and options:
        options = {"judge": RecordingModel([]), **options}
    with pytest.raises(error, match=message):
        create_trajectory_llm_as_judge(**options)


def test_judge_and_model_are_exclusive() -> None:
    with pytest.raises(ValueError, match="not both"):
        create_trajectory_llm_as_judge(judge=RecordingModel([]), model="openai:gpt-4o-mini")


def test_async_judge_validates_concurrency() -> None:
    with pytest.raises(ValueError, match="invalid max_concurrency 0"):
        create_async_trajectory_llm_as_judge(judge=RecordingModel([]), max_concurrency=0)


def test_model_string_goes_through_init_chat_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-used")
    made = JudgeModel(model="openai:gpt-4o-mini")
    model = made.get()
    assert type(model).__name__ == "ChatOpenAI"
    assert made.label == "ChatOpenAI(gpt-4o-mini)"
    assert made.get() is model  # made once


def test_model_string_without_langchain_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "langchain.chat_models", None)
    with pytest.raises(ImportError, match=r"pip install 'pytest-agenttraj\[judges\]'"):
        create_trajectory_llm_as_judge(model="openai:gpt-4o-mini")


def test_identity_ignores_what_does_not_decide_answers() -> None:
    base = model_identity(RecordingModel(["a"]))
    assert model_identity(RecordingModel(["a"], tags=["x"], verbose=True)) == base
    assert model_identity(RecordingModel(["b"])) != base
    assert base["class"] == "judge_models.RecordingModel"
    assert base["type"] == "scripted-chat-model"


# ---------------------------------------------------------------- async


def test_async_judge_is_a_coroutine_function(weather_run: list[Any]) -> None:
    judge = create_async_trajectory_llm_as_judge(
        judge=RecordingModel([score_call(reasoning="ok", score=True)])
    )
    assert inspect.iscoroutinefunction(judge)
    assert asyncio.run(judge(outputs=weather_run))["score"] is True


@pytest.mark.parametrize(("bound", "expected_peak"), [(3, 3), (None, 8)])
def test_async_judges_under_gather_keep_to_the_bound(
    weather_run: list[Any], bound: int | None, expected_peak: int
) -> None:
    model = SlowModel([score_call(reasoning=f"#{n}", score=n % 2 == 0) for n in range(20)])
    options = {} if bound is None else {"max_concurrency": bound}
    judge = create_async_trajectory_llm_as_judge(judge=model, **options)

    async def main() -> list[Any]:
        return list(await asyncio.gather(*(judge(outputs=weather_run) for _ in range(20))))

    results = asyncio.run(main())
    assert model.peak == expected_peak
    assert sorted(r["comment"] for r in results) == sorted(f"#{n}" for n in range(20))
    # the same judge works again on a new event loop
    model.reset()
    assert len(asyncio.run(main())) == 20


def test_async_graph_goal_and_topic_judges(weather_run: list[Any]) -> None:
    graph = create_async_graph_trajectory_llm_as_judge(
        judge=RecordingModel([score_call(reasoning="ok", score=True)])
    )
    goal = create_async_agent_goal_accuracy_evaluator(
        judge=RecordingModel(
            [
                score_call(
                    "agent_goal_accuracy",
                    reasoning="r",
                    user_goal="g",
                    end_state="e",
                    achieved=True,
                )
            ]
        )
    )
    topics = create_async_topic_adherence_evaluator(
        reference_topics=["weather"],
        judge=RecordingModel(
            [
                score_call(
                    "topic_adherence",
                    reasoning="r",
                    topics=[{"topic": "weather", "answered": True, "allowed": True}],
                )
            ]
        ),
    )
    steps = {"inputs": ["q"], "results": ["a"], "steps": [["__start__", "agent"]]}
    for evaluator in (graph, goal, topics):
        assert inspect.iscoroutinefunction(evaluator)

    async def main() -> list[Any]:
        return [
            await graph(outputs=steps),
            await goal(outputs=weather_run),
            await topics(outputs=weather_run),
        ]

    assert [r["score"] for r in asyncio.run(main())] == [True, 1.0, 1.0]


# ---------------------------------------------------------------- timeout

LATE = (
    r"^the judge \(HangingModel\) did not answer within its timeout of 0.2 s; the call was given up"
)


def test_sync_judge_gives_up_on_a_hanging_model_at_its_timeout(
    weather_run: list[Any], tmp_path: Path
) -> None:
    model = HangingModel([score_call(reasoning="late", score=True)], hang=5)
    judge = create_trajectory_llm_as_judge(judge=model, cache=tmp_path, timeout=0.2)
    started = time.perf_counter()
    try:
        with pytest.raises(JudgeError, match=LATE):
            judge(outputs=weather_run)
        waited = time.perf_counter() - started
    finally:
        model.release()
    assert 0.2 <= waited < 2
    assert model.finished.wait(5)  # the abandoned call ends when the model answers ...
    assert not list(tmp_path.rglob("*.json"))  # ... and its answer is kept nowhere


def test_async_judge_cancels_a_hanging_model_at_its_timeout(
    weather_run: list[Any], tmp_path: Path
) -> None:
    model = HangingModel([score_call(reasoning="late", score=True)], hang=5)
    judge = create_async_trajectory_llm_as_judge(judge=model, cache=tmp_path, timeout=0.2)
    started = time.perf_counter()
    with pytest.raises(JudgeError, match=LATE):
        asyncio.run(judge(outputs=weather_run))
    assert time.perf_counter() - started < 2
    assert model.cancelled == 1
    assert not list(tmp_path.rglob("*.json"))


def test_async_judge_leaves_a_hanging_model_without_async_calls_behind(
    weather_run: list[Any],
) -> None:
    model = SyncHangingModel([score_call(reasoning="late", score=True)], hang=5)
    judge = create_async_trajectory_llm_as_judge(judge=model, timeout=0.2)
    started = time.perf_counter()
    try:
        with pytest.raises(JudgeError, match=r"^the judge \(SyncHangingModel\) did not answer"):
            asyncio.run(judge(outputs=weather_run))  # closing the loop waits for its executor
        waited = time.perf_counter() - started
    finally:
        model.release()
    assert waited < 2


def test_goal_and_topic_judges_have_the_timeout_too(weather_run: list[Any]) -> None:
    model = HangingModel([], hang=5)
    goal = create_agent_goal_accuracy_evaluator(judge=model, timeout=0.2)
    topics = create_async_topic_adherence_evaluator(
        reference_topics=["weather"], judge=model, timeout=0.2
    )
    try:
        with pytest.raises(JudgeError, match=LATE):
            goal(outputs=weather_run)
        with pytest.raises(JudgeError, match=LATE):
            asyncio.run(topics(outputs=weather_run))
    finally:
        model.release()


def test_the_runs_timeout_applies_to_judges_without_their_own(weather_run: list[Any]) -> None:
    model = HangingModel([], hang=5)
    run = scope.TestScope(on_evaluation=lambda _evaluation: None, judge_timeout=0.2)
    try:
        with scope.test_scope(run), pytest.raises(JudgeError, match=LATE):
            create_trajectory_llm_as_judge(judge=model)(outputs=weather_run)
    finally:
        model.release()
    quick = RecordingModel([score_call(reasoning="ok", score=True)])
    own = create_trajectory_llm_as_judge(judge=quick, timeout=0)  # its own: no bound
    with scope.test_scope(run):
        assert own(outputs=weather_run)["score"] is True


def test_bounded_calls_reuse_a_worker_and_keep_the_callers_context(
    weather_run: list[Any],
) -> None:
    model = RecordingModel([score_call(reasoning=str(n), score=True) for n in range(20)])
    judge = create_trajectory_llm_as_judge(judge=model)  # the default bound: 120 s
    run = scope.TestScope(on_evaluation=lambda _evaluation: None)
    with scope.test_scope(run):
        judge(outputs=weather_run)
        started = (worker_threads(), threading.active_count())
        for _ in range(19):
            judge(outputs=weather_run)
    assert (worker_threads(), threading.active_count()) == started  # no thread per call
    assert {name for name, _ in model.where} == {"agenttraj-judge"}
    assert all(seen is run for _, seen in model.where)  # the test's scope, in the worker


def test_without_a_bound_the_model_is_called_on_the_callers_thread(
    weather_run: list[Any],
) -> None:
    model = RecordingModel([score_call(reasoning="ok", score=True)])
    create_trajectory_llm_as_judge(judge=model, timeout=0)(outputs=weather_run)
    assert [name for name, _ in model.where] == [threading.current_thread().name]


def test_a_models_own_errors_pass_through_the_bound(weather_run: list[Any]) -> None:
    model = RecordingModel([])  # its script is empty: it raises
    with pytest.raises(ScriptExhaustedError):
        create_trajectory_llm_as_judge(judge=model, timeout=5)(outputs=weather_run)


@pytest.mark.parametrize("timeout", [-1, "10", True, float("nan"), float("inf")])
def test_timeout_is_checked_when_built(timeout: Any) -> None:
    with pytest.raises(ValueError, match=r"invalid timeout .*: must be a number of seconds >= 0"):
        create_trajectory_llm_as_judge(judge=RecordingModel([]), timeout=timeout)


# ---------------------------------------------------------------- graph judge


def test_graph_judge_formats_the_thread() -> None:
    model = RecordingModel([score_call(reasoning="sensible", score=True)])
    judge = create_graph_trajectory_llm_as_judge(judge=model, system="You grade graphs.")
    outputs = {
        "inputs": [{"question": "weather?"}, "yes"],
        "results": [{"answer": "which city?"}, "Sunny"],
        "steps": [["__start__", "agent", "__interrupt__"], ["agent", ["tools", "search"], "agent"]],
    }
    result = judge(outputs=outputs, reference_outputs=outputs)
    assert result["key"] == "graph_trajectory_accuracy"
    assert model.seen[0][0].content == "You grade graphs."
    thread = (
        'invocation 1:\n  input: {"question": "weather?"}\n  nodes: __start__, agent, '
        '__interrupt__\n  result: {"answer": "which city?"}\ninvocation 2:\n  input: yes\n'
        "  nodes: agent, (tools + search), agent\n  result: Sunny"
    )
    reference = (
        "\nA reference path known to be good, to compare with:\n<reference_thread>\n"
        f"{thread}\n</reference_thread>\n"
    )
    assert sent_text(model) == GRAPH_TRAJECTORY_ACCURACY_PROMPT.format(
        thread=thread, reference_outputs=reference
    )


def test_graph_judge_checks_its_input() -> None:
    judge = create_graph_trajectory_llm_as_judge(judge=RecordingModel([]))
    with pytest.raises(ValueError, match="one entry per invocation: outputs has 1, got 2"):
        judge(outputs={"inputs": None, "results": ["a"], "steps": [["n"]]}, inputs=["x", "y"])
    with pytest.raises(ValueError, match="GraphTrajectory dict with 'steps'"):
        judge(outputs=[{"role": "user", "content": "hi"}])


# ---------------------------------------------------------------- goal accuracy


def goal_reply(achieved: bool) -> AIMessage:
    return score_call(
        "agent_goal_accuracy",
        reasoning="The forecast was given." if achieved else "No forecast.",
        user_goal="Know the weather in 苏州",
        end_state="The agent said it is sunny, 22°C",
        achieved=achieved,
    )


def test_goal_accuracy_without_reference(weather_run: list[Any]) -> None:
    model = RecordingModel([goal_reply(True)])
    result = create_agent_goal_accuracy_evaluator(judge=model)(outputs=weather_run)
    assert (result["key"], result["score"], result["comment"]) == (
        "agent_goal_accuracy",
        1.0,
        "The forecast was given.",
    )
    assert result["metadata"]["user_goal"] == "Know the weather in 苏州"
    assert result["metadata"]["desired_outcome"] is None
    assert "<desired_outcome>" not in sent_text(model)
    assert f"<conversation>\n{FORMATTED_WEATHER_RUN}\n</conversation>" in sent_text(model)


def test_goal_accuracy_with_reference(weather_run: list[Any]) -> None:
    model = RecordingTextModel([json.dumps(goal_reply(False).tool_calls[0]["args"])])
    goal = create_agent_goal_accuracy_evaluator(judge=model)
    result = goal(outputs=weather_run, reference_outputs={"reference": "It rains in 苏州"})
    assert result["score"] == 0.0
    assert result["metadata"]["desired_outcome"] == "It rains in 苏州"
    assert "<desired_outcome>\nIt rains in 苏州\n</desired_outcome>" in sent_text(model)


# ---------------------------------------------------------------- topic adherence

TOPICS = [
    {"topic": "weather in 苏州", "answered": True, "allowed": True},
    {"topic": "a cake recipe", "answered": True, "allowed": False},
    {"topic": "tomorrow's forecast", "answered": False, "allowed": True},
    {"topic": "stock tips", "answered": False, "allowed": False},
]


@pytest.mark.parametrize(("mode", "score"), [("precision", 0.5), ("recall", 0.5), ("f1", 0.5)])
def test_topic_adherence_modes(weather_run: list[Any], mode: str, score: float) -> None:
    model = RecordingModel([score_call("topic_adherence", reasoning="mixed", topics=TOPICS)])
    evaluator = create_topic_adherence_evaluator(
        reference_topics=["weather"], mode=mode, judge=model
    )  # type: ignore[arg-type]
    result = evaluator(outputs=weather_run)
    assert result["score"] == score
    assert result["metadata"]["topics"] == TOPICS
    assert "<allowed_topics>\n- weather\n</allowed_topics>" in sent_text(model)


def test_topic_adherence_counts() -> None:
    from pytest_agenttraj.evaluators.judges.topics import topic_scores

    answered_one_off_topic = [TOPICS[0], TOPICS[0], TOPICS[1]]
    assert topic_scores(answered_one_off_topic)["precision"] == pytest.approx(2 / 3)
    assert topic_scores(answered_one_off_topic)["recall"] == 1.0
    # nothing answered, nothing allowed: 0 as in Ragas (tests/test_ragas_differential.py)
    assert topic_scores([TOPICS[3]]) == {"precision": 0.0, "recall": 0.0, "f1": 0.0}
    assert topic_scores([TOPICS[2]]) == {"precision": 0.0, "recall": 0.0, "f1": 0.0}
    assert topic_scores([TOPICS[1]])["recall"] == 0.0
    assert topic_scores([]) == {"precision": 0.0, "recall": 0.0, "f1": 0.0}


def test_topic_adherence_topics_per_call_and_errors(weather_run: list[Any]) -> None:
    model = RecordingModel([score_call("topic_adherence", reasoning="ok", topics=TOPICS[:1])])
    evaluator = create_topic_adherence_evaluator(judge=model)
    result = evaluator(outputs=weather_run, reference_outputs={"reference_topics": ["climate"]})
    assert result["metadata"]["reference_topics"] == ["climate"]
    with pytest.raises(ValueError, match="needs reference topics"):
        evaluator(outputs=weather_run)
    with pytest.raises(ValueError, match="invalid mode 'accuracy'"):
        create_topic_adherence_evaluator(judge=model, mode="accuracy")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="reference_topics must be a non-empty list"):
        create_topic_adherence_evaluator(judge=model, reference_topics="weather")  # type: ignore[arg-type]


# ---------------------------------------------------------------- cache


def test_cache_answers_an_unchanged_evaluation_without_a_model_call(
    weather_run: list[Any], tmp_path: Path
) -> None:
    model = RecordingModel([score_call(reasoning="fine", score=True, tokens=50)])
    judge = create_trajectory_llm_as_judge(judge=model, cache=tmp_path)
    first = judge(outputs=weather_run)
    again = create_trajectory_llm_as_judge(judge=model, cache=str(tmp_path))(outputs=weather_run)
    assert (first["score"], first["comment"]) == (again["score"], again["comment"])
    assert first["metadata"]["cached"] is False
    assert again["metadata"]["cached"] is True
    assert again["metadata"]["model_calls"] == 0
    assert again["metadata"]["usage"]["total_tokens"] == 0
    assert model.calls_made == 1
    assert len(list(tmp_path.rglob("*.json"))) == 1


def test_cache_keys_on_the_prompt(weather_run: list[Any], tmp_path: Path) -> None:
    model = RecordingModel([score_call(reasoning=str(n), score=True) for n in range(3)])
    judge = create_trajectory_llm_as_judge(judge=model, cache=tmp_path)
    judge(outputs=weather_run)
    judge(outputs=weather_run[:2])  # another trajectory
    create_trajectory_llm_as_judge(judge=model, cache=tmp_path, prompt="{outputs}")(
        outputs=weather_run
    )
    assert model.calls_made == 3


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('{"version": 1, "key": "trunc', "it is not JSON"),
        ("[" * 100_000 + "]" * 100_000, "its JSON nests too deeply"),
    ],
    ids=["truncated", "deep"],
)
def test_corrupt_cache_entry_is_a_miss_with_one_warning(
    weather_run: list[Any], tmp_path: Path, text: str, problem: str
) -> None:
    model = RecordingModel(
        [score_call(reasoning="a", score=True), score_call(reasoning="b", score=False)]
    )
    create_trajectory_llm_as_judge(judge=model, cache=tmp_path)(outputs=weather_run)
    [entry] = tmp_path.rglob("*.json")
    entry.write_text(text, encoding="utf-8")
    with pytest.warns(JudgeCacheWarning) as warned:
        result = create_trajectory_llm_as_judge(judge=model, cache=tmp_path)(outputs=weather_run)
    assert [str(w.message) for w in warned] == [
        f"judge cache entry {entry} cannot be used ({problem}): a miss, the model is asked again"
    ]
    assert (result["comment"], result["metadata"]["cached"]) == ("b", False)
    cached = create_trajectory_llm_as_judge(judge=model, cache=tmp_path)(outputs=weather_run)
    assert (cached["comment"], cached["metadata"]["cached"]) == ("b", True)


def test_cache_entry_the_judge_cannot_use_is_a_miss(weather_run: list[Any], tmp_path: Path) -> None:
    model = RecordingModel(
        [score_call(reasoning="a", score=True), score_call(reasoning="b", score=False)]
    )
    create_trajectory_llm_as_judge(judge=model, cache=JudgeCache(tmp_path))(outputs=weather_run)
    [entry] = tmp_path.rglob("*.json")
    entry.write_text(entry.read_text(encoding="utf-8").replace("true", '"maybe"'), encoding="utf-8")
    with pytest.warns(JudgeCacheWarning, match="'score' must be true or false, got 'maybe'"):
        result = create_trajectory_llm_as_judge(judge=model, cache=tmp_path)(outputs=weather_run)
    assert (result["comment"], result["metadata"]["cached"], model.calls_made) == ("b", False, 2)


def test_unwritable_cache_directory_warns_once_per_judge(
    weather_run: list[Any], tmp_path: Path
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file where the cache folder should be", encoding="utf-8")
    model = RecordingModel([score_call(reasoning=str(n), score=True) for n in range(3)])
    judge = create_trajectory_llm_as_judge(judge=model, cache=blocker / "cache")
    with pytest.warns(JudgeCacheWarning) as warned:
        results = [judge(outputs=weather_run) for _ in range(3)]
    assert [str(w.message).split(" (")[0] for w in warned] == [
        f"judge cache {blocker / 'cache'} cannot be written"
    ]
    assert [r["metadata"]["cached"] for r in results] == [False] * 3
    assert model.calls_made == 3


@pytest.mark.parametrize(("mode", "calls", "files"), [("refresh", 2, 1), ("off", 2, 0)])
def test_cache_modes(
    weather_run: list[Any], tmp_path: Path, mode: str, calls: int, files: int
) -> None:
    model = RecordingModel([score_call(reasoning=str(n), score=True) for n in range(2)])
    cache = JudgeCache(tmp_path, mode=mode)
    for _ in range(2):
        create_trajectory_llm_as_judge(judge=model, cache=cache)(outputs=weather_run)
    assert model.calls_made == calls
    assert len(list(tmp_path.rglob("*.json"))) == files


def test_cache_true_uses_the_scopes_cache(weather_run: list[Any], tmp_path: Path) -> None:
    seen: list[scope.Evaluation] = []
    model = RecordingModel([score_call(reasoning="once", score=True)])
    judge = create_trajectory_llm_as_judge(judge=model, cache=True)
    run_scope = scope.TestScope(on_evaluation=seen.append, judge_cache=JudgeCache(tmp_path))
    for _ in range(3):
        with scope.test_scope(run_scope):
            judge(outputs=weather_run)
    assert model.calls_made == 1
    assert [e.extra["judge"]["cached"] for e in seen] == [False, True, True]
    assert [e.origin for e in seen] == ["trajectory_llm_judge"] * 3
    # outside pytest, cache=True has no cache to use: the model is asked
    with pytest.raises(ScriptExhaustedError):
        judge(outputs=weather_run)


def test_scopes_mode_applies_to_a_cache_directory(weather_run: list[Any], tmp_path: Path) -> None:
    model = RecordingModel([score_call(reasoning=str(n), score=True) for n in range(2)])
    judge = create_trajectory_llm_as_judge(judge=model, cache=tmp_path / "mine")
    off = scope.TestScope(
        on_evaluation=lambda _evaluation: None, judge_cache=JudgeCache(tmp_path, mode="off")
    )
    with scope.test_scope(off):
        judge(outputs=weather_run)
        judge(outputs=weather_run)
    assert model.calls_made == 2
    assert not (tmp_path / "mine").exists()


def test_judge_cache_works_for_async_judges(weather_run: list[Any], tmp_path: Path) -> None:
    model = SlowModel([score_call(reasoning="once", score=True)])
    judge = create_async_trajectory_llm_as_judge(judge=model, cache=tmp_path)
    first = asyncio.run(judge(outputs=weather_run))
    second = asyncio.run(judge(outputs=weather_run))
    assert (first["metadata"]["cached"], second["metadata"]["cached"]) == (False, True)


# ---------------------------------------------------------------- LangSmith


def _run_and_example(messages: list[Any]) -> tuple[Run, Example]:
    now = datetime.now(timezone.utc)
    run = Run(
        id=uuid.uuid4(),
        trace_id=uuid.uuid4(),
        name="agent",
        run_type="chain",
        start_time=now,
        inputs={"question": WEATHER_QUESTION},
        outputs={"messages": messages},
    )
    example = Example(
        id=uuid.uuid4(), dataset_id=uuid.uuid4(), created_at=now, inputs={}, outputs={}
    )
    return run, example


def test_judges_through_langsmith_run_evaluator(weather_run: list[Any]) -> None:
    run, example = _run_and_example(weather_run)
    sync = create_trajectory_llm_as_judge(
        judge=RecordingModel([score_call(reasoning="ok", score=True)])
    )
    result = run_evaluator(sync).evaluate_run(run, example)
    assert (result.key, result.score, result.comment) == ("trajectory_accuracy", True, "ok")
    asynchronous = create_async_trajectory_llm_as_judge(
        judge=RecordingModel([score_call(reasoning="no", score=False)])
    )
    result = asyncio.run(run_evaluator(asynchronous).aevaluate_run(run, example))
    assert (result.key, result.score, result.comment) == ("trajectory_accuracy", False, "no")
