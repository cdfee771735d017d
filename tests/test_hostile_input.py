"""Every public evaluator, sync and async, on hostile input: values that refer to themselves,
nest 100,000 levels deep, or are no JSON at all (sets, bytes, objects, NaN, datetimes), given
whole or planted anywhere in an otherwise valid trajectory, on either side.

Each call must return a result dict or raise one of the package's own errors naming where the
input went wrong; never a ``RecursionError``, ``TypeError`` or any other stray exception.
"""

from __future__ import annotations

import asyncio
import contextvars
import copy
import inspect
import math
from collections.abc import Callable
from datetime import datetime, timezone
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from judge_models import score_call
from scripted_agents import ScriptedChatModel

from pytest_agenttraj import (
    AgentTrajError,
    TrajectoryFormatError,
    create_agent_goal_accuracy_evaluator,
    create_async_agent_goal_accuracy_evaluator,
    create_async_graph_trajectory_llm_as_judge,
    create_async_graph_trajectory_match_evaluator,
    create_async_tool_call_accuracy_evaluator,
    create_async_tool_call_f1_evaluator,
    create_async_tool_usage_evaluator,
    create_async_topic_adherence_evaluator,
    create_async_trajectory_llm_as_judge,
    create_async_trajectory_match_evaluator,
    create_graph_trajectory_llm_as_judge,
    create_graph_trajectory_match_evaluator,
    create_tool_call_accuracy_evaluator,
    create_tool_call_f1_evaluator,
    create_tool_usage_evaluator,
    create_topic_adherence_evaluator,
    create_trajectory_llm_as_judge,
    create_trajectory_match_evaluator,
    exact_match,
    exact_match_async,
    graph_trajectory_strict_match,
    graph_trajectory_strict_match_async,
)

DEEP = 100_000
MODES = ("strict", "unordered", "subset", "superset", "in_order")
GRAPH_MODES = ("strict", "unordered", "subset", "superset", "in_order")

# ---------------------------------------------------------------- the evaluators


def _judge_model(kind: str) -> ScriptedChatModel:
    """A scripted judge answering once, in the schema of the judge ``kind``."""
    reply = {
        "score": score_call(reasoning="ok", score=True),
        "goal": score_call(
            "agent_goal_accuracy", reasoning="r", user_goal="g", end_state="e", achieved=True
        ),
        "topics": score_call(
            "topic_adherence",
            reasoning="r",
            topics=[{"topic": "weather", "answered": True, "allowed": True}],
        ),
    }[kind]
    return ScriptedChatModel([reply, reply])


