"""The pytest plugin, run on test files of its own (pytest's ``pytester``, in a
subprocess so each run loads the plugin afresh): what a failing test reports and keeps,
that sessions end with their test, and the snapshot rules."""

import os
import re
from pathlib import Path

import pytest

FAILING = """
def test_shows_its_screen(tui):
    app = tui.start(["sh", "-c", "echo hello from the app; sleep 300"], cols=40, rows=5)
    app.wait_text("hello")
    assert app.screen().startswith("goodbye")
"""

SNAPSHOT = """
def test_snap(tui):
    app = tui.start(["sh", "-c", "echo 'value: {value}'; echo 'at 12:34:56'; sleep 300"], cols=30, rows=4)
    app.wait_text("at ")
    tui.assert_snapshot(app, "screen", masks=[r"\\d\\d:\\d\\d:\\d\\d"])
"""


@pytest.fixture
def local(monkeypatch):
    """Runs as on a developer's machine: CI unset, no forced updates."""
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("TUIPILOT_UPDATE", raising=False)


def test_a_failing_test_shows_each_sessions_last_screen_and_keeps_its_files(pytester, local):
    pytester.makepyfile(test_app=FAILING)
    result = pytester.runpytest_subprocess()
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "tuipilot session 1: last screen" in out
    assert "   0 | hello from the app" in out
    assert "screen (40x5, cursor at row 1, col 0):" in out
    saved = re.search(r"saved: (\S+) \(", out)
    assert saved, out
    folder = Path(saved.group(1))
    assert (folder / "screen.txt").read_text().startswith("hello from the app")
    assert (folder / "screen.png").read_bytes()[:4] == b"\x89PNG"
    assert "hello from the app" in (folder / "recording.cast").read_text()
    assert (folder / "report" / "report.html").exists()
    # The report is named for the test, not the command, and each step names its line.
    markdown = (folder / "report" / "report.md").read_text()
    assert "test_app.py::test_shows_its_screen" in markdown
    assert "test_app.py:3" in markdown, markdown  # app.wait_text("hello")
    # A failed test's report says so, as the Rust face's does ("running" before).
    assert markdown.startswith("# ✗ failed"), markdown
    assert "| result | failed after" in markdown, markdown
    assert "goodbye" in markdown, markdown
    # Kept for the user alone: they hold what was typed (the recording was 0644 before).
    for kept in ("recording.cast", "screen.txt"):
        assert (folder / kept).stat().st_mode & 0o777 == 0o600, kept


def test_a_passing_test_reports_no_screen(pytester, local):
    pytester.makepyfile(
        test_app="""
def test_passes(tui):
    app = tui.start(["sh", "-c", "echo fine; sleep 300"])
    app.wait_text("fine")
"""
    )
    result = pytester.runpytest_subprocess()
    result.assert_outcomes(passed=1)
    assert "last screen" not in result.stdout.str()


def test_sessions_end_with_their_test(pytester, local, tmp_path, process_gone):
    pid_file = tmp_path / "pid"
    pytester.makepyfile(
        test_app=f"""
def test_leaves_a_program_running(tui):
    app = tui.start(["sh", "-c", "echo $$ > {pid_file}; echo started; sleep 300"])
    app.wait_text("started")
"""
    )
    pytester.runpytest_subprocess().assert_outcomes(passed=1)
    pid = int(pid_file.read_text())
    assert process_gone(pid), f"the program {pid} outlived its test"


def test_a_missing_snapshot_is_written_then_held_and_a_change_fails_with_a_diff(pytester, local):
    pytester.makepyfile(test_snap=SNAPSHOT.format(value=1))
    first = pytester.runpytest_subprocess()
    first.assert_outcomes(passed=1)
    assert "created: check it and commit it" in first.stdout.str()
    snap = pytester.path / "__snapshots__" / "test_snap" / "screen.snap"
    assert snap.read_text().split("\n")[:2] == ["value: 1", "at [masked]"]

    pytester.runpytest_subprocess().assert_outcomes(passed=1)

    pytester.makepyfile(test_snap=SNAPSHOT.format(value=2))
    changed = pytester.runpytest_subprocess()
    changed.assert_outcomes(failed=1)
    out = changed.stdout.str()
    assert "MismatchError" in out and "--tuipilot-update" in out
    assert "   0 - value: 1" in out and "   0 + value: 2" in out, out
    assert snap.with_suffix(".snap.new").read_text().startswith("value: 2")
    assert snap.read_text().startswith("value: 1"), "a failing run must not overwrite"

    pytester.runpytest_subprocess("--tuipilot-update").assert_outcomes(passed=1)
    assert snap.read_text().startswith("value: 2")
    assert not snap.with_suffix(".snap.new").exists()


