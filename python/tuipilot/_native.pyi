"""Type stubs for the native module (the engine, in Rust)."""

from os import PathLike
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple, Union

ENGINE_VERSION: str

_Path = Union[str, PathLike[str]]

class Match:
    """A match of a pattern on the screen."""

    @property
    def row(self) -> int:
        """The row, 0-based from the top."""
    @property
    def col(self) -> int:
        """The column (in cells) where the match starts, 0-based."""
    @property
    def text(self) -> str:
        """The matched text."""

class Style:
    """The look of one cell. Colours are ``"default"``, an ANSI name for 0–15
    (``"red"``, ``"light-red"``), ``"colour N"`` for the rest of the palette, or
    ``"#rrggbb"``."""

    @property
    def fg(self) -> str: ...
    @property
    def bg(self) -> str: ...
    @property
    def bold(self) -> bool: ...
    @property
    def dim(self) -> bool: ...
    @property
    def italic(self) -> bool: ...
    @property
    def underline(self) -> bool: ...
    @property
    def inverse(self) -> bool: ...
    @property
    def strikethrough(self) -> bool: ...
    @property
    def hidden(self) -> bool: ...
    @property
    def blink(self) -> bool: ...
    @property
    def overline(self) -> bool: ...

_Span = Tuple[Optional[int], Optional[int]]

class Locator:
    """A part of the live screen (a regex's matches, a row, some cells), limited and
    picked, whose assertions retry until the screen bears them out. Each method that
    limits returns a new locator; rows and columns are 0-based, ``stop`` exclusive."""
    def in_rows(self, start: Optional[int] = None, stop: Optional[int] = None) -> Locator: ...
    def in_cols(self, start: Optional[int] = None, stop: Optional[int] = None) -> Locator: ...
    def in_rect(self, rows: _Span = (None, None), cols: _Span = (None, None)) -> Locator: ...
    def below(self, other: Locator) -> Locator: ...
    def above(self, other: Locator) -> Locator: ...
    def right_of(self, other: Locator) -> Locator: ...
    def left_of(self, other: Locator) -> Locator: ...
    def inside(self, other: Locator) -> Locator:
        """Only the matches inside the box drawn around ``other``'s first match."""
    def nth(self, n: int) -> Locator: ...
    def first(self) -> Locator: ...
    def last(self) -> Locator: ...
    def within(self, seconds: float) -> Locator:
        """The same locator, retrying for ``seconds`` instead of the session's timeout."""
    def matches(self) -> List[Match]:
        """What it locates on the screen now, without retrying."""
    def assert_visible(self) -> str: ...
    def click(self) -> str:
        """Clicks the middle of the first located match once there is one; returns the
        screen it clicked on."""
    def assert_gone(self) -> str: ...
    def assert_count(self, expected: int) -> str: ...
    def assert_text(self, pattern: str) -> str: ...
    def assert_style(
        self,
        *,
        fg: Optional[str] = None,
        bg: Optional[str] = None,
        bold: Optional[bool] = None,
        dim: Optional[bool] = None,
        italic: Optional[bool] = None,
        underline: Optional[bool] = None,
        inverse: Optional[bool] = None,
        strikethrough: Optional[bool] = None,
        blink: Optional[bool] = None,
        hidden: Optional[bool] = None,
        overline: Optional[bool] = None,
    ) -> str:
        """Every located cell has the style asked for (colours by name, attributes
        ``True``/``False``); returns the screen it held on, or raises ``MismatchError``
        at the caller's line with what was found."""

