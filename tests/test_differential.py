"""Differential tests: our trajectory matcher against openevals on generated trajectories.

Trajectories are generated as small *specs* (role and tool calls per message) and rendered as
OpenAI chat dicts (arguments as JSON text or as dicts), LangChain messages, or a mix, in a list or
a ``{"messages": [...]}`` state dict. The reference is a perturbation of the output, so matches
and mismatches are both common; a small alphabet of tool names and arg values makes collisions
(same tool, related args) frequent.

The two implementations must give the same ``key`` and ``score``, except in two documented cases:

(a) ours matches and openevals does not, because openevals pairs tool calls greedily (first fit)
    and misses a valid pairing. A brute-force search written here, independent of both
    implementations, must then find a valid one-to-one pairing under the mode's definition.
(b) openevals matches and ours does not, because openevals compares values with Python ``==``,
    where ``True == 1``. Replacing every bool with a distinctive string must then make the two
    agree again.

Independently of openevals, our score must always equal the brute-force verdict under JSON value
semantics (``true`` is not ``1``, ``1`` equals ``1.0``).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from openevals.trajectory.match import create_trajectory_match_evaluator as oe_create

from pytest_agenttraj import create_trajectory_match_evaluator

TRAJECTORY_MODES = ("strict", "unordered", "subset", "superset")
ARGS_MODES = ("exact", "ignore", "subset", "superset")

TOOLS = ("search", "lookup", "fetch")
ARG_KEYS = ("q", "n", "opts")
NESTED_KEYS = ("lang", "k")
VALUES: tuple[Any, ...] = ("a", "b", 0, 1, 1.0, True, False, None, [1, "a"])

# ---------------------------------------------------------------- specs


@dataclass(frozen=True)
class Call:
    """One tool call of a spec: a name and JSON-like args."""

    name: str
    args: dict[str, Any]


@dataclass(frozen=True)
class Msg:
    """One message of a spec; only assistant messages carry calls."""

    role: str
    calls: tuple[Call, ...] = ()


Spec = list[Msg]

scalar_values = st.sampled_from(VALUES)
nested_values = st.dictionaries(st.sampled_from(NESTED_KEYS), scalar_values, max_size=2)


@st.composite
def arg_dicts(draw: st.DrawFn) -> dict[str, Any]:
    """Args over a few keys; ``opts`` holds a nested dict (reached by dotted key paths)."""
    keys = draw(st.lists(st.sampled_from(ARG_KEYS), unique=True, max_size=3))
    return {
        key: draw(nested_values if key == "opts" else scalar_values)
        for key in sorted(keys, key=ARG_KEYS.index)
    }


calls = st.builds(Call, st.sampled_from(TOOLS), arg_dicts())


@st.composite
def variants(draw: st.DrawFn, pool: Sequence[Call]) -> Call:
    """A call related to one of ``pool``: the same, some of its keys, or one key more."""
    base = draw(st.sampled_from(pool))
    args = dict(base.args)
    change = draw(st.sampled_from(("same", "some", "some", "add")))
    if change == "some" and args:
        kept = draw(st.lists(st.sampled_from(sorted(args)), unique=True))
        args = {k: v for k, v in args.items() if k in kept}
    elif change == "add":
        key = draw(st.sampled_from(ARG_KEYS))
        args[key] = draw(nested_values if key == "opts" else scalar_values)
    return Call(base.name, args)


@st.composite
def specs(draw: st.DrawFn) -> Spec:
    """A short trajectory: a user turn, assistant turns with 0-3 calls, tool results, an answer.

    Calls are drawn as variants of a small pool, so same-named calls with related args are common.
    """
    pool = draw(st.lists(calls, min_size=1, max_size=2))
    spec: Spec = []
    if draw(st.booleans()):
        spec.append(Msg("system"))
    spec.append(Msg("user"))
    budget = 5
    for _ in range(draw(st.sampled_from((1, 2, 1, 2, 0)))):
        size = draw(st.integers(1, min(3, budget)))
        turn = tuple(draw(variants(pool)) for _ in range(size))
        budget -= len(turn)
        spec.append(Msg("assistant", turn))
        spec.extend(Msg("tool") for _ in turn)
        if budget <= 0:
            break
    if draw(st.booleans()):
        spec.append(Msg("assistant"))
    return spec


def _twin(value: Any) -> Any:
    """``value`` with each bool swapped for its Python-equal int and vice versa (1.0 stays)."""
    if isinstance(value, dict):
        return {k: _twin(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_twin(v) for v in value]
    if isinstance(value, bool):
        return int(value)
    if type(value) is int and value in (0, 1):
        return bool(value)
    return value


def _with_calls(spec: Spec, index: int, new_calls: Sequence[Call]) -> Spec:
    out = list(spec)
    out[index] = replace(out[index], calls=tuple(new_calls))
    return out


def _calling(spec: Spec) -> list[int]:
    return [i for i, m in enumerate(spec) if m.calls]


def _assistants(spec: Spec) -> list[int]:
    return [i for i, m in enumerate(spec) if m.role == "assistant"]


@st.composite
def perturbed(draw: st.DrawFn, spec: Spec) -> Spec:  # noqa: C901 (one branch per kind of edit)
    """``spec`` after 0-2 random edits: permute, move, drop, add or duplicate calls, change args
    (incl. swapping ``true`` and ``1``), drop a message, change a role."""
    spec = list(spec)
    for _ in range(draw(st.integers(0, 2))):
        kind = draw(
            st.sampled_from(
                (
                    "permute",
                    "permute",
                    "sort_calls",
                    "move",
                    "drop_call",
                    "add_call",
                    "duplicate_call",
                    "change_value",
                    "add_key",
                    "drop_key",
                    "twin_value",
                    "twin_value",
                    "drop_message",
                    "change_role",
                )
            )
        )
        calling = _calling(spec)
        if kind == "permute" and calling:
            i = draw(st.sampled_from(calling))
            spec = _with_calls(spec, i, draw(st.permutations(spec[i].calls)))
        elif kind == "sort_calls" and calling:
            # Calls with most (or fewest) args first: the order that trips first-fit pairing.
            i = draw(st.sampled_from(calling))
            by_size = sorted(spec[i].calls, key=lambda c: len(c.args), reverse=draw(st.booleans()))
            spec = _with_calls(spec, i, by_size)
        elif kind == "move" and len(calling) >= 2:
            src, dst = draw(st.permutations(calling))[:2]
            moved = list(spec[src].calls)
            call = moved.pop(draw(st.integers(0, len(moved) - 1)))
            spec = _with_calls(spec, src, moved)
            target = list(spec[dst].calls)
            target.insert(draw(st.integers(0, len(target))), call)
            spec = _with_calls(spec, dst, target)
        elif kind == "drop_call" and calling:
            i = draw(st.sampled_from(calling))
            rest = list(spec[i].calls)
            rest.pop(draw(st.integers(0, len(rest) - 1)))
            spec = _with_calls(spec, i, rest)
        elif kind in ("add_call", "duplicate_call") and _assistants(spec):
            i = draw(st.sampled_from(_assistants(spec)))
            every = [c for m in spec for c in m.calls]
            if kind == "duplicate_call" and every:
                call = draw(st.sampled_from(every))
            else:
                call = draw(calls)
            grown = list(spec[i].calls)
            grown.insert(draw(st.integers(0, len(grown))), call)
            spec = _with_calls(spec, i, grown)
        elif kind == "twin_value" and calling:
            i = draw(st.sampled_from(calling))
            j = draw(st.integers(0, len(spec[i].calls) - 1))
            call = spec[i].calls[j]
            new_calls = list(spec[i].calls)
            new_calls[j] = Call(call.name, _twin(call.args))
            spec = _with_calls(spec, i, new_calls)
        elif kind in ("change_value", "add_key", "drop_key") and calling:
            i = draw(st.sampled_from(calling))
            j = draw(st.integers(0, len(spec[i].calls) - 1))
            call = spec[i].calls[j]
            args = dict(call.args)
            if kind == "drop_key" and args:
                del args[draw(st.sampled_from(sorted(args)))]
            elif kind == "add_key" or not args:
                key = draw(st.sampled_from(ARG_KEYS))
                args[key] = draw(nested_values if key == "opts" else scalar_values)
            else:
                key = draw(st.sampled_from(sorted(args)))
                if key == "opts" and isinstance(args[key], dict):
                    args[key] = {
                        **args[key],
                        draw(st.sampled_from(NESTED_KEYS)): draw(scalar_values),
                    }
                else:
                    args[key] = draw(scalar_values)
            new_calls = list(spec[i].calls)
            new_calls[j] = Call(call.name, args)
            spec = _with_calls(spec, i, new_calls)
        elif kind == "drop_message" and len(spec) > 1:
            del spec[draw(st.integers(0, len(spec) - 1))]
        elif kind == "change_role":
            # Only messages without calls: openevals drops the calls of a non-assistant message.
            plain = [i for i, m in enumerate(spec) if not m.calls]
            if plain:
                i = draw(st.sampled_from(plain))
                spec[i] = Msg(draw(st.sampled_from(("user", "assistant", "tool", "system"))))
    return spec


# ---------------------------------------------------------------- rendering


@dataclass(frozen=True)
class Plan:
    """How to render a spec: per-message formats (cycled), role aliases, container, no-call form."""

    formats: tuple[str, ...]  # "oa_str" | "oa_dict" | "lc"
    aliases: bool
    container: str  # "list" | "state" | "single"
    no_calls: str  # "absent" | "empty" | "none": how an OpenAI assistant says "no tool calls"


FORMAT_CHOICES = {
    "openai": ("oa_str", "oa_dict"),
    "langchain": ("lc",),
    "mixed": ("oa_str", "oa_dict", "lc"),
}


def plans(kind: str) -> st.SearchStrategy[Plan]:
    """Render plans for ``kind`` ("openai", "langchain" or "mixed")."""
    return st.builds(
        Plan,
        st.lists(st.sampled_from(FORMAT_CHOICES[kind]), min_size=1, max_size=4).map(tuple),
        st.booleans(),
        st.sampled_from(("list", "list", "state", "single")),
        st.sampled_from(("absent", "empty", "none")),
    )


_ALIASES = {"user": "human", "assistant": "ai"}


def _render_message(msg: Msg, index: int, fmt: str, plan: Plan) -> dict[str, Any] | BaseMessage:
    text = f"text {index}"
    if fmt == "lc":
        if msg.role == "user":
            return HumanMessage(content=text)
        if msg.role == "system":
            return SystemMessage(content=text)
        if msg.role == "tool":
            return ToolMessage(content=text, tool_call_id=f"call_{index}")
        return AIMessage(
            content="" if msg.calls else text,
            tool_calls=[
                {"name": c.name, "args": json.loads(json.dumps(c.args)), "id": f"call_{index}_{k}"}
                for k, c in enumerate(msg.calls)
            ],
        )
    role = _ALIASES.get(msg.role, msg.role) if plan.aliases else msg.role
    message: dict[str, Any] = {"role": role, "content": "" if msg.calls else text}
    if msg.role == "tool":
        message["tool_call_id"] = f"call_{index}"
    if msg.calls:
        message["tool_calls"] = [
            {
                "id": f"call_{index}_{k}",
                "type": "function",
                "function": {
                    "name": c.name,
                    "arguments": json.dumps(c.args)
                    if fmt == "oa_str"
                    else json.loads(json.dumps(c.args)),
                },
            }
            for k, c in enumerate(msg.calls)
        ]
    elif msg.role == "assistant" and plan.no_calls != "absent":
        message["tool_calls"] = [] if plan.no_calls == "empty" else None
    return message


def render(spec: Spec, plan: Plan) -> Any:
    """The spec as a trajectory input, following ``plan``."""
    messages = [
        _render_message(m, i, plan.formats[i % len(plan.formats)], plan) for i, m in enumerate(spec)
    ]
    if plan.container == "state":
        return {"messages": messages}
    if plan.container == "single" and len(messages) == 1 and isinstance(messages[0], dict):
        return messages[0]
    return messages


# ---------------------------------------------------------------- brute-force oracle


def json_eq(a: Any, b: Any) -> bool:
    """Equality of JSON values: bools are not numbers, ints equal floats of the same value."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_eq(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_eq(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def py_eq(a: Any, b: Any) -> bool:
    """Python equality, as openevals compares values."""
    return bool(a == b)


