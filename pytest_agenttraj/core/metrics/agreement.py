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
        self._fewest = min((len(args) for args in columns), default=0)  # the fewest keys of one
        self._held: _Held | None = None

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
        return self._over_keys(args, max(agreeing.values(), default=0))

    def within(self, row: int, limit: float) -> bool:
        """Whether the row's score against every column is at most ``limit``. A column agrees
        with the row only on items some column holds, so their number bounds every score; the
        exact count per column (whose cost grows with the columns sharing a common value) is
        left for the rows that bound does not settle."""
        if not self._usable:
            return limit >= 1.0
        if self._held is None:
            self._held = _Held(self.columns)
        args = self.rows[row]
        held = self._held.count(args)
        if held is not None and self._over_keys(args, held) <= limit:
            return True
        return self.best(row) <= limit

    def _over_keys(self, args: Args, agreeing: int) -> float:
        """``agreeing`` items over the fewest keys a pair with the row ``args`` is scored by."""
        fewest = self._fewest
        side = _COUNTED[self.rule.kind]
        if side == "both":
            keys = max(len(args), fewest)
        elif (side == "reference") == self.rows_are_references:
            keys = len(args)
        else:
            keys = fewest
        return min(1.0, agreeing / keys) if keys else 1.0

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


_SCALARS = (str, int, float, bool, type(None))


class _Held:
    """Which of a row's items some column may agree with, from the columns' scalar items alone
    (a scalar equals no container, and a container of the row is taken to agree): cheaper to
    build than the full index, whose containers are made hashable."""

    __slots__ = ("items", "usable")

    def __init__(self, columns: Sequence[Args]) -> None:
        self.items: set[Item] = set()
        self.usable = True
        for args in columns:
            for key, value in args.items():
                if type(key) is not str:
                    self.usable = False
                    return
                if type(value) in _SCALARS:
                    self.items.add((key, canonical(value)))
                elif holds_matcher(value):
                    self.usable = False
                    return

    def count(self, args: Args) -> int | None:
        """How many of ``args``' items some column may agree with (``None``: not known)."""
        if not self.usable:
            return None
        held = 0
        for key, value in args.items():
            if type(key) is not str:
                return None
            if type(value) not in _SCALARS:
                if holds_matcher(value):
                    return None
                held += 1
            elif (key, canonical(value)) in self.items:
                held += 1
        return held
