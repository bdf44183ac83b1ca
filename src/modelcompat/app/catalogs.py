"""The catalog tabs (Selected, Trending, Downloads, Local): a catalog's entries joined with their results in the
chosen version pair. An entry with no result row is `untested`, which is not the same as SKIPPED."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from .. import catalog, errors, query
from .explorer import Explorer
from .state import ANY, UNTESTED, ViewState

LOOKUP_THREADS = 4  # 50 lookups on the 1M-row bench data, 2 cores: ~0.5 s with 1 thread, ~0.3 s with 4
LEAD = {"selected": "reason", "trending": "rank", "downloads": "rank", "local": "path"}  # the column shown first


@dataclass(frozen=True)
class CatalogView:
    rows: list[dict]  # one per entry: the result's columns (result None: untested) plus the lead column
    caption: str  # the catalog's name, size, date and source
    problems: list[str]  # entries or files left out, and why


def entry_row(ex: Explorer, entry: catalog.Entry, state: ViewState, pair: tuple | None) -> dict:
    found = None
    if pair is not None:
        found = query.detail(ex.ds, entry.id, pair[0], pair[1], task=state.task)
    row = found.to_dict() if found else {"model_id": entry.id, "result": None}
    return {**row, "reason": entry.reason, "rank": entry.rank, "path": entry.path}


def wanted(row: dict, state: ViewState) -> bool:
    if state.status in (ANY, ""):
        return True
    return (row["result"] or UNTESTED) == state.status


def catalog_view(ex: Explorer, name: str, state: ViewState) -> CatalogView:
    try:
        snapshot = catalog.entries(name, state.task, where=ex.catalog_where)
    except errors.ModelcompatError as exc:
        return CatalogView([], f"{name}: not available", [errors.message(exc)])
    pair = None if ex.ds.empty else query.chosen_pair(ex.ds, state.cv or None, state.tf or None)
    chosen = [e for e in snapshot.entries if state.q.lower() in e.id.lower()]
    with ThreadPoolExecutor(LOOKUP_THREADS) as pool:  # DuckDB releases the GIL: lookups overlap
        found = list(pool.map(lambda entry: entry_row(ex, entry, state, pair), chosen))
    rows = [r for r in found if wanted(r, state)]
    versions = f"results from {pair[0]} / transformers {pair[1]}" if pair else "no results in this version pair"
    caption = f"{catalog.describe(snapshot)}; {versions}."
    return CatalogView(rows, caption, [errors.message(p) for p in snapshot.problems])


def lead_column(name: str) -> str:
    return LEAD.get(name, "reason")
