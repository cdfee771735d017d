"""Writing files so that a reader sees the old content or the new, never half of either."""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path

__all__ = ["REDACTED", "check_writable", "folder_problem", "redact_secrets", "write_atomically"]

REDACTED = "[redacted]"
_SECRET_NAMES = ("_API_KEY", "_TOKEN", "_SECRET", "_PASSWORD")


def _umask() -> int:
    # os.umask can only be read by setting it; set it back at once.
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder and a rename.

    The file gets the permissions a plain ``open()`` would give it (an existing file keeps its
    own), and temporary files a killed writer left beside it are removed.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        mode = 0o666 & ~_umask()
    _remove_leftovers(path)
    handle, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
            stream.flush()
            os.fchmod(stream.fileno(), mode)
            os.fsync(stream.fileno())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def _remove_leftovers(path: Path) -> None:
    """Temporary files of earlier writes of ``path`` that never got renamed (a killed run)."""
    for leftover in path.parent.glob(f".{path.name}.*.tmp"):
        with contextlib.suppress(OSError):
            leftover.unlink()


def check_writable(path: Path) -> str | None:
    """Why ``path`` could not be written (its folder cannot be made or written), or ``None``."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        return f"its folder cannot be created: {error.strerror or error}"
    if path.is_dir():
        return "it is a directory"
    try:
        handle, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as error:
        return f"its folder cannot be written: {error.strerror or error}"
    os.close(handle)
    os.unlink(temp)
    if path.exists() and not os.access(path, os.W_OK):
        return "the file is read-only"
    return None


def folder_problem(folder: Path) -> str | None:
    """What stops files being written into ``folder``, said of the folder ("is a regular
    file, not a folder", "cannot be written (...)"), or ``None``. A folder that does not exist
    yet is a problem only when it cannot be made (something above it is not a folder). Nothing
    is created but a probe file, removed at once."""
    try:
        mode = os.stat(folder).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return _cannot_make(folder)
    except OSError as error:
        return f"cannot be read ({error.strerror or error})"
    if not stat.S_ISDIR(mode):
        return "is a regular file, not a folder" if stat.S_ISREG(mode) else "is not a folder"
    try:
        handle, probe = tempfile.mkstemp(prefix=".agenttraj-probe.", dir=folder)
    except OSError as error:
        return f"cannot be written ({error.strerror or error})"
    os.close(handle)
    os.unlink(probe)
    return None


def _cannot_make(folder: Path) -> str | None:
    """Why a folder that does not exist cannot be made, if it cannot: the nearest thing above
    it that exists is not a folder."""
    for above in folder.parents:
        if os.path.lexists(above):
            if os.path.isdir(above):
                return None
            what = "a regular file" if os.path.isfile(above) else "not a folder"
            return f"cannot be made: {above} is {what}"
    return None


def redact_secrets(text: str) -> str:
    """``text`` with the value of every secret-looking environment variable (``*_API_KEY``,
    ``*_TOKEN``, ``*_SECRET``, ``*_PASSWORD``, eight characters or more) blanked: a report
    shows what agents said, and an agent may repeat a key it was given."""
    for name, value in os.environ.items():
        if len(value) >= 8 and name.upper().endswith(_SECRET_NAMES) and value in text:
            text = text.replace(value, REDACTED)
    return text
