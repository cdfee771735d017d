"""The Ragas-named metrics against Ragas 0.4.3 itself, on generated cases.

Ragas needs packages that conflict with this environment's, so it lives in its own virtualenv
(``make .venv-ragas``, which ``make test`` builds). Every case is scored there by
``tests/ragas_scores.py`` in one subprocess call (cases in, scores out, as JSON), with both of
Ragas' classes of each metric; here by the package's evaluators with their defaults. The scores
must be equal on every generated case, but for the two deliberate differences the generator
makes: F1 of a case with repeated calls must equal Ragas' F1 of it once the repeats are dropped
(Ragas counts a set), and F1 of no calls against none is 1.0 here. The generated argument values
are ones where Ragas' own comparisons (``str()`` text for tool-call accuracy, Python equality
for F1) agree with JSON equality; where they do not, and on the other deliberate differences,
the documented examples (docs/differences.md) are checked against Ragas too: Ragas' number and
this package's.

The LLM metrics get the same scripted judge verdicts on both sides: Ragas through a stand-in for
its LLM, this package through a scripted chat model; no model or network is used.
"""

from __future__ import annotations

import copy
import json
import math
import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from judge_models import score_call
from scripted_agents import ScriptedChatModel

from pytest_agenttraj import (
    create_agent_goal_accuracy_evaluator,
    create_tool_call_accuracy_evaluator,
    create_tool_call_f1_evaluator,
    create_topic_adherence_evaluator,
)
from pytest_agenttraj.evaluators import scope

ROOT = Path(__file__).resolve().parent.parent
RAGAS_PYTHON = ROOT / ".venv-ragas" / "bin" / "python"
SCORER = Path(__file__).resolve().parent / "ragas_scores.py"
TOLERANCE = 1e-9

Call = dict[str, Any]
Case = dict[str, Any]

# ---------------------------------------------------------------- generated cases

NAMES = ["search", "fetch", "book"]
KEYS = ["q", "n", "at"]
# Values whose str() texts are equal exactly when they are equal as JSON values, and that Python
# equality also keeps apart (no 1 beside True, no 2 beside 2.0, one key order per object).
VALUES: list[Any] = [
    2,
    3,
    0.5,
    2.5,
    "p",
    "q",
    "",
    True,
    False,
    None,
    [2],
    [2, "p"],
    [],
    {"k": 2},
    {"k": "p", "m": [3]},
    {},
]


def _args(rng: random.Random) -> dict[str, Any]:
    keys = rng.sample(KEYS, rng.choice([0, 1, 1, 2, 2, 3]))
    return {key: copy.deepcopy(rng.choice(VALUES)) for key in keys}


def _call(rng: random.Random) -> Call:
    return {"name": rng.choice(NAMES), "args": _args(rng)}


def _change_value(rng: random.Random, made: list[Call]) -> None:
    args = rng.choice(made)["args"]
    if args:
        args[rng.choice(list(args))] = copy.deepcopy(rng.choice(VALUES))


def _drop_key(rng: random.Random, made: list[Call]) -> None:
    args = rng.choice(made)["args"]
    if args:
        del args[rng.choice(list(args))]


def _add_key(rng: random.Random, made: list[Call]) -> None:
    rng.choice(made)["args"][rng.choice(KEYS)] = copy.deepcopy(rng.choice(VALUES))


def _insert_call(rng: random.Random, made: list[Call]) -> None:
    made.insert(rng.randint(0, len(made)), _call(rng))


def _repeat_call(rng: random.Random, made: list[Call]) -> None:
    made.insert(rng.randint(0, len(made)), copy.deepcopy(rng.choice(made)))


def _delete_call(rng: random.Random, made: list[Call]) -> None:
    del made[rng.randrange(len(made))]


def _swap_calls(rng: random.Random, made: list[Call]) -> None:
    i, j = rng.randrange(len(made)), rng.randrange(len(made))
    made[i], made[j] = made[j], made[i]