Eq = Callable[[Any, Any], bool]
Override = str | list[str] | Callable[[dict[str, Any], dict[str, Any]], bool]
_ABSENT = object()


def _path(args: Any, path: str) -> Any:
    for part in path.split("."):
        if not isinstance(args, dict) or part not in args:
            return _ABSENT
        args = args[part]
    return args


def args_related(rule: Override, out: dict[str, Any], ref: dict[str, Any], eq: Eq) -> bool:
    """Whether output args match reference args under one rule (mode, key list or callable)."""
    if callable(rule):
        return bool(rule(out, ref))
    if isinstance(rule, list):
        values = [(_path(out, k), _path(ref, k)) for k in rule]
        return all(o is not _ABSENT and r is not _ABSENT and eq(o, r) for o, r in values)
    if rule == "ignore":
        return True
    if rule == "exact":
        return eq(out, ref)
    if rule == "subset":
        return all(k in ref and eq(ref[k], v) for k, v in out.items())
    assert rule == "superset"
    return all(k in out and eq(out[k], v) for k, v in ref.items())


def related(
    out: Call, ref: Call, args_mode: str, overrides: dict[str, Override] | None, eq: Eq
) -> bool:
    if out.name != ref.name:
        return False
    rule = (overrides or {}).get(out.name) or args_mode
    return args_related(rule, out.args, ref.args, eq)


