"""What the explorer shows, as plain data: the dataset through the query layer, the catalogs through
`catalog.entries`, the cache command through `cache.fetch_command`. No web framework here."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .. import errors, query
from ..schema import Result
from .state import ANY, UNTESTED, ViewState, parse_pair

@dataclass(frozen=True)
class Explorer:
    ds: query.Dataset  # what open_dataset returned (possibly empty, with warnings)
    problems: tuple[str, ...] = ()  # why the dataset could not be opened or read, in words
    catalog_where: object | None = None  # catalog.Where for tests; None: catalog defaults


def open_explorer(data: str | Path, catalog_where: object | None = None) -> Explorer:
    """Open the dataset; a dataset that cannot be opened still gives an explorer that says what is wrong."""
    try:
        ds = query.open_dataset(data)
    except errors.ModelcompatError as exc:
        return Explorer(query.Dataset(str(data)), (errors.message(exc),), catalog_where)
    except OSError as exc:
        return Explorer(query.Dataset(str(data)), (f"cannot read {data}: {exc}",), catalog_where)
    return Explorer(ds, (), catalog_where)


def banner(ex: Explorer) -> list[str]:
    lines = list(ex.problems) + list(ex.ds.warnings)
    return lines + ([f"The dataset at {ex.ds.source} has no results yet."] if ex.ds.empty and not lines else [])


def version_choices(ex: Explorer) -> tuple[list[str], list[str]]:
    """Compiler versions and transformers versions present, newest first."""
    found = query.pass_rates(ex.ds) if not ex.ds.empty else []
    cvs = list(dict.fromkeys(r["compiler_version"] for r in found if r["compiler_version"]))
    tfs = list(dict.fromkeys(r["transformers"] for r in found if r["transformers"]))
    return cvs, tfs


def status_of(state: ViewState) -> str | None:
    return None if state.status in (ANY, UNTESTED, "") else state.status


def search(ex: Explorer, state: ViewState, limit: int = 500) -> list[dict]:
    if ex.ds.empty or state.status == UNTESTED:
        return []
    return query.search(ex.ds, text=state.q, status=status_of(state), task=state.task,
                        compiler_version=state.cv or None, transformers=state.tf or None, limit=limit)


def fetch_command(row: Result) -> str:
    """The command that fetches compiled graphs for the row's compiler version (cache.fetch_command)."""
    from .. import cache

    command = cache.fetch_command(row)
    return command or f"# No compiled-graph cache for compiler {row.compiler or row.backend!r}."


def detail(ex: Explorer, state: ViewState) -> tuple[Result | None, str]:
    """The model's row in the chosen versions, else its newest row in any version (with a note saying so)."""
    if ex.ds.empty or not state.model:
        return None, ""
    row = query.detail(ex.ds, state.model, state.cv or None, state.tf or None, task=state.task)
    if row is not None or not (state.cv or state.tf):
        return row, ""
    row = query.detail(ex.ds, state.model, task=state.task)
    chosen = f"{state.cv or 'newest'} / transformers {state.tf or 'newest'}"
    return row, f"No result in {chosen}; showing the newest result in any version." if row else ""


def not_found(ex: Explorer, state: ViewState) -> str:
    filters = f" for task {state.task}" + (f", compiler {state.cv}" if state.cv else "") + \
              (f", transformers {state.tf}" if state.tf else "")
    return errors.message(errors.NoResult(state.model, filters))


def regressions(ex: Explorer, state: ViewState) -> dict[str, list[dict]] | None:
    old, new = parse_pair(state.old), parse_pair(state.new)
    if ex.ds.empty or not (old and new):
        return None
    return query.regressions(ex.ds, old, new)


def failure_causes(ex: Explorer, state: ViewState) -> list[dict]:
    return [] if ex.ds.empty else query.failure_causes(ex.ds, state.cv or None, state.tf or None)


def pass_rates(ex: Explorer) -> list[dict]:
    return [] if ex.ds.empty else query.pass_rates(ex.ds)


def versions(ex: Explorer) -> list[dict]:
    return [] if ex.ds.empty else query.versions(ex.ds)