def _rename_call(rng: random.Random, made: list[Call]) -> None:
    rng.choice(made)["name"] = rng.choice(NAMES)


def _clear_args(rng: random.Random, made: list[Call]) -> None:
    rng.choice(made)["args"] = {}


# Edits of arguments twice as often as edits of the sequence, which mostly break alignment.
MUTATIONS: list[Callable[[random.Random, list[Call]], None]] = [
    *[_change_value, _drop_key, _add_key, _clear_args] * 2,
    _insert_call,
    _repeat_call,
    _delete_call,
    _swap_calls,
    _rename_call,
]


def _messages(rng: random.Random, made: list[Call]) -> list[list[Call]]:
    """The output calls split into assistant messages (several calls in one are parallel);
    now and then a message without calls."""
    messages: list[list[Call]] = []
    rest = list(made)
    while rest:
        if rng.random() < 0.1:
            messages.append([])
        size = rng.choice([1, 1, 1, 2, 3])
        messages.append(rest[:size])
        rest = rest[size:]
    return messages


def tool_case(rng: random.Random) -> Case:
    """A reference and an output made from it by a few edits (or, now and then, unrelated);
    one reference in five calls one tool several times, where pairing the calls matters."""
    reference = [_call(rng) for _ in range(rng.choice([0, 1, 2, 2, 3, 3, 4]))]
    if rng.random() < 0.2:
        name = rng.choice(NAMES)
        reference = [{"name": name, "args": _args(rng)} for _ in range(rng.randint(2, 4))]
    if rng.random() < 0.15:
        made = [_call(rng) for _ in range(rng.randint(0, 4))]
    else:
        made = copy.deepcopy(reference)
        for _ in range(rng.choice([0, 1, 1, 2, 3])):
            if made:
                rng.choice(MUTATIONS)(rng, made)
            else:
                _insert_call(rng, made)
    return {"messages": _messages(rng, made), "reference": reference}


def topic_case(rng: random.Random) -> Case:
    count = rng.choice([0, 1, 2, 3, 4, 5])
    return {
        "metric": "topic_adherence",
        "mode": rng.choice(["precision", "recall", "f1"]),
        "topics": [f"topic {n}" for n in range(count)],
        "refused": [rng.random() < 0.4 for _ in range(count)],
        "classifications": [rng.random() < 0.6 for _ in range(count)],
        "reference_topics": ["weather"],
    }


def goal_cases() -> list[Case]:
    return [
        {
            "metric": "agent_goal_accuracy",
            "reference": reference,
            "user_goal": "Know the weather in Paris",
            "end_state": end_state,
            "verdict": verdict,
        }
        for reference in (None, "The user knows it is sunny in Paris")
        for end_state, verdict in (("Told it is sunny", "1"), ("Told nothing", "0"))
    ]


# ---------------------------------------------------------------- documented differences


def _f(**args: Any) -> Call:
    return {"name": "f", "args": args}


def _accuracy(made: Call, expected: Call) -> Case:
    return {
        "metric": "tool_call_accuracy",
        "strict_order": True,
        "messages": [[made]],
        "reference": [expected],
    }


def _f1(made: list[Call], expected: list[Call]) -> Case:
    return {"metric": "tool_call_f1", "messages": [made] if made else [], "reference": expected}


def _topics(mode: str, refused: list[bool], allowed: list[bool]) -> Case:
    return {
        "metric": "topic_adherence",
        "mode": mode,
        "topics": [f"topic {n}" for n in range(len(refused))],
        "refused": refused,
        "classifications": allowed,
        "reference_topics": ["weather"],
    }


