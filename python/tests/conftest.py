"""Shared helpers of the example suite: the todo app's command line, and pytest's own
``pytester`` for the tests of the plugin itself."""

import sys
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

APPS = Path(__file__).parent / "apps"


@pytest.fixture
def todo_argv():
    """The command that starts the curses todo app."""
    return [sys.executable, str(APPS / "todo.py")]
