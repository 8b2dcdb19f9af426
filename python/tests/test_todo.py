"""The example suite: a curses todo app (``apps/todo.py``) driven through the ``tui``
fixture as a person would use it."""

import struct

import pytest

import tuipilot

CLOCK = r"\d\d:\d\d:\d\d"


@pytest.fixture
def app(tui, todo_argv):
    session = tui.start(todo_argv, cols=60, rows=12, isolated=True)
    session.wait_text("nothing to do")
    return session


def add(app, text):
    app.send(keys="a")
    app.wait_text("^New task: $")
    app.send(text=text, keys="Enter")
    app.wait_text(rf"\[ \] {text}")


def test_an_empty_list_says_how_to_add_a_task(app):
    assert "Todo (0 open)" in app.screen()
    assert app.find("q quit")[0].row == 11


def test_a_new_task_is_listed_open_and_selected(app):
    add(app, "buy milk")
    app.wait_text(r"Todo \(1 open\)")
    match = app.find(r"\[ \] buy milk")[0]
    assert (match.row, match.col) == (2, 2)
    assert app.style_at(2, 2).inverse
    assert app.style_at(0, 1).bold


def test_the_arrow_keys_move_the_selection(app):
    add(app, "first")
    add(app, "second")
    assert app.style_at(3, 2).inverse and not app.style_at(2, 2).inverse
    app.send(keys="Up")
    app.wait_ready()
    assert app.style_at(2, 2).inverse and not app.style_at(3, 2).inverse


def test_a_task_marked_done_turns_green(app):
    add(app, "water plants")
    app.send(keys="Space")
    app.wait_text(r"\[x\] water plants")
    style = app.style_at(2, 2)
    assert style.fg == "green", style
    assert app.wait_text(r"Todo \(0 open\)")


def test_typing_a_task_shows_the_cursor_after_it(app):
    app.send(keys="a")
    app.wait_text("^New task: $")
    app.send(text="call")
    app.wait_text("^New task: call$")
    assert app.cursor == (10, len("New task: call"))
    assert app.cursor_visible
    app.send(keys="Escape")
    app.wait_absent("New task:")
    assert not app.cursor_visible


def test_resizing_redraws_the_footer_on_the_last_row(app):
    app.resize(50, 8)
    app.wait_text("q quit")
    assert app.size == (50, 8)
    app.wait_stable(0.2)
    assert app.find("q quit")[0].row == 7


def test_quitting_prints_how_many_were_done_and_exits_zero(app):
    add(app, "one")
    app.send(keys="Space")
    app.wait_text(r"\[x\] one")
    app.send(keys="q")
    assert app.wait_exit(timeout=10) == 0
    assert app.returncode == 0
    assert "1 done" in app.screen()


def test_the_screen_matches_its_snapshot_with_the_clock_masked(app, tui):
    add(app, "buy milk")
    add(app, "call mum")
    app.send(keys="Up Space")
    app.wait_text(r"\[x\] buy milk")
    tui.assert_snapshot(app, "two-tasks", masks=[CLOCK])


def test_the_screen_is_drawn_as_png_and_svg(app, tmp_path):
    add(app, "draw me")
    png = tmp_path / "todo.png"
    app.png(png)
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert width >= 60 * 8 and height >= 12 * 14, (width, height)
    svg = tmp_path / "todo.svg"
    app.svg(svg, window=True)
    # Text stays text: each row's glyphs, placed cell by cell (spaces are gaps).
    assert "drawme" in svg.read_text()


def test_a_wait_for_ready_returns_once_the_app_has_drawn_its_answer(app):
    app.send(keys="a")
    why = app.wait_ready()
    assert why.startswith("ready"), why
    assert "New task:" in app.screen()


def test_an_unknown_key_name_is_refused_before_anything_is_sent(app):
    app.send(keys="a")
    app.wait_text("^New task: $")
    with pytest.raises(tuipilot.InvalidInput, match="unknown key `Ender`"):
        app.send(text="milk", keys="Ender")
    app.wait_ready()
    assert app.screen().split("\n")[10] == "New task:", app.screen()


def test_a_locator_limited_to_the_list_ignores_the_prompt_that_repeats_the_text(app):
    add(app, "buy milk")
    add(app, "buy bread")
    app.send(keys="a")
    app.wait_text("^New task: $")
    app.send(text="buy", wait="^New task: buy$")
    # The prompt repeats `buy`: only the list's rows count.
    app.locate("buy").assert_count(3)
    tasks = app.locate(r"buy \w+").in_rows(2, 10)
    tasks.assert_count(2)
    tasks.last().assert_text("^buy bread$")
    tasks.last().assert_style(inverse=True)
    tasks.first().assert_style(inverse=False)
    # Relative to another locator, found again on every screen.
    app.locate(r"\[ \]").left_of(app.locate("bread")).assert_count(1)
    assert [m.row for m in app.locate(r"buy \w+").below(app.locate("milk")).matches()] == [3]
    assert [(m.row, m.col) for m in tasks.matches()] == [(2, 6), (3, 6)]
    # A text wait limited the same way: the prompt's `buy` is outside.
    app.wait_text("buy", in_rows=(2, 10))
    with pytest.raises(tuipilot.TimeoutError, match=r"outside the region \(in rows 0-1\)"):
        app.wait_text("buy", in_rows=(0, 2), timeout=0.3)
    with pytest.raises(tuipilot.InvalidInput, match="holds nothing"):
        app.wait_text("buy", in_cols=(4, 4))


def test_a_scoped_locator_that_finds_nothing_says_where_it_looked_and_what_was_outside(app):
    add(app, "buy milk")
    with pytest.raises(tuipilot.MismatchError) as failure:
        app.locate("milk").in_rows(0, 2).within(0.3).assert_visible()
    message = str(failure.value)
    first = message.splitlines()[0]
    assert first.startswith(f"{__file__}:"), first
    assert "outside the region" in first and "row 2" in first, first
    assert "retried for 0.30s" in first, first
    with pytest.raises(tuipilot.InvalidInput, match="holds nothing"):
        app.locate("milk").in_rows(5, 5)
