"""Text snapshots of a screen, kept beside the test that takes them.

``assert_snapshot(session, "after-add")`` compares the screen's text with
``__snapshots__/<test file>/after-add.snap`` next to the test file, under the rules the
engine's tape snapshots follow (the same code decides):

- a missing snapshot is written, with a warning to check it and commit it;
- a changed screen fails with a line diff and leaves ``NAME.snap.new`` beside it;
- ``pytest --tuipilot-update`` (or ``TUIPILOT_UPDATE=1``) accepts a change;
- when ``CI`` is set nothing is ever written — a missing snapshot fails too — unless
  ``TUIPILOT_UPDATE=force``.

``masks`` are regexes whose matches become ``[masked]`` before comparing, whatever their
length (a clock, a pid, a temporary path whose ``pytest-9`` becomes ``pytest-10``), as the
engine masks text goldens everywhere else.

``assert_snapshot(session, name, styled=True)`` keeps every cell's style too (a letter per
cell under each styled row, and a legend: what a tape's ``Snapshot+Styled`` compares), so
a changed colour fails; its masked cells keep their length. ``assert_png(session, name)``
compares the screen drawn as a PNG with ``NAME.png`` beside the text snapshots (masked
cells painted flat; a changed one leaves ``NAME.actual.png`` and ``NAME.diff.png``), under
the same rules and the same update switch.
"""

from __future__ import annotations

import inspect
import os
import re
import warnings
from pathlib import Path
from typing import Iterable, Optional

from tuipilot import _native

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


class _State:
    """What the pytest plugin tells this module: the test running now, and whether
    ``--tuipilot-update`` was given."""

    update: bool = False
    test_file: Optional[Path] = None


state = _State()


def snapshot_path(name: str, test_file: Path, suffix: str = ".snap") -> Path:
    """Where the snapshot ``name`` of a test in ``test_file`` lives."""
    if not _NAME.match(name) or name.endswith(".") or ".." in name:
        from tuipilot.errors import InvalidInput

        raise InvalidInput(
            f"snapshot name {name!r} is not a plain file name: use letters, digits, '_', '-' and '.'"
        )
    return test_file.parent / "__snapshots__" / test_file.stem / f"{name}{suffix}"


def _golden(name: str, suffix: str, stacklevel: int) -> "tuple[Path, str]":
    """The golden file ``name`` of the test calling at ``stacklevel``, and the update hint."""
    test_file = state.test_file
    hint = "pytest --tuipilot-update (or TUIPILOT_UPDATE=1)"
    if test_file is None:
        test_file = Path(inspect.stack()[stacklevel].filename)
        hint = "TUIPILOT_UPDATE=1"
    return snapshot_path(name, Path(os.path.abspath(test_file)), suffix), hint


def assert_snapshot(
    session: _native.Session,
    name: str,
    masks: Iterable[str] = (),
    *,
    styled: bool = False,
    update: Optional[bool] = None,
    _stacklevel: int = 2,
) -> None:
    """Asserts that ``session``'s screen, ``masks`` blotted out, equals the snapshot
    ``name`` kept beside the test (see the module's documentation for the rules); with
    ``styled``, its colours and attributes too.

    Raises ``tuipilot.MismatchError`` (an ``AssertionError``) with a line diff when it
    differs, ``tuipilot.InvalidInput`` for a bad name or mask.
    """
    path, hint = _golden(name, ".snap", _stacklevel)
    text = _native.mask(session, list(masks), styled)
    accept = state.update if update is None else update
    note = _native.compare_snapshot(text, str(path), accept, hint)
    if note is not None:
        warnings.warn(note, stacklevel=_stacklevel)


def assert_png(
    session: _native.Session,
    name: str,
    masks: Iterable[str] = (),
    *,
    update: Optional[bool] = None,
    _stacklevel: int = 2,
) -> None:
    """Asserts that ``session``'s screen drawn as a PNG, ``masks`` painted flat, equals
    the image golden ``NAME.png`` kept beside the test (the rules of the module's
    documentation; a changed one leaves ``NAME.actual.png`` and ``NAME.diff.png``).

    Raises ``tuipilot.MismatchError`` (an ``AssertionError``) saying how many pixels
    differ, ``tuipilot.InvalidInput`` for a bad name or mask.
    """
    path, hint = _golden(name, ".png", _stacklevel)
    accept = state.update if update is None else update
    note = _native.compare_png(session, str(path), list(masks), accept, hint)
    if note is not None:
        warnings.warn(note, stacklevel=_stacklevel)
