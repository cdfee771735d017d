"""langsmith's live results table (``--langsmith-output``), and keeping pytest's own reporting
beside it. langsmith's plugin adds ``-qq -s`` and blanks every test's status, which also takes
the failures, their diffs and the final counts off the terminal; when logging is off or LangSmith
cannot be reached, the table shows every test "running" and nothing else. So:

* a test's status keeps its category (failed, error, ...) with a blank letter, so the failures
  and the counts are printed after the table;
* when nothing will be logged (no API key, LangSmith unreachable), the table is stopped and
  pytest's normal reporting comes back;
* what langsmith's plugin would refuse with a traceback (no ``rich``, ``-n``,
  ``LANGSMITH_TEST_TRACKING=false``) is a usage error that says what to do.
"""

from __future__ import annotations

import importlib.util
from typing import Any

import pytest

from .options import langsmith_output, tracking_disabled

__all__ = [
    "LIVE_PLUGIN",
    "check_output_option",
    "hide_guessed_links",
    "live_table",
    "restore_reporting",
    "status",
]

LIVE_PLUGIN = "langsmith_output_plugin"


def check_output_option(config: pytest.Config) -> None:
    """A usage error for what langsmith's plugin would refuse with a traceback."""
    if not langsmith_output(config):
        return
    if importlib.util.find_spec("rich") is None:
        raise pytest.UsageError(
            "--langsmith-output needs langsmith's pytest extra (rich): pip install "
            "'langsmith[pytest]'. Or log with --trajectory-langsmith, which keeps pytest's "
            "own output and needs nothing more."
        )
    if config.getoption("numprocesses", default=None) or hasattr(config, "workerinput"):
        raise pytest.UsageError(
            "--langsmith-output does not run with pytest-xdist (langsmith's plugin refuses -n); "
            "--trajectory-langsmith logs the same results and works with -n"
        )
    if tracking_disabled():
        raise pytest.UsageError(
            "--langsmith-output does not run with LANGSMITH_TEST_TRACKING=false (langsmith's "
            "plugin refuses it): unset the variable, or drop --langsmith-output"
        )


def live_table(config: pytest.Config) -> Any:
    """langsmith's live table, while it is shown."""
    return config.pluginmanager.get_plugin(LIVE_PLUGIN)


def hide_guessed_links(config: pytest.Config, guessed: str | None) -> None:
    """Take the experiment links made from ``guessed`` (langsmith's guess of where the web app
    is, e.g. ``http://localhost`` for any local endpoint) out of langsmith's table: it shows
    ``--`` instead, as before it knows a link, never one that does not resolve."""
    urls = getattr(live_table(config), "test_suite_urls", None)
    if guessed is None or not isinstance(urls, dict):
        return
    for suite, url in list(urls.items()):
        if isinstance(url, str) and url.startswith(guessed):
            urls[suite] = "--"


def restore_reporting(config: pytest.Config) -> bool:
    """Stop langsmith's live table and give pytest its normal reporting back (the verbosity
    the user asked for, progress letters); ``True`` if there was a table to stop."""
    table = live_table(config)
    if table is None:
        return False
    live = getattr(table, "live", None)
    if live is not None:
        live.stop()
    config.pluginmanager.unregister(table)
    config.option.langsmith_output = False  # langsmith's status hook blanks no more
    if "-qq" not in config.invocation_params.args:  # langsmith's plugin added it
        config.option.verbose += 2
    return True


def status(report: pytest.TestReport) -> tuple[str, str, str]:
    """A test's status as pytest reports it, with a blank progress letter (the live table shows
    progress instead): the category keeps the failures and the counts in the summary."""
    if hasattr(report, "wasxfail"):
        category = "xfailed" if report.skipped else "xpassed"
    elif report.when in ("setup", "teardown"):
        category = "error" if report.failed else "skipped" if report.skipped else ""
    else:
        category = report.outcome
    return category, "", category.upper()
