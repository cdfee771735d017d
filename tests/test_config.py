"""Every mode, args mode and override value is checked when an evaluator is built, never later.

An invalid value raises ``ValueError`` whose message lists the valid values, from the sync and the
async factory alike (and from ``assert_trajectory``); valid values are accepted.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from pytest_agenttraj import (
    assert_trajectory,
    create_async_trajectory_match_evaluator,
    create_trajectory_match_evaluator,
)
from pytest_agenttraj.core.matching.rules import (
    TOOL_ARGS_MATCH_MODES,
    TRAJECTORY_MATCH_MODES,
    ArgsRule,
    MatchConfig,
    make_config,
)

FACTORIES = [
    pytest.param(create_trajectory_match_evaluator, id="sync"),
    pytest.param(create_async_trajectory_match_evaluator, id="async"),
]

MODES_LISTED = "'strict', 'unordered', 'subset', 'superset', 'in_order'"
ARGS_LISTED = "'exact', 'ignore', 'subset', 'superset'"


def test_the_valid_values() -> None:
    assert TRAJECTORY_MATCH_MODES == ("strict", "unordered", "subset", "superset", "in_order")
    assert TOOL_ARGS_MATCH_MODES == ("exact", "ignore", "subset", "superset")


@pytest.mark.parametrize("factory", FACTORIES)
@pytest.mark.parametrize("mode", ["fuzzy", "Strict", "STRICT", " strict", "", None, 1, ["strict"]])
def test_invalid_trajectory_mode(factory: Callable[..., Any], mode: Any) -> None:
    with pytest.raises(ValueError, match="trajectory_match_mode") as info:
        factory(trajectory_match_mode=mode)
    assert MODES_LISTED in str(info.value)
    assert repr(mode) in str(info.value)


@pytest.mark.parametrize("factory", FACTORIES)
@pytest.mark.parametrize("mode", ["loose", "Exact", "partial", "", None, True])
def test_invalid_tool_args_mode(factory: Callable[..., Any], mode: Any) -> None:
    with pytest.raises(ValueError, match="tool_args_match_mode") as info:
        factory(tool_args_match_mode=mode)
    assert ARGS_LISTED in str(info.value)
    assert repr(mode) in str(info.value)


@pytest.mark.parametrize("factory", FACTORIES)
@pytest.mark.parametrize(
    ("overrides", "text"),
    [
        pytest.param(
            {"get_weather": "partial"},
            f"invalid tool_args_match_overrides['get_weather'] 'partial': must be one of "
            f"{ARGS_LISTED}",
            id="unknown-mode",
        ),
        pytest.param(
            {"get_weather": "Exact"},
            f"invalid tool_args_match_overrides['get_weather'] 'Exact': must be one of "
            f"{ARGS_LISTED}",
            id="wrong-case",
        ),
        pytest.param(
            {"f": ""},
            f"invalid tool_args_match_overrides['f'] '': must be one of {ARGS_LISTED}",
            id="empty-string",
        ),
        pytest.param({"f": []}, "a key list must be a non-empty list of key names", id="no-keys"),
        pytest.param({"f": [1]}, "a key list must be a non-empty list of key names", id="int-key"),
        pytest.param(
            {"f": ["city", ""]}, "a key list must be a non-empty list of key names", id="empty-key"
        ),
        pytest.param(
            {"f": 3},
            f"invalid tool_args_match_overrides['f'] 3: must be one of {ARGS_LISTED}, a list of "
            "keys, or a callable (output_args, reference_args) -> bool",
            id="int",
        ),
        pytest.param(
            {"f": None},
            f"must be one of {ARGS_LISTED}, a list of keys, or a callable",
            id="none",
        ),
        pytest.param(
            {"f": {"city": "exact"}},
            f"must be one of {ARGS_LISTED}, a list of keys, or a callable",
            id="dict",
        ),
        pytest.param(
            {1: "exact"}, "tool_args_match_overrides keys must be tool names (str)", id="int-tool"
        ),
        pytest.param(
            ["get_weather"],
            "tool_args_match_overrides must be a dict of tool name -> args mode, key list or "
            "callable, got list",
            id="not-a-dict",
        ),
        pytest.param(
            "exact", "tool_args_match_overrides must be a dict", id="string-instead-of-dict"
        ),
    ],
)
def test_invalid_override(factory: Callable[..., Any], overrides: Any, text: str) -> None:
    with pytest.raises(ValueError, match=re.escape(text)):
        factory(tool_args_match_overrides=overrides)


def test_invalid_override_is_found_among_valid_ones() -> None:
    with pytest.raises(ValueError, match=r"tool_args_match_overrides\['b'\] 'nope'"):
        create_trajectory_match_evaluator(
            tool_args_match_overrides={"a": "ignore", "b": "nope", "c": ["x"]}  # type: ignore[dict-item]
        )


@pytest.mark.parametrize("mode", TRAJECTORY_MATCH_MODES)
@pytest.mark.parametrize("args_mode", TOOL_ARGS_MATCH_MODES)
@pytest.mark.parametrize("factory", FACTORIES)
def test_valid_values_are_accepted(factory: Callable[..., Any], mode: str, args_mode: str) -> None:
    evaluator = factory(trajectory_match_mode=mode, tool_args_match_mode=args_mode)
    assert evaluator.config == MatchConfig(mode, args_mode, None)


@pytest.mark.parametrize("factory", FACTORIES)
def test_valid_overrides_are_accepted(factory: Callable[..., Any]) -> None:
    def matcher(_output_args: dict[str, Any], _reference_args: dict[str, Any]) -> bool:
        return True

    overrides: dict[str, Any] = {
        "a": "exact",
        "b": "ignore",
        "c": "subset",
        "d": "superset",
        "e": ["city", "filters.unit"],
        "f": ("city",),
        "g": matcher,
        "h": lambda _output_args, _reference_args: True,
    }
    evaluator = factory(tool_args_match_overrides=overrides)
    config = evaluator.config
    assert config.rule_for("a") == ArgsRule("exact")
    assert config.rule_for("d") == ArgsRule("superset")
    assert config.rule_for("e") == ArgsRule("keys", keys=("city", "filters.unit"))
    assert config.rule_for("f") == ArgsRule("keys", keys=("city",))
    assert config.rule_for("g") == ArgsRule("callable", func=matcher)
    assert config.rule_for("g").describe() == "callable matcher"
    assert config.rule_for("e").describe() == "keys [city, filters.unit]"
    assert config.rule_for("unlisted") == ArgsRule("exact")


def test_empty_overrides_are_no_overrides() -> None:
    assert make_config(overrides={}) == MatchConfig("strict", "exact", None)
    assert make_config(overrides=None) == MatchConfig("strict", "exact", None)


def test_defaults() -> None:
    evaluator = create_trajectory_match_evaluator()
    assert evaluator.config == MatchConfig("strict", "exact", None)
    assert evaluator.config.key == "trajectory_strict_match"
    assert repr(evaluator) == (
        "TrajectoryMatchEvaluator(trajectory_match_mode='strict', tool_args_match_mode='exact')"
    )


def test_factories_take_keyword_arguments_only() -> None:
    with pytest.raises(TypeError):
        create_trajectory_match_evaluator("strict")  # type: ignore[call-arg]


def test_validation_happens_at_build_time_not_call_time() -> None:
    # a typo in an override of a tool that the trajectory never calls still fails, and at once
    with pytest.raises(ValueError, match="'ignored'"):
        create_trajectory_match_evaluator(tool_args_match_overrides={"never_called": "ignored"})  # type: ignore[dict-item]


def test_assert_trajectory_validates_too() -> None:
    trajectory = [{"role": "user", "content": "q"}]
    with pytest.raises(ValueError, match=MODES_LISTED):
        assert_trajectory(trajectory, trajectory, mode="fuzzy")
    with pytest.raises(ValueError, match=ARGS_LISTED):
        assert_trajectory(trajectory, trajectory, tool_args="loose")
    with pytest.raises(ValueError, match="a list of keys, or a callable"):
        assert_trajectory(trajectory, trajectory, overrides={"f": 3})
