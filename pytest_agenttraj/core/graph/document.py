"""Graph references as plain documents (``{"steps": [...], "mode": ...}``), checked on the way
in and built from a captured trajectory on the way out, for reference files to read and write."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...errors import GraphTrajectoryFormatError
from ..values import safe_repr
from .modes import check_graph_mode
from .path import read_graph_steps, steps_document

__all__ = ["DOCUMENT_KEYS", "check_graph_reference", "graph_reference_document"]

DOCUMENT_KEYS = ("steps", "mode")


def check_graph_reference(document: Any, *, source: str = "reference") -> dict[str, Any]:
    """``document`` (a mapping with ``steps`` and an optional ``mode``) checked and normalised to
    plain lists, or ``GraphTrajectoryFormatError`` naming ``source``, the invocation and the step.

    Example::

        >>> check_graph_reference({"steps": [["node1", ("node4", "node5")]], "mode": "strict"})
        {'steps': [['node1', ['node4', 'node5']]], 'mode': 'strict'}
    """
    if not isinstance(document, Mapping) or "steps" not in document:
        raise GraphTrajectoryFormatError(
            f"{source} must be a mapping with 'steps' (one list of nodes per invocation), "
            f"got {safe_repr(document, 80)}",
            side=source,
        )
    unknown = sorted(str(key) for key in document if key not in DOCUMENT_KEYS)
    if unknown:
        raise GraphTrajectoryFormatError(
            f"{source} has unknown key(s) {', '.join(unknown)}; a graph reference holds "
            f"{' and '.join(DOCUMENT_KEYS)}",
            side=source,
        )
    normal: dict[str, Any] = {"steps": steps_document(read_graph_steps(document, source))}
    if "mode" in document:
        try:
            normal["mode"] = check_graph_mode(document["mode"], where="mode")
        except ValueError as error:
            raise GraphTrajectoryFormatError(f"{source}: {error}", side=source) from None
    return normal


def graph_reference_document(trajectory: Any, *, mode: str | None = None) -> dict[str, Any]:
    """The document to write for a captured ``GraphTrajectory``: its ``steps`` as plain lists (a
    nested list per superstep of several nodes), without inputs or results; ``mode`` if given.

    Example::

        >>> graph_reference_document(
        ...     {"inputs": [{}], "results": [{}], "steps": [["node1", ["node4", "node5"]]]}
        ... )
        {'steps': [['node1', ['node4', 'node5']]]}
    """
    document: dict[str, Any] = {"steps": steps_document(read_graph_steps(trajectory, "trajectory"))}
    if mode is not None:
        document["mode"] = check_graph_mode(mode)
    return document
