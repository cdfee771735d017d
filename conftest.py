"""What the test suite and the examples share: the pytester plugin, the weather agent's reference
trajectory (from ``examples/scripted_agents.py``) and scripted chat models
(``pytest_agenttraj.testing``), as fixtures.

``examples/`` is not a package: it goes on ``sys.path`` here, so ``import scripted_agents`` works
in tests as it does in the examples. langchain loads only when a fixture below is used.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytest_plugins = ["pytester"]

EXAMPLES = Path(__file__).resolve().parent / "examples"
if str(EXAMPLES) not in sys.path:
    sys.path.insert(0, str(EXAMPLES))


@pytest.fixture(autouse=True)
def _lean_inner_runs(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Inner pytest runs (``pytester``) may write bytecode, and load no anyio plugin.

    pytest rewrites the modules of every plugin it loads (langsmith's package among them: some
    200 modules); where ``PYTHONDONTWRITEBYTECODE`` is set it cannot cache the result, and each
    process parses and compiles them again, a second per start. anyio's plugin comes with
    langsmith's dependencies and nothing here uses it.
    """
    if "pytester" in request.fixturenames:
        request.getfixturevalue("pytester")  # it clears PYTEST_ADDOPTS: set it afterwards
        monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:anyio")
        monkeypatch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)


@pytest.fixture
def seed_reference() -> list[dict[str, Any]]:
    """The weather agent's reference trajectory (a fresh copy per test)."""
    from scripted_agents import weather_reference

    return weather_reference()


@pytest.fixture
def scripted_model() -> Callable[..., Any]:
    """``scripted_model(*replies, **fields)``: a ``ScriptedChatModel`` that answers each call with
    the next reply (an ``AIMessage``, a string, a dict, a function of the request); no network,
    no API key.

    Example::

        def test_judge(scripted_model):
            model = scripted_model('{"reasoning": "fine", "score": true}')
    """
    from pytest_agenttraj.testing import ScriptedChatModel

    def make(*replies: Any, **fields: Any) -> Any:
        return ScriptedChatModel(list(replies), **fields)

    return make


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "subprocess: starts a Python interpreter of its own (not a unit test: see `unit`)",
    )
    config.addinivalue_line(
        "markers",
        "unit: set by the root conftest on every test that starts no pytest session (no "
        "`pytester`), no interpreter (`subprocess`) and no demo (`demo`): `pytest -m unit`, "
        "`make test-fast`",
    )


def _is_unit(item: pytest.Item) -> bool:
    """Whether a test runs in this process alone: it uses no ``pytester`` (directly or through
    a fixture), and is marked neither ``subprocess`` nor ``demo``."""
    if "pytester" in getattr(item, "fixturenames", ()):
        return False
    return not any(item.get_closest_marker(name) for name in ("subprocess", "demo"))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test in this process alone is marked ``unit``. The slowest test (the demo's
    sessions) goes first, so that pytest-xdist starts it at once instead of leaving one worker
    running it alone at the end."""
    for item in items:
        if _is_unit(item):
            item.add_marker(pytest.mark.unit)
    items.sort(key=lambda item: item.get_closest_marker("demo") is None)
