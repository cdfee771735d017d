"""``python -m pytest_agenttraj report html REPORT.json -o OUT.html``: the page
``--trajectory-html`` writes, from a report file (a merged one included)."""

from __future__ import annotations

import argparse
from pathlib import Path

from .._files import write_atomically
from ..errors import BaselineError

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("report", type=Path, help="a --trajectory-report JSON file")
    parser.add_argument(
        "-o",
        "--output",
        type=Path,
        default=None,
        help="where to write the page (default: the report's path with .html)",
    )
    parser.add_argument("--title", default=None, help="the page's title")


def run(args: argparse.Namespace) -> int:
    from ..gating.baseline_file import load_report
    from ..render.html import page

    document = load_report(args.report, role="report", allow_incomplete=True)
    output: Path = args.output or args.report.with_suffix(".html")
    title = args.title or f"Agent trajectories: {args.report.name}"
    try:
        write_atomically(output, page(document, title=title))
    except OSError as error:
        raise BaselineError(f"cannot write {output}: {error}") from None
    print(f"wrote {output} ({len(document['results'])} evaluations)")
    return 0
