"""The explorer's view state, which lives in the page URL's query string so that a link reproduces a view.

`PARAMS` is the one list of query parameters: parsing, link building and the JavaScript that rewrites the URL
after a change are all derived from it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields, replace
from urllib.parse import urlencode

TASKS = ("text-generation", "image-text-to-text")
LIST_TABS = {"selected": "Selected", "trending": "Trending", "downloads": "Downloads", "local": "Local",
             "all": "All tested"}
OTHER_TABS = {"model": "Model", "regressions": "Regressions", "causes": "Failure causes", "versions": "Pass rates"}
TABS = {**LIST_TABS, **OTHER_TABS}
ANY = "any"  # the status filter's "no filter" choice
UNTESTED = "untested"  # a model in a catalog with no result row: not the same as SKIPPED
CONTROLS = ("task", "q", "status", "cv", "tf")  # the shared filter controls, in the order the UI passes them


@dataclass(frozen=True)
class ViewState:
    tab: str = "all"  # one of TABS
    task: str = TASKS[0]
    q: str = ""  # part of a model name
    status: str = ANY  # a schema status, `untested`, or `any`
    cv: str = ""  # compiler version; empty: the newest present
    tf: str = ""  # transformers version; empty: the newest present
    model: str = ""  # the model whose detail the Model tab shows
    old: str = ""  # regressions: the older version pair, as `compiler_version|transformers`
    new: str = ""  # regressions: the newer version pair


PARAMS = tuple(f.name for f in fields(ViewState))


def from_query(params: Mapping[str, str]) -> ViewState:
    """A state from query parameters; unknown keys are ignored and unknown tabs or tasks fall back."""
    given = {k: str(params[k])[:300] for k in PARAMS if params.get(k)}
    state = replace(ViewState(), **given)
    return replace(state, tab=state.tab if state.tab in TABS else "all",
                   task=state.task if state.task in TASKS else TASKS[0])


def to_query(state: ViewState, **changes: str) -> str:
    """`?a=b&...` for the state with `changes` applied; default values are left out of the URL."""
    default = asdict(ViewState())
    values = asdict(replace(state, **changes))
    return "?" + urlencode({k: v for k, v in values.items() if v and v != default[k]})


def pair_text(compiler_version: str | None, transformers: str | None) -> str:
    return f"{compiler_version or ''}|{transformers or ''}"


def parse_pair(text: str) -> tuple[str, str] | None:
    if "|" not in (text or ""):
        return None
    cv, tf = text.split("|", 1)
    return (cv, tf)


def url_js(names: tuple[str, ...], **fixed: str) -> str:
    """A JS function for an event's `js=`: writes its input values (named `names`) and the `fixed` values into
    the URL's query string without reloading, then passes the inputs on unchanged."""
    return f"""(...values) => {{
  const names = {json.dumps(list(names))}; const fixed = {json.dumps(fixed)};
  const url = new URL(window.location.href);
  const defaults = {json.dumps(asdict(ViewState()))};
  const put = (k, v) => (v === null || v === undefined || v === "" || v === defaults[k])
      ? url.searchParams.delete(k) : url.searchParams.set(k, String(v));
  names.forEach((k, i) => put(k, values[i]));
  Object.entries(fixed).forEach(([k, v]) => put(k, v));
  window.history.replaceState(null, "", url.toString());
  return names.length === 1 ? values[0] : values;
}}"""
