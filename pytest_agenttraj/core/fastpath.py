"""The one fast path: passing evaluations of plain chat dicts and LangChain messages decided
without building either trajectory. Everything here is an optimisation; the general normaliser
and matcher decide every case alone, and a property test checks that both agree.

When it applies (``applies``): both sides are lists of *plain messages*: chat dicts with a known
role, text content and tool calls (only on assistant messages) in OpenAI's ``function`` form with
arguments text that is one JSON object, or LangChain messages of a known type with text content
and ``tool_calls`` whose arguments are a dict; the mode pairs calls as multisets (not
``in_order``), and every args rule in force is reflexive (calls with equal arguments always
match: exact, ignore, subset, superset, also with ignored keys; not key lists or callables).
Where empty sides are refused (``allow_empty=False``), a side without messages or a reference
without calls is left to the general path.

How: one walk per side records which messages make calls, each call's tool name and arguments
(the text, or the dict), and parses each distinct text once. Calls pair by *key*: the arguments
text when both sides hold only texts (equal texts are equal values), else each call's canonical
value (``values.canonical``, the general path's own equality; a value matcher has none, so
reference calls holding one never pair here), or the tool alone where arguments are ignored. The
sides match when the keys pair up as the mode requires: in strict mode, the same roles and,
message by message, the same multiset of keys; in the others, over all calls. Anything the walk
does not prove (another input form, a difference, a malformed message) returns ``None``, and the
general path decides and explains.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any, NamedTuple

from .matching.report import FlatPairs, MatchReport
from .matching.rules import MatchConfig
from .model import Role, Trajectory
from .normalize import Memo, to_trajectory
from .normalize.fields import ROLE_ALIASES, scan_json, scan_object
from .normalize.langchain import LANGCHAIN_ROLES, is_message
from .values import canonical

__all__ = ["DeferredSides", "applies", "verdict"]


def applies(config: MatchConfig) -> bool:
    """Whether the fast path may pass an evaluation under ``config``: every rule reflexive, in a
    mode that pairs calls as multisets (not ``in_order``)."""
    if config.mode == "in_order":
        return False
    # Every args mode is reflexive; only overrides (key lists, callables) may not be.
    return not config.overrides or all(rule.reflexive for rule in config.overrides.values())


def verdict(outputs: Any, reference_outputs: Any, config: MatchConfig) -> MatchReport | None:
    """A passing report when the fast path proves a match, else ``None`` (see the module
    docstring)."""
    if not (applies(config) and _may_walk(outputs) and _may_walk(reference_outputs)):
        return None
    parsed: _Parsed = {}
    # Read first the side whose calls may go unpaired; then every call of the other must pair,
    # so when keys are the arguments texts, a text not seen yet ends the walk early.
    first, second = (
        (reference_outputs, outputs) if config.mode == "subset" else (outputs, reference_outputs)
    )
    walked = _walk(first, parsed)
    if walked is None:
        return None
    # Parsed values are kept only where keys will be values: holding a thousand parsed dicts
    # costs a passing evaluation more than parsing them again costs a failing one.
    known_only = (
        walked.texts_only
        and config.tool_args != "ignore"
        and not any(rule.kind == "ignore" for rule in (config.overrides or {}).values())
    )
    other = _walk(second, parsed, known_only=known_only, keep=not walked.texts_only)
    if other is None:
        return None
    output, reference = (other, walked) if config.mode == "subset" else (walked, other)
    if not config.allow_empty and _maybe_vacuous(output, reference, config.mode):
        return None  # the general path refuses it, or compares it, and says why
    by_text = output.texts_only and reference.texts_only
    try:
        out_keys = _keys(output, config, parsed, by_text)
        ref_keys = _keys(reference, config, parsed, by_text)
    except RecursionError:
        return None  # arguments nested too deep: the general path names the call
    sides = DeferredSides(outputs, reference_outputs)
    if config.mode == "strict":
        partner = _strict_partner(output, reference, out_keys, ref_keys)
        if partner is None:
            return None
    else:
        partner = _partner_by_key(out_keys, ref_keys, config.mode)
        if partner is None or not _same_names(output.names, reference.names, partner):
            return None
    return MatchReport.passing(config, sides, FlatPairs(sides, partner))


_Parsed = dict[str, dict[str, Any] | None]
"""Arguments texts checked during one verdict, with their parsed value where it was kept."""


def _value(args: Any, parsed: _Parsed) -> Any:
    """The value of one call's arguments: the dict, or the (checked) text parsed."""
    if type(args) is not str:
        return args
    value = parsed.get(args)
    return value if value is not None else scan_object(args)


class _Skeleton(NamedTuple):
    """What a verdict needs of one side: which messages make calls and how many, each call's
    tool name and arguments (text or dict, in call order), whether they are all texts, and the
    messages' roles (only strict mode asks)."""

    roles: list[Role | None]
    call_rows: list[int]
    call_counts: list[int]
    names: list[str]
    args: list[Any]
    texts_only: bool


_MESSAGE_CLASSES: dict[type, bool] = {}
"""Classes seen in trajectories: whether they are LangChain messages with a ``__dict__``."""


def _is_langchain(item: Any) -> bool:
    kind = type(item)
    known = _MESSAGE_CLASSES.get(kind)
    if known is None:
        known = _MESSAGE_CLASSES[kind] = is_message(item) and hasattr(item, "__dict__")
    return known


