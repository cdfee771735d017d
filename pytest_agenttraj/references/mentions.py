"""Which file names a test's source text mentions, read without running it: every string that
is a whole file name (``"weather.yaml"``, ``reference="sub/a.json"``), and, for a name built
at run time (an f-string, ``+``, ``%``, ``str.format``, a glob), a pattern of what it could be
(``f"{case}.yaml"`` gives ``*.yaml``).

Deciding which files are unused leans on this to keep a file that a test names without the
run having seen it named, so it errs towards finding too much: a name that merely looks like
one still counts.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import cast

__all__ = ["Mentions", "Pattern", "mentions"]

_FORMAT_FIELD = re.compile(r"\{[^{}]*\}")
_PERCENT_FIELD = re.compile(r"%(?:\([^)]*\))?[-#0 +]*(?:\d+|\*)?(?:\.(?:\d+|\*))?[a-zA-Z%]")
_WORD = re.compile(r"[^\s'\"`()<>,;=]+")


@dataclass(frozen=True)
class Pattern:
    """A name built at run time: ``glob`` is an ``fnmatch`` pattern of its last path part (what
    is not known reads ``*``); ``folders`` is true when the name has a folder part, so it may
    lead anywhere; ``line`` is where it is built, inside the function ``owner`` (the outermost
    one; ``None`` at module level)."""

    glob: str
    line: int
    text: str
    folders: bool
    owner: str | None = None


@dataclass(frozen=True)
class Mentions:
    """The whole names (their last path part) and the patterns a source text holds."""

    names: frozenset[str]
    patterns: tuple[Pattern, ...]


def mentions(text: str, suffixes: tuple[str, ...], *, python: bool = True) -> Mentions:
    """The names ending in one of ``suffixes`` that ``text`` mentions. Python source is read
    as such (strings and the expressions that build them); other text, or Python that does not
    parse, is read for words that end in a suffix."""
    if not any(suffix in text for suffix in suffixes):
        return Mentions(frozenset(), ())
    if python:
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            pass
        else:
            return _from_tree(tree, suffixes)
    words = (word.rstrip(".:!?") for word in _WORD.findall(text))
    names = {_last_part(word) for word in words if word.endswith(suffixes)}
    return Mentions(frozenset(names), ())


def _from_tree(tree: ast.AST, suffixes: tuple[str, ...]) -> Mentions:
    names: set[str] = set()
    patterns: dict[str, Pattern] = {}
    consumed: set[int] = set()  # the literal parts of a name built from pieces
    for node, owner in _walk(tree):  # a built name comes before its parts
        if id(node) in consumed:
            continue
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            _constant(node, suffixes, names, patterns, owner)
            continue
        pieces = _built(node, consumed)
        if pieces is not None and "".join(pieces).endswith(suffixes):
            _add(patterns, "".join(pieces), node, owner)
    return Mentions(frozenset(names), tuple(patterns.values()))


def _walk(tree: ast.AST) -> Iterator[tuple[ast.AST, str | None]]:
    """Every node, parents first, with the outermost function it is in."""
    stack: list[tuple[ast.AST, str | None]] = [(tree, None)]
    while stack:
        node, owner = stack.pop()
        yield node, owner
        for child in reversed(list(ast.iter_child_nodes(node))):
            inner = owner
            if owner is None and isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                inner = child.name
            stack.append((child, inner))


def _constant(
    node: ast.Constant,
    suffixes: tuple[str, ...],
    names: set[str],
    patterns: dict[str, Pattern],
    owner: str | None,
) -> None:
    text = str(node.value).strip()
    if "\n" in text or not text.endswith(suffixes):
        return
    if text in suffixes:  # a suffix put to a name elsewhere: any name with it
        _add(patterns, "*" + text, node, owner)
    elif "*" in text or "?" in text:  # a glob
        _add(patterns, text, node, owner)
    else:
        names.add(_last_part(text))


def _add(patterns: dict[str, Pattern], text: str, node: ast.AST, owner: str | None) -> None:
    glob = _last_part(text) or "*"
    folders = "/" in text.replace("\\", "/")
    line = getattr(node, "lineno", 0)
    patterns.setdefault(f"{text}\0{line}", Pattern(glob, line, text, folders, owner))


def _built(node: ast.AST, consumed: set[int]) -> list[str] | None:
    """The pieces of a string that ``node`` builds from literal parts (literal text, ``*`` for
    what is computed), or ``None``; the parts it reads go into ``consumed``."""
    if isinstance(node, ast.JoinedStr):
        return [_piece(value, consumed) for value in node.values]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        pieces = [_piece(part, consumed) for part in _added(node, consumed)]
        return pieces if any(p != "*" for p in pieces) else None
    template = _template(node)
    if template is None:
        return None
    text, field = template
    consumed.add(id(text))
    return [_escaped_fields(str(text.value), field)]


def _template(node: ast.AST) -> tuple[ast.Constant, re.Pattern[str]] | None:
    """The literal template of ``"%s.yaml" % name`` or ``"{}.yaml".format(name)``."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and _is_text(node.left):
        return cast("ast.Constant", node.left), _PERCENT_FIELD
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "format"
        and _is_text(node.func.value)
    ):
        return cast("ast.Constant", node.func.value), _FORMAT_FIELD
    return None


def _added(node: ast.expr, consumed: set[int]) -> Iterator[ast.expr]:
    """The operands of a chain of ``+``."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        consumed.add(id(node))
        yield from _added(node.left, consumed)
        yield from _added(node.right, consumed)
    else:
        yield node


def _piece(node: ast.expr, consumed: set[int]) -> str:
    if _is_text(node):
        consumed.add(id(node))
        return _escape(str(cast("ast.Constant", node).value))
    if isinstance(node, ast.JoinedStr):
        consumed.add(id(node))
        return "".join(_piece(value, consumed) for value in node.values)
    return "*"


def _is_text(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _escape(text: str) -> str:
    """``text`` as literal ``fnmatch`` text (parametrized ids hold brackets)."""
    return re.sub(r"([*?\[])", r"[\1]", text)


def _escaped_fields(template: str, field: re.Pattern[str]) -> str:
    parts = field.split(template)
    return "*".join(_escape(part) for part in parts)


def _last_part(text: str) -> str:
    return text.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
