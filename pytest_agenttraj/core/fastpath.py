"""The one fast path: passing evaluations of plain chat dicts decided without building either
trajectory. Everything here is an optimisation; the general normaliser and matcher decide every
case alone, and a property test checks that both agree.

When it applies (``applies``): both sides are lists of *plain chat dicts* (a known role, text
content, tool calls only on assistant messages, each in OpenAI's ``function`` form with arguments
text that is one JSON object), the mode pairs calls as multisets (not ``in_order``), and every
args rule in force is reflexive (calls with equal arguments always match: exact, ignore, subset,
superset, also with ignored keys; not key lists or callables). Value matchers can only appear in
arguments given as dicts, which the walk never accepts. Where empty sides are refused
(``allow_empty=False``), a side without messages or a reference without calls is left to the
general path.

How: one walk per side records which messages make calls, each call's tool name and arguments
text, and checks each distinct text once (parsing it and dropping the value). Equal texts are
equal values, so the sides match when their calls pair up by *key* (tool and arguments text, or
the tool alone where arguments are ignored) as the mode requires: in strict mode, the same roles
and, message by message, the same multiset of keys; in the others, over all calls. Anything the
walk does not prove (another input form, a difference, a malformed message) returns ``None``, and
the general path decides and explains.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any, NamedTuple

from .matching.report import FlatPairs, MatchReport, PairParts, Pairs
from .matching.rules import MatchConfig
from .model import Role, Trajectory
from .normalize import Memo, to_trajectory
from .normalize.fields import ROLE_ALIASES, scan_object

__all__ = ["DeferredSides", "applies", "verdict"]


def applies(config: MatchConfig) -> bool:
    """Whether the fast path may pass an evaluation under ``config``: every rule reflexive, in a
    mode that pairs calls as multisets (not ``in_order``)."""
    return config.mode != "in_order" and all(rule.reflexive for rule in config.rules())


def verdict(outputs: Any, reference_outputs: Any, config: MatchConfig) -> MatchReport | None:
    """A passing report when the fast path proves a match, else ``None`` (see the module
    docstring)."""
    if not (applies(config) and _may_walk(outputs) and _may_walk(reference_outputs)):
        return None
    valid: set[str] = set()
    # Read first the side whose calls may go unpaired; then every call of the other must pair,
    # so when keys hold the arguments text, a text not seen yet ends the walk before anything
    # more is parsed.
    known_only = all(rule.kind != "ignore" for rule in config.rules())
    first, second = (
        (reference_outputs, outputs) if config.mode == "subset" else (outputs, reference_outputs)
    )
    walked = _walk(first, valid)
    other = _walk(second, valid, known_only=known_only) if walked is not None else None
    if walked is None or other is None:
        return None
    output, reference = (other, walked) if config.mode == "subset" else (walked, other)
    if not config.allow_empty and _maybe_vacuous(output, reference, config.mode):
        return None  # the general path refuses it, or compares it, and says why
    sides = DeferredSides(outputs, reference_outputs)
    out_keys, ref_keys = _keys(output, config), _keys(reference, config)
    if config.mode == "strict":
        rows = _strict_rows(output, reference, out_keys, ref_keys)
        if rows is None:
            return None
        return MatchReport(config, sides, True, (), PairParts(sides, rows))
    partner = _partner_by_key(out_keys, ref_keys, config.mode)
    if partner is None or not _same_names(output.names, reference.names, partner):
        return None
    return MatchReport(config, sides, True, (), FlatPairs(sides, partner))


class _Skeleton(NamedTuple):
    """What a verdict needs of one side: which messages make calls and how many, each call's
    tool name and arguments text (in call order), and the messages for their roles (only strict
    mode asks)."""

    messages: list[dict[str, Any]]
    call_rows: list[int]
    call_counts: list[int]
    names: list[str]
    texts: list[str]

    def roles(self) -> list[Role | None]:
        known_role: Callable[[Any], Role | None] = ROLE_ALIASES.get
        return [known_role(item.get("role")) for item in self.messages]


def _may_walk(value: Any) -> bool:
    """A cheap look at ``value`` up to its first tool call: whether ``_walk`` could get past it,
    so that a trajectory of another form is not walked in vain."""
    if type(value) is not list:
        return False
    for item in value:
        if type(item) is not dict:
            return False
        calls = item.get("tool_calls")
        if calls:
            first = calls[0] if type(calls) is list else None
            function = first.get("function") if type(first) is dict else None
            return type(function) is dict and type(function.get("arguments")) is str
    return True


# One loop with every check inline: it is the cost of each passing evaluation.
def _walk(  # noqa: C901
    value: list[Any], valid: set[str], *, known_only: bool = False
) -> _Skeleton | None:
    """The skeleton of ``value`` when it is a list of plain chat dicts, else ``None``.

    Each distinct arguments text is parsed once to check it, and remembered in ``valid``; the
    parsed value is dropped at once (keeping it would cost more than parsing again in the rare
    case the trajectory is built later). With ``known_only``, a text not in ``valid`` already ends
    the walk: the caller knows such a call could not pair.
    """
    rows: list[int] = []
    counts: list[int] = []
    names: list[str] = []
    texts: list[str] = []
    add_row, add_count, add_name, add_text = rows.append, counts.append, names.append, texts.append
    known_role: Callable[[Any], Role | None] = ROLE_ALIASES.get  # any hashable: None if unknown
    checked, check = valid.__contains__, valid.add
    # Anything unexpected (a missing key, a value of the wrong kind) raises KeyError or
    # TypeError below, and the general normaliser then decides: cheaper than testing each field.
    try:
        for index, item in enumerate(value):
            if type(item) is not dict or "type" in item or type(item.get("content")) is list:
                return None
            role = known_role(item.get("role"))
            raw_calls = item.get("tool_calls")
            if raw_calls:
                if role != "assistant" or type(raw_calls) is not list:
                    return None
                for raw in raw_calls:
                    function = raw["function"]
                    name = function["name"]
                    text = function["arguments"]
                    if type(name) is not str or not name or type(text) is not str:
                        return None
                    if not checked(text):
                        if known_only or scan_object(text) is None:
                            return None
                        check(text)
                    add_name(name)
                    add_text(text)
                add_row(index)
                add_count(len(raw_calls))
            elif role is None or (raw_calls is not None and type(raw_calls) is not list):
                return None
    except (KeyError, TypeError):
        return None
    return _Skeleton(value, rows, counts, names, texts)


def _maybe_vacuous(output: _Skeleton, reference: _Skeleton, mode: str) -> bool:
    """Whether either side is empty in a way ``allow_empty=False`` refuses."""
    return (
        not reference.messages or not output.messages or (mode != "strict" and not reference.names)
    )


def _keys(skeleton: _Skeleton, config: MatchConfig) -> Sequence[Hashable]:
    """Each call's pairing key: its arguments text, or its tool name where args are ignored."""
    if not config.overrides:
        return skeleton.names if config.tool_args == "ignore" else skeleton.texts
    ignored = {name for name in set(skeleton.names) if config.rule_for(name).kind == "ignore"}
    return [
        name if name in ignored else (name, text)
        for name, text in zip(skeleton.names, skeleton.texts, strict=True)
    ]


