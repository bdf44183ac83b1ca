"""Each tab's content for a view state, as HTML or text keyed by output name. The Gradio layer (ui.py) only
wires these to components, so the views are testable without a browser."""

from __future__ import annotations

from .. import query
from . import explorer as data
from . import render
from .catalogs import catalog_view, lead_column
from .detail import detail_html
from .explorer import Explorer
from .state import LIST_TABS, UNTESTED, ViewState, parse_pair

DETAIL_OUTPUTS = ("detail", "error", "generated", "stack", "run_py", "reproduce", "fetch")


LIMIT = 500  # rows a list shows; the caption says when there are more


def all_tested(ex: Explorer, state: ViewState) -> str:
    if state.status == UNTESTED:
        return render.note("Untested models are the ones in a catalog with no result: see the catalog tabs.")
    rows = data.search(ex, state, LIMIT)
    shown = rows[0] if rows else {"compiler_version": state.cv or "newest", "transformers": state.tf or "newest"}
    where = f"{shown['compiler_version']} / transformers {shown['transformers']}"
    more = f"the first {LIMIT} shown; search to narrow" if len(rows) == LIMIT else f"{len(rows)} shown"
    caption = f"All tested {state.task} models in {where}: {more} (newest result per model and target)."
    return render.note(caption) + render.results_rows(rows, state)


def list_html(ex: Explorer, name: str, state: ViewState) -> str:
    if name == "all":
        return all_tested(ex, state)
    view = catalog_view(ex, name, state)
    return (render.warnings(view.problems) + render.note(view.caption)
            + render.results_rows(view.rows, state, lead=lead_column(name)))


def detail_outputs(ex: Explorer, state: ViewState) -> dict[str, str]:
    row, note = data.detail(ex, state)
    if row is None:
        message = data.not_found(ex, state) if state.model else "Pick a model in a list, or type its id above."
        return {"detail": render.warnings([message]) if state.model else render.note(message),
                **{k: "" for k in DETAIL_OUTPUTS[1:]}}
    return {"detail": detail_html(row, note), "error": row.error or "", "generated": row.generated_text or "",
            "stack": render.stack_table(row), "run_py": row.run_py or "",
            "reproduce": "\n".join(query.reproduce_command(row)), "fetch": data.fetch_command(row)}


def causes_html(ex: Explorer, state: ViewState) -> str:
    rows = data.failure_causes(ex, state)
    where = f"{state.cv or 'newest compiler'} / transformers {state.tf or 'newest'}"
    return render.note(f"Failures in {where}, grouped by error signature.") + render.causes_table(rows)


def regressions_html(ex: Explorer, state: ViewState) -> str:
    changes = data.regressions(ex, state)
    if changes is None:
        return render.note("Pick an older and a newer version pair.")
    new_cv, new_tf = parse_pair(state.new)
    return render.regressions_html(changes, ViewState(task=state.task, cv=new_cv, tf=new_tf))


def versions_html(ex: Explorer) -> str:
    rows = data.pass_rates(ex)
    return (render.note("Pass rate per (compiler version, transformers) pair: newest result per test.")
            + render.bar_chart(rows) + render.pairs_table(data.versions(ex)))


def tab_outputs(ex: Explorer, state: ViewState) -> dict[str, str]:
    """The outputs the state's tab needs, keyed by output name (list tabs by their tab name)."""
    if state.tab in LIST_TABS:
        return {state.tab: list_html(ex, state.tab, state)}
    if state.tab == "model":
        return detail_outputs(ex, state)
    if state.tab == "regressions":
        return {"regressions": regressions_html(ex, state)}
    return {"causes": causes_html(ex, state)} if state.tab == "causes" else {}
