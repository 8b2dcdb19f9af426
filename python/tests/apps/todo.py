"""A small curses todo list: the app the example test suite drives.

Keys: ``a`` adds a task (type it, Enter to keep, Escape to drop), Up/Down move the
selection (shown in reverse video), Space marks the selected task done (green, ``[x]``),
``d`` deletes it, ``q`` quits and prints how many tasks were done. The header shows the
time (masked in snapshots) and the count of open tasks; the footer names the keys.
"""

import curses
import sys
import time


def draw(screen, tasks, selected, prompt):
    screen.erase()
    rows, cols = screen.getmaxyx()
    open_count = sum(1 for _, done in tasks if not done)
    header = f" Todo ({open_count} open)"
    clock = time.strftime("%H:%M:%S")
    screen.addstr(0, 0, header[: cols - 1], curses.A_BOLD)
    if cols > len(header) + len(clock) + 2:
        screen.addstr(0, cols - len(clock) - 1, clock)
    if not tasks:
        screen.addstr(2, 2, "nothing to do: press a to add a task"[: cols - 3])
    for index, (text, done) in enumerate(tasks[: rows - 4]):
        mark = "[x]" if done else "[ ]"
        attrs = curses.A_REVERSE if index == selected else curses.A_NORMAL
        if done:
            attrs |= curses.color_pair(1)
        screen.addstr(2 + index, 2, f"{mark} {text}"[: cols - 3], attrs)
    if prompt is not None:
        screen.addstr(rows - 2, 0, ("New task: " + prompt)[: cols - 1])
    footer = "a add  space done  d delete  q quit"
    screen.addstr(rows - 1, 0, footer[: cols - 1], curses.A_DIM)
    if prompt is not None:
        curses.curs_set(1)
        screen.move(rows - 2, min(cols - 1, len("New task: ") + len(prompt)))
    else:
        curses.curs_set(0)
    screen.refresh()


def main(screen):
    curses.use_default_colors()
    curses.init_pair(1, curses.COLOR_GREEN, -1)
    screen.keypad(True)
    # A redraw a second for the clock; input wakes it at once.
    screen.timeout(1000)
    tasks = []
    selected = 0
    prompt = None
    while True:
        draw(screen, tasks, selected, prompt)
        try:
            key = screen.get_wch()
        except curses.error:
            continue
        if prompt is not None:
            if key in ("\n", "\r", curses.KEY_ENTER):
                if prompt.strip():
                    tasks.append((prompt.strip(), False))
                    selected = len(tasks) - 1
                prompt = None
            elif key == "\x1b":
                prompt = None
            elif key in (curses.KEY_BACKSPACE, "\x7f", "\b"):
                prompt = prompt[:-1]
            elif isinstance(key, str) and key.isprintable():
                prompt += key
            continue
        if key == "q":
            return sum(1 for _, done in tasks if done)
        if key == "a":
            prompt = ""
        elif key == curses.KEY_UP:
            selected = max(0, selected - 1)
        elif key == curses.KEY_DOWN:
            selected = min(len(tasks) - 1, selected + 1) if tasks else 0
        elif key == " " and tasks:
            text, done = tasks[selected]
            tasks[selected] = (text, not done)
        elif key == "d" and tasks:
            del tasks[selected]
            selected = max(0, min(selected, len(tasks) - 1))


if __name__ == "__main__":
    done = curses.wrapper(main)
    print(f"{done} done")
    sys.exit(0)