def _evaluators() -> dict[str, tuple[str, Callable[[], Callable[..., Any]]]]:
    """Each evaluator by name: the kind of input it reads and a maker of a fresh one."""
    made: dict[str, tuple[str, Callable[[], Callable[..., Any]]]] = {
        "exact_match": ("any", lambda: exact_match),
        "exact_match_async": ("any", lambda: exact_match_async),
        "graph_trajectory_strict_match": ("graph", lambda: graph_trajectory_strict_match),
        "graph_trajectory_strict_match_async": (
            "graph",
            lambda: graph_trajectory_strict_match_async,
        ),
    }
    for mode in MODES:
        for args in ("exact", "subset"):
            made[f"trajectory {mode} {args}"] = (
                "messages",
                lambda m=mode, a=args: create_trajectory_match_evaluator(
                    trajectory_match_mode=m, tool_args_match_mode=a
                ),
            )
            made[f"async trajectory {mode} {args}"] = (
                "messages",
                lambda m=mode, a=args: create_async_trajectory_match_evaluator(
                    trajectory_match_mode=m, tool_args_match_mode=a
                ),
            )
    for mode in GRAPH_MODES:
        made[f"graph {mode}"] = (
            "graph",
            lambda m=mode: create_graph_trajectory_match_evaluator(mode=m),
        )
        made[f"async graph {mode}"] = (
            "graph",
            lambda m=mode: create_async_graph_trajectory_match_evaluator(mode=m),
        )
    for order in (True, False):
        made[f"tool_call_accuracy order={order}"] = (
            "messages",
            lambda o=order: create_tool_call_accuracy_evaluator(strict_order=o),
        )
        made[f"async tool_call_accuracy order={order}"] = (
            "messages",
            lambda o=order: create_async_tool_call_accuracy_evaluator(strict_order=o),
        )
    made["tool_call_f1"] = ("messages", create_tool_call_f1_evaluator)
    made["async tool_call_f1"] = ("messages", create_async_tool_call_f1_evaluator)
    usage = {"required": ["lookup"], "forbidden": ["delete"], "max_calls": {"lookup": 3}}
    made["tool_usage"] = ("messages", lambda: create_tool_usage_evaluator(**usage))
    made["async tool_usage"] = ("messages", lambda: create_async_tool_usage_evaluator(**usage))
    judges: dict[str, tuple[str, str, Callable[..., Any]]] = {
        "trajectory judge": ("messages", "score", create_trajectory_llm_as_judge),
        "async trajectory judge": ("messages", "score", create_async_trajectory_llm_as_judge),
        "graph judge": ("graph", "score", create_graph_trajectory_llm_as_judge),
        "async graph judge": ("graph", "score", create_async_graph_trajectory_llm_as_judge),
        "goal judge": ("messages", "goal", create_agent_goal_accuracy_evaluator),
        "async goal judge": ("messages", "goal", create_async_agent_goal_accuracy_evaluator),
        "topic judge": ("messages", "topics", create_topic_adherence_evaluator),
        "async topic judge": ("messages", "topics", create_async_topic_adherence_evaluator),
    }
    for name, (reads, reply, factory) in judges.items():
        extra = {"reference_topics": ["weather"]} if reply == "topics" else {}
        made[name] = (
            reads,
            lambda f=factory, r=reply, x=extra: f(judge=_judge_model(r), **x),
        )
    return made


EVALUATORS = _evaluators()

# ---------------------------------------------------------------- valid inputs to spoil


def _messages() -> list[Any]:
    return [
        {"role": "user", "content": "Weather in 苏州?"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"id": "1", "function": {"name": "lookup", "arguments": '{"city": "苏州"}'}}
            ],
        },
        {"role": "tool", "content": "location-123", "tool_call_id": "1"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"id": "2", "name": "get_weather", "args": {"code": "location-123"}}],
        },
        {"role": "tool", "content": "Sunny", "tool_call_id": "2"},
        {"role": "assistant", "content": "It is sunny."},
    ]


def _graph() -> dict[str, Any]:
    return {
        "inputs": [{"question": "weather?"}],
        "results": [{"answer": "sunny"}],
        "steps": [["__start__", "agent", ["tools", "log"], "agent"]],
    }


