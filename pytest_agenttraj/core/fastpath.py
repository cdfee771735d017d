"""The one fast path: passing evaluations of plain chat dicts and LangChain messages decided
without building either trajectory, and failing comparisons of calls only (``failing_calls``)
explained building only the calls that did not pair by their texts. Everything here is an
optimisation; the general normaliser and matcher decide every case alone, and property tests
check that both agree.

When it applies (``applies``): both sides are lists of *plain messages*: chat dicts with a known
role, text content and tool calls (only on assistant messages) in OpenAI's ``function`` form with
arguments text that is one JSON object, or in the flat form reference files are read into
(``{"name", "args"}``, the arguments a dict), or LangChain messages of a known type with text
content and ``tool_calls`` whose arguments are a dict; and every args rule in force is reflexive
(calls with equal arguments always match: exact, ignore, subset, superset, also with ignored
keys; not key lists or callables).
Where empty sides are refused (``allow_empty=False``), a side without messages or a reference
without calls is left to the general path.

How: one walk per side records the roles, which messages make calls, and each call's tool name
and arguments (the text, or the dict): each form's scanner sits beside its reader in
``normalize/`` (``chat.scan``, ``langchain.scan``) and reads a run of messages of its form in
one loop; here is only the dispatch. Calls pair by *key*: the arguments text when both sides
hold only texts (equal texts are equal values), else each call's canonical value
(``values.canonical``, the general path's own equality), or the tool alone where arguments are
ignored. The sides match when the keys pair up as the mode requires: in strict mode, message by
message, the same roles and the same multiset of tools and keys; in ``in_order``, each reference
message's calls within the fewest output messages after the previous one's; in the others, over
all calls.
Only then is each distinct text parsed once to check it is one JSON object, so a failing
evaluation parses nothing here. Anything not proven (another input form, a difference, a
malformed message) gives no report, and the general path decides and explains.

What a failing walk learnt is not thrown away: ``decide`` keeps each side's skeleton, and
``build`` makes a walked side into its trajectory from it, reading only the fields the walk did
not (content, ids, names), each arguments text parsed once through the evaluation's memo and each
arguments dict copied, as the normaliser does. A side the walk could not read, or a text that is
not exactly one JSON object, goes to the general normaliser, which names the error.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple

from .matching.report import CallRef, FlatPairs, MatchReport, Place, PlacedCalls
from .matching.rules import MatchConfig
from .model import Message, ToolCall, Trajectory
from .normalize import Memo, chat, langchain, to_trajectory
from .normalize.fields import Skeleton, memo_object, scan_object
from .values import canonical, holds_matcher

__all__ = ["DeferredSides", "Walked", "applies", "build", "decide", "failing_calls"]


def applies(config: MatchConfig) -> bool:
    """Whether the fast path may pass an evaluation under ``config``: every rule reflexive."""
    # Every args mode is reflexive; only overrides (key lists, callables) may not be.
    return not config.overrides or all(rule.reflexive for rule in config.overrides.values())


class Walked(NamedTuple):
    """What the fast path found: a passing report when it proved a match, and the skeleton of
    each side it walked (``None`` where it did not), from which ``build`` makes the trajectory."""

    report: MatchReport | None
    output: Skeleton | None = None
    reference: Skeleton | None = None


def decide(outputs: Any, reference_outputs: Any, config: MatchConfig) -> Walked:
    """A passing report when the fast path proves a match (see the module docstring), and the
    skeletons of what it walked, for ``build`` when it proves nothing."""
    if not (applies(config) and _may_walk(outputs) and _may_walk(reference_outputs)):
        return Walked(None)
    output = _walk(outputs)
    reference = _walk(reference_outputs) if output is not None else None
    if output is None or reference is None:
        return Walked(None, output, reference)
    return Walked(
        _passing(outputs, reference_outputs, output, reference, config), output, reference
    )


def _passing(
    outputs: Any,
    reference_outputs: Any,
    output: Skeleton,
    reference: Skeleton,
    config: MatchConfig,
) -> MatchReport | None:
    """The passing report of two walked sides, if their calls pair as the mode requires."""
    if not config.allow_empty and _maybe_vacuous(output, reference, config.mode):
        return None  # the general path refuses it, or compares it, and says why
    by_text = output.texts_only and reference.texts_only
    try:
        values = (output.args, reference.args) if by_text else _values(output, reference)
    except RecursionError:
        return None  # arguments nested too deep: the general path names the call
    if values is None:
        return None
    out_keys, ref_keys = _keys(output, config, values[0]), _keys(reference, config, values[1])
    if config.mode == "strict":
        partner = _strict_partner(output, reference, out_keys, ref_keys)
    elif config.mode == "in_order":
        partner = _in_order_partner(output, reference, out_keys, ref_keys)
    else:
        partner = _partner_by_key(out_keys, ref_keys, config.mode)
        if partner is not None and not _same_names(output.names, reference.names, partner):
            partner = None
    # Texts are checked only now, once the calls pair: a failing evaluation parses nothing here.
    if partner is None or (by_text and not _all_objects(output.args, reference.args)):
        return None
    matchers = not reference.texts_only and any(
        type(args) is not str and holds_matcher(args) for args in reference.args
    )
    sides = DeferredSides(outputs, reference_outputs, reference_matchers=matchers)
    return MatchReport.passing(config, sides, FlatPairs(sides, partner))


def _all_objects(*texts: list[str]) -> bool:
    """Whether every arguments text is exactly one JSON object (each distinct text parsed once,
    the value dropped: keeping a thousand parsed dicts costs more than parsing them again in
    the rare case the trajectories are built)."""
    checked: set[str] = set()
    for side in texts:
        for text in side:
            if text not in checked:
                if scan_object(text) is None:
                    return False
                checked.add(text)
    return True


def _values(output: Skeleton, reference: Skeleton) -> tuple[list[Hashable], list[Hashable]] | None:
    """The canonical value of each call's arguments on both sides (texts parsed once each),
    or ``None`` if a text is not exactly one JSON object."""
    parsed: Memo = {}
    sides: list[list[Hashable]] = []
    for skeleton in (output, reference):
        keys: list[Hashable] = []
        for args in skeleton.args:
            if type(args) is str:
                args = memo_object(args, parsed)
                if args is None:
                    return None
            keys.append(canonical(args))
        sides.append(keys)
    return sides[0], sides[1]


def _may_walk(value: Any) -> bool:
    """A cheap look at ``value`` up to its first tool call: whether ``_walk`` could get past it,
    so that a trajectory of another form is not walked in vain."""
    if type(value) is not list:
        return False
    for item in value:
        if type(item) is not dict:
            return langchain.scannable(item)
        calls = item.get("tool_calls")
        if calls:
            return chat.scannable_calls(calls)
    return True


def _walk(value: list[Any]) -> Skeleton | None:
    """The skeleton of ``value`` when it is a list of plain messages, else ``None``: each run of
    messages of one form is read by that form's scanner, beside its reader (``chat.scan``,
    ``langchain.scan``), so a side of one form is one call. Arguments texts are not parsed here
    (see ``_passing``)."""
    skeleton = Skeleton()
    start, end = 0, len(value)
    while start < end:
        scan = chat.scan if type(value[start]) is dict else langchain.scan
        stop = scan(value, start, skeleton)
        if stop is None or stop == start:
            return None  # a message that is not plain, or an item of neither form
        start = stop
    return skeleton


def build(items: Any, skeleton: Skeleton | None, side: str, memo: Memo) -> Trajectory:
    """``items`` as a trajectory. A side the walk read (a list of plain messages) is built from
    its skeleton, without checking again what the walk checked: each arguments text parsed once
    through ``memo``, and each arguments dict copied, as the normaliser does. Any other side, or
    one with a text that is not exactly one JSON object, is built by the general normaliser,
    which names any error."""
    __tracebackhide__ = True
    if skeleton is not None:
        built = _from_skeleton(items, skeleton, memo)
        if built is not None:
            return built
    return to_trajectory(items, side=side, memo=memo)


_new = tuple.__new__  # builds named tuples without their Python-level __new__ (every field given)


def _from_skeleton(items: list[Any], skeleton: Skeleton, memo: Memo) -> Trajectory | None:
    """The trajectory of a walked side, or ``None`` where the normaliser must decide (a text
    that is not one JSON object, a call that is not a dict)."""
    messages: list[Message] = []
    rows = iter(zip(skeleton.call_rows, skeleton.call_counts, strict=True))
    row, count = next(rows, (-1, 0))
    first = 0  # the index of the next call in the skeleton's names and args
    chat_str, langchain_str = chat.optional_str, langchain.optional_str
    for index, item in enumerate(items):
        is_dict = type(item) is dict
        fields: Mapping[str, Any] = item if is_dict else item.__dict__
        text = chat_str if is_dict else langchain_str  # optional strings as each reader keeps them
        calls: tuple[ToolCall, ...] | None = ()
        if index == row:
            calls = _calls(fields["tool_calls"], skeleton, first, memo, text)
            if calls is None:
                return None
            first += count
            row, count = next(rows, (-1, 0))
        content = fields.get("content")
        row_fields = (
            skeleton.roles[index],
            "" if content is None else content,
            calls,
            text(fields.get("tool_call_id")),
            text(fields.get("name")),
            text(fields.get("id")),
        )
        messages.append(_new(Message, row_fields))
    return Trajectory(tuple(messages))


def _calls(
    raw_calls: list[Any],
    skeleton: Skeleton,
    first: int,
    memo: Memo,
    text: Callable[[Any], str | None],
) -> tuple[ToolCall, ...] | None:
    """One message's calls, from the skeleton's names and arguments from ``first`` on."""
    calls: list[ToolCall] = []
    for offset, raw in enumerate(raw_calls, start=first):
        if type(raw) is not dict:
            return None
        given = skeleton.args[offset]
        if type(given) is str:  # a chat call's text, parsed once per evaluation
            args = memo_object(given, memo)
            if args is None:
                return None
        else:  # a dict (a LangChain call, or a chat call in the flat form), copied
            args = dict(given)
        calls.append(_new(ToolCall, (skeleton.names[offset], args, text(raw.get("id")))))
    return tuple(calls)


def _maybe_vacuous(output: Skeleton, reference: Skeleton, mode: str) -> bool:
    """Whether either side is empty in a way ``allow_empty=False`` refuses."""
    return not reference.roles or not output.roles or (mode != "strict" and not reference.names)


def _keys(
    skeleton: Skeleton, config: MatchConfig, values: Sequence[Hashable]
) -> Sequence[Hashable]:
    """Each call's pairing key: its arguments (``values``: texts, or canonical values), or its
    tool name where args are ignored."""
    if not config.overrides:
        return skeleton.names if config.tool_args == "ignore" else values
    ignored = {name for name in set(skeleton.names) if config.rule_for(name).kind == "ignore"}
    return [
        name if name in ignored else (name, value)
        for name, value in zip(skeleton.names, values, strict=True)
    ]


def _strict_partner(
    output: Skeleton,
    reference: Skeleton,
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


def _in_order_partner(
    output: Skeleton,
    reference: Skeleton,
    out_keys: Sequence[Hashable],
    ref_keys: Sequence[Hashable],
) -> list[int] | None:
    """The reference call of each output call (-1: none) when every reference message's calls
    pair, by equal tool and key, within a run of whole output messages after the previous
    one's run (each run ended as soon as it holds them), else ``None``."""
    out_names, ref_names = output.names, reference.names
    partner = [-1] * len(out_keys)
    out_counts, message = output.call_counts, 0
    first_out = first_ref = 0
    for count in reference.call_counts:
        waiting: dict[tuple[str, Hashable], list[int]] = {}
        for j in range(first_ref + count - 1, first_ref - 1, -1):
            waiting.setdefault((ref_names[j], ref_keys[j]), []).append(j)
        first_ref += count
        left = count
        while left:
            if message == len(out_counts):
                return None
            end = first_out + out_counts[message]
            for i in range(first_out, end):
                queue = waiting.get((out_names[i], out_keys[i]))
                if queue:
                    partner[i] = queue.pop()
                    left -= 1
            first_out, message = end, message + 1
    return partner


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
    are copied now; their dicts are read when the trajectories are built.
    ``reference_matchers`` says whether the reference's call arguments hold a value matcher
    (what the report's settings list), known from the walk without building anything."""

    __slots__ = ("_built", "_items", "reference_matchers")

    def __init__(
        self, outputs: list[Any], reference_outputs: list[Any], *, reference_matchers: bool = True
    ) -> None:
        self._items = (list(outputs), list(reference_outputs))
        self._built: tuple[Trajectory, Trajectory] | None = None
        self.reference_matchers = reference_matchers

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
        self.reference_matchers = True


_CALL_MODES = ("unordered", "subset", "superset")


def failing_calls(
    outputs: Any, reference_outputs: Any, walked: Walked, config: MatchConfig
) -> MatchReport | None:
    """The report of a comparison of calls only (unordered, subset, superset) under exact
    args that ``decide`` could not pass, made without building either trajectory.

    The general matcher pairs first the calls of one tool that share one parsed dict (equal
    arguments texts), in order, then the rest by value: here the first pairing is made from
    the texts, and only the calls it leaves are parsed and handed to the general matcher,
    which pairs and explains them as it would (the paired calls it may name as the closest
    are parsed when it asks). Every other text is parsed once to check it is one JSON object,
    and dropped. The sides stay deferred, built when a caller reads them. ``None`` where this
    does not apply or a text is not one JSON object (the general path names it).
    """
    output, reference = walked.output, walked.reference
    if (
        output is None
        or reference is None
        or config.mode not in _CALL_MODES
        or config.tool_args != "exact"
        or config.overrides
        or config.ignore_keys
        or not (output.texts_only and reference.texts_only)
        or (not config.allow_empty and _maybe_vacuous(output, reference, config.mode))
    ):
        return None
    from .matching.calls import pair_calls
    from .matching.explain import call_problems

    partner, _ = _pair_equal_keys(
        list(zip(output.names, output.args, strict=True)),
        list(zip(reference.names, reference.args, strict=True)),
    )
    if not _all_objects([text for text, j in zip(output.args, partner, strict=True) if j != -1]):
        return None
    memo: Memo = {}
    out_side = _CallSide(outputs, output, memo)
    ref_side = _CallSide(reference_outputs, reference, memo)
    paired_refs = set(partner)
    lone_out = out_side.refs(i for i, j in enumerate(partner) if j == -1)
    lone_ref = ref_side.refs(j for j in range(len(reference.args)) if j not in paired_refs)
    if lone_out is None or lone_ref is None:
        return None
    paired, lone_out, lone_ref = pair_calls(lone_out, lone_ref, config)
    for out, ref in paired:
        partner[out_side.index(out)] = ref_side.index(ref)
    taken = (_Taken(out_side, partner, reference=False), _Taken(ref_side, partner, reference=True))
    problems = call_problems(
        [],
        lone_out,
        lone_ref,
        config.mode in ("unordered", "subset"),
        config.mode in ("unordered", "superset"),
        config,
        taken=taken,
    )
    sides = _PlacedSides(outputs, reference_outputs, (out_side, ref_side), partner)
    return MatchReport(config, sides, not problems, tuple(problems), FlatPairs(sides, partner))


def _restored(state: tuple[Trajectory, Trajectory]) -> DeferredSides:
    sides = DeferredSides.__new__(DeferredSides)
    sides.__setstate__(state)
    return sides


class _PlacedSides(DeferredSides, PlacedCalls):
    """The deferred sides of a report ``failing_calls`` made, which also say where each call
    stands, which calls paired, and make one call or the first messages when asked (what a
    diff draws of a long comparison), without building either trajectory. Pickled, they are
    plain deferred sides, built."""

    __slots__ = ("_partner", "_sides")

    def __init__(
        self,
        outputs: list[Any],
        reference_outputs: list[Any],
        sides: tuple[_CallSide, _CallSide],
        partner: list[int],
    ) -> None:
        super().__init__(outputs, reference_outputs, reference_matchers=False)
        self._sides, self._partner = sides, partner

    def call_places(self, side: int) -> list[Place]:
        """Where each call of the output (0) or the reference (1) stands, in order."""
        skeleton = self._sides[side].skeleton
        return [
            (row, position)
            for row, count in zip(skeleton.call_rows, skeleton.call_counts, strict=True)
            for position in range(count)
        ]

    def pair_places(self) -> list[tuple[Place, Place]]:
        """Where the calls of each pair stand, in output order."""
        out_side, ref_side = self._sides
        return [
            (out_side.place(i), ref_side.place(j)) for i, j in enumerate(self._partner) if j != -1
        ]

    def head(self, side: int, limit: int) -> tuple[tuple[Message, ...], int]:
        """The first ``limit`` messages of the output (0) or the reference (1), and how many
        there are: plain messages, each read alone, so the first ``limit`` are read alone."""
        if self._built is not None:
            messages = self._built[side].messages
            return messages[:limit], len(messages)
        items = self._items[side]
        built = to_trajectory(
            items[:limit], side="outputs" if side == 0 else "reference_outputs", memo={}
        )
        return built.messages, len(items)

    def call_at(self, side: int, place: Place) -> CallRef:
        """The call at ``place`` of the output (0) or the reference (1)."""
        made = self._sides[side].at(place)
        assert made is not None  # every text was checked to be one JSON object
        return made

    def __reduce__(self) -> tuple[Any, ...]:
        return (_restored, (self._trajectories(),))


class _CallSide:
    """One walked side's calls made one at a time, from the skeleton and the messages: where
    each stands (its message and its place there), its name, its parsed arguments (through the
    evaluation's memo) and its id, as the trajectory built from the skeleton holds them."""

    __slots__ = ("_indices", "items", "memo", "skeleton", "starts")

    def __init__(self, items: list[Any], skeleton: Skeleton, memo: Memo) -> None:
        self.items, self.skeleton, self.memo = items, skeleton, memo
        self.starts: list[int] = []  # the flat index of each calling message's first call
        first = 0
        for count in skeleton.call_counts:
            self.starts.append(first)
            first += count
        self._indices: dict[int, int] = {}  # id of a CallRef ``refs`` made -> its flat index

    def _row(self, index: int) -> int:
        """Which calling message holds the call at flat ``index``."""
        return bisect_right(self.starts, index) - 1

    def ref(self, index: int) -> CallRef | None:
        """The call at flat ``index``; ``None`` where the normaliser must decide."""
        return self._make(index, self._row(index))

    def refs(self, indices: Iterable[int]) -> list[CallRef] | None:
        """The calls at ``indices`` (ascending), as ``ref`` makes them (``None`` as there),
        each remembered for ``index``."""
        made = []
        starts, row, last = self.starts, 0, len(self.starts) - 1
        for index in indices:
            while row < last and starts[row + 1] <= index:
                row += 1
            call = self._make(index, row)
            if call is None:
                return None
            self._indices[id(call)] = index
            made.append(call)
        return made

    def _make(self, index: int, row: int) -> CallRef | None:
        skeleton = self.skeleton
        message, position = skeleton.call_rows[row], index - self.starts[row]
        item = self.items[message]
        is_dict = type(item) is dict
        raw = (item if is_dict else item.__dict__)["tool_calls"][position]
        args = memo_object(skeleton.args[index], self.memo)
        if type(raw) is not dict or args is None:
            return None
        text = chat.optional_str if is_dict else langchain.optional_str
        call = _new(ToolCall, (skeleton.names[index], args, text(raw.get("id"))))
        made: CallRef = _new(CallRef, (message, position, call))
        return made

    def index(self, call: CallRef) -> int:
        """The flat index of a call ``refs`` made."""
        return self._indices[id(call)]

    def place(self, index: int) -> Place:
        """Where the call at flat ``index`` stands: its message and its place there."""
        row = self._row(index)
        return self.skeleton.call_rows[row], index - self.starts[row]

    def at(self, place: Place) -> CallRef | None:
        """The call standing at ``place``, as ``ref`` makes it."""
        message, position = place
        row = bisect_left(self.skeleton.call_rows, message)
        return self._make(self.starts[row] + position, row)


class _Taken:
    """The calls of one side that paired, by tool name, in the order of the pairs (the output
    calls' order), each made when the explanation reads it (see ``call_problems``)."""

    __slots__ = ("partner", "reference", "side")

    def __init__(self, side: _CallSide, partner: list[int], *, reference: bool) -> None:
        self.side, self.partner, self.reference = side, partner, reference

    def all(self, name: str) -> Iterator[CallRef]:
        names = self.side.skeleton.names
        for i, j in enumerate(self.partner):
            if j == -1:
                continue
            index = j if self.reference else i
            if names[index] == name:
                call = self.side.ref(index)
                if call is not None:
                    yield call