# (what, the case, Ragas' score, this package's score): every example docs/differences.md gives
# under "Ragas-named metrics", with both numbers it states. A NaN is the newer Ragas class's
# answer where its older one says 0.0.
DOCUMENTED: list[tuple[str, Case, float, float]] = [
    ("F1: a repeated call", _f1([_f(x=1), _f(x=1)], [_f(x=1)]), 1.0, 0.6667),
    ("F1: no calls against none", _f1([], []), 0.0, 1.0),
    (
        "accuracy: no calls against none",
        {**_f1([], []), "metric": "tool_call_accuracy", "strict_order": True},
        1.0,
        1.0,
    ),
    ("accuracy: 1 equals 1.0", _accuracy(_f(n=1.0), _f(n=1)), 0.0, 1.0),
    ("F1: 1 equals 1.0", _f1([_f(n=1.0)], [_f(n=1)]), 1.0, 1.0),
    ('accuracy: 1 is not "1"', _accuracy(_f(n=1), _f(n="1")), 1.0, 0.0),
    ('F1: 1 is not "1"', _f1([_f(n=1)], [_f(n="1")]), 0.0, 0.0),
    ('accuracy: null is not "None"', _accuracy(_f(n=None), _f(n="None")), 1.0, 0.0),
    ('accuracy: true is not "True"', _accuracy(_f(n=True), _f(n="True")), 1.0, 0.0),
    ("F1: true is not 1", _f1([_f(flag=True)], [_f(flag=1)]), 1.0, 0.0),
    ("accuracy: true is not 1", _accuracy(_f(flag=True), _f(flag=1)), 0.0, 0.0),
    (
        "accuracy: an object's key order",
        _accuracy(_f(o={"b": 2, "a": 1}), _f(o={"a": 1, "b": 2})),
        0.0,
        1.0,
    ),
    (
        "topic adherence: one topic, answered, allowed",
        _topics("f1", [False], [True]),
        0.99999999985,
        1.0,
    ),
    (
        "topic adherence: nothing answered",
        _topics("precision", [True, True], [True, False]),
        0.0,
        0.0,
    ),
    ("topic adherence: nothing allowed", _topics("recall", [False], [False]), 0.0, 0.0),
    ("topic adherence: no topics", _topics("f1", [], []), math.nan, 0.0),
]


# ---------------------------------------------------------------- both sides' scores