def _places(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a value inside ``value``'s dicts and lists (the root included)."""
    found = [path]
    if isinstance(value, dict):
        for key, inner in value.items():
            found += _places(inner, (*path, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            found += _places(inner, (*path, index))
    return found


def _plant(value: Any, path: tuple[Any, ...], junk: Any) -> Any:
    if not path:
        return junk
    *above, last = path
    holder = value
    for step in above:
        holder = holder[step]
    holder[last] = junk
    return value


# ---------------------------------------------------------------- hostile values


class Opaque:
    """An object with no JSON form and a plain repr."""


class BadRepr:
    """An object whose repr raises."""

    def __repr__(self) -> str:
        raise RuntimeError("no repr")


_DEEP: dict[tuple[str, int], Any] = {}


def _deep(kind: str, leaf: int) -> Any:
    """``_leaves()[leaf]`` inside 100,000 nested dicts or lists: built once (it takes a while)
    and shared, since no evaluator changes its input."""
    known = _DEEP.get((kind, leaf))
    if known is None:
        known = _leaves()[leaf]
        for _ in range(DEEP):
            known = {"a": known} if kind == "dict" else [known]
        _DEEP[(kind, leaf)] = known
    return known


def _cycle(kind: str, seed: Any) -> Any:
    if kind == "list":
        items: list[Any] = [seed]
        items.append(items)
        return items
    mapping: dict[str, Any] = {"role": "user", "content": seed}
    mapping["self"] = mapping
    return mapping


def _leaves() -> list[Any]:
    """Values JSON cannot encode, or encodes in a way of its own, and a few it can."""
    return [
        float("nan"),
        math.inf,
        {1, 2},
        frozenset({"a"}),
        b"bytes",
        bytearray(b"x"),
        Decimal("1.5"),
        datetime(2024, 1, 1, tzinfo=timezone.utc),
        Opaque(),
        BadRepr(),
        (1, 2),
        None,
        "text",
        7,
        {3: "int key"},
    ]


SHAPES = ("leaf", "deep list", "deep dict", "cyclic list", "cyclic dict")


def _hostile(shape: str, leaf: int) -> Any:
    """A value to plant: a non-JSON leaf, or a cycle or 100,000-level nesting around one. (Built
    in the test from what hypothesis drew, so that hypothesis never holds or prints it.)"""
    kind = shape.split()[-1]
    if shape.startswith("deep"):
        return _deep(kind, leaf)
    value = _leaves()[leaf]
    return _cycle(kind, value) if shape.startswith("cyclic") else value


# ---------------------------------------------------------------- the property


def _call(name: str, outputs: Any, reference_outputs: Any) -> Any:
    evaluator = EVALUATORS[name][1]()
    outcome = evaluator(outputs=outputs, reference_outputs=reference_outputs)
    if inspect.iscoroutine(outcome):
        return asyncio.run(outcome)
    return outcome


def _outcome(name: str, outputs: Any, reference_outputs: Any, recorded: bool) -> Any:
    """The result of one evaluation, or the package's error it raised. Unless ``recorded``, it
    runs as outside pytest (in a fresh context, where no test is current), so that the plugin
    does not keep these values, some of 100,000 levels, for the rest of the session."""
    try:
        if recorded:
            return _call(name, outputs, reference_outputs)
        return contextvars.Context().run(_call, name, outputs, reference_outputs)
    except AgentTrajError as error:
        return error


def _check(name: str, outputs: Any, reference_outputs: Any, *, recorded: bool = False) -> None:
    """One evaluation returns a result dict or raises a format error naming where."""
    outcome = _outcome(name, outputs, reference_outputs, recorded)
    if isinstance(outcome, BaseException):
        assert isinstance(outcome, TrajectoryFormatError), (name, outcome)
        assert "outputs" in str(outcome), (name, str(outcome))  # which side, and where in it
        return
    assert isinstance(outcome, dict), (name, outcome)
    assert isinstance(outcome["key"], str), (name, outcome)
    assert isinstance(outcome["score"], bool | int | float), (name, outcome)
    assert outcome["comment"] is None or isinstance(outcome["comment"], str), (name, outcome)


def _valid(reads: str) -> Any:
    return _graph() if reads == "graph" else _messages()


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_every_evaluator_answers_or_says_where_on_hostile_input(data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(sorted(EVALUATORS)), label="evaluator")
    reads = EVALUATORS[name][0]
    sound = _valid(reads if reads != "any" else data.draw(st.sampled_from(["messages", "graph"])))
    spoiled = copy.deepcopy(sound)
    place = data.draw(st.sampled_from(_places(spoiled)), label="place")
    shape = data.draw(st.sampled_from(SHAPES), label="shape")
    leaf = data.draw(st.integers(0, len(_leaves()) - 1), label="leaf")
    spoiled = _plant(spoiled, place, _hostile(shape, leaf))
    if data.draw(st.booleans(), label="reference side"):
        _check(name, sound, spoiled)
    else:
        _check(name, spoiled, sound)


@pytest.mark.parametrize("name", sorted(EVALUATORS))
@pytest.mark.parametrize(
    "junk",
    [
        pytest.param(lambda: _cycle("list", 1), id="cyclic-list"),
        pytest.param(lambda: _cycle("dict", 1), id="cyclic-dict"),
        pytest.param(lambda: _deep("list", 13), id="deep-list"),
        pytest.param(lambda: _deep("dict", 13), id="deep-dict"),
    ],
)
def test_whole_hostile_values_on_both_sides(name: str, junk: Callable[[], Any]) -> None:
    """The value as the whole input, on one side and on both."""
    sound = _valid(EVALUATORS[name][0] if EVALUATORS[name][0] != "any" else "messages")
    _check(name, junk(), sound)
    _check(name, sound, junk())
    shared = junk()
    _check(name, shared, shared)
    _check(name, junk(), junk())


def test_exact_match_on_a_cyclic_list_says_where() -> None:
    a: list[Any] = [1, 2]
    a.append(a)
    with pytest.raises(
        TrajectoryFormatError, match=r"^outputs\[2\] refers back to a value holding it \(a cycle\)"
    ):
        exact_match(outputs=a, reference_outputs=[1, 2, [1, 2]])
    deep = _deep("list", 13)
    with pytest.raises(
        TrajectoryFormatError,
        match=r"^reference_outputs\[0\]\[0\].*\(100 levels down\) nests more than 100 levels deep",
    ):
        exact_match(outputs=[1], reference_outputs=deep)
    # values JSON cannot encode still compare, as values
    assert exact_match(outputs={1, 2}, reference_outputs={2, 1})["score"] is True
    assert exact_match(outputs=[float("nan")], reference_outputs=[float("nan")])["score"] is True


@pytest.mark.parametrize(
    "name",
    [
        "exact_match",
        "trajectory strict exact",
        "tool_call_f1",
        "graph strict",
        "tool_usage",
        "async trajectory judge",
    ],
)
def test_a_recorded_evaluation_of_hostile_values_keeps_the_test_running(name: str) -> None:
    """Inside a test, an evaluation is also recorded for the report (its diff drawn): that
    copes with cycles and depth too."""
    sound = _valid(EVALUATORS[name][0] if EVALUATORS[name][0] != "any" else "messages")
    for junk in (_cycle("list", {1}), _cycle("dict", BadRepr()), _deep("dict", 4)):
        for place in _places(sound)[:: max(1, len(_places(sound)) // 8)]:
            spoiled = _plant(copy.deepcopy(sound), place, junk)
            _check(name, spoiled, sound, recorded=True)
            _check(name, sound, spoiled, recorded=True)


def _args_places(reads: str) -> list[tuple[Any, ...]]:
    """Where a call's arguments sit (the whole dict, and one value), or a graph's steps."""
    if reads == "graph":
        return [("steps", 0), ("steps", 0, 1), ("results", 0)]
    return [(3, "tool_calls", 0, "args"), (3, "tool_calls", 0, "args", "code")]


@pytest.mark.parametrize("name", sorted(EVALUATORS))
def test_every_non_json_value_as_arguments(name: str) -> None:
    """Each of the leaves, as a call's whole arguments and as one argument value (a dict with
    an int key once made tool-call accuracy raise ``TypeError`` while naming the keys)."""
    reads = EVALUATORS[name][0] if EVALUATORS[name][0] != "any" else "messages"
    for place in _args_places(reads):
        for leaf in range(len(_leaves())):
            spoiled = _plant(_valid(reads), place, _hostile("leaf", leaf))
            _check(name, spoiled, _valid(reads))
            _check(name, _valid(reads), spoiled)


def test_a_value_that_holds_itself_is_searched_for_matchers_once() -> None:
    """Whether a reference holds a matcher is asked of every recorded evaluation; a value that
    holds itself once made that search run until memory ran out."""
    from pytest_agenttraj import Regex
    from pytest_agenttraj.core.values import holds_matcher

    Regex("x")  # a matcher kind exists, so the search runs
    loop: list[Any] = [1]
    loop.append(loop)
    nested: dict[str, Any] = {"a": [loop]}
    nested["self"] = nested
    assert holds_matcher(loop) is False
    assert holds_matcher(nested) is False
    loop.append(Regex("y"))
    assert holds_matcher(nested) is True
