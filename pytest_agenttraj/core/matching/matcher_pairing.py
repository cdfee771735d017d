"""Pairing one tool's calls when reference args hold value matchers (``Regex``, ``ANY`` ...).

A matcher is not a value that hashes alike when it matches, so those calls cannot pair by
hashing; the pairing is still maximum:

1. reference calls whose compared args hold no matcher pair by hashing first, as everywhere
   (equal keys are an equivalence, and an exchange argument shows that some maximum pairing
   contains those pairs: any output that matches an equal call matches the other too);
2. the rest go to the augmenting search (:func:`.bipartite.complete_matching`), whose
   candidates come from an index, never from trying every pair, and whose last word is the
   rule's ``matches``:

   * equality rules (exact, key lists): reference calls are grouped by *pattern*, the top-level
     keys whose values hold a matcher; within a pattern they are bucketed by everything else
     (the keys present and the matcher-free values), and an output call is looked up in each
     pattern's buckets by the same key of its own args;
   * inclusion rules (subset, superset): an index of the ``(key, value)`` items of matcher-free
     values, plus the keys that hold matchers, yields the calls that can contain (or be
     contained by) another.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Hashable, Iterable, Mapping
from typing import Any

from ..values import MISSING, canonical, holds_matcher, lookup_path, value_matches
from .bipartite import complete_matching
from .rules import ArgsRule

__all__ = ["pair_with_matchers", "sees_matchers"]

Args = Mapping[str, Any]

_HELD = object()
"""Stands for a value that holds a matcher in a bucket key (never equal to an output's value)."""


def _view(rule: ArgsRule, args: Args) -> Mapping[str, Any] | None:
    """What an equality rule compares, as a mapping: the args, or the values at a key list's
    paths (``None`` when one is missing: such a call matches nothing)."""
    if rule.kind != "keys":
        return args
    values = {path: lookup_path(args, path) for path in rule.keys}
    return None if any(v is MISSING for v in values.values()) else values


def sees_matchers(rule: ArgsRule, args: Args) -> bool:
    """Whether what ``rule`` compares of one reference call's (already compared) args holds a
    matcher."""
    if rule.kind in ("ignore", "callable"):
        return False
    if rule.kind == "keys":
        return any(holds_matcher(lookup_path(args, path)) for path in rule.keys)
    return holds_matcher(args)


def pair_with_matchers(
    out_args: list[Args],
    ref_args: list[Args],
    match_out: list[int],
    match_ref: list[int],
    rule: ArgsRule,
) -> None:
    """Grow the partial pairing (-1 = unpaired) of one tool's calls to a maximum one under
    ``rule`` (exact, key lists, subset or superset; args already without ignored paths)."""
    if rule.kind in ("subset", "superset"):
        _pair_inclusion(out_args, ref_args, match_out, match_ref, rule)
    else:
        _pair_equality(out_args, ref_args, match_out, match_ref, rule)


def _pattern_key(view: Mapping[str, Any], pattern: frozenset[str]) -> Hashable | None:
    """The bucket key of ``view`` under ``pattern``: every key present, matcher-free values as
    they are and the pattern's keys as placeholders (``None`` if one of them is absent)."""
    if not pattern:
        return canonical(view)
    if any(key not in view for key in pattern):
        return None
    return canonical({k: (_HELD if k in pattern else v) for k, v in view.items()})


Buckets = dict[frozenset[str], dict[Hashable, deque[int]]]


def _buckets(
    ref_views: list[Mapping[str, Any] | None], match_ref: list[int]
) -> tuple[Buckets, dict[int, frozenset[str]]]:
    """The unpaired reference calls by pattern, then by their key under it; and each one's
    pattern."""
    buckets: Buckets = defaultdict(lambda: defaultdict(deque))
    patterns: dict[int, frozenset[str]] = {}
    for j, view in enumerate(ref_views):
        if view is None or match_ref[j] != -1:
            continue
        pattern = frozenset(k for k, v in view.items() if holds_matcher(v))
        key = _pattern_key(view, pattern)
        if key is not None:
            buckets[pattern][key].append(j)
            patterns[j] = pattern
    return buckets, patterns


def _pair_equality(
    out_args: list[Args],
    ref_args: list[Args],
    match_out: list[int],
    match_ref: list[int],
    rule: ArgsRule,
) -> None:
    ref_views = [_view(rule, args) for args in ref_args]
    buckets, ref_patterns = _buckets(ref_views, match_ref)
    out_views = [_view(rule, args) for args in out_args]
    plain = buckets.pop(frozenset(), None)
    if plain:  # 1. matcher-free reference calls pair by hashing
        for i, view in enumerate(out_views):
            bucket = plain.get(canonical(view)) if match_out[i] == -1 and view is not None else None
            if bucket:
                j = bucket.popleft()
                match_out[i], match_ref[j] = j, i
    if not buckets:
        return
    patterns = list(buckets.items())
    lookups: dict[int, list[int]] = {}

    def candidates(i: int) -> Iterable[int]:
        found = lookups.get(i)
        if found is None:
            found = lookups[i] = []
            view = out_views[i]
            for pattern, keyed in patterns:
                key = _pattern_key(view, pattern) if view is not None else None
                if key is not None:
                    found.extend(keyed.get(key, ()))
        return found

    def related(i: int, j: int) -> bool:
        # Equal bucket keys: the same keys, and equal values wherever the reference holds no
        # matcher; what is left to ask is the pattern's values.
        out, ref = out_views[i], ref_views[j]
        assert out is not None
        assert ref is not None
        return all(value_matches(out[k], ref[k]) for k in ref_patterns[j])

    complete_matching(match_out, match_ref, candidates, related)  # 2. the search


def _pair_inclusion(
    out_args: list[Args],
    ref_args: list[Args],
    match_out: list[int],
    match_ref: list[int],
    rule: ArgsRule,
) -> None:
    same: dict[Hashable, deque[int]] = defaultdict(deque)
    for j, args in enumerate(ref_args):
        if match_ref[j] == -1 and not holds_matcher(args):
            same[canonical(args)].append(j)
    for i, args in enumerate(out_args):  # 1. equal args pair first
        bucket = same.get(canonical(args)) if same and match_out[i] == -1 else None
        if bucket:
            j = bucket.popleft()
            match_out[i], match_ref[j] = j, i
    if rule.kind == "subset":  # output args within reference args: outputs look for references
        references = _ItemIndex(ref_args, match_ref)

        def holding(i: int) -> Iterable[int]:
            return references.holding(out_args[i])

        def output_within(i: int, j: int) -> bool:
            return rule.matches(out_args[i], ref_args[j])

        complete_matching(match_out, match_ref, holding, output_within)
    else:  # reference args within output args: references look for outputs
        outputs = _ItemIndex(out_args, match_out)

        def held_by(j: int) -> Iterable[int]:
            return outputs.held_by(ref_args[j])

        def reference_within(j: int, i: int) -> bool:
            return rule.matches(out_args[i], ref_args[j])

        complete_matching(match_ref, match_out, held_by, reference_within)


class _ItemIndex:
    """The still-unpaired calls of one side by their ``(key, value)`` items (matcher-free
    values) and by the keys whose values hold a matcher."""

    def __init__(self, sides: list[Args], taken: list[int]) -> None:
        self.items: dict[tuple[str, Hashable], set[int]] = defaultdict(set)
        self.held: dict[str, set[int]] = defaultdict(set)
        self.keys: dict[str, set[int]] = defaultdict(set)
        self.free = [j for j in range(len(sides)) if taken[j] == -1]
        for j in self.free:
            for key, value in sides[j].items():
                self.keys[key].add(j)
                if holds_matcher(value):
                    self.held[key].add(j)
                else:
                    self.items[(key, canonical(value))].add(j)

    def holding(self, small: Args) -> list[int]:
        """Calls whose args may hold every item of ``small`` (a matcher-free value equal, or a
        matcher, under each of its keys)."""
        found: set[int] | None = None
        for key, value in small.items():
            options = self.items.get((key, canonical(value)), set()) | self.held.get(key, set())
            found = options if found is None else found & options
            if not found:
                return []
        return self.free if found is None else sorted(found)

    def held_by(self, small: Args) -> list[int]:
        """Calls whose args may contain every item of ``small`` (which may hold matchers): the
        matcher-free items equal, the other keys present."""
        found: set[int] | None = None
        for key, value in small.items():
            if holds_matcher(value):
                options = self.keys.get(key, set())
            else:
                options = self.items.get((key, canonical(value)), set())
            found = set(options) if found is None else found & options
            if not found:
                return []
        return self.free if found is None else sorted(found)