def injection_exists(
    small: Sequence[Any], big: Sequence[Any], rel: Callable[[Any, Any], bool]
) -> bool:
    """Whether every item of ``small`` pairs with a distinct item of ``big`` (by permutations)."""
    if len(small) > len(big):
        return False
    table = [[rel(s, b) for b in big] for s in small]
    return any(
        all(table[i][j] for i, j in enumerate(choice))
        for choice in itertools.permutations(range(len(big)), len(small))
    )


def oracle(
    out: Spec,
    ref: Spec,
    mode: str,
    args_mode: str,
    overrides: dict[str, Override] | None,
    eq: Eq,
) -> bool:
    """The verdict under the mode's definition, by exhaustive search."""

    def rel(o: Call, r: Call) -> bool:
        return related(o, r, args_mode, overrides, eq)

    def rel_swapped(r: Call, o: Call) -> bool:
        return rel(o, r)

    if mode == "strict":
        if len(out) != len(ref):
            return False
        for o, r in zip(out, ref, strict=True):
            if o.role != r.role or bool(o.calls) != bool(r.calls):
                return False
            if len(o.calls) != len(r.calls) or not injection_exists(o.calls, r.calls, rel):
                return False
        return True
    out_calls = [c for m in out for c in m.calls]
    ref_calls = [c for m in ref for c in m.calls]
    if mode == "unordered":
        return len(out_calls) == len(ref_calls) and injection_exists(out_calls, ref_calls, rel)
    if mode == "subset":
        return injection_exists(out_calls, ref_calls, rel)
    return injection_exists(ref_calls, out_calls, rel_swapped)


