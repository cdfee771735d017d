"""Argument accuracy of one call against many at once, by counting agreeing keys through an
index of ``(key, value)`` items (values by ``canonical``, the exact rule's equality): what a
maximum-weight assignment over mostly identical calls needs for the calls left over.

Argument accuracy is the share of the counted keys (both sides' under ``exact``, the
reference's under ``superset`` and ``ragas``, the output's under ``subset``) whose values match,
and 1 exactly when the rule matches, which for these rules is every counted key agreeing. So
counting agreements and shared keys through the index gives the same scores as comparing the
calls one pair at a time, at the cost of a few posting lists. Under ignored keys, value
matchers or other rules it gives up (``None``), and callers compare pair by pair.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

from ..matching.rules import ArgsRule
from ..values import canonical, holds_matcher

__all__ = ["Agreement"]

Args = Mapping[str, Any]
Item = tuple[str, Hashable]
_COUNTED = {"superset": "reference", "ragas": "reference", "subset": "output", "exact": "both"}


class Agreement:
    """Scores of ``rows`` (one side's calls of a tool) against ``columns`` (the other side's)
    under ``rule``; ``rows_are_references`` says which side the rows are."""

    def __init__(
        self,
        rule: ArgsRule,
        rows: Sequence[Args],
        columns: Sequence[Args],
        *,
        rows_are_references: bool,
    ) -> None:
        self.rule, self.rows, self.columns = rule, rows, columns
        self.rows_are_references = rows_are_references
        self._usable = rule.kind in _COUNTED and not rule.ignored
        self._items: dict[Item, list[int]] | None = None
        self._keys: dict[str, list[int]] = defaultdict(list)
        self._fewest = 0  # the fewest keys a column has

    def _index(self) -> dict[Item, list[int]] | None:
        if self._items is None and self._usable:
            items: dict[Item, list[int]] = defaultdict(list)
            for c, args in enumerate(self.columns):
                found = _items(args)
                if found is None:
                    self._usable = False
                    return None
                for item in found:
                    items[item].append(c)
                    self._keys[item[0]].append(c)
            self._items = items
            self._fewest = min((len(args) for args in self.columns), default=0)
        return self._items

    def _counts(
        self, row: int, shared_keys: bool
    ) -> tuple[Args, Counter[int], Counter[int]] | None:
        """The row's args, and per column the agreeing items and (if asked) the shared keys."""
        index = self._index()
        args = self.rows[row]
        found = _items(args) if index is not None else None
        if index is None or found is None:
            return None
        agreeing: Counter[int] = Counter()
        shared: Counter[int] = Counter()
        for item in found:
            agreeing.update(index.get(item, ()))
            if shared_keys:
                shared.update(self._keys.get(item[0], ()))
        return args, agreeing, shared

    def best(self, row: int) -> float:
        """At least the row's best score against any column (1 when it gives up): the most
        agreeing items over the fewest keys a pair of them is scored by."""
        counted = self._counts(row, shared_keys=False)
        if counted is None:
            return 1.0
        args, agreeing, _ = counted
        fewest = self._fewest
        side = _COUNTED[self.rule.kind]
        if side == "both":
            keys = max(len(args), fewest)
        elif (side == "reference") == self.rows_are_references:
            keys = len(args)
        else:
            keys = fewest
        return min(1.0, max(agreeing.values(), default=0) / keys) if keys else 1.0

    def weights(self, row: int) -> list[float] | None:
        """The row's score against each column, as ``arg_accuracy`` gives it, or ``None``."""
        counted = self._counts(row, shared_keys=True)
        if counted is None:
            return None
        args, agreeing, shared = counted
        mine = len(args)
        side = _COUNTED[self.rule.kind]
        ragas = self.rule.kind == "ragas"
        scores = []
        for c, theirs in enumerate(self.columns):
            if side == "both":
                keys = mine + len(theirs) - shared[c]
            elif (side == "reference") == self.rows_are_references:
                keys = mine
            else:
                keys = len(theirs)
            if keys:
                scores.append(agreeing[c] / keys)
            elif ragas:  # a reference without arguments matches only a call without
                scores.append(1.0 if not (theirs if self.rows_are_references else args) else 0.0)
            else:
                scores.append(1.0)
        return scores


def _items(args: Args) -> list[Item] | None:
    """The ``(key, canonical value)`` items of ``args``, or ``None`` when one cannot stand for
    its value's matches (a value holding a matcher, a key that is not text)."""
    items: list[Item] = []
    for key, value in args.items():
        if type(key) is not str or holds_matcher(value):
            return None
        items.append((key, canonical(value)))
    return items
