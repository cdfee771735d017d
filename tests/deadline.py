"""``deadline(seconds)``: fail, rather than hang, a block that should finish at once.

The tests that use it assert no wall time (a loaded machine is slow); they need only that a
regression to exponential matching shows as a failure. A timer signal raises ``Undecided``
inside the block, and Python's ``re`` checks for signals while it backtracks, so the old engine
is stopped mid-match and the test fails naming what was undecided. Where there is no timer
signal (Windows), ``faulthandler`` ends the process with every thread's traceback instead.
"""

from __future__ import annotations

import faulthandler
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

__all__ = ["Undecided", "deadline"]


class Undecided(Exception):
    """The block was still running when its deadline passed."""


@contextmanager
def deadline(seconds: float, what: str) -> Iterator[None]:
    """Run the block; raise ``Undecided`` (naming ``what``) if it runs ``seconds``."""
    if not hasattr(signal, "setitimer"):
        faulthandler.dump_traceback_later(seconds, exit=True)
        try:
            yield
        finally:
            faulthandler.cancel_dump_traceback_later()
        return

    def expire(_signum: int, _frame: FrameType | None) -> None:
        raise Undecided(f"{what} was still undecided after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
