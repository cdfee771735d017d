"""Which reference files a run has settled, shared by every process of the run.

Under ``--trajectory-update`` a file is settled once per run: by the first evaluation against it
(kept when it matched, else written). Two tests sharing a file, or the attempts of a repeated test,
must agree with it; pytest-xdist workers share the ledger through a folder, where each settled file
has an entry created atomically (a hard link, which fails when the entry exists).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Claim", "UpdateLedger"]


@dataclass(frozen=True)
class Claim:
    """The outcome of claiming a file: ``first`` when this evaluation settles it, else who did
    (``writer``), how (``written``: rewritten from a trajectory, or kept as it was) and the
    content it settled on, as JSON values (the messages with their matchers spelled, or a graph
    reference document); ``None`` when the entry could not be read."""

    first: bool
    writer: str
    written: bool
    content: Any = None


class UpdateLedger:
    """The run's settled files, kept as entries in ``folder``."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _entry(self, path: Path) -> Path:
        digest = hashlib.sha256(os.fsencode(path.resolve())).hexdigest()[:32]
        return self.folder / f"{digest}.json"

    def claim(self, path: Path, *, writer: str, written: bool, content: Any) -> Claim:
        """Settle ``path`` on ``content`` (JSON values) for this run unless an earlier
        evaluation did."""
        entry = self._entry(path)
        record = json.dumps(
            {"path": str(path), "writer": writer, "written": written, "content": content},
            default=str,
        )
        handle, temp = tempfile.mkstemp(dir=self.folder, suffix=".tmp")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                stream.write(record)
            try:
                os.link(temp, entry)
            except FileExistsError:
                return self._earlier(entry)
            return Claim(True, writer, written, content)
        finally:
            with contextlib.suppress(OSError):
                os.unlink(temp)

    def _earlier(self, entry: Path) -> Claim:
        try:
            data = json.loads(entry.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return Claim(False, "another test", True)
        return Claim(False, str(data.get("writer")), bool(data.get("written")), data.get("content"))
