"""A curses list that takes the mouse: clicking an item selects it (reverse video) and
says which; the wheel moves the selection. The app the mouse tests click."""

import curses

ITEMS = ["Apples", "Bananas", "Cherries", "Dates"]


def main(screen):
    curses.mousemask(curses.ALL_MOUSE_EVENTS | curses.REPORT_MOUSE_POSITION)
    curses.mouseinterval(0)
    selected, said = 0, "click an item"
    while True:
        screen.erase()
        for index, item in enumerate(ITEMS):
            screen.addstr(1 + index, 2, item, curses.A_REVERSE if index == selected else curses.A_NORMAL)
        screen.addstr(6, 0, said)
        screen.refresh()
        key = screen.getch()
        if key == ord("q"):
            return
        if key != curses.KEY_MOUSE:
            continue
        _, x, y, _, state = curses.getmouse()
        if state & curses.BUTTON4_PRESSED:
            selected = max(0, selected - 1)
        elif state & (curses.BUTTON1_PRESSED | curses.BUTTON1_CLICKED | curses.BUTTON1_RELEASED):
            if 1 <= y <= len(ITEMS):
                selected = y - 1
                said = f"clicked {ITEMS[selected]} at {x},{y}"


curses.wrapper(main)
