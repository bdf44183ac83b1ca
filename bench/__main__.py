"""Run every bench/bench_*.py module (or the ones named) and write bench/REPORT.md.

    python -m bench [bench_query bench_judge ...]

Each module prints its figures; a printed line that states a goal, as `(goal ...)` or `goal ...:`, becomes a row
of the report's table, verbatim, beside that goal. The full output of every module follows the table.
"""

import contextlib
import importlib
import io
import os
import platform
import pkgutil
import re
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).parent
GOAL = re.compile(r"\(?goal ([^):]*)[):]?")


class Tee(io.TextIOBase):
    """Writes to the terminal and keeps a copy."""

    def __init__(self, terminal) -> None:
        self.terminal, self.copy = terminal, io.StringIO()

    def write(self, text: str) -> int:
        self.terminal.write(text)
        self.terminal.flush()
        return self.copy.write(text)


def run(name: str) -> tuple[str, float]:
    print(f"== bench.{name}", flush=True)
    tee, started = Tee(sys.stdout), time.monotonic()
    with contextlib.redirect_stdout(tee):
        try:
            importlib.import_module(f"bench.{name}").main()
        except Exception as exc:  # one broken benchmark still leaves the others' figures in the report
            print(f"FAILED: {type(exc).__name__}: {exc}")
    return tee.copy.getvalue(), time.monotonic() - started


def figures(name: str, output: str) -> list[tuple[str, str, str]]:
    rows = []
    for line in output.splitlines():
        found = GOAL.search(line)
        if found:
            rows.append((name, line.strip().replace("|", "/"), found.group(1).strip()))
    return rows


def machine() -> str:
    import torch

    return (f"{platform.platform()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
            f"torch {torch.__version__}, load average {os.getloadavg()[0]:.1f} at the end")


def report(outputs: dict[str, tuple[str, float]]) -> str:
    lines = ["# Benchmark report", "", f"Written by `make bench` on {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC.",
             f"Machine: {machine()}.", "", "| benchmark | figure (as printed) | goal |", "| --- | --- | --- |"]
    for name, (output, _) in outputs.items():
        lines += [f"| {b} | {figure} | {goal} |" for b, figure, goal in figures(name, output)]
    for name, (output, seconds) in outputs.items():
        lines += ["", f"## {name} ({seconds:.0f} s)", "", "```", output.rstrip(), "```"]
    return "\n".join(lines) + "\n"


def main(names: list[str]) -> None:
    found = sorted(m.name for m in pkgutil.iter_modules([str(HERE)]) if m.name.startswith("bench_"))
    outputs = {name: run(name) for name in (names or found)}
    (HERE / "REPORT.md").write_text(report(outputs))
    print(f"wrote {HERE / 'REPORT.md'}")


if __name__ == "__main__":
    main(sys.argv[1:])