# ---------------------------------------------------------------- bool replacement


def _debool_value(value: Any) -> Any:
    if isinstance(value, bool):
        return f"<bool {value}>"
    if isinstance(value, dict):
        return {k: _debool_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_debool_value(v) for v in value]
    return value


def debool(spec: Spec) -> Spec:
    """The spec with every bool in any args replaced by a distinctive string."""
    return [
        replace(m, calls=tuple(Call(c.name, _debool_value(c.args)) for c in m.calls)) for m in spec
    ]


def has_bool(spec: Spec) -> bool:
    return debool(spec) != spec


# ---------------------------------------------------------------- the check


def _scores(
    out: Any, ref: Any, mode: str, args_mode: str, overrides: dict[str, Override] | None
) -> tuple[dict[str, Any], dict[str, Any]]:
    kwargs: dict[str, Any] = {
        "trajectory_match_mode": mode,
        "tool_args_match_mode": args_mode,
        "tool_args_match_overrides": overrides,
    }
    theirs = oe_create(**kwargs)(outputs=out, reference_outputs=ref)
    ours = create_trajectory_match_evaluator(**kwargs)(outputs=out, reference_outputs=ref)
    return dict(theirs), dict(ours)


def check_agreement(
    out_spec: Spec,
    ref_spec: Spec,
    out_plan: Plan,
    ref_plan: Plan,
    mode: str,
    args_mode: str,
    overrides: dict[str, Override] | None = None,
) -> None:
    """Run both implementations and allow only the documented disagreements (a) and (b)."""
    out, ref = render(out_spec, out_plan), render(ref_spec, ref_plan)
    theirs, ours = _scores(out, ref, mode, args_mode, overrides)
    context = f"outputs={out!r}\nreference_outputs={ref!r}\nours={ours!r}\ntheirs={theirs!r}"
    assert ours["key"] == theirs["key"] == f"trajectory_{mode}_match", context
    assert isinstance(ours["score"], bool), context
    assert ours["score"] is oracle(out_spec, ref_spec, mode, args_mode, overrides, json_eq), context
    assert (ours["comment"] is None) is ours["score"], context
    if ours["score"] == theirs["score"]:
        return
    if ours["score"]:
        # (a) openevals' greedy pairing missed a pairing that exists even under its own equality.
        assert oracle(out_spec, ref_spec, mode, args_mode, overrides, py_eq), context
        return
    # (b) openevals matched only because it takes True for 1 (and False for 0).
    assert has_bool(out_spec) or has_bool(ref_spec), context
    out_d, ref_d = debool(out_spec), debool(ref_spec)
    theirs_d, ours_d = _scores(
        render(out_d, out_plan), render(ref_d, ref_plan), mode, args_mode, overrides
    )
    assert theirs_d["key"] == ours_d["key"], context
    if ours_d["score"] != theirs_d["score"]:
        assert ours_d["score"], context
        assert oracle(out_d, ref_d, mode, args_mode, overrides, json_eq), context
        assert oracle(out_d, ref_d, mode, args_mode, overrides, py_eq), context


