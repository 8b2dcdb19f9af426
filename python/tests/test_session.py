"""The ``Session`` API against real programs: the waits, what a failure says, errors by
kind, how a program ends, and sessions driven from threads."""

import os
import sys
import threading
import time
from pathlib import Path

import pytest

import tuipilot


def sh(script, **kwargs):
    return tuipilot.Session(["sh", "-c", script], **kwargs)


def test_the_python_repl_computes_as_in_the_readme():
    with tuipilot.Session([sys.executable, "-q"], cols=80, rows=24, isolated=True) as s:
        s.wait_text(r"^>>> ")
        s.send(text="6*7", keys=["Enter"])
        s.wait_text(r"^42$", timeout=5)
        assert s.wait_ready().startswith("ready")
        assert s.screen().split("\n")[:3] == [">>> 6*7", "42", ">>>"]
        assert s.cursor == (2, 4)
        code = s.exit()
    # exit() hangs up first, as closing a terminal window does: the REPL dies of SIGHUP.
    assert code == -1 and s.returncode == -1
    assert not s.running


def test_a_wait_that_times_out_raises_a_timeout_error_with_the_numbered_screen():
    with sh("echo 'hello world'; sleep 30") as s:
        s.wait_text("hello")
        with pytest.raises(tuipilot.TimeoutError) as caught:
            s.wait_text("helo wrld", timeout=0.3)
    error = caught.value
    assert isinstance(error, TimeoutError) and isinstance(error, tuipilot.Error)
    message = str(error)
    assert "timed out after" in message
    assert "   0 | hello world" in message
    assert 'closest line: row 0: "hello world"' in message
    assert error.kind == "Timeout"
    assert error.screen.split("\n")[0] == "hello world"


def test_a_program_that_exits_during_a_wait_raises_exited_error_and_reports_its_code():
    with sh("echo bye; exit 3") as s:
        with pytest.raises(tuipilot.ExitedError, match="exited with code 3"):
            s.wait_text("never")
        assert s.wait_exit() == 3
        assert s.returncode == 3


def test_a_program_killed_by_a_signal_has_minus_the_signal_as_its_code():
    with sh("echo up; sleep 30") as s:
        s.wait_text("up")
        assert s.kill() == -9
        assert s.exit() == -9, "ending an ended session returns how it ended"


def test_sending_to_a_program_that_exited_raises_exited_error():
    with sh("exit 0") as s:
        s.wait_exit()
        with pytest.raises(tuipilot.ExitedError, match="cannot send input"):
            s.send(text="late")


def test_bad_input_is_a_value_error_that_says_what_to_do():
    with sh("sleep 30") as s:
        with pytest.raises(tuipilot.InvalidInput, match="did you mean Enter"):
            s.send(keys=["Ener"])
        with pytest.raises(ValueError, match="invalid regex"):
            s.wait_text("(", timeout=1)
        # Refused before it is parsed (it took 15.8 s and a gigabyte before the cap).
        started = time.monotonic()
        with pytest.raises(ValueError, match="the longest pattern taken is 65536 bytes"):
            s.wait_text("a" * 10_000_000, timeout=1)
        assert time.monotonic() - started < 2
        with pytest.raises(tuipilot.InvalidInput, match="needs something to send"):
            s.send()
        with pytest.raises(tuipilot.InvalidInput, match="not a duration"):
            s.wait_text("x", timeout=-1)
        with pytest.raises(tuipilot.InvalidInput, match="too long: the most is 86400000 ms"):
            s.wait_text("x", timeout=10**9)
        with pytest.raises(tuipilot.InvalidInput, match="keys= takes a key name"):
            s.send(keys=42)
        with pytest.raises(IndexError, match="the screen is 80x24"):
            s.style_at(24, 0)


def test_a_missing_program_is_a_spawn_error_naming_where_it_looked():
    with pytest.raises(tuipilot.SpawnError, match="program `no-such-program-here` not found"):
        tuipilot.Session(["no-such-program-here"])


def test_a_bad_size_is_refused():
    with pytest.raises(tuipilot.InvalidInput, match="out of range"):
        tuipilot.Session(["sh"], cols=3, rows=1)


def test_find_and_style_read_the_screen_as_it_is():
    script = r"printf 'plain \033[1;31mred bold\033[0m and \033[38;2;1;2;3mrgb\033[0m\n'; sleep 30"
    with sh(script) as s:
        s.wait_text("rgb")
        found = s.find(r"red \w+")
        assert [(m.row, m.col, m.text) for m in found] == [(0, 6, "red bold")]
        red = s.style_at(0, 6)
        assert red.fg == "red" and red.bold and not red.italic
        assert s.style_at(0, 0).fg == "default"
        assert s.style_at(0, 19).fg == "#010203"
        assert s.style_at(0, 6) == s.style_at(0, 7)


