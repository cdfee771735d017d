"""``report merge A.json B.json -o ALL.json``: one report from the shards of a run, written
atomically; optionally gated against a baseline as one run would be (``--baseline``), with the
GitHub step summary appended when ``$GITHUB_STEP_SUMMARY`` is set."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from .._files import write_atomically

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("reports", nargs="+", type=Path, help="the shards' report files")
    parser.add_argument("-o", "--output", required=True, type=Path, help="the merged report")
    parser.add_argument("--baseline", type=Path, help="compare the merged report with this one")
    parser.add_argument("--tolerance", type=float, default=0.0, help="as --trajectory-tolerance")
    parser.add_argument(
        "--significance", type=float, default=0.05, help="as --trajectory-significance"
    )


def run(args: argparse.Namespace) -> int:
    from ..gating.merge import MergeError, load_shard, merge_reports

    try:
        named = [(str(path), load_shard(path)) for path in args.reports]
        merged = merge_reports(named)
    except MergeError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    try:
        write_atomically(args.output, json.dumps(merged, indent=2, default=str) + "\n")
    except OSError as error:
        print(f"error: could not write {args.output}: {error}", file=sys.stderr)
        return 2
    summary = merged["summary"]
    print(
        f"merged {len(named)} reports into {args.output}: {summary['evaluations']} evaluations "
        f"in {summary['tests']} tests, {summary['passed']} passed, {summary['failed']} failed"
    )
    return _gate(args, merged)


def _gate(args: argparse.Namespace, merged: dict[str, object]) -> int:
    from ..gating.baseline import compare
    from ..gating.merge import MergeError, load_shard
    from ..gating.step_summary import step_summary_markdown
    from ..plugin.results import TrajectoryResults

    comparison = None
    if args.baseline is not None:
        try:
            baseline = load_shard(args.baseline)
        except MergeError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        comparison = compare(
            baseline,
            merged["results"],  # type: ignore[arg-type]
            tolerance=args.tolerance,
            alpha=args.significance,
        )
        for line in comparison.lines():
            print(line)
    summary_path = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary_path:
        results = TrajectoryResults(list(merged["results"]))  # type: ignore[call-overload]
        text = step_summary_markdown(
            results,
            comparison=comparison,
            baseline=None if args.baseline is None else str(args.baseline),
            tolerance=args.tolerance,
        )
        try:
            with Path(summary_path).open("a", encoding="utf-8") as stream:
                stream.write(text)
        except OSError as error:
            print(f"warning: could not append to $GITHUB_STEP_SUMMARY: {error}", file=sys.stderr)
    return 1 if comparison is not None and comparison.failed else 0
