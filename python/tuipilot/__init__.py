"""Drive a terminal program as a person would, and see what they would see.

``tuipilot`` runs the real program under a real pseudo-terminal, sends keys the way the
program's modes want them, waits for what should appear (or for the kernel to say the
program waits for input), and shows the screen as text, PNG or SVG::

    import tuipilot

    with tuipilot.Session(["python3", "-q"], cols=80, rows=24, isolated=True) as s:
        s.wait_text(r"^>>> ")
        s.send(text="6*7", keys=["Enter"])
        s.wait_text(r"^42$", timeout=5)
        s.png("shot.png")

The engine is tuipilot's Rust library; every call that waits lets go of the interpreter's
lock, so tests may drive several sessions from threads. With pytest installed, the
``tui`` fixture starts sessions that end with the test and keep their last screen, PNG
and recording when it fails (see ``tuipilot.pytest_plugin``).
"""

from __future__ import annotations

from tuipilot._native import ENGINE_VERSION, Locator, Match, Session, Style
from tuipilot.errors import (
    Error,
    ExitedError,
    InvalidInput,
    MismatchError,
    SpawnError,
    TimeoutError,
    UnsupportedError,
)
from tuipilot.snapshots import assert_png, assert_snapshot

__version__ = ENGINE_VERSION

__all__ = [
    "Error",
    "ExitedError",
    "InvalidInput",
    "Locator",
    "Match",
    "MismatchError",
    "Session",
    "SpawnError",
    "Style",
    "TimeoutError",
    "UnsupportedError",
    "assert_png",
    "assert_snapshot",
]
