"""The switches of LangSmith logging: ``--langsmith-output`` (shared with langsmith's own pytest
plugin), ``--trajectory-langsmith`` and the ini key ``trajectory_langsmith``; and the
``LANGSMITH_*`` / ``LANGCHAIN_*`` environment, read as langsmith reads it."""

from __future__ import annotations

import contextlib
import os

import pytest

__all__ = [
    "DEST",
    "FLAG",
    "INI",
    "LANGSMITH_PLUGINS",
    "OUTPUT_DEST",
    "OUTPUT_FLAG",
    "WORKER_KEY",
    "add_options",
    "add_output_option",
    "env",
    "langsmith_output",
    "switch",
    "tracking_disabled",
]

OUTPUT_FLAG = "--langsmith-output"
OUTPUT_DEST = "langsmith_output"
FLAG = "--trajectory-langsmith"
DEST = "trajectory_langsmith"
INI = "trajectory_langsmith"
_ENTRY_POINT = "langsmith_plugin"  # langsmith's own pytest plugin, as its entry point names it
LANGSMITH_PLUGINS = (_ENTRY_POINT, "langsmith.pytest_plugin")
WORKER_KEY = "agenttraj_langsmith"
"""Key in xdist's ``workerinput`` (the controller's probe) and ``workeroutput`` (worker stats)."""


def add_options(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    """``--trajectory-langsmith`` and ``trajectory_langsmith``; ``--langsmith-output`` too when
    langsmith's plugin is blocked, else later (``add_output_option``)."""
    parser.getgroup("agenttraj").addoption(
        FLAG,
        dest=DEST,
        action="store_true",
        default=None,
        help="log each trajectory result to LangSmith, keeping pytest's normal output, diffs "
        "and -n (like --langsmith-output without langsmith's output mode; see "
        "the README)",
    )
    parser.addini(
        INI,
        "log each trajectory result to LangSmith (see --trajectory-langsmith)",
        type="bool",
        default=False,
    )
    if any(pluginmanager.is_blocked(name) for name in LANGSMITH_PLUGINS):
        add_output_option(parser)


def add_output_option(parser: pytest.Parser) -> None:
    """Register ``--langsmith-output`` unless langsmith's plugin already did.

    Called once every installed plugin has been loaded (``pytest_load_initial_conftests``), so
    whichever loads first, langsmith's plugin registers the flag itself when it runs and this
    finds it; with ``-p no:langsmith_plugin`` this registers it. Same group, same destination,
    same meaning: a registration in another group would clash.
    """
    with contextlib.suppress(ValueError):  # already registered (by langsmith): nothing to add
        parser.getgroup("langsmith", "LangSmith").addoption(
            OUTPUT_FLAG,
            dest=OUTPUT_DEST,
            action="store_true",
            default=False,
            help="log results to LangSmith (pytest-agenttraj logs each trajectory result; "
            "langsmith's plugin, when loaded, also shows its live table, adds -qq -s and "
            "refuses -n)",
        )


def env(name: str) -> str | None:
    """``LANGSMITH_<name>``, else ``LANGCHAIN_<name>``, as langsmith reads them."""
    for prefix in ("LANGSMITH", "LANGCHAIN"):
        value = os.environ.get(f"{prefix}_{name}")
        if value is not None and value.strip():
            return value.strip()
    return None


def tracking_disabled() -> bool:
    return env("TEST_TRACKING") == "false"


def switch(config: pytest.Config) -> str | None:
    """Which option switched logging on, if any."""
    if config.getoption(OUTPUT_DEST, default=False):
        return OUTPUT_FLAG
    if config.getoption(DEST, default=None):
        return FLAG
    try:
        on = config.getini(INI)
    except (ValueError, pytest.UsageError) as error:  # pytest's message does not name the key
        raise pytest.UsageError(f"invalid {INI} ({error}): use true or false") from None
    return f"{INI} = true" if on else None


def langsmith_output(config: pytest.Config) -> bool:
    """Whether langsmith's own plugin runs ``--langsmith-output`` (its live table; see
    :mod:`.output`)."""
    return bool(config.getoption(OUTPUT_DEST, default=False)) and (
        config.pluginmanager.get_plugin(_ENTRY_POINT) is not None
    )