STYLED = """
def test_styled(tui):
    app = tui.start(["sh", "-c", "printf '\\033[1;3{colour}mTitle\\033[0m plain\\n'; sleep 300"], cols=20, rows=3)
    app.wait_text("Title")
    tui.assert_snapshot(app, "styled", styled=True)
"""

PNG = """
def test_png(tui):
    app = tui.start(["sh", "-c", "printf '\\033[3{colour}mcolour\\033[0m at 12:34:56\\n'; sleep 300"], cols=24, rows=3)
    app.wait_text("colour")
    tui.assert_png(app, "screen", masks=[r"\\d\\d:\\d\\d:\\d\\d"])
"""


def test_a_styled_snapshot_holds_the_colours_and_fails_when_one_changes(pytester, local):
    pytester.makepyfile(test_styled=STYLED.format(colour=1))
    pytester.runpytest_subprocess().assert_outcomes(passed=1)
    snap = pytester.path / "__snapshots__" / "test_styled" / "styled.snap"
    assert "bold fg=red (1)" in snap.read_text(), snap.read_text()
    pytester.runpytest_subprocess().assert_outcomes(passed=1)
    # The same text in green: a text snapshot would pass.
    pytester.makepyfile(test_styled=STYLED.format(colour=2))
    changed = pytester.runpytest_subprocess()
    changed.assert_outcomes(failed=1)
    assert "MismatchError" in changed.stdout.str()


def test_an_image_golden_is_written_then_held_masked_and_a_change_fails(pytester, local):
    pytester.makepyfile(test_png=PNG.format(colour=1))
    first = pytester.runpytest_subprocess()
    first.assert_outcomes(passed=1)
    assert "created: check it and commit it" in first.stdout.str()
    golden = pytester.path / "__snapshots__" / "test_png" / "screen.png"
    assert golden.read_bytes()[:4] == b"\x89PNG"
    # Another clock time is masked: it still matches.
    pytester.makepyfile(test_png=PNG.format(colour=1).replace("12:34:56", "23:59:01"))
    pytester.runpytest_subprocess().assert_outcomes(passed=1)
    pytester.makepyfile(test_png=PNG.format(colour=2))
    changed = pytester.runpytest_subprocess()
    changed.assert_outcomes(failed=1)
    assert "MismatchError" in changed.stdout.str()
    assert (golden.parent / "screen.actual.png").exists()
    pytester.runpytest_subprocess("--tuipilot-update").assert_outcomes(passed=1)


def test_on_ci_no_snapshot_is_ever_written(pytester, monkeypatch):
    monkeypatch.setenv("CI", "true")
    monkeypatch.delenv("TUIPILOT_UPDATE", raising=False)
    pytester.makepyfile(test_snap=SNAPSHOT.format(value=1))
    missing = pytester.runpytest_subprocess("--tuipilot-update")
    missing.assert_outcomes(failed=1)
    assert "does not exist, and CI is set" in missing.stdout.str()
    snap = pytester.path / "__snapshots__" / "test_snap" / "screen.snap"
    assert not snap.exists()

    snap.parent.mkdir(parents=True)
    snap.write_text("value: 0\n")
    changed = pytester.runpytest_subprocess("--tuipilot-update")
    changed.assert_outcomes(failed=1)
    assert snap.read_text() == "value: 0\n"


def test_a_snapshot_name_must_be_a_plain_file_name(pytester, local):
    pytester.makepyfile(
        test_snap="""
import pytest, tuipilot
def test_name(tui):
    app = tui.start(["sh", "-c", "echo x; sleep 300"])
    app.wait_text("x")
    with pytest.raises(tuipilot.InvalidInput, match="not a plain file name"):
        tui.assert_snapshot(app, "../escape")
"""
    )
    pytester.runpytest_subprocess().assert_outcomes(passed=1)


STRING_COMMAND = """
def test_string(tui):
    app = tui.start("sh -c 'echo one string; sleep 300'")
    app.wait_text("^one string$")
"""


def test_the_fixture_starts_a_command_given_as_one_string(pytester, local):
    pytester.makepyfile(STRING_COMMAND)
    result = pytester.runpytest_subprocess()
    result.assert_outcomes(passed=1)


FLAKY = """
import os

def test_flaky(tui):
    app = tui.start(["sh", "-c", "echo state; sleep 300"])
    app.wait_text("state")
    assert os.environ.get("PASS_NOW") == "1"
"""


