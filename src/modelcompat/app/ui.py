"""The explorer's Gradio Blocks: shared filter controls, one tab per view, and events that keep the view state
in the URL's query string (read on load from gr.Request, written on change by a small JS snippet)."""

from __future__ import annotations

from dataclasses import replace
from urllib.parse import parse_qsl, urlsplit

import gradio as gr

from .. import query
from ..schema import STATUSES
from . import explorer as data
from . import render, views
from .explorer import Explorer
from .state import ANY, LIST_TABS, PARAMS, TABS, TASKS, UNTESTED, ViewState, from_query, pair_text, url_js

HEADER = ('<h1 style="margin:0">modelcompat explorer</h1><p class="mc-note">Does this Hugging Face checkpoint run '
          'on this backend, with this exact stack? Read-only view of the results dataset.</p>')
HIDDEN_CSS = ".mc-hidden{display:none !important}"
# Model links are plain `?…` links (they work without JS, in a new tab, or shared). A plain click is handled in
# the page instead: the link goes into a hidden textbox whose change event shows that view without a reload.
FOLLOW_LINKS_JS = """<script>
document.addEventListener("click", (event) => {
  const link = event.target.closest ? event.target.closest("a.mc-open") : null;
  const box = document.querySelector("#mc-link textarea, #mc-link input");
  if (!link || !box || event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey) return;
  event.preventDefault();
  history.pushState(null, "", link.getAttribute("href"));
  box.value = link.getAttribute("href") + "#" + Date.now();  // a new value each click: a change event
  box.dispatchEvent(new Event("input", {bubbles: true}));
});
window.addEventListener("popstate", () => location.reload());
</script>"""
NAMES = {"cv": "compiler_version", "tf": "transformers"}  # selector -> query.chosen_pair keyword


def pair_choices(ex: Explorer) -> list[tuple[str, str]]:
    return [(f"{r['compiler_version']} · transformers {r['transformers']}",
             pair_text(r["compiler_version"], r["transformers"])) for r in data.pass_rates(ex)]


def controls(ex: Explorer) -> dict[str, gr.components.Component]:
    cvs, tfs = data.version_choices(ex)
    with gr.Row():
        widgets = {"task": gr.Radio(list(TASKS), value=TASKS[0], label="Task", scale=2),
                   "q": gr.Textbox(label="Search (part of a name, Enter)", placeholder="e.g. qwen", scale=2),
                   "status": gr.Dropdown([ANY, *STATUSES, UNTESTED], value=ANY, label="Status", scale=1),
                   "cv": gr.Dropdown(cvs, value=cvs[0] if cvs else None, label="Compiler version", scale=1),
                   "tf": gr.Dropdown(tfs, value=tfs[0] if tfs else None, label="transformers version", scale=1)}
    return widgets


def model_tab(ex: Explorer) -> dict[str, gr.components.Component]:
    with gr.Row():
        model = gr.Textbox(label="Model id (Enter to open)", placeholder="org/name", scale=4)
        button = gr.Button("Open", scale=1)
    out = {"model": model, "open": button, "detail": gr.HTML(render.note("Pick a model in a list."))}
    out["error"] = gr.Textbox(label="Error (shown as text)", lines=4, max_lines=20, buttons=["copy"],
                              interactive=False, elem_id="mc-error")
    out["generated"] = gr.Textbox(label="Generated text (shown as text)", lines=2, interactive=False,
                                  elem_id="mc-generated")
    out["stack"] = gr.HTML(label="Stack")
    out["run_py"] = gr.Code(label="run.py (the exact text that ran)", language="python", interactive=False,
                            elem_id="mc-run-py")
    out["reproduce"] = gr.Code(label="Reproduce", language="shell", lines=2, interactive=False, buttons=["copy"])
    out["fetch"] = gr.Code(label="Fetch compiled graphs for this compiler version", language="shell", lines=1,
                           interactive=False, buttons=["copy"])
    return out


def regressions_tab(ex: Explorer) -> dict[str, gr.components.Component]:
    choices = pair_choices(ex)
    with gr.Row():
        old = gr.Dropdown(choices, value=choices[1][1] if len(choices) > 1 else None, label="Older version pair")
        new = gr.Dropdown(choices, value=choices[0][1] if choices else None, label="Newer version pair")
    return {"old": old, "new": new, "regressions": gr.HTML(render.note("Pick two version pairs."))}