def test_the_environment_and_working_directory_reach_the_program(tmp_path):
    with tuipilot.Session(
        ["sh", "-c", 'echo "$GREETING from $(pwd)"; sleep 30'],
        env={"GREETING": "hi"},
        cwd=tmp_path,
    ) as s:
        s.wait_text(rf"^hi from {tmp_path.resolve()}$")


def test_leaving_the_with_block_ends_everything_the_program_started(process_gone):
    with sh("sleep 300 & echo child $!; wait") as s:
        pid = int(s.wait_text(r"^child \d+$").split()[1])
        assert Path(f"/proc/{pid}").exists()
    assert process_gone(pid), f"the background child {pid} outlived the session"


def test_a_wait_lets_other_threads_run_while_it_waits():
    # If a wait held the interpreter's lock, the main thread could not send the line
    # the waiting thread waits for, and that wait would time out.
    with tuipilot.Session(["cat"]) as s:
        waiting = threading.Event()
        result = {}

        def wait():
            waiting.set()
            try:
                result["screen"] = s.wait_text("^go$", timeout=20)
            except Exception as error:  # reported below
                result["error"] = error

        thread = threading.Thread(target=wait)
        thread.start()
        waiting.wait()
        s.send(text="go", keys="Enter")
        thread.join()
    assert "error" not in result, result.get("error")


def test_ctrl_c_interrupts_a_wait_at_once():
    # The program interrupts us (its parent) a moment after it reads the line, while the
    # wait below is waiting: the wait must end with KeyboardInterrupt, not run out its 30 s
    # and raise TimeoutError.
    with sh("read line; sleep 0.3; kill -INT $PPID; sleep 30") as s:
        s.wait_ready()
        s.send(text="go", keys="Enter")
        with pytest.raises(KeyboardInterrupt):
            s.wait_text("never", timeout=30)
        s.send(text="still there")
        s.wait_text("still there")


