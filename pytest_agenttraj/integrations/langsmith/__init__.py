"""LangSmith logging, as a pytest plugin the main plugin loads (``pytest_plugins``): options,
the sink's registration and nothing else. langsmith itself is imported only once logging is on
and a test is tracked (:mod:`.link`)."""

from __future__ import annotations

import pytest

from .options import add_options, add_output_option
from .sink import LangSmithSink

__all__: list[str] = []

_SINK = pytest.StashKey[LangSmithSink]()
PLUGIN_NAME = "agenttraj-langsmith"


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    add_options(parser, pluginmanager)  # --trajectory-langsmith, trajectory_langsmith


@pytest.hookimpl(trylast=True)
def pytest_load_initial_conftests(parser: pytest.Parser) -> None:
    # --langsmith-output is langsmith's flag too: register it only once every plugin is loaded,
    # so that whichever loads first, neither clashes nor warns.
    add_output_option(parser)


@pytest.hookimpl(trylast=True)  # after the main plugin
def pytest_configure(config: pytest.Config) -> None:
    sink = LangSmithSink(config)
    config.stash[_SINK] = sink
    config.pluginmanager.register(sink, PLUGIN_NAME)


def pytest_unconfigure(config: pytest.Config) -> None:
    sink = config.stash.get(_SINK, None)
    if sink is not None:
        config.pluginmanager.unregister(sink)
        del config.stash[_SINK]
