"""Shared helpers of the example suite: the todo app's command line, whether a process
has ended, and pytest's own ``pytester`` for the tests of the plugin itself."""

import sys
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

APPS = Path(__file__).parent / "apps"


def gone(pid):
    """Whether process ``pid`` has ended: reaped, or a zombie its parent has not reaped."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(") ", 1)[1]
    except FileNotFoundError:
        return True
    return state.startswith("Z")


@pytest.fixture
def process_gone():
    """``gone(pid)``: whether a process has ended."""
    return gone


@pytest.fixture
def todo_argv():
    """The command that starts the curses todo app."""
    return [sys.executable, str(APPS / "todo.py")]