def _strict_rows(
    output: _Skeleton,
    reference: _Skeleton,
    out_keys: Sequence[Hashable],
    ref_keys: Sequence[Hashable],
) -> list[Pairs | tuple[int, int, tuple[int, ...]]] | None:
    """Per calling message, how its calls pair with the reference's (same roles everywhere and,
    message by message, the same multiset of keys and tools), else ``None``."""
    if (
        len(output.messages) != len(reference.messages)
        or output.call_rows != reference.call_rows
        or output.call_counts != reference.call_counts
        or output.roles() != reference.roles()
    ):
        return None
    if out_keys == ref_keys and output.names == reference.names:
        return [
            (row, row, tuple(range(n)))
            for row, n in zip(output.call_rows, output.call_counts, strict=True)
        ]
    rows: list[Pairs | tuple[int, int, tuple[int, ...]]] = []
    at = 0
    for row, count in zip(output.call_rows, output.call_counts, strict=True):
        end = at + count
        partner = _partner_by_key(out_keys[at:end], ref_keys[at:end], "unordered")
        if partner is None or not _same_names(
            output.names[at:end], reference.names[at:end], partner
        ):
            return None
        rows.append((row, row, tuple(partner)))
        at = end
    return rows


def _pair_equal_keys(
    out_keys: Sequence[Hashable], ref_keys: Sequence[Hashable]
) -> tuple[list[int], bool]:
    """Pair each output key with the first free reference key equal to it: the partner index
    per output (-1: none), and whether some reference key is left unpaired."""
    free = dict(zip(ref_keys, range(len(ref_keys)), strict=True))
    if len(free) == len(ref_keys):  # every key once: the common case, without lists
        take = free.pop
        return [take(key, -1) for key in out_keys], bool(free)
    queues: dict[Hashable, list[int]] = {}
    for j in range(len(ref_keys) - 1, -1, -1):
        queues.setdefault(ref_keys[j], []).append(j)
    partner = [queue.pop() if (queue := queues.get(key)) else -1 for key in out_keys]
    return partner, any(queues.values())


def _partner_by_key(
    out_keys: Sequence[Hashable], ref_keys: Sequence[Hashable], mode: str
) -> list[int] | None:
    """The pairing of ``_pair_equal_keys`` if it alone makes ``mode`` match (an unpaired call
    only where the mode allows one), else ``None``."""
    partner, unpaired_references = _pair_equal_keys(out_keys, ref_keys)
    if mode != "superset" and -1 in partner:
        return None  # an output call is unpaired, which only superset mode allows
    if mode != "subset" and unpaired_references:
        return None  # a reference call is unpaired, which only subset mode allows
    return partner


def _same_names(out_names: Sequence[str], ref_names: Sequence[str], partner: list[int]) -> bool:
    """Whether each paired call has the tool name of its partner (one text may serve calls of
    two tools)."""
    partner_names = [
        ref_names[j] if j != -1 else name for name, j in zip(out_names, partner, strict=True)
    ]
    return partner_names == list(out_names)


class DeferredSides:
    """The two trajectories of one evaluation, normalised when first read: a verdict reached
    here does not need them, a diff or a caller inspecting the report does. The message lists
    are copied now; their dicts are read when the trajectories are built."""

    __slots__ = ("_built", "_items")

    def __init__(self, outputs: list[Any], reference_outputs: list[Any]) -> None:
        self._items = (list(outputs), list(reference_outputs))
        self._built: tuple[Trajectory, Trajectory] | None = None

    def _trajectories(self) -> tuple[Trajectory, Trajectory]:
        if self._built is None:
            outputs, reference = self._items
            memo: Memo = {}
            self._built = (
                to_trajectory(outputs, side="outputs", memo=memo),
                to_trajectory(reference, side="reference_outputs", memo=memo),
            )
        return self._built

    @property
    def output(self) -> Trajectory:
        return self._trajectories()[0]

    @property
    def reference(self) -> Trajectory:
        return self._trajectories()[1]

    def __getstate__(self) -> tuple[Trajectory, Trajectory]:
        return self._trajectories()

    def __setstate__(self, state: tuple[Trajectory, Trajectory]) -> None:
        self._items = ([], [])
        self._built = state
