"""``python -m pytest_agenttraj``: the package's commands (see ``pytest_agenttraj.cli``)."""

from __future__ import annotations

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
