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

A conversation's file holds ``turns`` instead of ``messages``: one list of messages per turn.

Reading (:mod:`.reading`) treats the file as untrusted input; writing (:mod:`.writing`) keeps
a file's header and comments; :mod:`.ledger` settles each file once per run under
``--trajectory-update``; :mod:`.evaluate` evaluates against a file. Each name is imported when
first used."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from ..errors import ReferenceFileError as ReferenceFileError
    from .evaluate import (
        ReferenceConflict as ReferenceConflict,
        evaluate_conversation_reference_file as evaluate_conversation_reference_file,
        evaluate_graph_reference_file as evaluate_graph_reference_file,
        evaluate_reference_file as evaluate_reference_file,
        handle_file_reference as handle_file_reference,
        handle_graph_file_reference as handle_graph_file_reference,
        names_a_file as names_a_file,
        resolve_reference as resolve_reference,
        with_header as with_header,
    )
    from .file import (
        GRAPH_KEYS as GRAPH_KEYS,
        HEADER_KEYS as HEADER_KEYS,
        REFERENCE_SUFFIXES as REFERENCE_SUFFIXES,
        ReferenceFile as ReferenceFile,
    )
    from .ledger import (
        Claim as Claim,
        UpdateLedger as UpdateLedger,
    )
    from .reading import (
        MAX_DEPTH as MAX_DEPTH,
        load_reference as load_reference,
    )
    from .writing import (
        dump_conversation as dump_conversation,
        dump_graph_reference as dump_graph_reference,
        dump_reference as dump_reference,
        plain_messages as plain_messages,
        updated_messages as updated_messages,
        write_conversation as write_conversation,
        write_graph_reference as write_graph_reference,
        write_messages as write_messages,
        write_reference as write_reference,
    )

__getattr__, __dir__ = lazy_exports(__name__, __file__)  # ``__all__`` too