class Session:
    """A program running under a pseudo-terminal; a context manager that ends it (and
    everything it started) when the block ends.

    Timeouts are in seconds; without one, a wait uses the session's ``timeout`` (else
    ``TUIPILOT_TIMEOUT_MS``, else 10 s). A wait that fails raises
    ``tuipilot.TimeoutError`` (or ``tuipilot.ExitedError`` when the program exited first)
    whose message shows the numbered screen and the line closest to the pattern.
    """

    def __init__(
        self,
        argv: Union[str, Sequence[str]],
        *,
        cols: int = 80,
        rows: int = 24,
        env: Optional[Dict[str, str]] = None,
        cwd: Optional[_Path] = None,
        isolated: bool = False,
        timeout: Optional[float] = None,
        record: Optional[_Path] = None,
        shell_integration: bool = True,
        whole_frames: bool = True,
        reaction_bound: Optional[float] = None,
    ) -> None:
        """Starts ``argv`` under a terminal of ``cols`` × ``rows``: a list of words, or one
        string split as a shell splits words (quotes group; nothing is expanded).
        ``isolated`` gives it
        a fresh temporary ``HOME`` and a fixed environment; ``record`` writes an asciicast
        recording there; ``shell_integration=False`` injects no OSC 133 marks into a
        shell; ``whole_frames=False`` lets a wait return on the first screen that matches,
        which may be half drawn (by default a match waits for the frame to be complete);
        ``reaction_bound`` is the longest timer of the program (seconds, default 2) a
        ``wait_ready`` waits out after input — a later one it reports as pending in the
        reason it returns."""
    def send(
        self,
        text: Optional[str] = None,
        *,
        keys: Union[str, Sequence[str], None] = None,
        paste: Optional[str] = None,
        mouse: Union[str, Sequence[str], None] = None,
        focus: Optional[str] = None,
        typing: Union[float, str, None] = None,
        raw: Optional[bytes] = None,
        pause: Optional[float] = None,
        wait: Optional[str] = None,
        timeout: Optional[float] = None,
    ) -> Optional[str]:
        """Sends ``text``, then ``paste`` (bracketed if the program asked for it), then
        ``keys`` (``"Enter"``, ``"C-c"``, ``"Down Down Enter"`` or a list of names), then
        ``mouse`` (``"click 12,3"``, ``"click /Save/"``, ``"drag 2,1..9,1"``,
        ``"scroll-down /log/ 3"``, or a list; refused when the program has not enabled the
        mouse), then ``focus`` (``"in"`` or ``"out"``), then ``raw`` bytes unchanged, then a
        ``pause`` of that many seconds, as one turn of input; with ``typing`` (seconds),
        the text is typed a character at a time with that pause after each; with
        ``typing="ready"`` the text and the keys go one at a time, each once the program
        has read the last (for a program that flushes keys typed ahead). With ``wait``
        (a regex) it then waits for a row to match, the baseline taken before the first
        byte, and returns the screen; without, it returns ``None`` at once."""
    def wait_text(
        self,
        pattern: str,
        *,
        in_rows: Optional[Tuple[int, int]] = None,
        in_cols: Optional[Tuple[int, int]] = None,
        timeout: Optional[float] = None,
    ) -> str:
        """Waits until a row of the screen matches the regex (only inside ``in_rows`` and
        ``in_cols``, ``(start, stop)`` as in ``range``, when given); returns the screen."""
    def wait_line(self, pattern: str, *, timeout: Optional[float] = None) -> str:
        """Waits until the cursor's row matches the regex (a prompt, an input line)."""
    def wait_wrapped(self, pattern: str, *, timeout: Optional[float] = None) -> str:
        """Waits until a logical line (the rows the terminal wrapped, joined) matches."""
    def wait_output(self, pattern: str, *, timeout: Optional[float] = None) -> str:
        """Waits until the program's output since the start matches the regex."""
    def wait_title(self, pattern: str, *, timeout: Optional[float] = None) -> str:
        """Waits until the window title matches the regex."""
    def wait_cwd(self, pattern: str, *, timeout: Optional[float] = None) -> str:
        """Waits until the working directory the program reports (OSC 7) matches."""
    def wait_prompt(self, *, timeout: Optional[float] = None) -> str:
        """Waits until a shell waits at its prompt."""
    def wait_command(self, *, timeout: Optional[float] = None) -> Optional[int]:
        """Waits until the next shell command finishes; returns its exit code."""
    def wait_bell(self, *, timeout: Optional[float] = None) -> str:
        """Waits until the program rings the bell."""
    def wait_absent(self, pattern: str, *, timeout: Optional[float] = None) -> str:
        """Waits until no row matches the regex; returns the screen."""
    def wait_stable(self, quiet: float = 0.3, *, timeout: Optional[float] = None) -> str:
        """Waits until the screen has not changed for ``quiet`` seconds."""
    def wait_ready(self, *, timeout: Optional[float] = None) -> str:
        """Waits until the program has finished reacting to the last input and waits for
        more, as the kernel sees it (timers it armed then, within ``reaction_bound``,
        waited out); returns why the wait ended: ``"ready: htop (pid 4711) polling the
        terminal (poll), after htop's 1.5 s timer"``, or ``"…; a timer of vim is due in
        4 s: its reaction may not be drawn yet"``."""
    def wait_for(self, predicate: Callable[[str], object], *, timeout: Optional[float] = None) -> str:
        """Waits until ``predicate(screen)`` is true, ``screen`` being the screen's text,
        asked again on every new screen; returns that text. An exception the predicate
        raises ends the wait and is raised here."""
    def wait_exit(self, *, timeout: Optional[float] = None) -> int:
        """Waits until the program exits; returns its exit code (minus the signal's
        number when a signal ended it)."""
    def screen(self) -> str:
        """The screen as text, trailing spaces trimmed."""
    def listing(self) -> str:
        """The screen as a failed wait's report shows it: size, cursor, numbered rows."""
    @property
    def cursor(self) -> Tuple[int, int]:
        """The cursor's ``(row, col)``, 0-based."""
    @property
    def cursor_visible(self) -> bool: ...
    def locate(self, pattern: str) -> Locator:
        """Every match of the regex on the live screen, as a retrying ``Locator``."""
    def locate_row(self, row: int) -> Locator: ...
    def locate_cells(self, row: int, start: int, stop: int) -> Locator: ...
    def find(self, pattern: str) -> List[Match]:
        """Every match of the regex on the screen."""
    def style_at(self, row: int, col: int) -> Style:
        """The style of one cell; ``IndexError`` outside the screen."""
    def png(
        self,
        path: _Path,
        *,
        theme: Optional[str] = None,
        font_size: Optional[float] = None,
        scale: Optional[int] = None,
    ) -> None:
        """Draws the screen as a PNG."""
    def svg(self, path: _Path, *, window: bool = False, theme: Optional[str] = None) -> None:
        """Draws the screen as an SVG."""
    def resize(self, cols: int, rows: int) -> None: ...
    def exit(self) -> int:
        """Ends the program and everything it started (SIGHUP, SIGTERM, SIGKILL);
        returns its exit code."""
    def kill(self) -> int:
        """Ends it at once with SIGKILL."""
    def attachable(self, name: str) -> None:
        """Makes the session watchable as ``name`` until it ends: ``tuipilot -s NAME
        attach`` (``--control`` to type) while the test drives it."""
    def keep(self, name: str, seconds: float) -> str:
        """Keeps the session for a person to attach to as ``name`` (the command is printed
        on stderr) until the watcher leaves, the program exits or nobody came for
        ``seconds``; returns why it stopped."""
    @property
    def returncode(self) -> Optional[int]: ...
    @property
    def running(self) -> bool: ...
    @property
    def pid(self) -> int: ...
    @property
    def argv(self) -> List[str]: ...
    @property
    def size(self) -> Tuple[int, int]: ...
    @property
    def title(self) -> str: ...
    def recording(self) -> str:
        """What the session showed so far, as asciicast v2 text."""
    def report(
        self, path: _Path, *, title: Optional[str] = None, failure: Optional[str] = None
    ) -> List[Path]:
        """Writes the session's report (HTML, Markdown, JSON); returns the files. With
        ``failure`` (a failed test's words) its verdict is "failed" and the failure is
        explained."""
    def __enter__(self) -> "Session": ...
    def __exit__(self, *exc: object) -> bool: ...

def keep_seconds(value: str) -> Optional[float]:
    """How long ``--tuipilot-keep``/``TUIPILOT_KEEP``'s value asks to keep a failed test's
    session (``1``: 600 s; ``90s``, ``15m``); ``None`` when off."""
def keep_name(test: str) -> str:
    """The session name a kept session of test ``test`` gets, free in the runtime
    directory."""
def compare_snapshot(
    text: str, golden: _Path, update: bool = False, hint: str = "--tuipilot-update"
) -> Optional[str]: ...
def mask(session: Session, patterns: List[str], styled: bool = False) -> str: ...
def compare_png(
    session: Session,
    golden: _Path,
    masks: List[str],
    update: bool = False,
    hint: str = "--tuipilot-update",
) -> Optional[str]: ...
