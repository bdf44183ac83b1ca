"""Terminal view of a sweep: a rich progress bar while it runs, a results table and one summary line after."""

from __future__ import annotations

from .report import styled
from .schema import Result


class RichProgress:
    """Tests done / running / queued, counts by status and an ETA, on one live line (sweep.NoEvents' interface)."""

    def __init__(self, console=None) -> None:
        from rich.progress import (BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn,
                                   TimeElapsedColumn, TimeRemainingColumn)

        self.progress = Progress(SpinnerColumn(), BarColumn(), MofNCompleteColumn(), TextColumn("{task.description}"),
                                 TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(), console=console)
        self.task, self.total, self.running, self.counts = None, 0, 0, {}

    def __enter__(self) -> "RichProgress":
        self.progress.start()
        return self

    def __exit__(self, *exc) -> None:
        self.progress.stop()

    def planned(self, total: int, already_staged: int) -> None:
        self.total = total
        self.task = self.progress.add_task(self.line(), total=total)
        if already_staged:
            self.progress.console.print(f"resuming: {already_staged} tests already staged, skipped")

    def started(self, job) -> None:
        self.running += 1
        self.progress.update(self.task, description=self.line())

    def finished(self, job, row: Result) -> None:
        self.running -= 1
        self.counts[row.result] = self.counts.get(row.result, 0) + 1
        self.progress.update(self.task, advance=1, description=self.line())

    def line(self) -> str:
        done = sum(self.counts.values())
        statuses = " ".join(f"{styled(k)} {v}" for k, v in sorted(self.counts.items()))
        return f"done {done}  running {self.running}  queued {self.total - done - self.running}  {statuses}"


def summary_line(summary) -> str:
    counts = ", ".join(f"{k} {v}" for k, v in sorted(summary.counts().items())) or "nothing to run"
    return (f"{len(summary.rows)} tests run ({counts}); {summary.already_staged} already staged, skipped; "
            f"CPU references: {summary.references_computed} computed, {summary.references_reused} reused; "
            f"wall {summary.wall_s:.1f} s on {summary.cores} cores, held {summary.utilisation:.0%} of the time")


def print_summary(summary, title: str) -> None:
    from rich.console import Console

    from .report import results_table

    console = Console(width=200)
    if summary.rows:
        console.print(results_table(sorted(summary.rows, key=lambda r: r.model_id), title=title))
    console.print(summary_line(summary), highlight=False)
