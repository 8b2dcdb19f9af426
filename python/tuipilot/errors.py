"""The exceptions tuipilot raises: one class per kind of error, all under ``Error``.

The message of each is the report the engine prints on every face: for a wait that timed
out, the condition, how long it ran, the screen with row numbers, the line closest to the
pattern and any terminal queries left unanswered.
"""

from __future__ import annotations

import builtins
from typing import Optional


class Error(Exception):
    """Anything that went wrong while driving a program.

    ``kind`` names the engine's error kind (``Timeout``, ``BadInput``, …); ``screen`` is
    the screen's text when a wait failed, else ``None``.
    """

    kind: str = "Internal"
    screen: Optional[str] = None


class TimeoutError(Error, builtins.TimeoutError):
    """A wait's condition did not hold in time (also a built-in ``TimeoutError``)."""


class ExitedError(Error):
    """The program exited: while a wait was still waiting (so it never would hold), or
    before input could be sent to it."""


class SpawnError(Error):
    """The program could not be found or started."""


class InvalidInput(Error, builtins.ValueError):
    """A bad argument: an unknown key name, a regex that does not compile, a size out of
    range (also a built-in ``ValueError``)."""


class MismatchError(Error, builtins.AssertionError):
    """A screen differs from its snapshot (also a built-in ``AssertionError``, so pytest
    reports it as a failed assertion)."""


class UnsupportedError(Error):
    """Something this build of the engine cannot do."""


__all__ = [
    "Error",
    "ExitedError",
    "InvalidInput",
    "MismatchError",
    "SpawnError",
    "TimeoutError",
    "UnsupportedError",
]
