"""Merge the JSON reports of a sharded run (a CI matrix, pytest-split, xdist across hosts) into
one report that reads exactly as if one run had made it: the records of every shard, the summary
and statistics computed again over all of them.

A shard records itself in its report with ``--trajectory-shard=I/N``. Merging refuses, naming the
files: a report that is not a complete trajectory report, shards that disagree on N, a shard
given twice or missing, and a result (test, evaluator, occurrence) present in two reports, which
means the shards overlapped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import BaselineError
from ..plugin.results import TrajectoryResults
from .baseline import identity
from .baseline_file import load_baseline

__all__ = ["MergeError", "load_shard", "merge_reports"]


class MergeError(ValueError):
    """Reports that cannot be merged, with the file(s) and the reason."""


def load_shard(path: Path) -> dict[str, Any]:
    """A report read and checked as a baseline is (complete, well formed)."""
    try:
        return load_baseline(path)
    except BaselineError as error:
        text = str(error)
        raise MergeError(text.replace("baseline ", "report ", 1)) from None


def _check_shards(named: Sequence[tuple[str, Mapping[str, Any]]]) -> None:
    shards = [(name, doc.get("shard")) for name, doc in named]
    marked = [(name, shard) for name, shard in shards if isinstance(shard, Mapping)]
    if not marked:
        return
    unmarked = [name for name, shard in shards if not isinstance(shard, Mapping)]
    if unmarked:
        raise MergeError(
            f"{', '.join(unmarked)} record no shard, while {marked[0][0]} does: run every shard "
            "with --trajectory-shard=I/N"
        )
    totals = {int(shard["total"]) for _, shard in marked}
    if len(totals) > 1:
        listed = ", ".join(f"{name} ({s['index']}/{s['total']})" for name, s in marked)
        raise MergeError(f"shards disagree on their number: {listed}")
    total = totals.pop()
    seen: dict[int, str] = {}
    for name, shard in marked:
        index = int(shard["index"])
        if index in seen:
            raise MergeError(f"shard {index}/{total} given twice: {seen[index]} and {name}")
        seen[index] = name
    missing = [str(i) for i in range(1, total + 1) if i not in seen]
    if missing:
        raise MergeError(
            f"shard{'s' if len(missing) > 1 else ''} {', '.join(missing)} of {total} missing: "
            f"only {', '.join(f'{seen[i]} ({i}/{total})' for i in sorted(seen))} given"
        )


def merge_reports(named: Sequence[tuple[str, Mapping[str, Any]]]) -> dict[str, Any]:
    """One report from ``(name, loaded report)`` pairs, refusing what ``MergeError`` says."""
    if not named:
        raise MergeError("no reports to merge")
    _check_shards(named)
    owner: dict[tuple[str, str, int], str] = {}
    results = TrajectoryResults()
    for name, document in named:
        for record in document.get("results", []):
            key = identity(record)
            if key in owner:
                raise MergeError(
                    f"result {key[0]} {key[1]} [{key[2]}] is in both {owner[key]} and {name}: "
                    "the shards overlap (or one report was given twice)"
                )
            owner[key] = name
            results.add(record)
    settings: list[Mapping[str, Any]] = [
        doc["settings"] for _, doc in named if isinstance(doc.get("settings"), Mapping)
    ]
    merged = results.to_json(settings=settings[0] if settings else None)
    merged["complete"] = True
    merged["merged_from"] = [name for name, _ in named]
    if any(dict(s) != dict(settings[0]) for s in settings[1:]):
        merged["settings_differ"] = True
    return merged
