"""The pytest entry point (``pytest11: agenttraj``): options, ini keys, hooks and wiring only.

pytest imports this module in every run of every project that has the package installed, so it
imports nothing heavy: langchain-core, langsmith, langgraph and yaml load only where used. The
fixtures, CI gating and LangSmith logging are plugins of their own, registered with this one
(:data:`PLUGINS`); the run's state lives in objects registered at configure time and kept in
``config.stash``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..core.matching.modes import TOOL_ARGS_MATCH_MODES, TRAJECTORY_MATCH_MODES
from .cassette_store import (
    FOLDER as CASSETTE_FOLDER,
    STORE_NAME,
    CassetteLedger,
    add_cassette_options,
    record_mode,
    redactions,
)
from .collection import COLLECTION_KEY, Collection, Namer
from .judges import add_judge_options, judge_cache_mode, judge_timeout_for
from .reference_store import (
    FOLDER as REFERENCE_FOLDER,
    MARKER as REFERENCE_MARKER,
    LedgerOwner,
    worker_ledger,
)
from .registration import module_dir
from .session import SESSION_KEY, TrajectorySession
from .settings import CONFIDENCE_INI, MARKERS, SUMMARY_INI, session_settings, summary_setting
from .simulation import add_simulation_options, check_simulation_options

if TYPE_CHECKING:  # loaded by a run that writes a report
    from .report_file import ReportFile

__all__ = ["SESSION_KEY"]

# Registered by ``pytest_addhooks`` rather than named in ``pytest_plugins``: pytest looks each
# ``pytest_plugins`` entry up among every installed distribution's entry points first, a scan
# that costs several milliseconds per name in every run.
PLUGINS = (
    "pytest_agenttraj.plugin.fixtures",
    "pytest_agenttraj.plugin.graded_fixtures",
    "pytest_agenttraj.gating",
    "pytest_agenttraj.integrations.langsmith",
    "pytest_agenttraj.integrations.replay",
    "pytest_agenttraj.integrations.traces.fixture",
)

_REPORT_KEY: pytest.StashKey[ReportFile] = pytest.StashKey()
_LEDGER_KEY: pytest.StashKey[LedgerOwner] = pytest.StashKey()
_CASSETTE_LEDGER_KEY: pytest.StashKey[CassetteLedger] = pytest.StashKey()
_REFERENCES_NAME = "agenttraj-references"

FOLDERS = {REFERENCE_FOLDER: REFERENCE_MARKER, CASSETTE_FOLDER: ""}
"""Each kind of file tests keep in a folder beside them, with the marker whose arguments may
name one elsewhere (cassettes have none): what the collection looks for in every run, before
loading the kinds themselves (:mod:`.unused_references`, :mod:`.unused_cassettes`)."""


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("agenttraj", "agent trajectories (pytest-agenttraj)")
    group.addoption(
        "--trajectory-mode",
        dest="trajectory_mode",
        default=None,
        metavar="MODE",
        help=f"default trajectory match mode: {', '.join(TRAJECTORY_MATCH_MODES)} "
        "(a test's trajectory marker still wins; default: strict)",
    )
    group.addoption(
        "--tool-args-mode",
        dest="trajectory_tool_args_mode",
        default=None,
        metavar="MODE",
        help=f"default tool-args match mode: {', '.join(TOOL_ARGS_MATCH_MODES)} (default: exact)",
    )
    group.addoption(
        "--trajectory-ignore-keys",
        dest="trajectory_ignore_keys",
        default=None,
        metavar="PATHS",
        help="comma-separated dotted key paths left out of every tool's args when comparing "
        "(e.g. request_id,meta.ts; a test's trajectory marker still wins)",
    )
    group.addoption(
        "--trajectory-report",
        dest="trajectory_report",
        default=None,
        metavar="PATH",
        help="write every trajectory evaluation of the run to PATH as JSON",
    )
    group.addoption(
        "--trajectory-html",
        dest="trajectory_html",
        default=None,
        metavar="PATH",
        help="write one self-contained HTML page of every trajectory evaluation of the run "
        "(diffs, graph paths, scores, repeats, the baseline's regressions) to PATH",
    )
    group.addoption(
        "--trajectory-shard",
        dest="trajectory_shard",
        default=None,
        metavar="I/N",
        help="this run is shard I of N: the --trajectory-report records it, so that "
        "`python -m pytest_agenttraj report merge` can tell a missing or repeated shard",
    )
    group.addoption(
        "--trajectory-update",
        dest="trajectory_update",
        action="store_true",
        default=False,
        help="write each reference file that is missing or no longer matches from the agent's "
        "current trajectory, instead of failing",
    )
    group.addoption(
        "--trajectory-prune-unused",
        dest="trajectory_prune_unused",
        action="store_true",
        default=False,
        help="delete the reference files in trajectories/ folders (and the cassettes in "
        "cassettes/ folders) that no test file under the "
        "rootdir names; only a run that collected every test file there and ran every test "
        "deletes anything, any other says why it deleted nothing",
    )
    group.addoption(
        "--trajectory-confidence",
        dest="trajectory_confidence",
        default=None,
        metavar="LEVEL",
        help="confidence level (0..1) of pass-rate intervals and lower: pass rules (default 0.95)",
    )
    group.addoption(
        "--trajectory-stats",
        dest="trajectory_stats",
        action="store_true",
        default=False,
        help="run every attempt of a repeated test (no early stop), so that its pass rate, "
        "interval, pass^k and pass@k use all of them",
    )
    add_judge_options(parser, group)
    add_simulation_options(parser, group)
    add_cassette_options(parser, group)
    parser.addini(
        "trajectory_mode", "default trajectory match mode (see --trajectory-mode)", default=""
    )
    parser.addini(
        "trajectory_tool_args_mode",
        "default tool-args match mode (see --tool-args-mode)",
        default="",
    )
    parser.addini(
        SUMMARY_INI,
        "print the trajectory results and repeats in the terminal summary (default true; "
        "false leaves them to the report, the gates and LangSmith)",
        type="bool",
        default=True,
    )
    parser.addini(
        CONFIDENCE_INI,
        "confidence level of pass-rate intervals and lower: pass rules (see "
        "--trajectory-confidence)",
        default="",
    )
    parser.addini(
        "trajectory_ignore_keys",
        "dotted key paths left out of every tool's args when comparing, one per line "
        "(see --trajectory-ignore-keys)",
        type="linelist",
        default=[],
    )


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    import importlib

    from . import hookspecs

    pluginmanager.add_hookspecs(hookspecs)
    for name in PLUGINS:
        if not (pluginmanager.is_blocked(name) or pluginmanager.has_plugin(name)):
            pluginmanager.register(importlib.import_module(name), name)


def pytest_configure(config: pytest.Config) -> None:
    for line in MARKERS:
        config.addinivalue_line("markers", line)
    session = TrajectorySession(config, session_settings(config))
    check_simulation_options(config)
    judge_cache_mode(config)  # a bad mode is a usage error before any test runs
    session.judge_timeout = judge_timeout_for(config)
    session.show_summary = summary_setting(config)
    config.stash[SESSION_KEY] = session
    config.pluginmanager.register(session, "agenttraj-session")
    session.start()
    mode = record_mode(config)
    redactions(config)  # a bad pattern is a usage error before any test runs
    prune = bool(config.getoption("trajectory_prune_unused", default=False))
    collection = Collection(
        config,
        FOLDERS,
        lambda: _namers(config.rootpath),
        track=prune,
        watched=lambda: _judge_files(config),
    )
    config.stash[COLLECTION_KEY] = collection
    config.pluginmanager.register(collection, "agenttraj-collection")
    if session.is_worker:
        worker_ledger(config)
        return
    if config.getoption("trajectory_update", default=False):
        owner = LedgerOwner(config)
        config.stash[_LEDGER_KEY] = owner
        config.pluginmanager.register(owner, "agenttraj-update-ledger")
    if mode != "none":
        ledger = CassetteLedger(config)
        config.stash[_CASSETTE_LEDGER_KEY] = ledger
        config.pluginmanager.register(ledger, "agenttraj-cassette-ledger")
    if prune or mode != "none" or config.getoption("trajectory_update", default=False):
        _judge_files(config)  # what they write or delete is listed whatever the folders
    report_path = config.getoption("trajectory_report", default=None)
    if report_path:
        from .report_file import ReportFile, parse_shard

        shard = config.getoption("trajectory_shard", default=None)
        report = ReportFile(
            Path(config.invocation_params.dir, report_path),
            session,
            None if shard is None else parse_shard(shard),
        )
        config.stash[_REPORT_KEY] = report
        config.pluginmanager.register(report, "agenttraj-report")


def _namers(root: Path) -> dict[str, Namer]:
    """The namers of the kinds in ``FOLDERS`` (loaded once a test may name a file)."""
    from .unused_cassettes import CASSETTES
    from .unused_files import namer
    from .unused_references import REFERENCES

    return {kind.folder: namer(kind, root) for kind in (REFERENCES, CASSETTES)}


def _judge_files(config: pytest.Config) -> None:
    """On the controller, register what lists (and prunes) the unused reference files and
    cassettes at the end of the run, once: with the collection's first sight of a kind's
    folder, or at configure in a run that prunes, records or updates."""
    from .unused_cassettes import cassette_store

    cassette_store(config)
    if config.pluginmanager.get_plugin(_REFERENCES_NAME) is None:
        from .unused_references import UnusedReferences

        prune = bool(config.getoption("trajectory_prune_unused", default=False))
        unused = UnusedReferences(
            config, prune, config.stash[SESSION_KEY], config.stash[COLLECTION_KEY]
        )
        config.pluginmanager.register(unused, _REFERENCES_NAME)


def pytest_unconfigure(config: pytest.Config) -> None:
    owner = config.stash.get(_LEDGER_KEY, None)
    if owner is not None:
        owner.close()
    cassette_ledger = config.stash.get(_CASSETTE_LEDGER_KEY, None)
    if cassette_ledger is not None:
        cassette_ledger.close()
    session = config.stash.get(SESSION_KEY, None)
    if session is not None:
        session.close()
    collection = config.stash.get(COLLECTION_KEY, None)
    if collection is not None:
        collection.close()
    for name in (STORE_NAME, _REFERENCES_NAME):  # registered when first needed
        judge = config.pluginmanager.get_plugin(name)
        if judge is not None:
            config.pluginmanager.unregister(judge)
    keys: tuple[pytest.StashKey[Any], ...] = (
        _LEDGER_KEY,
        _CASSETTE_LEDGER_KEY,
        _REPORT_KEY,
        COLLECTION_KEY,
        SESSION_KEY,
    )
    for key in keys:
        registered = config.stash.get(key, None)
        if registered is not None:
            config.pluginmanager.unregister(registered)
            del config.stash[key]


__dir__ = module_dir(globals())  # see .registration
