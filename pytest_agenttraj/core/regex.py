"""Regular expressions decided in time linear in the text: Python's ``re`` syntax and meaning,
less what needs backtracking, run by RE2 (the ``google-re2`` package).

The text a ``Regex`` reads is what an LLM wrote, which a prompt injection can steer; Python's
backtracking engine takes exponential time on patterns such as ``(a+)+$`` against a few dozen
characters. So a pattern is read with Python's own parser (its errors are ``re``'s), translated
to RE2 so that it means what it means in Python, and refused when it uses what RE2 cannot run:
backreferences, lookahead and lookbehind, conditional groups, atomic groups and possessive
repeats, repeat counts above 1,000, ``\\b`` without the ASCII flag (RE2's word boundary is ASCII
only, Python's Unicode) and ``\\B`` (which RE2 finds in an empty text, Python's ``re`` does not).
Outside that, a match is the match ``re.fullmatch`` finds, with one exception: ``$`` (without
MULTILINE) matches only at the very end of the text, where Python also matches it before a final
newline.

The parse tree comes from ``re``'s own parser module (``re._parser``, ``sre_parse`` before 3.11),
which is not public: an element this module does not know is refused, never guessed at.
RE2 is imported when the first pattern is compiled, never on import.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["UnsupportedPattern", "compile_linear", "to_re2"]

try:
    _parser: Any = importlib.import_module("re._parser")
except ImportError:  # Python 3.10
    _parser = importlib.import_module("sre_parse")

_MAX_REPEAT = 1000  # RE2's largest repeat count
_UNBOUNDED: int = _parser.MAXREPEAT

# What RE2 cannot run, by element of Python's parse tree: why, in a phrase.
_REFUSED = {
    "GROUPREF": r"a backreference (\1 or (?P=name))",
    "GROUPREF_EXISTS": "a conditional group ((?(1)yes|no))",
    "ATOMIC_GROUP": "an atomic group ((?>...))",
    "POSSESSIVE_REPEAT": "a possessive repeat (*+, ++, ?+ or {m,n}+)",
}

# Python's character categories for str patterns, as RE2 class items: (ASCII, Unicode).
_CATEGORIES = {
    "DIGIT": ("0-9", r"\p{Nd}"),
    "SPACE": (r"\t-\r ", r"\t-\r\x{1c}-\x{20}\x{85}\p{Z}"),
    "WORD": ("0-9A-Za-z_", r"\p{L}\p{N}_"),
}


class UnsupportedPattern(ValueError):
    """A valid Python pattern that needs what a linear-time engine does not do."""


def _char(code: int) -> str:
    """One character as RE2 reads it literally, in a class or out of one."""
    char = chr(code)
    return char if char.isascii() and (char.isalnum() or char == "_") else f"\\x{{{code:x}}}"


def _folds_ascii(flags: int) -> bool:
    """Whether case is ignored for ASCII letters only (``re.ASCII | re.IGNORECASE``), which RE2
    cannot say: the translation spells out both cases of each letter instead."""
    return bool(flags & re.IGNORECASE and flags & re.ASCII)


def _ignores_case(flags: int) -> bool:
    """Whether RE2 itself is to ignore case (Unicode case folding)."""
    return bool(flags & re.IGNORECASE and not flags & re.ASCII)


def _letter(code: int, flags: int) -> str:
    """A character as class items: with its other case where ASCII case is ignored."""
    char = chr(code)
    if _folds_ascii(flags) and char.isascii() and char.isalpha():
        return _char(code) + _char(ord(char.swapcase()))
    return _char(code)


def _literal(code: int, flags: int) -> str:
    items = _letter(code, flags)
    return items if items == _char(code) else f"[{items}]"


def _range(low: int, high: int, flags: int) -> str:
    """A range as class items: with the other case of its ASCII letters where that is ignored."""
    items = f"{_char(low)}-{_char(high)}"
    if _folds_ascii(flags):
        for first, last, shift in ((65, 90, 32), (97, 122, -32)):
            start, end = max(low, first), min(high, last)
            if start <= end:
                items += f"{_char(start + shift)}-{_char(end + shift)}"
    return items


def _category(name: str, flags: int) -> tuple[str, bool]:
    """A category (``CATEGORY_NOT_DIGIT``) as class items, and whether it is negated."""
    kind = name.removeprefix("CATEGORY_")
    negated = kind.startswith("NOT_")
    known = _CATEGORIES.get(kind.removeprefix("NOT_"))
    if known is None:
        raise UnsupportedPattern(f"the category {name} is not supported")
    ascii_items, unicode_items = known
    return (ascii_items if flags & re.ASCII else unicode_items), negated


def _class(items: Sequence[tuple[Any, Any]], flags: int) -> str:
    """``[...]``: Python's class items as one RE2 class, or an alternation of classes when
    it holds a negated category (``[\\Wx]``), which an RE2 class cannot."""
    negate = bool(items) and str(items[0][0]) == "NEGATE"
    plain: list[str] = []
    complements: list[str] = []
    for op, av in items[1:] if negate else items:
        name = str(op)
        if name == "LITERAL":
            plain.append(_letter(av, flags))
        elif name == "RANGE":
            plain.append(_range(av[0], av[1], flags))
        elif name == "CATEGORY":
            text, negated = _category(str(av), flags)
            (complements if negated else plain).append(text)
        else:
            raise UnsupportedPattern(f"{name} in a character class is not supported")
    if not negate:
        alternatives = ([f"[{''.join(plain)}]"] if plain else []) + [f"[^{c}]" for c in complements]
        return alternatives[0] if len(alternatives) == 1 else f"(?:{'|'.join(alternatives)})"
    if not complements:
        return f"[^{''.join(plain)}]"
    if not plain and len(complements) == 1:
        return f"[{complements[0]}]"  # [^\W] is \w
    raise UnsupportedPattern(
        r"a negated class holding \W, \D or \S beside other items (such as [^\Wx]) is not "
        "supported"
    )


def _repeat(lazy: bool, av: tuple[int, int, Any], flags: int) -> str:
    low, high, inner = av
    if low > _MAX_REPEAT or (high != _UNBOUNDED and high > _MAX_REPEAT):
        raise UnsupportedPattern(f"a repeat count above {_MAX_REPEAT} is not supported")
    if high == _UNBOUNDED:
        quantifier = {0: "*", 1: "+"}.get(low, f"{{{low},}}")
    elif low == high:
        quantifier = f"{{{low}}}"
    else:
        quantifier = "?" if (low, high) == (0, 1) else f"{{{low},{high}}}"
    return f"(?:{_sequence(inner, flags)}){quantifier}{'?' if lazy else ''}"


def _group(av: tuple[Any, int, int, Any], flags: int) -> str:
    _, added, removed, inner = av
    inside = (flags | added) & ~removed
    case = ""
    if _ignores_case(inside) != _ignores_case(flags):
        case = "i" if _ignores_case(inside) else "-i"
    return f"(?{case}:{_sequence(inner, inside)})"


def _anchor(name: str, flags: int) -> str:
    if name in ("AT_BEGINNING", "AT_BEGINNING_STRING"):
        return "(?m:^)" if name == "AT_BEGINNING" and flags & re.MULTILINE else r"\A"
    if name in ("AT_END", "AT_END_STRING"):
        return "(?m:$)" if name == "AT_END" and flags & re.MULTILINE else r"\z"
    if name == "AT_BOUNDARY":
        if not flags & re.ASCII:
            raise UnsupportedPattern(
                r"\b (a word boundary) is supported only with the ASCII flag (a): RE2 knows no "
                "Unicode word boundary"
            )
        return r"\b"
    if name == "AT_NON_BOUNDARY":  # RE2 finds one in an empty text, Python's re does not
        raise UnsupportedPattern(r"\B (not a word boundary) is not supported")
    raise UnsupportedPattern(f"the anchor {name} is not supported")


def _refused(name: str) -> Callable[[Any, int], str]:
    def refuse(av: Any, _flags: int) -> str:
        if name in ("ASSERT", "ASSERT_NOT"):
            direction = "lookahead" if av[0] == 1 else "lookbehind"
            what = f"a {'' if name == 'ASSERT' else 'negative '}{direction}"
        else:
            what = _REFUSED[name]
        raise UnsupportedPattern(f"{what} is not supported")

    return refuse


_ITEMS: dict[str, Callable[[Any, int], str]] = {
    "LITERAL": lambda av, flags: _literal(av, flags),
    "NOT_LITERAL": lambda av, flags: f"[^{_letter(av, flags)}]",
    "ANY": lambda _av, flags: "(?s:.)" if flags & re.DOTALL else r"[^\n]",
    "IN": _class,
    "BRANCH": lambda av, flags: f"(?:{'|'.join(_sequence(b, flags) for b in av[1])})",
    "SUBPATTERN": _group,
    "MAX_REPEAT": lambda av, flags: _repeat(False, av, flags),
    "MIN_REPEAT": lambda av, flags: _repeat(True, av, flags),
    "AT": lambda av, flags: _anchor(str(av), flags),
    **{name: _refused(name) for name in (*_REFUSED, "ASSERT", "ASSERT_NOT")},
}
"""How each element of Python's parse tree reads in RE2 (or why it cannot)."""


