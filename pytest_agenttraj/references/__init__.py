"""Reference trajectories kept in files next to the tests (YAML or JSON), read and written in the
plainest readable form: role, content, tool calls with name and args; no ids, no timestamps.

A file is a list of messages, or a mapping with an optional header and ``messages``, where
value matchers may stand in tool-call arguments (``{"$regex": "^SF"}``)::

    mode: unordered            # how this reference is meant to be compared (optional)
    tool_args: exact
    overrides:
      get_weather: [location_code]
    messages:
      - role: user
        content: What's the weather in 苏州?
      - role: assistant
        tool_calls:
          - name: get_weather
            args: {location_code: location-123}

Reading (:mod:`.reading`) treats the file as untrusted input; writing (:mod:`.writing`) keeps
a file's header and comments; :mod:`.ledger` settles each file once per run under
``--trajectory-update``; :mod:`.evaluate` evaluates against a file. Each name is imported when
first used."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports
from ..errors import ReferenceFileError

if TYPE_CHECKING:
    from .evaluate import (
        ReferenceConflict,
        evaluate_graph_reference_file,
        evaluate_reference_file,
        handle_file_reference,
        handle_graph_file_reference,
        names_a_file,
        resolve_reference,
        with_header,
    )
    from .file import (
        GRAPH_KEYS,
        HEADER_KEYS,
        REFERENCE_SUFFIXES,
        ReferenceFile,
    )
    from .ledger import (
        Claim,
        UpdateLedger,
    )
    from .reading import (
        MAX_DEPTH,
        load_reference,
    )
    from .writing import (
        dump_graph_reference,
        dump_reference,
        plain_messages,
        updated_messages,
        write_graph_reference,
        write_messages,
        write_reference,
    )

_EXPORTS: dict[str, tuple[str, ...]] = {
    ".evaluate": (
        "ReferenceConflict",
        "evaluate_graph_reference_file",
        "evaluate_reference_file",
        "handle_file_reference",
        "handle_graph_file_reference",
        "names_a_file",
        "resolve_reference",
        "with_header",
    ),
    ".file": (
        "GRAPH_KEYS",
        "HEADER_KEYS",
        "REFERENCE_SUFFIXES",
        "ReferenceFile",
    ),
    ".ledger": (
        "Claim",
        "UpdateLedger",
    ),
    ".reading": (
        "MAX_DEPTH",
        "load_reference",
    ),
    ".writing": (
        "dump_graph_reference",
        "dump_reference",
        "plain_messages",
        "updated_messages",
        "write_graph_reference",
        "write_messages",
        "write_reference",
    ),
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

__all__ = [
    "GRAPH_KEYS",
    "HEADER_KEYS",
    "MAX_DEPTH",
    "REFERENCE_SUFFIXES",
    "Claim",
    "ReferenceConflict",
    "ReferenceFile",
    "ReferenceFileError",
    "UpdateLedger",
    "dump_graph_reference",
    "dump_reference",
    "evaluate_graph_reference_file",
    "evaluate_reference_file",
    "handle_file_reference",
    "handle_graph_file_reference",
    "load_reference",
    "names_a_file",
    "plain_messages",
    "resolve_reference",
    "updated_messages",
    "with_header",
    "write_graph_reference",
    "write_messages",
    "write_reference",
]
