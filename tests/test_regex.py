"""``Regex`` matches in time linear in the text: Python's syntax and answers on the patterns it
accepts (checked against ``re.fullmatch``), a clear refusal of the ones that need
backtracking, and pathological patterns decided on 100,000-character arguments."""

from __future__ import annotations

import re
from typing import Any

import pytest
from deadline import deadline
from hypothesis import HealthCheck, given, settings, strategies as st

from pytest_agenttraj import Regex, create_trajectory_match_evaluator

LONG = 100_000
GENEROUS = 10.0  # seconds; RE2 takes milliseconds, Python's re days

# ---------------------------------------------------------------- patterns Python and RE2 share

ATOMS = [
    "a",
    "b",
    "A",
    "苏",
    "é",
    "1",
    "٣",
    "_",
    " ",
    r"\.",
    r"\n",
    ".",
    r"\d",
    r"\D",
    r"\w",
    r"\W",
    r"\s",
    r"\S",
    "[a-c]",
    "[^a]",
    r"[\w-]",
    r"[^\d\s]",
    r"[\Sx]",
    "[A-Z]",
    "[é苏]",
    "[^é]",
    "[Z-b]",
]
QUANTIFIERS = ["*", "+", "?", "*?", "+?", "??", "{2}", "{1,3}", "{0,2}?", "{2,}"]
FLAGS = {"i": re.IGNORECASE, "m": re.MULTILINE, "s": re.DOTALL, "a": re.ASCII}
# é and É fold together, as a and A do; letters whose case folding differs between Python's
# tables and RE2's (Kelvin sign, long s, dotless i) are left out
TEXT = st.text(alphabet="abAB苏é É1٣ _\n\t\u3000\x0b.-", max_size=10)


