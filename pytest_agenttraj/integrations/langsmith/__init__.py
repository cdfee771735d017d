"""LangSmith logging, as a pytest plugin the main plugin registers (``PLUGINS``): options,
the sink's registration and nothing else. langsmith itself is imported only once logging is on
and a test is tracked (:mod:`.link`)."""

from __future__ import annotations

from collections.abc import Generator

import pytest

from ...plugin.registration import HookHolder, module_dir
from .options import add_options, add_output_option
from .output import check_output_option, langsmith_output, live_table, status
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
    check_output_option(config)
    sink = LangSmithSink(config)
    config.stash[_SINK] = sink
    config.pluginmanager.register(sink, PLUGIN_NAME)
    if langsmith_output(config):  # only then does langsmith's plugin blank the statuses
        config.pluginmanager.register(LiveStatus(), _STATUS_NAME)


class LiveStatus(HookHolder):
    """Under langsmith's live table, a test's status keeps its category (see :mod:`.output`);
    registered only when ``--langsmith-output`` runs langsmith's plugin."""

    @pytest.hookimpl(wrapper=True)
    def pytest_report_teststatus(
        self, report: pytest.TestReport, config: pytest.Config
    ) -> Generator[None, tuple[str, str, str], tuple[str, str, str]]:
        reported = yield
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
