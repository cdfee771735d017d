"""A test's settings and LangSmith's counts are plain classes (made at every start-up, where a
dataclass's generated methods cost a millisecond): they keep a dataclass's behaviour."""

from __future__ import annotations

import copy
import pickle
from dataclasses import FrozenInstanceError

import pytest

from pytest_agenttraj.integrations.langsmith.stats import LangSmithStats
from pytest_agenttraj.plugin.pass_rules import parse_pass_rule
from pytest_agenttraj.plugin.settings import TrajectorySettings


def test_settings_have_their_defaults_and_compare_by_value() -> None:
    settings = TrajectorySettings()
    assert (settings.mode, settings.tool_args, settings.repeat, settings.confidence) == (
        "strict",
        "exact",
        1,
        0.95,
    )
    assert settings.pass_rule == parse_pass_rule("all")
    assert settings.sources == {"mode": "default", "tool_args": "default"}
    assert settings == TrajectorySettings()
    assert settings != TrajectorySettings("unordered")
    assert settings != ("strict", "exact")
    assert repr(settings).startswith("TrajectorySettings(mode='strict', tool_args='exact', ")


def test_settings_are_immutable_and_replaced_field_by_field() -> None:
    settings = TrajectorySettings("unordered", ignore_keys=("id",))
    with pytest.raises(FrozenInstanceError):
        settings.mode = "strict"  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        del settings.mode  # type: ignore[misc]
    changed = settings.replace(repeat=3, sources={"repeat": "marker"})
    assert (changed.mode, changed.ignore_keys, changed.repeat) == ("unordered", ("id",), 3)
    assert changed.sources == {"repeat": "marker"}
    assert settings.repeat == 1
    with pytest.raises(TypeError, match="no field"):
        settings.replace(colour="red")


def test_settings_survive_pickling_and_copying() -> None:
    settings = TrajectorySettings("subset", overrides={"search": "ignore"}, min_score=0.5)
    for twin in (pickle.loads(pickle.dumps(settings)), copy.deepcopy(settings)):
        assert twin == settings
        assert twin.overrides == {"search": "ignore"}


def test_langsmith_counts_start_at_zero_and_compare_by_value() -> None:
    stats = LangSmithStats(tracked_tests=2)
    assert stats.as_json() == {
        "tracked_tests": 2,
        "logged_results": 0,
        "logged_evaluations": 0,
        "evaluated_tests": 0,
        "caller_logged": 0,
        "untracked_tests": 0,
        "unlogged_results": 0,
        "untracked_evaluations": 0,
        "untracked_evaluation_tests": 0,
        "failure": None,
        "problems": [],
        "experiments": {},
    }
    assert stats == LangSmithStats(tracked_tests=2)
    assert stats != LangSmithStats()
    assert "tracked_tests=2" in repr(stats)
    with pytest.raises(TypeError, match="no count"):
        LangSmithStats(tracked=1)
    # each instance has its own lists
    other = LangSmithStats()
    other.note("one")
    assert stats.problems == []
