"""Small result datasets for the explorer's tests (written straight to Parquet with the schema's Arrow schema),
and tests of the views as plain data, without a server."""

from __future__ import annotations

import html
import json
from pathlib import Path

import pytest

from modelcompat.schema import Result

XSS = '<script>window.__xss=1</script><img src=x onerror="window.__xss=2">'
OLD, NEW = ("2.12.0+cpu", "5.23.0"), ("2.13.0+cpu", "5.24.0")
RUN_PY = 'import torch\nprint("<b>run.py</b>")\n'


def row(model_id: str, result: str, pair: tuple[str, str] = NEW, **extra) -> Result:
    base = dict(model_id=model_id, result=result, compiler="inductor", compiler_version=pair[0],
                transformers=pair[1], torch=pair[0], cores=1, tp=1, ep=1, wall_s=12.5, compile_s=8.25,
                load_s=1.5, generate_s=0.2, tokens_per_s=160.0, device_mem_peak_gb=0.75,
                tested_at=f"2026-11-{20 if pair == OLD else 28}T10:00:00+00:00", run_py=RUN_PY,
                stack=json.dumps({"torch": pair[0], "transformers": pair[1], "numpy": "2.3.0", "einops": "0.8"}),
                extra_packages=json.dumps({"einops": "0.8"}), command=json.dumps(["python", "run.py", "--model",
                                                                                  model_id]))
    return Result(**{**base, **extra})


def sample_rows() -> list[Result]:
    passing = dict(stage="verify", verdict_basis="cpu_match", cpu_match=True, match_prefix=32,
                   token_ids=list(range(32)), reference_token_ids=list(range(32)), generated_text="Hello there.")
    return [
        row("Qwen/Qwen3-0.6B", "PASS", **passing),
        row("Qwen/Qwen3-0.6B", "PASS", OLD, **passing),
        row("meta-llama/Llama-3.2-1B-Instruct", "ERROR", stage="compile", error=XSS, error_type="RuntimeError",
            error_signature="RuntimeError: <b>bad</b> graph", generated_text=XSS, run_py=RUN_PY + "# " + XSS),
        row("meta-llama/Llama-3.2-1B-Instruct", "PASS", OLD, **passing),
        row("meta-llama/Llama-3.3-70B-Instruct", "SKIPPED", stage="plan", exclusion="too large for 2 cores",
            cores=None, tp=None, ep=None, wall_s=0.1, compile_s=None, device_mem_peak_gb=None),
        row("tiny/mixtral-moe", "FAIL", cores=2, tp=2, ep=2, stage="verify", verdict_basis="judge", english=False,
            english_score=0.12, judge="SmolLM2-135M-Instruct@0.5", cpu_match=False, match_prefix=3),
        row("tiny/new-model", "TIMEOUT", stage="generate", error="timed out after 900 s",
            error_signature="timeout"),
        row("tiny/llava", "PASS", task="image-text-to-text", **passing),
    ]