def test_kept_files_stay_in_the_project_until_the_test_passes_and_survive_pytests_rotation(pytester, local, monkeypatch):
    pytester.makepyfile(test_flaky=FLAKY)
    folder = pytester.path / "tuipilot-artifacts" / "test_flaky.py_test_flaky" / "session-1"
    result = pytester.runpytest_subprocess()
    result.assert_outcomes(failed=1)
    assert f"saved: {folder} (" in result.stdout.str()
    assert (folder / "screen.txt").read_text().startswith("state")
    assert (pytester.path / "tuipilot-artifacts" / ".gitignore").read_text().endswith("*\n")
    # Five more runs rotate pytest's temporary folders; the kept files stay.
    for _ in range(5):
        pytester.runpytest_subprocess("-k", "nothing_matches")
    assert (folder / "screen.txt").exists()
    # Elsewhere when asked; and a passing run leaves the test's folder empty.
    other = pytester.path / "elsewhere"
    result = pytester.runpytest_subprocess(f"--tuipilot-artifacts={other}")
    assert (other / "test_flaky.py_test_flaky" / "session-1" / "screen.txt").exists()
    monkeypatch.setenv("PASS_NOW", "1")
    pytester.runpytest_subprocess().assert_outcomes(passed=1)
    assert not folder.exists()


def test_a_failed_wait_shows_its_screen_once(pytester, local):
    pytester.makepyfile(
        test_wait="""
def test_waits(tui):
    app = tui.start(["sh", "-c", "echo only once here; sleep 300"], cols=40, rows=5)
    app.wait_text("only once")
    app.wait_text("never", timeout=0.2)
"""
    )
    result = pytester.runpytest_subprocess()
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert out.count("   0 | only once here") == 1, out
    assert "(the screen is the one in the error above)" in out


KEPT = """
def test_gives_up(tui):
    app = tui.start(["sh", "-c", "echo hello from the app; exec cat"], cols=40, rows=5)
    app.wait_text("hello from the app")
    assert False, "the menu did not open"
"""


def _watch(socket_path, *, type_text):
    """Attaches to a kept session as ``tuipilot attach --control`` does (the protocol's
    ``hello`` and ``watch``), types ``type_text`` and returns the frames' lines seen once
    the program echoed it; leaving is closing the connection."""
    import base64
    import json
    import socket

    with socket.socket(socket.AF_UNIX) as conn:
        conn.connect(str(socket_path))
        stream = conn.makefile("rwb", buffering=0)
        stream.write(b'{"id":1,"op":"hello","version":1}\n')
        assert b'"ok"' in stream.readline()
        stream.write(b'{"id":2,"op":"watch","control":true,"cols":40,"rows":5}\n')
        assert b'"watching"' in stream.readline()
        typed = json.dumps({"input": base64.b64encode(type_text.encode()).decode()})
        stream.write(typed.encode() + b"\n")
        seen = []
        for line in stream:
            seen.append(line.decode())
            if type_text.strip() in line.decode() and "hello from the app" in line.decode():
                return seen
        raise AssertionError(f"the typed text never showed: {seen}")


def test_tuipilot_keep_keeps_a_failed_tests_session_until_the_person_who_attached_leaves(pytester, local, tmp_path):
    import subprocess
    import sys

    runtime = tmp_path / "rt"
    runtime.mkdir(mode=0o700)
    pytester.makepyfile(test_kept=KEPT)
    env = dict(os.environ, TUIPILOT_DIR=str(runtime))
    env.pop("TUIPILOT_KEEP", None)
    child = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--tuipilot-keep", "5m", "test_kept.py"],
        cwd=str(pytester.path),
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        kept = ""
        for line in child.stderr:
            if "is kept for" in line:
                kept = line
                break
        assert "is kept for 5 min" in kept, kept
        name = re.search(r"session `([^`]+)`", kept).group(1)
        assert name.endswith("test_kept.py.test_gives_up"), name
        assert f"run `tuipilot -s {name} attach`" in kept
        # A person watches, sees the screen the test gave up on, types into the program.
        seen = _watch(runtime / f"{name}.sock", type_text="typed by hand\r")
        assert any("typed by hand" in line for line in seen)
        # Leaving lets the run end, the test failed, and nothing of the session is left.
        rest = child.stderr.read()
        assert "let go: the watcher left" in rest, rest
        out = child.stdout.read()
        assert child.wait(timeout=60) == 1, out
        assert "1 failed" in out, out
        assert not (runtime / f"{name}.sock").exists()
    finally:
        child.kill()
        child.wait()


def test_a_keep_time_that_cannot_be_read_is_a_usage_error(pytester, local):
    pytester.makepyfile(test_kept=KEPT)
    result = pytester.runpytest_subprocess("--tuipilot-keep", "ten")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "TUIPILOT_KEEP" in result.stderr.str() and "90s" in result.stderr.str()
