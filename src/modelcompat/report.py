"""Terminal output: a one-screen verdict for a row and a results table for many (rich)."""

from __future__ import annotations

from .schema import Result

COLOURS = {"PASS": "green", "FAIL": "red", "ERROR": "red", "TIMEOUT": "yellow", "OOM": "magenta",
           "CRASH": "magenta", "SKIPPED": "bright_black"}
TABLE_COLUMNS = ("model_id", "result", "target", "backend", "cores", "tp", "ep", "verdict_basis", "match_prefix",
                 "wall_s", "compile_s", "device_mem_peak_gb", "stage")


def fmt(value) -> str:
    if value is None:
        return "-"
    return f"{value:.2f}" if isinstance(value, float) else str(value)


def styled(result: str) -> str:
    return f"[{COLOURS.get(result, 'white')}]{result}[/]"


def verdict_lines(row: Result) -> list[str]:
    lines = [f"{styled(row.result)}  {row.model_id}  ({row.task}, {row.target}/{row.backend}, "
             f"{row.compiler} {row.compiler_version}, transformers {row.transformers})"]
    if row.cores:
        lines.append(f"cores {row.cores} (tp {row.tp}, ep {row.ep})  basis {fmt(row.verdict_basis)}  "
                     f"cpu_match {fmt(row.cpu_match)}  match_prefix {fmt(row.match_prefix)}/{len(row.token_ids)}")
    if row.english is not None:
        lines.append(f"judge {row.judge}: english {row.english} (score {row.english_score:.3f})")
    lines.append(f"wall {fmt(row.wall_s)} s  load {fmt(row.load_s)} s  compile {fmt(row.compile_s)} s  "
                 f"generate {fmt(row.generate_s)} s  peak mem {fmt(row.device_mem_peak_gb)} GiB")
    if row.generated_text:
        lines.append(f"text: {row.generated_text[:200]!r}")
    if row.exclusion:
        lines.append(f"skipped: {row.exclusion}")
    if row.error:
        lines.append(f"stage {row.stage}: {row.error_signature or ''}\n{row.error[-1200:]}")
    return lines


def print_verdict(row: Result) -> None:
    from rich.console import Console
    from rich.markup import escape

    console = Console()
    for i, line in enumerate(verdict_lines(row)):
        console.print(line if i == 0 else escape(line), highlight=False)


def results_table(rows: list[Result], title: str = "results", columns=TABLE_COLUMNS):
    from rich.markup import escape
    from rich.table import Table

    table = Table(title=title)
    for name in columns:
        table.add_column(name, no_wrap=name == "model_id")
    for row in rows:
        table.add_row(*(styled(row.result) if c == "result" else escape(fmt(getattr(row, c))) for c in columns))
    return table


def print_table(rows: list[Result], title: str = "results") -> None:
    from rich.console import Console

    Console(width=200).print(results_table(rows, title))
