"""The Python side of ``cargo bench --bench python_step``: one step — send a line, wait
for the program's answer on the screen — with tuipilot's Python package and with
pexpect + pyte (pexpect's pty, pyte's screen: the way Python tests read a TUI today), on
the same program. Prints one JSON line of medians and 90th percentiles, in milliseconds.

    python benches/python_step.py --program PATH [--rounds N]
"""

import argparse
import json
import re
import time


def percentiles(samples):
    samples = sorted(samples)
    return samples[len(samples) // 2], samples[len(samples) * 9 // 10]


def tuipilot_steps(program, rounds, warmup, whole_frames=True):
    import tuipilot

    times = []
    with tuipilot.Session([program], cols=80, rows=24, whole_frames=whole_frames) as s:
        s.wait_text("^>")
        for n in range(warmup + rounds):
            start = time.perf_counter()
            s.send(text=f"step {n}", keys="Enter")
            s.wait_text(rf"^submitted: step {n}$")
            if n >= warmup:
                times.append((time.perf_counter() - start) * 1e3)
    return times


def pexpect_pyte_steps(program, rounds, warmup, delay_before_send=True):
    import pexpect
    import pyte

    screen = pyte.Screen(80, 24)
    stream = pyte.ByteStream(screen)
    child = pexpect.spawn(program, dimensions=(24, 80))
    if not delay_before_send:
        # pexpect sleeps 50 ms before every send by default (for programs that turn echo
        # off late); a user who knows may turn it off.
        child.delaybeforesend = None

    def wait(pattern):
        rx = re.compile(pattern)
        while not any(rx.search(row.rstrip()) for row in screen.display):
            stream.feed(child.read_nonblocking(65536, timeout=10))

    times = []
    try:
        wait("^>")
        for n in range(warmup + rounds):
            start = time.perf_counter()
            child.send(f"step {n}\r")
            wait(rf"^submitted: step {n}$")
            if n >= warmup:
                times.append((time.perf_counter() - start) * 1e3)
    finally:
        child.terminate(force=True)
    return times


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--program", required=True)
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    args = parser.parse_args()
    result = {}
    runs = (
        ("tuipilot", lambda: tuipilot_steps(args.program, args.rounds, args.warmup)),
        (
            "tuipilot_first_match",
            lambda: tuipilot_steps(args.program, args.rounds, args.warmup, False),
        ),
        ("pexpect_pyte", lambda: pexpect_pyte_steps(args.program, args.rounds, args.warmup)),
        (
            "pexpect_pyte_no_delay",
            lambda: pexpect_pyte_steps(args.program, args.rounds, args.warmup, False),
        ),
    )
    for name, steps in runs:
        median, p90 = percentiles(steps())
        result[name] = {"median_ms": median, "p90_ms": p90}
    print(json.dumps(result))


if __name__ == "__main__":
    main()
