"""One comparison of two trajectory inputs, whatever their form: the fast path where it proves a
match, else normalisation and the general matcher."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from . import fastpath
from .matching import MatchReport, match_trajectories
from .matching.rules import MatchConfig
from .normalize import Memo, to_trajectory

__all__ = ["collector_paused", "compare_trajectories"]


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector for the block.

    Matching builds many small acyclic objects that reference counting frees; pausing the cyclic
    collector meanwhile saves it from scanning them again and again on long inputs. Callers keep
    it paused until the report is dropped: re-enabling it while the report is alive makes the
    next allocation scan all of it once more.
    """
    paused = gc.isenabled()
    if paused:
        gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()


def compare_trajectories(outputs: Any, reference_outputs: Any, config: MatchConfig) -> MatchReport:
    """Compare ``outputs`` with ``reference_outputs`` (any accepted input forms) under ``config``.

    Raises ``TrajectoryFormatError`` naming the side, message and field of input that is not a
    trajectory.
    """
    __tracebackhide__ = True
    with collector_paused():
        report = fastpath.verdict(outputs, reference_outputs, config)
        if report is not None:
            return report
        memo: Memo = {}
        return match_trajectories(
            to_trajectory(outputs, side="outputs", memo=memo),
            to_trajectory(reference_outputs, side="reference_outputs", memo=memo),
            config,
        )
