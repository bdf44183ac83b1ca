"""HTML for the explorer, built from query-layer rows. Every value from the dataset goes through `esc`, so
error text, generated text or a model id holding `<script>` or markup is shown as text, never run."""

from __future__ import annotations

import html
import json
from collections.abc import Sequence

from ..schema import STATUSES, Result
from .state import UNTESTED, ViewState, to_query

COLOURS = {"PASS": "#1a7f37", "FAIL": "#cf222e", "ERROR": "#cf222e", "TIMEOUT": "#bf8700", "OOM": "#8250df",
           "CRASH": "#8250df", "SKIPPED": "#6e7781", UNTESTED: "#afb8c1"}
CSS = """
.mc-pill{display:inline-block;padding:1px 8px;border-radius:10px;color:#fff;font-weight:600;font-size:12px}
.mc-untested{color:#57606a;background:#fff !important;border:1px dashed #8c959f}
.mc-table{border-collapse:collapse;width:100%;font-size:13px}
.mc-table th,.mc-table td{border-bottom:1px solid #d0d7de;padding:4px 8px;text-align:left;vertical-align:top}
.mc-table td.num{text-align:right;font-variant-numeric:tabular-nums}
.mc-note{color:#57606a;font-size:13px;margin:4px 0}
.mc-warn{background:#fff8c5;border:1px solid #d4a72c;padding:6px 10px;border-radius:6px;margin:4px 0}
.mc-extra td{background:#ddf4ff;font-weight:600}
.mc-exclusion{color:#57606a;font-size:12px}
"""


def esc(value: object) -> str:
    return html.escape("-" if value is None else str(value), quote=True)


def num(value: float | int | None, digits: int = 2) -> str:
    if value is None:
        return "-"
    return f"{value:.{digits}f}" if isinstance(value, float) else str(value)


def pill(result: str | None) -> str:
    result = result or UNTESTED
    colour = COLOURS.get(result, "#6e7781")
    css = "mc-pill mc-untested" if result == UNTESTED else "mc-pill"
    title = STATUSES.get(result, "no result row for this model: not tested yet")
    return f'<span class="{css}" style="background:{colour}" title="{esc(title)}">{esc(result)}</span>'


def table(headers: Sequence[str], rows: Sequence[Sequence[str]], numeric: set[int] = frozenset()) -> str:
    """`rows` hold HTML that is already escaped; headers are escaped here."""
    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f'<td class="num">{c}</td>' if i in numeric else f"<td>{c}</td>"
                                    for i, c in enumerate(row)) + "</tr>" for row in rows)
    return f'<table class="mc-table"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def note(text: str) -> str:
    return f'<p class="mc-note">{esc(text)}</p>'


def warnings(lines: Sequence[str]) -> str:
    return "".join(f'<div class="mc-warn" role="alert">{esc(line)}</div>' for line in lines)


def model_link(model_id: str, state: ViewState, row: dict) -> str:
    href = to_query(state, tab="model", model=model_id, cv=row.get("compiler_version") or state.cv,
                    tf=row.get("transformers") or state.tf)
    return f'<a class="mc-open" href="{esc(href)}" data-model="{esc(model_id)}">{esc(model_id)}</a>'


def outcome(row: dict) -> str:
    """The result pill; a skip shows its exclusion, a failure its signature."""
    extra = row.get("exclusion") if row.get("result") == "SKIPPED" else row.get("error_signature")
    return pill(row.get("result")) + (f'<div class="mc-exclusion">{esc(extra)}</div>' if extra else "")


def shape(row: dict) -> str:
    return f"{num(row.get('cores'))} / {num(row.get('tp'))} / {num(row.get('ep'))}" if row.get("result") else "-"


def wall(row: dict) -> str:
    text = num(row.get("wall_s"), 1)
    return text + (f' <span class="mc-exclusion">(compile {num(row["compile_s"], 1)})</span>'
                   if row.get("compile_s") is not None else "")


LIST_HEADERS = ("model", "result", "cores / TP / EP", "wall s (incl. compile)", "peak device GB", "tested")