@st.composite
def cases(draw: st.DrawFn, kind: str) -> tuple[Spec, Spec, Plan, Plan]:
    """An output spec, a perturbed reference spec (sides sometimes swapped) and render plans."""
    base = draw(specs())
    other = draw(perturbed(base))
    if draw(st.booleans()):
        base, other = other, base
    return base, other, draw(plans(kind)), draw(plans(kind))


SETTINGS = settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@pytest.mark.parametrize("args_mode", ARGS_MODES)
@pytest.mark.parametrize("mode", TRAJECTORY_MODES)
@SETTINGS
@given(data=st.data())
def test_same_answers_as_openevals(mode: str, args_mode: str, data: st.DataObject) -> None:
    kind = data.draw(st.sampled_from(("openai", "langchain", "mixed")), label="kind")
    out_spec, ref_spec, out_plan, ref_plan = data.draw(cases(kind), label="case")
    check_agreement(out_spec, ref_spec, out_plan, ref_plan, mode, args_mode)


def _same_q(out: dict[str, Any], ref: dict[str, Any]) -> bool:
    """A callable override: an equivalence on the ``q`` key."""
    return out.get("q", "-") == ref.get("q", "-")


def _fewer_keys(out: dict[str, Any], ref: dict[str, Any]) -> bool:
    """A callable override that is not an equivalence, so first-fit pairing can go wrong."""
    return len(out) <= len(ref)


OVERRIDES: dict[str, dict[str, Override]] = {
    "mode strings": {"search": "subset", "lookup": "ignore", "fetch": "exact"},
    "superset string": {"lookup": "superset"},
    "key list": {"search": ["q"], "fetch": ["q", "n"]},
    "dotted key": {"lookup": ["opts.lang"], "search": ["opts.k", "n"]},
    "callable": {"search": _same_q, "fetch": _fewer_keys},
    "everything": {"search": ["opts.lang"], "lookup": _fewer_keys, "fetch": "superset"},
}