def _may_walk(value: Any) -> bool:
    """A cheap look at ``value`` up to its first tool call: whether ``_walk`` could get past it,
    so that a trajectory of another form is not walked in vain."""
    if type(value) is not list:
        return False
    for item in value:
        if type(item) is not dict:
            return _is_langchain(item)
        calls = item.get("tool_calls")
        if calls:
            first = calls[0] if type(calls) is list else None
            function = first.get("function") if type(first) is dict else None
            return type(function) is dict and type(function.get("arguments")) is str
    return True


# One loop with every check inline: it is the cost of each passing evaluation.
def _walk(  # noqa: C901
    value: list[Any], parsed: _Parsed, *, known_only: bool = False, keep: bool = False
) -> _Skeleton | None:
    """The skeleton of ``value`` when it is a list of plain messages, else ``None``.

    Each distinct arguments text is parsed once to check it and noted in ``parsed``, with its
    value if ``keep``. With ``known_only``, a text not there already ends the walk: the caller
    knows such a call could not pair.
    """
    roles: list[Role | None] = []
    rows: list[int] = []
    counts: list[int] = []
    names: list[str] = []
    args: list[Any] = []
    add_role, add_row, add_count = roles.append, rows.append, counts.append
    add_name, add_args = names.append, args.append
    known_role: Callable[[Any], Role | None] = ROLE_ALIASES.get  # any hashable: None if unknown
    langchain_role: Callable[[Any], Role | None] = LANGCHAIN_ROLES.get
    texts_only = True
    # Anything unexpected (a missing key, a value of the wrong kind) raises KeyError or
    # TypeError below, and the general normaliser then decides: cheaper than testing each field.
    try:
        for index, item in enumerate(value):
            if type(item) is dict:
                if "type" in item or type(item.get("content")) is list:
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
                        if text not in parsed:
                            if known_only:
                                return None
                            found, end = scan_json(text, 0)
                            if end != len(text) or type(found) is not dict:
                                return None
                            parsed[text] = found if keep else None
                        add_name(name)
                        add_args(text)
                    add_row(index)
                    add_count(len(raw_calls))
                elif role is None or (raw_calls is not None and type(raw_calls) is not list):
                    return None
            elif _MESSAGE_CLASSES.get(type(item)) or _is_langchain(item):
                fields = item.__dict__
                role = langchain_role(fields["type"])
                if role is None or type(fields["content"]) is list:
                    return None
                raw_calls = fields.get("tool_calls")
                if raw_calls:
                    if role != "assistant" or type(raw_calls) is not list:
                        return None
                    for raw in raw_calls:
                        name = raw["name"]
                        call_args = raw["args"]
                        if type(name) is not str or not name or type(call_args) is not dict:
                            return None
                        add_name(name)
                        add_args(call_args)
                    texts_only = False
                    add_row(index)
                    add_count(len(raw_calls))
                elif fields.get("additional_kwargs", {}).get("tool_calls"):
                    return None  # OpenAI-style calls kept aside: the normaliser reads them
            else:
                return None
            add_role(role)
    except (KeyError, TypeError, AttributeError, StopIteration, ValueError, RecursionError):
        return None  # StopIteration, ValueError: arguments text that is not JSON
    return _Skeleton(roles, rows, counts, names, args, texts_only)


def _maybe_vacuous(output: _Skeleton, reference: _Skeleton, mode: str) -> bool:
    """Whether either side is empty in a way ``allow_empty=False`` refuses."""
    return not reference.roles or not output.roles or (mode != "strict" and not reference.names)


def _keys(
    skeleton: _Skeleton, config: MatchConfig, parsed: _Parsed, by_text: bool
) -> Sequence[Hashable]:
    """Each call's pairing key: its arguments text (``by_text``) or canonical value, or its tool
    name where args are ignored."""
    values: Sequence[Hashable] = (
        skeleton.args if by_text else [canonical(_value(a, parsed)) for a in skeleton.args]
    )
    if not config.overrides:
        return skeleton.names if config.tool_args == "ignore" else values
    ignored = {name for name in set(skeleton.names) if config.rule_for(name).kind == "ignore"}
    return [
        name if name in ignored else (name, value)
        for name, value in zip(skeleton.names, values, strict=True)
    ]


def _strict_partner(
    output: _Skeleton,
    reference: _Skeleton,
    out_keys: Sequence[Hashable],
    ref_keys: Sequence[Hashable],
) -> list[int] | None:
    """The reference call of each output call when the sides match strictly (the same roles
    everywhere and, message by message, the same multiset of tools and keys), else ``None``."""
    if (
        output.roles != reference.roles
        or output.call_rows != reference.call_rows
        or output.call_counts != reference.call_counts
    ):
        return None
    if out_keys == ref_keys and output.names == reference.names:
        return list(range(len(out_keys)))
    # Calls pair within their message and tool (one text may serve calls of two tools).
    rows = [
        row for row, n in zip(output.call_rows, output.call_counts, strict=True) for _ in range(n)
    ]
    return _partner_by_key(
        list(zip(rows, output.names, out_keys, strict=True)),
        list(zip(rows, reference.names, ref_keys, strict=True)),
        "unordered",
    )


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
