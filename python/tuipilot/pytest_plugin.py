"""The pytest plugin (entry point ``pytest11``): the ``tui`` fixture and what a failing
test keeps.

``tui.start(argv, **kw)`` starts a ``tuipilot.Session`` (the same keywords) that is ended —
the program and everything it started — when the test ends. When the test fails, each
session's last screen is added to the failure's report as a section, and its screen
(``screen.txt``), picture (``screen.png``), recording (``recording.cast``, replayed with
``tuipilot render recording.cast -o how.gif``) and report (``report/report.html``) are
kept in a folder of the test's own that the section names: under ``tuipilot-artifacts/``
in pytest's root directory (``--tuipilot-artifacts DIR`` or the ``tuipilot_artifacts`` ini
option for another), which pytest's rotation of temporary folders never touches. A test's
folder is emptied when the test next starts a session, so a test that passes leaves none.

``--tuipilot-keep`` (or ``TUIPILOT_KEEP=1``) keeps a failed test's running sessions for a
person: each is made watchable under a name after the test, the ``tuipilot -s NAME attach``
command to run is printed, and the test run waits until the person who attached leaves
(``Ctrl-]``), the program exits, or nobody came for 10 minutes (``--tuipilot-keep 90s`` for
another time, at most ``1h``). Nothing is kept where ``CI`` is set.

``--tuipilot-update`` accepts changed snapshots taken with ``tuipilot.assert_snapshot``
(or ``tui.assert_snapshot``); nothing is written when ``CI`` is set.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import Any, Iterable, List, Optional, Sequence, Union

import pytest

from tuipilot import _native
from tuipilot.snapshots import assert_png, assert_snapshot, state


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("tuipilot", "terminal programs under test")
    group.addoption(
        "--tuipilot-update",
        action="store_true",
        default=False,
        help="accept changed screen snapshots (never written when CI is set)",
    )
    group.addoption(
        "--tuipilot-artifacts",
        default=None,
        metavar="DIR",
        help="where a failing test's screens, recordings and reports are kept (default: tuipilot-artifacts in the root directory)",
    )
    group.addoption(
        "--tuipilot-keep",
        nargs="?",
        const="1",
        default=None,
        metavar="TIME",
        help="keep a failed test's sessions for a person to attach to (tuipilot -s NAME attach): 10 minutes, or TIME (90s, 15m, at most 1h); TUIPILOT_KEEP=1 does the same",
    )
    parser.addini("tuipilot_artifacts", "where a failing test's files are kept", default="tuipilot-artifacts")


def pytest_configure(config: pytest.Config) -> None:
    state.update = bool(config.getoption("tuipilot_update"))
    chosen = config.getoption("tuipilot_keep")
    if chosen is None:
        chosen = os.environ.get("TUIPILOT_KEEP", "")
    try:
        config._tuipilot_keep = _native.keep_seconds(chosen)
    except Exception as error:
        raise pytest.UsageError(f"--tuipilot-keep: {error}") from None


def _artifacts_root(config: pytest.Config) -> Path:
    """The folder failing tests' files are kept in (relative paths from the root dir)."""
    chosen = config.getoption("tuipilot_artifacts") or config.getini("tuipilot_artifacts")
    root = Path(chosen)
    return root if root.is_absolute() else Path(str(config.rootpath)) / root


def _test_folder(root: Path, node: pytest.Item) -> Path:
    """One folder per test, named after its node id (file, class, name and parameters)."""
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", node.nodeid).strip("_")
    if len(name) > 120:
        import hashlib

        name = name[:100] + "-" + hashlib.sha256(node.nodeid.encode()).hexdigest()[:12]
    return root / name


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item):
    state.test_file = Path(str(item.path))
    try:
        yield
    finally:
        state.test_file = None