@pytest.mark.parametrize("overrides", OVERRIDES.values(), ids=OVERRIDES.keys())
@pytest.mark.parametrize("mode", TRAJECTORY_MODES)
@settings(SETTINGS, max_examples=15)
@given(data=st.data())
def test_same_answers_as_openevals_with_overrides(
    mode: str, overrides: dict[str, Override], data: st.DataObject
) -> None:
    args_mode = data.draw(st.sampled_from(ARGS_MODES), label="args_mode")
    kind = data.draw(st.sampled_from(("openai", "langchain", "mixed")), label="kind")
    out_spec, ref_spec, out_plan, ref_plan = data.draw(cases(kind), label="case")
    check_agreement(out_spec, ref_spec, out_plan, ref_plan, mode, args_mode, overrides)


# ---------------------------------------------------------------- the documented differences


def _assistant(*tool_calls: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {"id": f"c{i}", "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
            for i, (n, a) in enumerate(tool_calls)
        ],
    }


def test_greedy_pairing_false_negative_is_a_match_here() -> None:
    """Case (a) by hand: the first output call can take either reference, the second only one."""
    outputs = [_assistant(("search", {"q": "a"}), ("search", {"q": "a", "n": 1}))]
    reference = [_assistant(("search", {"q": "a", "n": 1}), ("search", {"q": "a", "n": 2}))]
    kwargs: dict[str, Any] = {"trajectory_match_mode": "strict", "tool_args_match_mode": "subset"}
    assert oe_create(**kwargs)(outputs=outputs, reference_outputs=reference)["score"] is False
    ours = create_trajectory_match_evaluator(**kwargs)(outputs=outputs, reference_outputs=reference)
    assert ours["score"] is True


def test_true_is_not_one_here() -> None:
    """Case (b) by hand: openevals says ``true`` equals ``1``; JSON says it does not."""
    outputs = [_assistant(("search", {"n": True}))]
    reference = [_assistant(("search", {"n": 1}))]
    assert oe_create()(outputs=outputs, reference_outputs=reference)["score"] is True
    assert (
        create_trajectory_match_evaluator()(outputs=outputs, reference_outputs=reference)["score"]
        is False
    )


# ---------------------------------------------------------------- the seed example


def _agent_run() -> list[BaseMessage]:
    """What the weather agent returned: LangChain messages with its own ids and wording."""
    return [
        HumanMessage(content="What's the weather in 苏州?", id="m1"),
        AIMessage(
            content="",
            tool_calls=[{"name": "look_up_location_code", "args": {"city": "苏州"}, "id": "t1"}],
            id="m2",
        ),
        ToolMessage(content="location-123", tool_call_id="t1", id="m3"),
        AIMessage(
            content="",
            tool_calls=[
                {"name": "get_weather", "args": {"location_code": "location-123"}, "id": "t2"}
            ],
            id="m4",
        ),
        ToolMessage(content="Sunny, 22°C", tool_call_id="t2", id="m5"),
        AIMessage(content="In 苏州 it is sunny and 22°C.", id="m6"),
    ]


def _both(outputs: Any, reference: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    theirs = oe_create(trajectory_match_mode="strict")(outputs=outputs, reference_outputs=reference)
    ours = create_trajectory_match_evaluator(trajectory_match_mode="strict")(
        outputs=outputs, reference_outputs=reference
    )
    return dict(theirs), dict(ours)


def test_seed_weather_agent_matches_in_strict_mode(seed_reference: list[dict[str, Any]]) -> None:
    theirs, ours = _both({"messages": _agent_run()}, seed_reference)
    assert theirs["score"] is True
    assert ours == {
        "key": "trajectory_strict_match",
        "score": True,
        "comment": None,
        "metadata": None,
    }


def test_seed_weather_agent_wrong_location_code_fails(
    seed_reference: list[dict[str, Any]],
) -> None:
    seed_reference[3]["tool_calls"][0]["function"]["arguments"] = json.dumps(
        {"location_code": "location-999"}
    )
    theirs, ours = _both({"messages": _agent_run()}, seed_reference)
    assert theirs["score"] is False
    assert ours["key"] == theirs["key"] == "trajectory_strict_match"
    assert ours["score"] is False
    comment = ours["comment"]
    assert comment is not None
    assert "get_weather" in comment
    assert "location_code" in comment
    assert "location-999" in comment
    assert "look_up_location_code" not in comment  # the first call matched
