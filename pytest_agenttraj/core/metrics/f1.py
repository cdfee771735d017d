"""Tool-call F1: precision and recall of the output's calls against the reference's, counted as
multisets. A true positive is an output call paired one-to-one with a reference call of the same
name whose arguments match under the args rules, by maximum bipartite matching (so repeated
calls count as often as they occur, and a match is found whenever one exists)."""

from __future__ import annotations

from typing import Any, Literal

from ..matching.calls import pair_calls
from ..matching.explain import EXPLAINED
from ..matching.report import CallRef
from ..matching.rules import MatchConfig
from ..normalize import Memo
from .args import arg_accuracy
from .calls import GradedCall, nesting_refused, read_calls
from .report import F1Report, Unpaired

__all__ = ["tool_call_f1"]

_CLOSEST_SCAN_LIMIT = 200


def _ref(call: GradedCall) -> CallRef:
    # The pairing reads only ``call``; ``message`` carries the call's index to map it back.
    return CallRef(call.position, 0, call.call)


def tool_call_f1(outputs: Any, reference: Any, config: MatchConfig) -> F1Report:
    """Score ``outputs`` against ``reference`` (a list of calls or a trajectory, either side)."""
    memo: Memo = {}
    outs = read_calls(outputs, side="outputs", memo=memo)
    refs = read_calls(reference, side="reference_outputs", memo=memo)
    with nesting_refused(outs, refs):
        return _scored(outs, refs, config)


def _scored(outs: list[GradedCall], refs: list[GradedCall], config: MatchConfig) -> F1Report:
    pairs, lone_out, lone_ref = pair_calls([_ref(c) for c in outs], [_ref(c) for c in refs], config)
    matched = tuple((outs[o.message], refs[r.message]) for o, r in pairs)
    free_out = [outs[o.message] for o in lone_out]
    free_ref = [refs[r.message] for r in lone_ref]
    explain = _Explainer(config)
    paired_out, paired_ref = _ByName([o for o, _ in matched]), _ByName([r for _, r in matched])
    # one index per side, made when first asked: one per unpaired call made F1 quadratic in them
    free_out_by_name, free_ref_by_name = _ByName(free_out), _ByName(free_ref)
    missing = tuple(
        explain(c, free_out, free_out_by_name, paired_out, "reference") for c in free_ref
    )
    extra = tuple(explain(c, free_ref, free_ref_by_name, paired_ref, "output") for c in free_out)
    return F1Report(config, matched, missing, extra)


class _ByName:
    """One side's calls by tool name, sorted out when first asked."""

    __slots__ = ("_calls", "_first")

    def __init__(self, calls: list[GradedCall]) -> None:
        self._calls = calls
        self._first: dict[str, GradedCall] | None = None

    def first(self, name: str) -> GradedCall | None:
        if self._first is None:
            self._first = {}
            for call in self._calls:
                self._first.setdefault(call.call.name, call)
        return self._first.get(name)

    @property
    def calls(self) -> list[GradedCall]:
        return self._calls


class _Explainer:
    """Unpaired calls with their closest counterparts, the work bounded as for trajectory
    matching: the first ``EXPLAINED`` compare arguments with up to ``_CLOSEST_SCAN_LIMIT``
    candidates; later ones stand beside the first same-named call, nothing compared."""

    def __init__(self, config: MatchConfig) -> None:
        self.config = config
        self.explained = 0

    def __call__(
        self,
        lone: GradedCall,
        free: list[GradedCall],
        free_by_name: _ByName,
        taken: _ByName,
        side: Literal["output", "reference"],
    ) -> Unpaired:
        if self.explained < EXPLAINED:
            self.explained += 1
            return _explain(lone, free, taken.calls, self.config, side)
        name = lone.call.name
        for candidates, paired in ((free_by_name, False), (taken, True)):
            closest = candidates.first(name)
            if closest is not None:
                return Unpaired(lone, closest, (), paired, compared=False)
        return Unpaired(lone, None)


def _explain(
    lone: GradedCall,
    free: list[GradedCall],
    taken: list[GradedCall],
    config: MatchConfig,
    side: Literal["output", "reference"],
) -> Unpaired:
    """``lone`` with its closest same-named call on the other side: an unpaired one if any,
    else one already paired."""
    for candidates, paired in ((free, False), (taken, True)):
        closest = _closest(lone, candidates, config, side)
        if closest is not None:
            return Unpaired(lone, closest[0], closest[1], paired)
    return Unpaired(lone, None)


def _closest(
    lone: GradedCall,
    candidates: list[GradedCall],
    config: MatchConfig,
    side: Literal["output", "reference"],
) -> tuple[GradedCall, tuple[str, ...]] | None:
    rule = config.rule_for(lone.call.name)
    best: tuple[float, GradedCall, tuple[str, ...]] | None = None
    same = (c for c in candidates if c.call.name == lone.call.name)
    for count, candidate in enumerate(same):
        if count >= _CLOSEST_SCAN_LIMIT:
            break
        out, ref = (lone, candidate) if side == "output" else (candidate, lone)
        graded = arg_accuracy(rule, out.call.args, ref.call.args)
        if best is None or graded.score > best[0]:
            best = (graded.score, candidate, graded.differing)
    return None if best is None else (best[1], best[2])