def layout(ex: Explorer) -> dict:
    """All components by name."""
    gr.HTML(HEADER + render.warnings(data.banner(ex)), elem_id="mc-banner")
    comp = controls(ex)
    comp["tab"] = gr.Textbox(value="all", elem_classes="mc-hidden", show_label=False, container=False)
    comp["link"] = gr.Textbox(elem_id="mc-link", elem_classes="mc-hidden", show_label=False, container=False)
    with gr.Tabs(selected="all") as comp["tabs"]:
        for name, label in LIST_TABS.items():
            with gr.Tab(label, id=name):
                comp[name] = gr.HTML(render.note("Loading…"), elem_id=f"mc-list-{name}")
        with gr.Tab("Model", id="model"):
            comp.update(model_tab(ex))
        with gr.Tab("Regressions", id="regressions"):
            comp.update(regressions_tab(ex))
        with gr.Tab("Failure causes", id="causes"):
            comp["causes"] = gr.HTML(render.note("Loading…"))
        with gr.Tab("Pass rates", id="versions"):
            gr.HTML(views.versions_html(ex))
    return comp


def resolved(ex: Explorer, state: ViewState, keep: str = "cv") -> ViewState:
    """Versions that exist together. A pair that is not present keeps one selector (`keep`, else the other one
    that is set) and takes the newest version that goes with it; nothing set means the newest pair.
    Regressions default to the two newest pairs."""
    pairs = [] if ex.ds.empty else query.pairs(ex.ds)
    if pairs and (state.cv, state.tf) not in pairs:
        order = (keep, "tf" if keep == "cv" else "cv")
        kept = next(({NAMES[k]: getattr(state, k)} for k in order if getattr(state, k)), {})
        cv, tf = query.chosen_pair(ex.ds, **{**dict.fromkeys(NAMES.values()), **kept}) or pairs[0]
        state = replace(state, cv=cv, tf=tf)
    choices = [pair_text(*p) for p in pairs]
    return replace(state, old=state.old or (choices[1:2] or [""])[0], new=state.new or (choices or [""])[0])


def state_of(ex: Explorer, values: tuple, keep: str = "cv", **fixed: str) -> ViewState:
    """The view state from the inputs (in PARAMS order), normalised as a URL would be."""
    given = {k: v for k, v in zip(PARAMS, values) if v}
    return resolved(ex, from_query({**given, **fixed}), keep)


def respond(ex: Explorer, comp: dict, state: ViewState) -> dict:
    updates = {comp[k]: v for k, v in views.tab_outputs(ex, state).items()}
    versions = {comp[k]: getattr(state, k) or None for k in ("cv", "tf")}
    return {comp["tab"]: state.tab, **versions, **updates}


def on_load(ex: Explorer, comp: dict, params: dict) -> dict:
    state = resolved(ex, from_query(params))
    values = {comp[k]: getattr(state, k) for k in ("task", "q", "status", "model")}
    values.update({comp[k]: getattr(state, k) or None for k in ("old", "new")})
    return {**values, comp["tabs"]: gr.Tabs(selected=state.tab), **respond(ex, comp, state)}


def wire(ui: gr.Blocks, ex: Explorer, comp: dict) -> None:
    """Each event recomputes the current tab, then a JS step writes the resulting state into the URL. A tab is
    followed through `Tabs.select`, which fires on a user's click only (a Tab's own select also fires when the
    page mounts, racing the load event)."""
    inputs = [comp[p] for p in PARAMS]
    outputs = [c for k, c in comp.items() if k not in ("open", "link")]
    by_label = {label: name for name, label in TABS.items()}

    def on(event, fn) -> None:
        event(fn, inputs, outputs).then(None, inputs, None, js=url_js(PARAMS))

    def handler(keep: str = "cv", **fixed: str):
        return lambda *values: respond(ex, comp, state_of(ex, values, keep, **fixed))

    def picked(tab, task, q, status, cv, tf, model, old, new, evt: gr.SelectData) -> dict:
        values = (by_label.get(evt.value, "all"), task, q, status, cv, tf, model, old, new)
        return respond(ex, comp, state_of(ex, values))

    def load(request: gr.Request) -> dict:
        return on_load(ex, comp, dict(request.query_params))

    def follow(link: str) -> dict:  # an in-page link (FOLLOW_LINKS_JS): the view its query string names
        return on_load(ex, comp, dict(parse_qsl(urlsplit(link or "").query)))

    ui.load(load, None, outputs)
    comp["link"].change(follow, comp["link"], outputs).then(None, inputs, None, js=url_js(PARAMS))
    for name in ("task", "status", "cv", "tf"):
        on(comp[name].input, handler(keep="tf" if name == "tf" else "cv"))
    on(comp["q"].submit, handler())
    on(comp["model"].submit, handler(tab="model"))
    on(comp["open"].click, handler(tab="model"))
    on(comp["old"].input, handler(tab="regressions"))
    on(comp["new"].input, handler(tab="regressions"))
    on(comp["tabs"].select, picked)


def build_ui(ex: Explorer) -> gr.Blocks:
    with gr.Blocks(title="modelcompat explorer", analytics_enabled=False) as ui:
        wire(ui, ex, layout(ex))
    return ui