def _patterns(flags: int) -> st.SearchStrategy[str]:
    anchors = [r"\A", r"\Z", "^"] + (["$"] if flags & re.MULTILINE else [])
    if flags & re.ASCII:
        anchors += [r"\b"]
    atoms = st.sampled_from(ATOMS + anchors)

    def combine(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        return st.one_of(
            st.lists(inner, min_size=2, max_size=3).map("".join),
            st.lists(inner, min_size=2, max_size=3).map(lambda xs: f"(?:{'|'.join(xs)})"),
            inner.map(lambda x: f"({x})"),
            st.tuples(inner, st.sampled_from(QUANTIFIERS)).map(lambda t: f"(?:{t[0]}){t[1]}"),
            st.tuples(st.sampled_from(["i", "-i", "s", "a"]), inner).map(
                lambda t: f"(?{t[0]}:{t[1]})"
            ),
        )

    return st.recursive(atoms, combine, max_leaves=8)


@st.composite
def patterns(draw: st.DrawFn) -> tuple[str, int]:
    letters = draw(st.sets(st.sampled_from(sorted(FLAGS))))
    flags = 0
    for letter in letters:
        flags |= FLAGS[letter]
    pattern = draw(_patterns(flags))
    if not flags & re.ASCII and r"\b" in pattern:
        flags |= re.ASCII  # (?a:...) never scopes \b here: only the global flag allows it
    return pattern, flags


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pattern=patterns(), texts=st.lists(TEXT, min_size=1, max_size=8))
def test_regex_answers_as_re_fullmatch(pattern: tuple[str, int], texts: list[str]) -> None:
    source, flags = pattern
    try:
        python = re.compile(source, flags)
    except re.error:
        return  # e.g. (?a:...) under a global re.ASCII mixed with (?u:...): not a pattern
    matcher = Regex(source, flags)
    for text in texts:
        assert matcher.matches(text) == (python.fullmatch(text) is not None), (
            source,
            flags,
            text,
        )


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pattern=patterns(), seed=TEXT.filter(bool), tail=TEXT)
def test_any_accepted_pattern_decides_a_long_argument(
    pattern: tuple[str, int], seed: str, tail: str
) -> None:
    source, flags = pattern
    try:
        matcher = Regex(source, flags)
    except ValueError:
        return  # not a pattern Python accepts
    text = (seed * (LONG // len(seed) + 1))[:LONG] + tail
    with deadline(GENEROUS, f"Regex({source!r}) on {len(text)} characters"):
        matcher.matches(text)


# ---------------------------------------------------------------- what the old engine hung on

PATHOLOGICAL = [
    ("(a+)+$", "a" * LONG + "!", False),
    ("(a|aa)+$", "a" * LONG, True),
    ("(a|aa)+$", "a" * LONG + "!", False),
    ("(x+x+)+y", "x" * LONG, False),
    (r"(\w+\s?)+$", "word " * (LONG // 5) + "!", False),
    ("^(([a-z])+.)+[A-Z]([a-z])+$", "a" * LONG, False),
    ("(.*a){12}", "a" * LONG, True),
    ("(?i)(a|A)*(b|B)", "aA" * (LONG // 2), False),
]


@pytest.mark.parametrize(("pattern", "text", "expected"), PATHOLOGICAL)
def test_pathological_patterns_are_decided_on_long_arguments(
    pattern: str, text: str, expected: bool
) -> None:
    matcher = Regex(pattern)
    with deadline(GENEROUS, f"Regex({pattern!r})"):
        assert matcher.matches(text) is expected


def test_an_evaluator_with_a_pathological_reference_regex_decides() -> None:
    """The whole path: a reference call whose argument is ``Regex("(a+)+$")`` against an agent's
    argument of 100,000 ``a`` and a ``!``, the input a prompt injection would give."""
    evaluator = create_trajectory_match_evaluator(trajectory_match_mode="superset")

    def trajectory(query: Any) -> list[dict[str, Any]]:
        call = {"name": "search", "args": {"query": query}}
        return [{"role": "assistant", "content": "", "tool_calls": [call]}]

    with deadline(GENEROUS, "the evaluation"):
        result = evaluator(
            outputs=trajectory("a" * LONG + "!"), reference_outputs=trajectory(Regex("(a+)+$"))
        )
    assert result["score"] is False
    assert "query expected Regex('(a+)+$')" in str(result["comment"])


# ---------------------------------------------------------------- what is refused, and why


@pytest.mark.parametrize(
    ("pattern", "flags", "reason"),
    [
        (r"(a)\1", 0, r"a backreference (\1 or (?P=name)) is not supported"),
        (r"(?P<q>a)(?P=q)", 0, "a backreference"),
        ("(?=a)a", 0, "a lookahead is not supported"),
        ("(?!a)b", 0, "a negative lookahead is not supported"),
        ("(?<=a)b", 0, "a lookbehind is not supported"),
        ("(?<!a)b", 0, "a negative lookbehind is not supported"),
        ("(a)?(?(1)b|c)", 0, "a conditional group"),
        ("a{1001}", 0, "a repeat count above 1000 is not supported"),
        ("(?:a{1000}){1000}", 0, "RE2 cannot run it (invalid repetition size"),
        (r"\bSF\b", 0, r"\b (a word boundary) is supported only with the ASCII flag (a)"),
        (r"a\Bb", re.ASCII, r"\B (not a word boundary) is not supported"),
        (r"[^\Wx]", 0, r"a negated class holding \W, \D or \S beside other items"),
    ],
)
def test_what_needs_backtracking_is_refused_when_built(
    pattern: str, flags: int, reason: str
) -> None:
    with pytest.raises(ValueError, match=re.escape(f"invalid Regex {pattern!r}: {reason}")):
        Regex(pattern, flags)


@pytest.mark.skipif(not hasattr(re, "NOFLAG"), reason="atomic groups are Python 3.11+ syntax")
@pytest.mark.parametrize(
    ("pattern", "reason"),
    [("(?>a+)b", "an atomic group ((?>...))"), ("a++b", "a possessive repeat (*+, ++, ?+")],
)
def test_atomic_groups_and_possessive_repeats_are_refused(pattern: str, reason: str) -> None:
    with pytest.raises(ValueError, match=re.escape(reason)):
        Regex(pattern)


def test_what_python_rejects_keeps_pythons_message() -> None:
    with pytest.raises(
        ValueError, match=r"invalid Regex '\(': missing \), unterminated subpattern"
    ):
        Regex("(")


def test_word_boundaries_with_the_ascii_flag_and_unicode_classes() -> None:
    assert Regex(r".*\bSF\b.*", re.ASCII).matches("to SF now")
    assert not Regex(r".*\bSF\b.*", re.ASCII).matches("toSF")
    # without re.ASCII the classes are Unicode's, as in Python
    assert Regex(r"\w+").matches("苏州")
    assert Regex(r"\d+").matches("٣٤")
    assert Regex(r"\s").matches("\u3000")
    assert not Regex(r"\w+", re.ASCII).matches("苏州")
    # ASCII case folding only, under re.ASCII | re.IGNORECASE
    assert Regex("é|a", re.ASCII | re.IGNORECASE).matches("A")
    assert not Regex("é", re.ASCII | re.IGNORECASE).matches("É")
    assert Regex("é", re.IGNORECASE).matches("É")


def test_the_one_difference_from_re_dollar_before_a_final_newline() -> None:
    """Without MULTILINE, Python's ``$`` also matches before a final newline; here it matches
    only at the end. A full match hides the difference unless the pattern goes on after ``$``."""
    assert re.fullmatch("a$\n", "a\n") is not None
    assert not Regex("a$\n").matches("a\n")
    assert Regex("a$").matches("a") == (re.fullmatch("a$", "a") is not None)
    assert Regex("a$\n", re.MULTILINE).matches("a\n")


def test_a_lone_surrogate_is_a_character() -> None:
    assert Regex(".").matches("\ud800")
    assert Regex("x[^a]y").matches("x\udfffy")