def write_dataset(folder: Path, rows: list[Result]) -> Path:
    """One Parquet file per version pair, as publishing lays them out."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from modelcompat.schema import arrow_schema

    folder.mkdir(parents=True, exist_ok=True)
    pairs: dict[tuple, list[dict]] = {}
    for r in rows:
        pairs.setdefault((r.compiler_version, r.transformers), []).append(r.to_dict())
    for (cv, tf), dicts in pairs.items():
        pq.write_table(pa.Table.from_pylist(dicts, schema=arrow_schema()), folder / f"inductor-{cv}__tf-{tf}.parquet")
    return folder


@pytest.fixture
def explorer(tmp_path):
    from modelcompat.app.explorer import open_explorer

    return open_explorer(write_dataset(tmp_path / "ds", sample_rows()))


def test_all_tested_lists_newest_pair_and_escapes(explorer):
    from modelcompat.app.state import ViewState
    from modelcompat.app.views import list_html

    page = list_html(explorer, "all", ViewState())
    assert "2.13.0+cpu" in page and "Qwen/Qwen3-0.6B" in page and "tiny/llava" not in page
    assert "<b>bad</b>" not in page and "&lt;b&gt;bad&lt;/b&gt;" in page
    assert "too large for 2 cores" in page  # a skip shows its exclusion


def test_selected_marks_untested_apart_from_skipped(explorer):
    from modelcompat.app.state import ViewState
    from modelcompat.app.views import list_html

    page = list_html(explorer, "selected", ViewState(tab="selected"))
    assert ">untested<" in page and ">SKIPPED<" in page and ">PASS<" in page
    only = list_html(explorer, "selected", ViewState(tab="selected", status="untested"))
    assert ">PASS<" not in only and ">untested<" in only


def test_detail_outputs_keep_markup_as_text(explorer):
    from modelcompat.app.state import ViewState
    from modelcompat.app.views import detail_outputs

    out = detail_outputs(explorer, ViewState(tab="model", model="meta-llama/Llama-3.2-1B-Instruct"))
    assert out["error"] == XSS and "<script>" not in out["detail"]
    assert "python run.py --model meta-llama/Llama-3.2-1B-Instruct" in out["reproduce"]
    assert "mc-extra" in out["stack"] and "einops" in out["stack"]
    missing = detail_outputs(explorer, ViewState(tab="model", model="no/such-model"))
    assert "No result for 'no/such-model'" in html.unescape(missing["detail"])


def test_state_round_trips_through_the_url():
    from urllib.parse import parse_qsl

    from modelcompat.app.state import ViewState, from_query, to_query

    state = ViewState(tab="model", q="qw'en%;", status="FAIL", cv="2.13.0+cpu", model="a/b")
    assert from_query(dict(parse_qsl(to_query(state)[1:]))) == state
    assert from_query({"tab": "<script>", "task": "nope"}) == ViewState()


def test_badge_escapes_text():
    from modelcompat.app.badge import badge_svg

    svg = badge_svg("modelcompat", XSS, "#000")
    assert "<script>" not in svg and "&lt;script&gt;" in svg


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Served:
    """An app served by uvicorn in a thread on 127.0.0.1 and a free port, until `stop()`."""

    def __init__(self, app, timeout: float = 30.0):
        import threading
        import time

        import uvicorn

        port = free_port()
        self.url = f"http://127.0.0.1:{port}"
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started and time.monotonic() < deadline and self.thread.is_alive():
            time.sleep(0.05)
        assert self.server.started, "uvicorn did not start"

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]


def launch_chromium(playwright):
    return playwright.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)


def fake_hf_cache(hub: Path, model_ids: list[str]) -> Path:
    """An HF hub cache layout (models--org--name/snapshots/REV/config.json, refs/main) with configs only."""
    for model_id in model_ids:
        repo = hub / ("models--" + model_id.replace("/", "--"))
        (repo / "snapshots" / "abc123").mkdir(parents=True)
        (repo / "snapshots" / "abc123" / "config.json").write_text(json.dumps({"model_type": "llama"}))
        (repo / "refs").mkdir()
        (repo / "refs" / "main").write_text("abc123")
    return hub


def test_local_tab_joins_the_hf_cache_with_results(tmp_path):
    from modelcompat.app.explorer import open_explorer
    from modelcompat.app.state import ViewState
    from modelcompat.app.views import list_html
    from modelcompat.catalog import Where

    hub = fake_hf_cache(tmp_path / "hub", ["Qwen/Qwen3-0.6B", "someone/cached-only"])
    ex = open_explorer(write_dataset(tmp_path / "ds", sample_rows()), Where(tmp_path / "snaps", hub_cache=hub))
    page = html.unescape(list_html(ex, "local", ViewState(tab="local")))
    assert "local: 2 models" in page and "snapshots/abc123" in page
    assert page.index("Qwen/Qwen3-0.6B") < page.index(">PASS<") < page.index("someone/cached-only")
    assert page.count(">untested<") == 1


def test_rankings_show_their_snapshot_date(explorer):
    from modelcompat.app.state import ViewState
    from modelcompat.app.views import list_html

    for name in ("trending", "downloads"):
        page = list_html(explorer, name, ViewState(tab=name, task="image-text-to-text"))
        assert f"{name}: " in page and ", as of 20" in page and ">untested<" in page


@pytest.mark.parametrize("text", ["'; DROP TABLE results; --", "%", "Q_en", '" OR 1=1 --', "\\"])
def test_search_box_text_is_a_value_not_sql(explorer, text):
    from modelcompat.app.state import ViewState
    from modelcompat.app.views import list_html

    assert "No models match these filters." in list_html(explorer, "all", ViewState(q=text))
    assert "No models match" not in list_html(explorer, "selected", ViewState(tab="selected", q="qwen"))
    assert list_html(explorer, "all", ViewState()).count('class="mc-open"') == 5