def test_several_sessions_are_driven_from_threads_at_once():
    errors = []

    def drive(n):
        try:
            with tuipilot.Session([sys.executable, "-q"], isolated=True) as s:
                s.wait_text("^>>> ")
                s.send(text=f"{n}*{n}", keys="Enter")
                s.wait_text(rf"^{n * n}$")
        except Exception as error:
            errors.append(error)

    threads = [threading.Thread(target=drive, args=(n,)) for n in range(11, 15)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors


def test_wait_absent_and_wait_stable():
    with sh("echo loading; read line; clear; echo done; sleep 30") as s:
        s.wait_text("loading")
        s.send(keys="Enter")
        screen = s.wait_absent("loading")
        assert "loading" not in screen
        assert s.wait_stable(0.1).startswith("done")


def test_paste_arrives_bracketed_when_the_program_asks():
    script = r"printf '\033[?2004h'; stty raw -echo; dd bs=1 count=14 2>/dev/null | od -An -c; sleep 30"
    with sh(script) as s:
        s.wait_ready()
        s.send(paste="hi")
        s.wait_text(r"033   \[   2   0   0   ~   h   i 033   \[   2   0   1   ~")


def test_the_session_writes_its_report_and_recording(tmp_path):
    with sh("echo reported; sleep 30") as s:
        s.wait_text("reported")
        written = s.report(tmp_path / "report")
        assert {Path(p).name for p in written} >= {"report.html"}
        assert "reported" in s.recording()
    assert (tmp_path / "report" / "report.md").read_text().count("reported") >= 1


DEBOUNCE = """
import os, select, sys, time, tty
tty.setraw(0)
typed, due = "", None
sys.stdout.write("nothing yet\\r\\n"); sys.stdout.flush()
while True:
    timeout = None if due is None else max(0, due - time.monotonic())
    ready, _, _ = select.select([0], [], [], timeout)
    if ready:
        typed += os.read(0, 64).decode()
        due = time.monotonic() + 0.3
    elif due is not None:
        due = None
        sys.stdout.write("typed: %s\\r\\n" % typed); sys.stdout.flush()
"""


def test_wait_ready_waits_out_a_debounce_and_says_when_one_is_beyond_the_bound():
    # Within the default bound (2 s): the redraw 300 ms after the key is on the screen.
    with tuipilot.Session([sys.executable, "-c", DEBOUNCE]) as s:
        s.wait_text("nothing yet")
        s.wait_ready()
        s.send(text="hi")
        why = s.wait_ready()
        assert "typed: hi" in s.screen(), s.screen()
        assert "after python3's" in why or "after python" in why, why
    # With a bound of 50 ms the wait returns at once, and says the reaction may be pending:
    # in what it returns, and as a warning at this line.
    with tuipilot.Session([sys.executable, "-c", DEBOUNCE], reaction_bound=0.05) as s:
        s.wait_text("nothing yet")
        s.wait_ready()
        s.send(text="hi")
        with pytest.warns(UserWarning, match="may not show the whole reaction yet: a timer of python"):
            why = s.wait_ready()
        assert why.endswith("its reaction may not be drawn yet"), why
        s.wait_text("typed: hi")
    with pytest.raises(ValueError):
        tuipilot.Session(["true"], reaction_bound=-1)


SILENT_TIMER = """
import os, select, sys, tty
tty.setcbreak(0)
typed, due = "", None
sys.stdout.write("typed: \\r\\n"); sys.stdout.flush()
while True:
    ready, _, _ = select.select([0], [], [], due)
    if ready:
        typed += os.read(0, 64).decode()
        sys.stdout.write("typed: %s\\r\\n" % typed); sys.stdout.flush()
        due = 0.3
    else:
        due = None
"""


def test_a_timer_skipped_for_what_was_learnt_is_warned_of_as_not_waited_for():
    # Each key is drawn at once, then a 300 ms timer draws nothing: waited out three
    # times, then skipped, and the skip is warned of — not as a pending reaction.
    with tuipilot.Session([sys.executable, "-c", SILENT_TIMER]) as s:
        s.wait_text("typed:")
        s.wait_ready()
        for key in "abc":
            s.send(text=key)
            assert "after python" in s.wait_ready()
        s.send(text="d")
        with pytest.warns(UserWarning, match="not waited for, and may still draw: a timer of python"):
            why = s.wait_ready()
        assert "may not be drawn yet" not in why, why
        assert "typed: abcd" in s.screen()


CLICKS = str(Path(__file__).parents[2] / "fixtures" / "clicks.py")


def test_a_click_from_python_reaches_a_curses_app_by_cell_or_by_text():
    with tuipilot.Session([sys.executable, CLICKS]) as s:
        s.wait_text("click an item")
        s.wait_ready()
        s.send(mouse="click /Cherries/")
        s.wait_text(r"^pressed Cherries at \d+,3$")
        s.send(mouse=["click 3,2"])
        s.wait_text(r"^pressed Bananas at 3,2$")
        assert s.style_at(2, 2).inverse


def test_a_mouse_action_the_program_cannot_receive_or_that_does_not_parse_is_invalid_input():
    with sh("echo plain; sleep 30") as s:
        s.wait_text("plain")
        with pytest.raises(tuipilot.InvalidInput, match="mouse"):
            s.send(mouse="click 1,1")
        with pytest.raises(tuipilot.InvalidInput, match="mouse= takes an action"):
            s.send(mouse=3)
        with pytest.raises(tuipilot.InvalidInput, match="focus"):
            s.send(focus="sideways")


def test_a_command_given_as_one_string_is_split_into_words_as_a_shell_splits_them():
    with tuipilot.Session(f"{sys.executable} -c 'print(\"two words\")'") as s:
        s.wait_text("^two words$")
        assert s.argv == [sys.executable, "-c", 'print("two words")']
    with pytest.raises(tuipilot.InvalidInput, match="unclosed quote"):
        tuipilot.Session("sh -c 'echo")
    with pytest.raises(tuipilot.InvalidInput, match="argv takes the command"):
        tuipilot.Session(42)


def test_every_wait_of_the_vocabulary_is_a_method():
    script = (
        "printf '\\033]0;my title\\007'; printf '\\033]7;file://host/tmp/here\\007'; "
        "echo out-marker; printf 'name: '; read x; echo done $x; sleep 0.5; printf '\\a'; sleep 30"
    )
    with sh(script) as s:
        s.wait_title("^my title$")
        s.wait_cwd("/tmp/here$")
        s.wait_output("out-marker")
        s.wait_line("^name: $")
        # Python's send returns before the program reacts: the bell comes later than the
        # wait starts (a bell wait counts bells after the call).
        s.send(text="bob", keys="Enter")
        s.wait_text("^done bob$")
        s.wait_bell()


def test_a_shell_command_and_its_prompt_are_waited_for():
    with tuipilot.Session(["bash", "--norc", "--noprofile"], env={"PS1": "$ "}) as s:
        s.wait_prompt()
        # The command ends after the wait has started (it counts commands after the call).
        s.send(text="sleep 0.5; false", keys="Enter")
        assert s.wait_command() == 1


def test_send_types_a_character_at_a_time_sends_raw_bytes_and_pauses():
    with sh("stty -icanon -echo; while :; do c=$(dd bs=1 count=1 2>/dev/null); printf '[%s]' \"$c\"; done") as s:
        s.wait_ready()
        s.send(text="ab", typing=0.05, raw=b"c", pause=0.05)
        s.wait_text(r"\[a\]\[b\]\[c\]")
    with sh("sleep 30") as s:
        with pytest.raises(tuipilot.InvalidInput, match="pause"):
            s.send(pause=-1)


def test_send_with_a_wait_takes_its_baseline_before_the_input_and_returns_the_screen():
    with tuipilot.Session(["bash", "--norc", "--noprofile"], env={"PS1": "$ "}) as s:
        s.wait_prompt()
        # The reply comes at once; a wait started after the send could miss nothing here,
        # and the prompt already on the screen does not count as the reply.
        screen = s.send(text="echo fast", keys="Enter", wait=r"^fast$")
        assert screen.split("\n")[:2] == ["$ echo fast", "fast"]
        assert s.send(text="x") is None
        with pytest.raises(tuipilot.TimeoutError):
            s.send(keys="C-u", wait="never there", timeout=0.2)


def test_pdb_s_long_path_is_matched_as_the_line_the_terminal_wrapped(tmp_path):
    # pdb names the file it stops in on one line; at 80 columns a deep path wraps, and no
    # one row holds it: wait_wrapped joins the rows the terminal wrapped.
    deep = tmp_path.joinpath("a-project-with-a-long-name", "src", "package_name", "subpackage")
    deep.mkdir(parents=True)
    script = deep / "module_under_test.py"
    script.write_text("answer = 42\nprint(answer)\n")
    whole = r"^> .*/subpackage/module_under_test\.py\(1\)<module>\(\)$"
    with tuipilot.Session([sys.executable, "-m", "pdb", str(script)], cols=80, rows=24) as s:
        s.wait_line(r"^\(Pdb\) $")
        assert len(f"> {script}(1)<module>()") > 80
        with pytest.raises(tuipilot.TimeoutError):
            s.wait_text(whole, timeout=0.3)
        s.wait_wrapped(whole)
        s.send(text="q", keys="Enter")
        s.wait_exit()


@pytest.mark.parametrize("run", [9, 10])
def test_a_mask_stands_for_text_of_any_length_in_a_snapshot(run):
    # pytest's temporary folders grow a digit (pytest-9, pytest-10): one golden holds both.
    with sh(f"echo /tmp/pytest-{run}/app ok; sleep 30", cols=40, rows=3) as s:
        s.wait_text("app ok$")
        tuipilot.assert_snapshot(s, "grown-mask", masks=[r"pytest-\d+"])


def test_wait_for_takes_a_predicate_on_the_screen_and_raises_what_it_raises():
    with sh("for i in 1 2 3 4 5; do echo line $i; sleep 0.05; done; sleep 30") as s:
        screen = s.wait_for(lambda text: text.count("line") >= 4, timeout=10)
        assert "line 4" in screen
        with pytest.raises(tuipilot.TimeoutError):
            s.wait_for(lambda text: "line 9" in text, timeout=0.3)

        def broken(text):
            raise ValueError("the predicate's own error")

        with pytest.raises(ValueError, match="own error"):
            s.wait_for(broken, timeout=5)


FLUSHES = str(Path(__file__).parents[2] / "fixtures" / "flushes.py")


def test_typing_ready_delivers_every_key_to_a_program_that_flushes_keys_typed_ahead():
    with tuipilot.Session([sys.executable, FLUSHES]) as s:
        s.wait_text("^keys: q quits")
        s.wait_ready()
        s.send("zf", keys=["Down"], typing="ready", wait=r"^got: zf<down>$")
        with pytest.raises(tuipilot.InvalidInput, match="ready"):
            s.send("x", typing="soon")


def test_a_locator_clicks_the_match_it_keeps_and_a_mouse_target_takes_scopes():
    with tuipilot.Session([sys.executable, CLICKS]) as s:
        s.wait_text("click an item")
        s.wait_ready()
        s.locate("Dates").below(s.locate("Cherries")).click()
        s.wait_text(r"^pressed Dates at \d+,4$")
        s.wait_ready()
        s.send(mouse="click /a/ in-rows 2-2")
        s.wait_text(r"^pressed Bananas at \d+,2$")