class Tui:
    """The sessions one test started; they end when the test ends."""

    def __init__(self, node: pytest.Item) -> None:
        self.sessions: List[_native.Session] = []
        self._node = node
        self._kept = _test_folder(_artifacts_root(node.config), node)

    def start(self, argv: Union[str, Sequence[str]], **kwargs: Any) -> _native.Session:
        """Starts ``argv`` under a terminal: a list of words or one string split as a shell
        splits words (keywords as ``tuipilot.Session``'s)."""
        if not self.sessions:
            # What an earlier run of this test kept is stale now.
            shutil.rmtree(self._kept, ignore_errors=True)
        session = _native.Session(argv if isinstance(argv, str) else list(argv), **kwargs)
        self.sessions.append(session)
        return session

    def assert_snapshot(
        self, session: _native.Session, name: str, masks: Iterable[str] = (), *, styled: bool = False
    ) -> None:
        """``tuipilot.assert_snapshot`` for this test."""
        assert_snapshot(session, name, masks, styled=styled, _stacklevel=3)

    def assert_png(self, session: _native.Session, name: str, masks: Iterable[str] = ()) -> None:
        """``tuipilot.assert_png`` for this test."""
        assert_png(session, name, masks, _stacklevel=3)

    def keep(self, failure: str = "") -> List[str]:
        """Writes each session's screen, PNG, recording and report into this test's
        folder of kept files; returns the report sections, one per session (a screen the
        failure's own message shows already is not shown twice)."""
        root = self._kept.parent
        root.mkdir(mode=0o700, parents=True, exist_ok=True)
        ignore = root / ".gitignore"
        if not ignore.exists():
            # Kept files are for looking at, never for committing.
            _write_private(ignore, "# written by tuipilot's pytest plugin\n*\n")
        sections = []
        for index, session in enumerate(self.sessions, start=1):
            folder = self._kept / f"session-{index}"
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            # Readable by the user alone, as the engine writes recordings and reports:
            # they hold what was typed.
            _write_private(folder / "screen.txt", session.screen() + "\n")
            _write_private(folder / "recording.cast", session.recording())
            notes = []
            for what, write in (
                ("screen.png", lambda: session.png(str(folder / "screen.png"))),
                (
                    "report",
                    lambda: session.report(
                        str(folder / "report"), title=self._node.nodeid, failure=failure or "the test failed"
                    ),
                ),
            ):
                try:
                    write()
                except Exception as error:  # a picture that cannot be drawn must not hide the failure
                    notes.append(f"{what} not written: {error}")
            state_line = "running" if session.running else f"exited, return code {session.returncode}"
            listing = session.listing().rstrip("\n")
            # pytest prefixes the error's lines (`E   `): compare line by line.
            if failure and all(line.strip() in failure for line in listing.splitlines()):
                listing = "(the screen is the one in the error above)"
            body = [
                f"$ {' '.join(session.argv)}  ({state_line})",
                listing,
                f"saved: {folder} (screen.txt, screen.png, recording.cast, report/)",
                *notes,
            ]
            sections.append("\n".join(body))
        return sections

    def close(self) -> None:
        """Ends every session this test started."""
        for session in self.sessions:
            try:
                session.exit()
            except Exception:
                pass


@pytest.fixture
def tui(request: pytest.FixtureRequest):
    """Starts terminal programs for this test: ``tui.start(argv, **kw)`` returns a
    ``tuipilot.Session``, ended when the test ends; a failing test keeps each session's
    last screen in its report and its files in a folder of its own (see the module)."""
    keeper = Tui(request.node)
    request.node._tuipilot = keeper
    yield keeper
    keeper.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    outcome = yield
    report = outcome.get_result()
    keeper = getattr(item, "_tuipilot", None)
    if keeper is None or not report.failed or not keeper.sessions or report.when == "teardown":
        return
    for index, section in enumerate(keeper.keep(report.longreprtext), start=1):
        report.sections.append((f"tuipilot session {index}: last screen", section))
    seconds = getattr(item.config, "_tuipilot_keep", None)
    if seconds:
        _keep_for_a_person(item, keeper, seconds)


def _keep_for_a_person(item: pytest.Item, keeper: Tui, seconds: float) -> None:
    """Keeps each running session of a failed test for a person to attach to, one after
    the other, with pytest's capture suspended so the ``attach`` command reaches the
    terminal."""
    capture = item.config.pluginmanager.getplugin("capturemanager")
    for session in keeper.sessions:
        if not session.running:
            continue
        name = _native.keep_name(item.nodeid)
        if capture is not None:
            with capture.global_and_fixture_disabled():
                session.keep(name, seconds)
        else:
            session.keep(name, seconds)


def _write_private(path: Path, text: str) -> None:
    """Writes ``text`` to ``path`` readable by the user alone (0600), never through a link
    planted at the name."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as file:
        os.fchmod(file.fileno(), 0o600)
        file.write(text)
