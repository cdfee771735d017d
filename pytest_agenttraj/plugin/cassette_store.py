"""Cassettes in the plugin: the record mode (``--trajectory-record``, ini ``trajectory_record``),
the redactions applied to recorded content (ini ``trajectory_record_redact``), where a test's
cassette lives (``cassettes/<test name>.yaml`` beside the test file, never outside the project
root), and the run's ledger that lets each cassette be written by one test only; the cassettes
``--trajectory-prune-unused`` judges are :mod:`.unused_cassettes`'. Nothing here imports
langchain-core: the interception is :mod:`pytest_agenttraj.integrations.replay`."""

from __future__ import annotations

import hashlib
import re
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from .collection import carries
from .reference_store import default_name
from .registration import HookHolder

if TYPE_CHECKING:  # loaded where cassettes are recorded: a plain run needs none
    from ..references.ledger import UpdateLedger

__all__ = [
    "CASSETTE_FIXTURE",
    "FOLDER",
    "RECORD_MODES",
    "SENT_KEY",
    "STORE_NAME",
    "CassetteLedger",
    "add_cassette_options",
    "cassette_name",
    "cassette_path",
    "ledger_of",
    "record_command",
    "record_mode",
    "redactions",
    "uses_cassette",
]

FOLDER = "cassettes"
CASSETTE_FIXTURE = "agent_cassette"
RECORD_MODES = ("none", "new", "all")
_OPTION = "--trajectory-record"
_INI = "trajectory_record"
_REDACT_INI = "trajectory_record_redact"
_WORKER_KEY = "agenttraj_cassette_ledger"
_LEDGER: pytest.StashKey[UpdateLedger] = pytest.StashKey()
SENT_KEY = "agenttraj_cassettes"
"""The key of a pytest-xdist worker's output that carries the cassettes it read and wrote."""
STORE_NAME = "agenttraj-cassettes"
"""The plugin name of the run's :class:`~.unused_cassettes.UnusedCassettes`, once made."""
_MAX_NAME = 150


def add_cassette_options(parser: pytest.Parser, group: pytest.OptionGroup) -> None:
    group.addoption(
        _OPTION,
        dest="trajectory_record",
        default=None,
        metavar="MODE",
        help="chat-model calls of tests using agent_cassette: none (replay only, the default), "
        "new (record the calls a cassette lacks), all (record every call again)",
    )
    parser.addini(_INI, f"record mode of agent cassettes (see {_OPTION})", default="")
    parser.addini(
        _REDACT_INI,
        "regular expressions, one per line, whose matches in recorded content (messages, "
        "tool arguments, answers) are written as [REDACTED]",
        type="linelist",
        default=[],
    )


def record_mode(config: pytest.Config) -> str:
    """The run's record mode: the option, else the ini key, else ``none``."""
    value = config.getoption("trajectory_record", default=None)
    where = _OPTION
    if value is None:
        value, where = str(config.getini(_INI)).strip() or "none", f"ini {_INI}"
    if value not in RECORD_MODES:
        raise pytest.UsageError(
            f"invalid {where} value {value!r}: use one of {', '.join(RECORD_MODES)}"
        )
    return str(value)


def redactions(config: pytest.Config) -> tuple[re.Pattern[str], ...]:
    """The ``trajectory_record_redact`` patterns, compiled (a bad one is a usage error)."""
    patterns = []
    for number, line in enumerate(config.getini(_REDACT_INI), 1):
        if not line.strip():
            continue
        try:
            patterns.append(re.compile(line.strip()))
        except re.error as error:
            raise pytest.UsageError(
                f"invalid {_REDACT_INI} line {number} ({line.strip()!r}): {error}"
            ) from None
    return tuple(patterns)


def uses_cassette(item: pytest.Item) -> bool:
    """Whether ``item`` requests the cassette fixture or carries its marker."""
    return CASSETTE_FIXTURE in getattr(item, "fixturenames", ()) or carries(item, CASSETTE_FIXTURE)


def cassette_name(item: pytest.Item) -> str:
    """``<test name>.yaml``, the test's parameters made safe for a file name (a name too long
    for a file system is cut and given a hash of the whole)."""
    name = default_name(item)
    if len(name) <= _MAX_NAME:
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:12]
    return f"{name[: _MAX_NAME - 18]}-{digest}.yaml"


def cassette_path(item: pytest.Item) -> Path:
    """Where the test's cassette is: in ``cassettes/`` beside the test file."""
    return item.path.parent / FOLDER / cassette_name(item)


def record_command(item: pytest.Item, mode: str = "all") -> str:
    """The command that records ``item``'s cassette."""
    return f"pytest --trajectory-record={mode} '{item.nodeid}'"


class CassetteLedger(HookHolder):
    """Registered on the controller of a run that records: a folder where each cassette the run
    writes is claimed by one test, shared with pytest-xdist workers."""

    def __init__(self, config: pytest.Config) -> None:
        from ..references.ledger import UpdateLedger

        self.folder = Path(tempfile.mkdtemp(prefix="agenttraj-cassettes-"))
        config.stash[_LEDGER] = UpdateLedger(self.folder)

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        node.workerinput[_WORKER_KEY] = str(self.folder)

    def close(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


def ledger_of(config: pytest.Config) -> UpdateLedger | None:
    """The run's cassette ledger (a worker's is its controller's), ``None`` when not recording."""
    ledger = config.stash.get(_LEDGER, None)
    if ledger is None:
        folder = getattr(config, "workerinput", {}).get(_WORKER_KEY)
        if folder:
            from ..references.ledger import UpdateLedger

            ledger = config.stash[_LEDGER] = UpdateLedger(Path(folder))
    return ledger
