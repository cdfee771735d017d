"""What a judge's cache hit does, counted: no model made, no model bound or called, no worker
thread, and the prompt rendered once (for the key); the key a judge computes piece by piece is
the one ``cache_key`` gives for the whole; and judges of one model share its identity only while
its fields are unchanged."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, strategies as st
from judge_models import RecordingModel, score_call
from pydantic import PrivateAttr
from scripted_agents import WEATHER_QUESTION, weather_agent

from pytest_agenttraj import JudgeCache, create_trajectory_llm_as_judge
from pytest_agenttraj.evaluators import scope
from pytest_agenttraj.evaluators.judges import engine, trajectory
from pytest_agenttraj.evaluators.judges.cache import KeyMaker, cache_key
from pytest_agenttraj.evaluators.judges.model import model_identity, shared_identity


@pytest.fixture(scope="module")
def weather_run() -> list[Any]:
    result = weather_agent().invoke({"messages": [{"role": "user", "content": WEATHER_QUESTION}]})
    return list(result["messages"])


@pytest.fixture(autouse=True)
def no_tracing(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("LANGSMITH_TRACING", "LANGCHAIN_TRACING_V2", "LANGSMITH_API_KEY"):
        monkeypatch.delenv(name, raising=False)


class CountingModel(RecordingModel):
    """A scripted model counting how often it is bound to a schema or to tools (in a private
    attribute: a field would be part of the model's identity, and so of the cache key)."""

    _bound: int = PrivateAttr(default=0)

    @property
    def bound(self) -> int:
        return self._bound

    def bind_tools(self, *args: Any, **kwargs: Any) -> Any:
        self._bound += 1
        return super().bind_tools(*args, **kwargs)

    def with_structured_output(self, *args: Any, **kwargs: Any) -> Any:
        self._bound += 1
        return super().with_structured_output(*args, **kwargs)


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Calls of what a judge does on its way to the model: rendering the prompt, the JSON
    instructions, handing the call to a worker thread, and langchain's ``init_chat_model``
    (which makes a ``CountingModel`` here: no provider is ever reached)."""
    import langchain.chat_models

    calls: Counter[str] = Counter()

    def counting(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            calls[name] += 1
            return function(*args, **kwargs)

        return wrapper

    def make_model(spec: str, **_options: Any) -> CountingModel:
        calls["made " + spec] += 1
        return CountingModel([score_call(reasoning="made", score=True)])

    monkeypatch.setattr(trajectory, "build_messages", counting("render", trajectory.build_messages))
    monkeypatch.setattr(engine, "json_instructions", counting("json", engine.json_instructions))
    monkeypatch.setattr(engine, "call_within", counting("worker", engine.call_within))
    monkeypatch.setattr(langchain.chat_models, "init_chat_model", make_model)
    return calls


def test_a_hit_for_a_model_string_makes_no_model(
    weather_run: list[Any], tmp_path: Path, counted: Counter[str]
) -> None:
    first = create_trajectory_llm_as_judge(model="openai:gpt-4o-mini", cache=tmp_path)
    missed = first(outputs=weather_run)
    assert counted == Counter({"made openai:gpt-4o-mini": 1, "render": 1, "worker": 1})
    counted.clear()

    again = create_trajectory_llm_as_judge(model="openai:gpt-4o-mini", cache=tmp_path)
    seen: list[scope.Evaluation] = []
    with scope.test_scope(scope.TestScope(on_evaluation=seen.append)):
        hit = again(outputs=weather_run)
    assert counted == Counter({"render": 1})  # the key's rendering, nothing else
    assert hit["metadata"]["cached"] is True
    assert (hit["score"], hit["comment"]) == (missed["score"], missed["comment"])
    # the cached answer names the model that gave it, as the miss did
    assert hit["metadata"]["judge_model"] == missed["metadata"]["judge_model"] == "CountingModel"
    assert [e.report.settings()["judge"]["model"] for e in seen] == ["CountingModel"]


def test_a_hit_for_a_model_given_binds_and_calls_nothing(
    weather_run: list[Any], tmp_path: Path, counted: Counter[str]
) -> None:
    model = CountingModel([score_call(reasoning="once", score=True)])
    create_trajectory_llm_as_judge(judge=model, cache=JudgeCache(tmp_path))(outputs=weather_run)
    bound = model.bound
    assert bound >= 1
    assert model.calls_made == 1
    counted.clear()

    judge = create_trajectory_llm_as_judge(judge=model, cache=JudgeCache(tmp_path))
    results = [judge(outputs=weather_run) for _ in range(3)]
    assert (model.bound, model.calls_made) == (bound, 1)
    assert counted == Counter({"render": 3})
    assert [r["metadata"]["cached"] for r in results] == [True] * 3


def test_a_string_model_is_keyed_by_its_string(
    weather_run: list[Any], tmp_path: Path, counted: Counter[str]
) -> None:
    create_trajectory_llm_as_judge(model="openai:gpt-4o-mini", cache=tmp_path)(outputs=weather_run)
    other = create_trajectory_llm_as_judge(model="openai:gpt-4o", cache=tmp_path)
    assert other(outputs=weather_run)["metadata"]["cached"] is False
    assert counted["made openai:gpt-4o"] == 1


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(
    constant=st.dictionaries(st.text().filter(lambda k: k != "messages"), JSON, max_size=5),
    value=JSON,
)
def test_the_key_made_piece_by_piece_is_the_whole_payloads(
    constant: dict[str, Any], value: Any
) -> None:
    keys = KeyMaker(constant, "messages")
    assert keys(value) == cache_key({**constant, "messages": value})


def test_a_constant_holding_the_hole_still_gives_the_whole_payloads_key() -> None:
    hole = "\x00agenttraj-cache-key-hole\x00"
    keys = KeyMaker({"a": hole, "b": [hole]}, "messages")
    assert keys([1]) == cache_key({"a": hole, "b": [hole], "messages": [1]})


def test_the_varying_name_cannot_be_in_the_constant_part() -> None:
    with pytest.raises(ValueError, match="'messages' is a key of the constant part"):
        KeyMaker({"messages": 1}, "messages")


def test_judges_of_one_model_share_its_identity_until_a_field_changes(
    weather_run: list[Any], tmp_path: Path
) -> None:
    model = RecordingModel([score_call(reasoning=str(n), score=True) for n in range(4)])
    assert shared_identity(model) is shared_identity(model)  # worked out once
    first = shared_identity(model)
    assert first == model_identity(model)

    def judged() -> Any:
        judge = create_trajectory_llm_as_judge(judge=model, cache=JudgeCache(tmp_path))
        return judge(outputs=weather_run)["metadata"]["cached"]

    assert [judged(), judged()] == [False, True]
    model.usage = {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}  # a field set
    assert shared_identity(model) is not first
    assert judged() is False  # another model: another key
    model.usage["total_tokens"] = 3  # changed in place
    assert shared_identity(model) == model_identity(model)
    assert judged() is False
