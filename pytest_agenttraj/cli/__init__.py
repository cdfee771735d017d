"""The package's commands, outside pytest: ``python -m pytest_agenttraj report <command>``
(also the ``pytest-agenttraj`` console script).

Each command is a module of this package with ``add_arguments(parser)`` and ``run(args)``
(returning the exit status); this module only dispatches. A bad input is a message on stderr
naming the file and the field, and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import Protocol, cast

__all__ = ["main"]

REPORT_COMMANDS = {
    "html": "draw a --trajectory-report file as one self-contained HTML page",
    "merge": "merge the --trajectory-report files of sharded runs into one",
}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m pytest_agenttraj",
        description="pytest-agenttraj's commands for trajectory reports.",
    )
    groups = parser.add_subparsers(dest="group", metavar="report", required=True)
    report = groups.add_parser("report", help="work with --trajectory-report files")
    commands = report.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, help_text in REPORT_COMMANDS.items():
        command = commands.add_parser(name, help=help_text, description=help_text)
        _module(name).add_arguments(command)
    return parser


class _Command(Protocol):
    def add_arguments(self, parser: argparse.ArgumentParser) -> None: ...

    def run(self, args: argparse.Namespace) -> int: ...


def _module(name: str) -> _Command:
    return cast("_Command", importlib.import_module(f".report_{name}", __name__))


def main(argv: Sequence[str] | None = None) -> int:
    """Run a command; its exit status (2 for bad input or usage)."""
    args = _parser().parse_args(argv)
    from ..errors import AgentTrajError

    try:
        return _module(args.command).run(args)
    except AgentTrajError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