def results_rows(rows: Sequence[dict], state: ViewState, lead: str | None = None) -> str:
    """The listing: one line per row; `lead` names a catalog column (rank or reason) to show first."""
    headers = ((lead,) if lead else ()) + LIST_HEADERS
    cells = [([esc(r.get(lead))] if lead else []) +
             [model_link(r["model_id"], state, r), outcome(r), shape(r), wall(r),
              num(r.get("device_mem_peak_gb")), esc((r.get("tested_at") or "-")[:10])] for r in rows]
    numeric = {i + (1 if lead else 0) for i in (3, 4)}
    return table(headers, cells, numeric) if rows else note("No models match these filters.")


def pairs_table(rows: Sequence[dict]) -> str:
    cells = [[esc(r.get("compiler")), esc(r["compiler_version"]), esc(r["transformers"]), str(r["rows"]),
              str(r["passed"]), f"{100 * r['pass_rate']:.1f}%"] for r in rows]
    return table(("compiler", "compiler version", "transformers", "tests", "passed", "pass rate"), cells, {3, 4, 5})


def bar_chart(rows: Sequence[dict]) -> str:
    """A horizontal SVG bar per (compiler_version, transformers) pair: its pass rate."""
    if not rows:
        return note("No version pairs in this dataset.")
    height, label_w, bar_w = 26, 330, 360
    bars = []
    for i, r in enumerate(rows):
        y, width = i * height, max(1.0, bar_w * r["pass_rate"])
        label = f"{r['compiler_version']} · transformers {r['transformers']}"
        bars.append(f'<text x="0" y="{y + 17}" font-size="12">{esc(label)}</text>'
                    f'<rect x="{label_w}" y="{y + 5}" width="{width:.1f}" height="16" fill="#2da44e"/>'
                    f'<text x="{label_w + width + 6:.1f}" y="{y + 17}" font-size="12">'
                    f'{100 * r["pass_rate"]:.1f}% of {r["rows"]}</text>')
    total_h = height * len(rows) + 4
    return (f'<svg class="mc-chart" role="img" aria-label="pass rate per version pair" width="{label_w + bar_w + 110}"'
            f' height="{total_h}" xmlns="http://www.w3.org/2000/svg">{"".join(bars)}</svg>')


def causes_table(rows: Sequence[dict]) -> str:
    cells = [[esc(r["error_signature"]), str(r["count"]), esc(r.get("stage")),
              esc(", ".join(r.get("examples") or []))] for r in rows]
    return table(("error signature", "count", "stage", "example models"), cells, {1}) if rows else \
        note("No failures with an error signature in this version pair.")


def regressions_html(changes: dict[str, list[dict]], state: ViewState) -> str:
    parts = []
    for kind in ("newly_failing", "newly_passing", "newly_tested"):
        rows = changes.get(kind, [])
        cells = [[model_link(r["model_id"], state, {}), esc(r["task"]), esc(r["target"]),
                  pill(r["old_result"]) if r["old_result"] else "-", pill(r["new_result"])] for r in rows]
        body = table(("model", "task", "target", "old", "new"), cells) if rows else note("none")
        parts.append(f"<h3>{esc(kind.replace('_', ' '))} ({len(rows)})</h3>{body}")
    return "".join(parts)


def json_object(text: str | None) -> dict:
    try:
        value = json.loads(text or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def stack_table(row: Result) -> str:
    """Every installed distribution; the extra packages the test used are highlighted (and listed first)."""
    stack, extra = json_object(row.stack), json_object(row.extra_packages)
    names = sorted(extra) + sorted(n for n in stack if n not in extra)
    lines = "".join(f'<tr class="{"mc-extra" if n in extra else ""}"><td>{esc(n)}</td>'
                    f'<td>{esc(extra.get(n) or stack.get(n))}</td><td>{"extra" if n in extra else ""}</td></tr>'
                    for n in names)
    return (f'<h3>Stack (packages the test used beyond torch/transformers are highlighted)</h3>'
            f'<table class="mc-table mc-stack"><thead><tr><th>package</th><th>version</th><th></th></tr></thead>'
            f'<tbody>{lines}</tbody></table>') if names else note("No stack recorded.")
