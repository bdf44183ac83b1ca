"""Terminal views of the query layer's answers (rich): search results, versions, one row in full."""

from __future__ import annotations

import json

from . import cache, query, report
from .schema import Result

SEARCH_TABLE = ("model_id", "result", "task", "target", "backend", "cores", "tp", "ep", "wall_s", "compile_s",
                "device_mem_peak_gb", "tested_at")


def console():
    from rich.console import Console

    return Console(width=200)


def plain_table(rows: list[dict], title: str):
    from rich.markup import escape
    from rich.table import Table

    table = Table(title=title)
    for name in (rows[0] if rows else {"(none)": None}):
        table.add_column(name)
    for row in rows:
        table.add_row(*(escape(report.fmt(v)) for v in row.values()))
    return table


def print_search(rows: list[dict]) -> None:
    versions = f" ({rows[0]['compiler_version']}, transformers {rows[0]['transformers']})" if rows else ""
    title = f"{len(rows)} result{'' if len(rows) == 1 else 's'}{versions}"
    console().print(report.results_table([Result.from_dict(r) for r in rows], title, SEARCH_TABLE))


def print_rows(rows: list[dict], title: str) -> None:
    console().print(plain_table(rows, title))


def packages_table(title: str, text: str | None):
    packages = json.loads(text or "{}")
    return plain_table([{"package": k, "version": v} for k, v in sorted(packages.items())], title)


def print_detail(row: Result) -> None:
    from rich.markup import escape

    report.print_verdict(row)
    out = console()
    out.print(packages_table("stack", row.stack))
    out.print(packages_table("extra packages", row.extra_packages))
    out.print("[bold]reproduce[/]\n" + escape("\n".join(query.reproduce_command(row))))
    fetch = cache.fetch_command(row)
    out.print("[bold]compiled graphs[/]\n" + escape(fetch or f"{row.compiler} keeps no compiled-graph cache"))
    out.print(f"[bold]run.py[/] (sha256 {row.run_py_sha256})")
    out.print(escape(row.run_py or "(not stored)"), highlight=False)