def _sequence(items: Sequence[tuple[Any, Any]], flags: int) -> str:
    parts = []
    for op, av in items:
        translate = _ITEMS.get(str(op))
        if translate is None:  # an element of a later Python: refused, never guessed at
            raise UnsupportedPattern(f"{op} is not supported")
        parts.append(translate(av, flags))
    return "".join(parts)


def to_re2(pattern: str, flags: int = 0) -> str:
    """``pattern`` (Python syntax, ``re`` flags) as an RE2 pattern that matches the same texts.

    Raises ``re.error`` for a pattern Python rejects, ``UnsupportedPattern`` (a ``ValueError``)
    for one that needs backtracking or a construct RE2 lacks (see the module docstring).
    """
    try:
        tree = _parser.parse(pattern, flags)
        text = _sequence(list(tree), tree.state.flags)
    except RecursionError:
        raise UnsupportedPattern("the pattern nests too deep") from None
    return f"(?i){text}" if _ignores_case(tree.state.flags) else text


def compile_linear(pattern: str, flags: int = 0) -> Callable[[str], bool]:
    """Whether a text matches ``pattern`` in full (as ``re.fullmatch`` decides it), decided in
    time linear in the text's length. Raises as ``to_re2`` does, and ``UnsupportedPattern``
    when RE2 refuses the translation (a program too large, for instance)."""
    translated = to_re2(pattern, flags)
    import re2  # a compiled extension: loaded with the first pattern, not with the package

    options = re2.Options()
    options.log_errors = False  # RE2 would print each refused pattern to stderr
    try:
        compiled = re2.compile(translated, options)
    except re2.error as error:
        reason = error.args[0] if error.args else error
        if isinstance(reason, bytes):
            reason = reason.decode("utf-8", "replace")
        raise UnsupportedPattern(f"RE2 cannot run it ({reason})") from None
    fullmatch = compiled.fullmatch

    def matches(text: str) -> bool:
        # Lone surrogates (valid in a str, not in UTF-8) pass through as the characters they are.
        return fullmatch(text.encode("utf-8", "surrogatepass")) is not None

    return matches
