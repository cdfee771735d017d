"""LangSmith logging, as a pytest plugin the main plugin registers (``PLUGINS``): options,
the sink's registration and nothing else. The sink (:mod:`.sink`) is made at configure when
logging is switched on; otherwise only once a test is marked ``@pytest.mark.langsmith`` (its
results go into langsmith's own test case) or a pytest-xdist worker sends its counts, since
nothing else of a run concerns it. langsmith itself is imported only once logging is on and a
test is tracked (:mod:`.link`)."""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING, Any

import pytest

from ...plugin.collection import MarkerNames
from ...plugin.registration import HookHolder, module_dir
from .options import (
    LANGSMITH_PLUGINS,
    WORKER_KEY,
    add_options,
    add_output_option,
    langsmith_output,
    switch,
    tracking_disabled,
)

if TYPE_CHECKING:  # loaded with the sink
    from .sink import LangSmithSink

__all__: list[str] = []

_SINK: pytest.StashKey[LangSmithSink] = pytest.StashKey()
PLUGIN_NAME = "agenttraj-langsmith"
_STATUS_NAME = "agenttraj-langsmith-status"


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    add_options(parser, pluginmanager)  # --trajectory-langsmith, trajectory_langsmith


@pytest.hookimpl(trylast=True)
def pytest_load_initial_conftests(parser: pytest.Parser) -> None:
    # --langsmith-output is langsmith's flag too: register it only once every plugin is loaded,
    # so that whichever loads first, neither clashes nor warns.
    add_output_option(parser)


@pytest.hookimpl(tryfirst=True)  # before langsmith's plugin refuses with a traceback
def pytest_configure(config: pytest.Config) -> None:
    if langsmith_output(config):
        from .output import check_output_option

        check_output_option(config)
    if switch(config) is not None:  # a bad ini value is a usage error in every run
        _sink(config)
    if langsmith_output(config):  # only then does langsmith's plugin blank the statuses
        config.pluginmanager.register(LiveStatus(), _STATUS_NAME)


def _sink(config: pytest.Config) -> LangSmithSink:
    """The run's sink, made and registered when first needed."""
    sink = config.stash.get(_SINK, None)
    if sink is None:
        from .sink import LangSmithSink

        sink = config.stash[_SINK] = LangSmithSink(config)
        config.pluginmanager.register(sink, PLUGIN_NAME)
    return sink


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Without the switch, a test marked ``langsmith`` (langsmith's plugin running it) is the
    only one the sink has to do with: made then, it takes the collection as it would have."""
    if config.stash.get(_SINK, None) is not None or tracking_disabled():
        return  # the sink's own hook runs
    pm = config.pluginmanager
    if not any(pm.get_plugin(name) is not None for name in LANGSMITH_PLUGINS):
        return
    if MarkerNames().any_carries(items, "langsmith"):
        _sink(config).pytest_collection_modifyitems(items)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any) -> None:
    """A pytest-xdist worker whose sink counted something: the controller adds it up."""
    config = node.config
    if config.stash.get(_SINK, None) is None and WORKER_KEY in getattr(node, "workeroutput", {}):
        _sink(config).pytest_testnodedown(node)


class LiveStatus(HookHolder):
    """Under langsmith's live table, a test's status keeps its category (see :mod:`.output`);
    registered only when ``--langsmith-output`` runs langsmith's plugin."""

    @pytest.hookimpl(wrapper=True)
    def pytest_report_teststatus(
        self, report: pytest.TestReport, config: pytest.Config
    ) -> Generator[None, tuple[str, str, str], tuple[str, str, str]]:
        reported = yield
        from .output import live_table, status  # loaded with langsmith's live table

        if reported == ("", "", "") and live_table(config) is not None:
            return status(report)
        return reported


def pytest_unconfigure(config: pytest.Config) -> None:
    live = config.pluginmanager.get_plugin(_STATUS_NAME)
    if live is not None:
        config.pluginmanager.unregister(live)
    sink = config.stash.get(_SINK, None)
    if sink is not None:
        sink.close()
        config.pluginmanager.unregister(sink)
        del config.stash[_SINK]


__dir__ = module_dir(globals())  # see .registration
