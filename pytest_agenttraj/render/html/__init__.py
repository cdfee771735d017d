"""The HTML report: one self-contained page (styles, script and data inline; no network) drawn
from a JSON report document, so that a run's page and a merged report's page are the same page.

The document travels gzip-compressed and base64-encoded inside the page: a large run stays a
small file, and no text of a trajectory is ever HTML (the script puts every value in the page as
text, never as markup), so a message holding ``<script>`` or ``</style>`` shows as written.
"""

from __future__ import annotations

import base64
import gzip
import html
import json
from collections.abc import Mapping
from functools import cache
from importlib.resources import files
from typing import Any

from ..._files import redact_secrets

__all__ = ["page"]

_TITLE = "Agent trajectories"


@cache
def _asset(name: str) -> str:
    return files(__name__).joinpath(name).read_text(encoding="utf-8")


def page(document: Mapping[str, Any], *, title: str = _TITLE) -> str:
    """The page of a report ``document`` (what ``--trajectory-report`` writes)."""
    data = json.dumps(document, default=str, separators=(",", ":"), ensure_ascii=False)
    data = redact_secrets(data)
    packed = base64.b64encode(gzip.compress(data.encode("utf-8"), compresslevel=6, mtime=0))
    return "".join(
        (
            '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n',
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n',
            f"<title>{html.escape(title)}</title>\n<style>\n",
            _asset("page.css"),
            "</style>\n</head>\n<body>\n",
            f'<header><h1>{html.escape(title)}</h1><p id="status">Loading the report…</p>',
            '</header>\n<main id="app"></main>\n',
            '<script type="application/octet-stream" id="report-data">',
            packed.decode("ascii"),
            "</script>\n<script>\n",
            _asset("page.js"),
            "</script>\n</body>\n</html>\n",
        )
    )