def ragas_scores(cases: list[Case]) -> list[dict[str, float]]:
    """Every case scored by Ragas, in one call of the Ragas environment's python."""
    if not RAGAS_PYTHON.exists():
        pytest.fail(
            f"the Ragas environment is missing ({RAGAS_PYTHON.parent.parent.name}): run "
            "`make .venv-ragas` (`make test` builds it)",
            pytrace=False,
        )
    done = subprocess.run(
        [str(RAGAS_PYTHON), str(SCORER)],
        input=json.dumps({"cases": cases}),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    if done.returncode != 0:
        pytest.fail(f"Ragas could not score the cases:\n{done.stderr[-3000:]}", pytrace=False)
    scores: list[dict[str, float]] = json.loads(done.stdout)
    assert len(scores) == len(cases)
    return scores


def _conversation(messages: list[list[Call]], text_args: bool) -> list[dict[str, Any]]:
    """The case's conversation as chat messages; ``text_args``: OpenAI's form, arguments as
    JSON text."""
    conversation: list[dict[str, Any]] = [{"role": "user", "content": "Please help."}]
    number = 0
    for made in messages:
        if not made:
            conversation.append({"role": "assistant", "content": "Let me see."})
            continue
        calls = []
        for call in made:
            number += 1
            if text_args:
                function = {"name": call["name"], "arguments": json.dumps(call["args"])}
                calls.append({"id": f"call_{number}", "type": "function", "function": function})
            else:
                calls.append({"name": call["name"], "args": call["args"]})
        conversation.append({"role": "assistant", "content": "", "tool_calls": calls})
    return conversation


ACCURACY = {
    True: create_tool_call_accuracy_evaluator(),
    False: create_tool_call_accuracy_evaluator(strict_order=False),
}
F1 = create_tool_call_f1_evaluator()


def _topic_score(case: Case) -> float:
    judged = [
        {"topic": topic, "answered": not refused, "allowed": allowed}
        for topic, refused, allowed in zip(
            case["topics"], case["refused"], case["classifications"], strict=True
        )
    ]
    judge = ScriptedChatModel([score_call("topic_adherence", reasoning="scripted", topics=judged)])
    evaluator = create_topic_adherence_evaluator(
        reference_topics=case["reference_topics"], mode=case["mode"], judge=judge
    )
    return float(evaluator(outputs=_conversation([], False))["score"])


def _goal_score(case: Case) -> float:
    answer = {
        "reasoning": "scripted",
        "user_goal": case["user_goal"],
        "end_state": case["end_state"],
        "achieved": case["verdict"] == "1",
    }
    judge = ScriptedChatModel([score_call("agent_goal_accuracy", **answer)])
    evaluator = create_agent_goal_accuracy_evaluator(judge=judge)
    reference = case["reference"]
    return float(evaluator(outputs=_conversation([], False), reference_outputs=reference)["score"])


def our_score(case: Case, number: int) -> float:
    """This package's score of ``case``, with every evaluator's defaults (kept out of this
    test's own results, which would list every evaluation)."""
    with scope.test_scope(scope.TestScope(on_evaluation=lambda _: None)):
        return _score(case, number)


def _score(case: Case, number: int) -> float:
    metric = case["metric"]
    if metric == "topic_adherence":
        return _topic_score(case)
    if metric == "agent_goal_accuracy":
        return _goal_score(case)
    outputs = _conversation(case["messages"], text_args=number % 2 == 1)
    if metric == "tool_call_f1":
        return float(F1(outputs=outputs, reference_outputs=case["reference"])["score"])
    evaluator = ACCURACY[case["strict_order"]]
    return float(evaluator(outputs=outputs, reference_outputs=case["reference"])["score"])


def _same(one: float, other: float) -> bool:
    return abs(one - other) <= TOLERANCE


def _text(call: Call) -> str:
    return json.dumps(call, sort_keys=True)


def _without_repeats(case: Case) -> Case:
    """``case`` with each side's repeated calls made once (the first time): what Ragas' F1,
    which collects each side's calls into a set, sees."""

    def once(calls: list[Call], seen: set[str]) -> list[Call]:
        kept = []
        for call in calls:
            if _text(call) not in seen:
                seen.add(_text(call))
                kept.append(call)
        return kept

    made: set[str] = set()
    messages = [once(message, made) for message in case["messages"]]
    return {**case, "messages": messages, "reference": once(case["reference"], set())}


def _has_repeats(case: Case) -> bool:
    made = [_text(c) for message in case["messages"] for c in message]
    reference = [_text(c) for c in case["reference"]]
    return len(set(made)) < len(made) or len(set(reference)) < len(reference)


def _f1_as_ragas(case: Case, number: int) -> float:
    """This package's F1 with the documented differences taken out: no calls on either side
    scores 0 in Ragas, and Ragas counts repeated calls once."""
    if not case["reference"] and not any(case["messages"]):
        assert our_score(case, number) == 1.0
        return 0.0
    return our_score(_without_repeats(case) if _has_repeats(case) else case, number)


def _describe(case: Case) -> str:
    shown = {k: v for k, v in case.items() if k != "metric"}
    return json.dumps(shown, ensure_ascii=False)


# ---------------------------------------------------------------- the test


def generated_cases(seed: int = 20240611) -> list[Case]:
    rng = random.Random(seed)
    cases: list[Case] = []
    for _ in range(600):
        case = tool_case(rng)
        cases.append({"metric": "tool_call_accuracy", "strict_order": True, **case})
        cases.append({"metric": "tool_call_accuracy", "strict_order": False, **case})
        cases.append({"metric": "tool_call_f1", **case})
    cases.extend(topic_case(rng) for _ in range(150))
    cases.extend(goal_cases())
    return cases


def _label(case: Case) -> str:
    metric = case["metric"]
    if metric == "tool_call_accuracy":
        return f"{metric} ({'strict' if case['strict_order'] else 'any'} order)"
    if metric == "topic_adherence":
        return f"{metric} ({case['mode']})"
    return str(metric)


@pytest.mark.subprocess
def test_ragas_named_metrics_give_ragas_scores() -> None:
    """One Ragas call scores every generated case and every documented difference; the
    generated ones must score the same here, the documented ones as the docs say."""
    generated = generated_cases()
    documented = [case for _, case, _, _ in DOCUMENTED]
    scores = ragas_scores(generated + documented)
    differing: dict[str, list[str]] = {}
    counts: dict[str, int] = {}
    for number, (case, theirs) in enumerate(zip(generated, scores[: len(generated)], strict=True)):
        label = _label(case)
        counts[label] = counts.get(label, 0) + 1
        if case["metric"] == "tool_call_f1":
            ours = _f1_as_ragas(case, number)
        else:
            ours = our_score(case, number)
        ragas = theirs["collections"]
        if math.isnan(ragas) and case["metric"] == "topic_adherence" and not case["topics"]:
            ragas = theirs["legacy"]  # the newer class: NaN without topics (documented)
        assert _same(theirs["legacy"], ragas), f"Ragas' two classes disagree on {case}"
        if not _same(ours, ragas):
            differing.setdefault(label, []).append(
                f"ours {ours:.4f}, ragas {ragas:.4f}: {_describe(case)}"
            )
    report = [
        f"{label}: {len(found)} of {counts[label]} cases differ; e.g. " + "; ".join(found[:3])
        for label, found in differing.items()
    ]
    assert not differing, "\n".join(report)
    assert min(counts.values()) >= 4, counts

    for (what, case, ragas, ours), theirs in zip(DOCUMENTED, scores[len(generated) :], strict=True):
        if math.isnan(ragas):
            assert math.isnan(theirs["collections"]), (what, theirs)
            assert theirs["legacy"] == ours, (what, theirs)
        else:
            assert _same(theirs["collections"], ragas), (what, theirs)
            assert _same(theirs["legacy"], ragas), (what, theirs)
        assert _same(our_score(case, 0), ours), what


def test_generated_cases_cover_what_differed() -> None:
    """The generator makes the cases where the scores used to part: extra calls between the
    expected ones, expected calls without arguments against calls with some, same-named calls
    in another order, repeated calls, both sides empty, nothing answered."""
    cases = generated_cases()
    tool = [c for c in cases if c["metric"] == "tool_call_f1"]

    def names(calls: list[Call]) -> list[str]:
        return [c["name"] for c in calls]

    def made(case: Case) -> list[Call]:
        return [call for message in case["messages"] for call in message]

    assert any(
        len(made(c)) > len(c["reference"]) and names(c["reference"]) != names(made(c)) for c in tool
    )
    assert any(
        not ref["args"] and out["args"] and ref["name"] == out["name"]
        for c in tool
        for ref, out in zip(c["reference"], made(c), strict=False)
    )
    assert any(
        sorted(names(made(c))) == sorted(names(c["reference"]))
        and names(made(c)) != names(c["reference"])
        for c in tool
    )
    assert any(len({json.dumps(x, sort_keys=True) for x in made(c)}) < len(made(c)) for c in tool)
    assert any(not c["messages"] and not c["reference"] for c in tool)
    topics = [c for c in cases if c["metric"] == "topic_adherence"]
    assert any(c["topics"] and all(c["refused"]) for c in topics)
    assert any(not c["topics"] for c in topics)


def test_a_missing_ragas_environment_says_how_to_build_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(sys.modules[__name__], "RAGAS_PYTHON", tmp_path / "bin" / "python")
    with pytest.raises(pytest.fail.Exception, match=r"run `make \.venv-ragas`"):
        ragas_scores([])
