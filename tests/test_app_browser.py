"""The explorer in a real browser: headless Chromium (Debian's, via playwright) against a uvicorn server on
127.0.0.1. One server and one browser for the module."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from test_app_data import OLD, XSS, Served, launch_chromium, sample_rows, write_dataset

ARTIFACTS = Path(__file__).parent / "artifacts"
LLAMA = "meta-llama/Llama-3.2-1B-Instruct"
WAIT_MS = 20_000


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from modelcompat.app import create_app

    served = Served(create_app(write_dataset(tmp_path_factory.mktemp("browser") / "ds", sample_rows())))
    yield served
    served.stop()


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = launch_chromium(playwright)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.set_default_timeout(WAIT_MS)
    yield context.new_page()
    context.close()


def query_of(page) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(page.url).query).items()}


def listed(page, tab: str = "all") -> list[str]:
    return page.locator(f"#mc-list-{tab} a.mc-open").all_inner_texts()


@pytest.fixture(scope="module", autouse=True)
def artifacts():
    ARTIFACTS.mkdir(exist_ok=True)


def test_first_page_lists_the_newest_pair(server, page):
    page.goto(server.url + "/")
    page.wait_for_selector("#mc-list-all table")
    assert listed(page) == ["Qwen/Qwen3-0.6B", LLAMA, "meta-llama/Llama-3.3-70B-Instruct", "tiny/mixtral-moe",
                            "tiny/new-model"]
    assert page.get_by_text("too large for 2 cores").is_visible()  # a skip shows its exclusion
    assert page.get_by_text("RuntimeError: <b>bad</b> graph").is_visible()  # markup shown as text
    page.screenshot(path=str(ARTIFACTS / "explorer-all-tested.png"), full_page=True)


def test_search_lives_in_the_url(server, page):
    page.goto(server.url + "/")
    page.wait_for_selector("#mc-list-all table")
    box = page.get_by_label("Search (part of a name, Enter)")
    box.fill("llama")
    box.press("Enter")
    page.wait_for_function("() => document.querySelectorAll('#mc-list-all a.mc-open').length === 2")
    page.wait_for_function("() => location.search.includes('q=llama')")
    link = page.url
    page.goto(link)  # the link reproduces the view
    page.wait_for_function("() => document.querySelectorAll('#mc-list-all a.mc-open').length === 2")
    assert page.get_by_label("Search (part of a name, Enter)").input_value() == "llama"


def test_switching_the_compiler_version_follows_with_transformers(server, page):
    page.goto(server.url + "/")
    page.wait_for_selector("#mc-list-all table")
    page.get_by_label("Compiler version").click()
    page.get_by_role("option", name=OLD[0]).click()
    page.wait_for_function("() => document.querySelectorAll('#mc-list-all a.mc-open').length === 2")
    assert page.get_by_label("transformers version").input_value() == OLD[1]
    page.wait_for_function("() => location.search.includes('tf=')")
    assert (query_of(page)["cv"], query_of(page)["tf"]) == OLD


def test_switching_the_task(server, page):
    page.goto(server.url + "/")
    page.wait_for_selector("#mc-list-all table")
    page.get_by_label("image-text-to-text").check()
    page.wait_for_function("() => location.search.includes('task=image-text-to-text')")
    assert listed(page) == ["tiny/llava"]


def test_a_model_link_opens_its_detail_in_the_page(server, page):
    page.goto(server.url + "/")
    page.evaluate("window.__same_page = true")  # survives only if the click does not reload the page
    page.get_by_role("link", name="tiny/mixtral-moe").click()
    page.wait_for_selector("text=Timings and memory")
    assert query_of(page)["tab"] == "model" and query_of(page)["model"] == "tiny/mixtral-moe"
    assert page.get_by_text("SmolLM2-135M-Instruct@0.5").is_visible()
    assert page.get_by_text("NOT a throughput claim").is_visible()
    assert page.locator(".mc-stack tr.mc-extra").inner_text().startswith("einops")
    assert page.evaluate("window.__same_page") is True
    page.get_by_role("tab", name="All tested").click()
    page.get_by_role("link", name="Qwen/Qwen3-0.6B").click()
    page.get_by_text("of 32 tokens").wait_for()  # the second link opens the other model
    assert query_of(page)["model"] == "Qwen/Qwen3-0.6B"


def test_markup_in_a_row_is_shown_as_text_and_never_run(server, page):
    page.goto(f"{server.url}/?tab=model&model={LLAMA}")
    page.wait_for_selector("text=Timings and memory")
    page.wait_for_function("() => document.querySelector('#mc-error textarea')?.value.includes('__xss')")
    assert page.locator("#mc-error textarea").input_value() == XSS
    assert page.locator("#mc-generated textarea").input_value() == XSS
    assert "# " + XSS in page.locator("#mc-run-py").inner_text()  # run.py, in the code view, as text
    assert page.evaluate("window.__xss") is None
    page.screenshot(path=str(ARTIFACTS / "explorer-detail.png"), full_page=True)


def test_catalog_tab_marks_untested_apart_from_skipped(server, page):
    page.goto(server.url + "/?tab=selected")
    page.wait_for_selector("#mc-list-selected table")
    rows = page.locator("#mc-list-selected tbody tr")
    texts = {r.locator("a.mc-open").inner_text(): r.inner_text() for r in rows.all()}
    assert "PASS" in texts["Qwen/Qwen3-0.6B"]
    assert "SKIPPED" in texts["meta-llama/Llama-3.3-70B-Instruct"] and "too large" in texts[
        "meta-llama/Llama-3.3-70B-Instruct"]
    assert "untested" in texts["Qwen/Qwen3-8B"]
    page.screenshot(path=str(ARTIFACTS / "explorer-selected.png"), full_page=True)
    page.get_by_role("tab", name="Trending").click()
    page.wait_for_selector("#mc-list-trending table")
    assert "as of 20" in page.locator("#mc-list-trending").inner_text()  # the snapshot's date
    assert query_of(page)["tab"] == "trending"


def test_across_versions_tabs(server, page):
    page.goto(server.url + "/?tab=regressions")
    page.get_by_text("newly failing (1)").wait_for()
    page.get_by_role("tab", name="Failure causes").click()
    page.get_by_text("RuntimeError: <b>bad</b> graph").last.wait_for()
    page.get_by_role("tab", name="Pass rates").click()
    assert page.locator("svg.mc-chart rect").count() == 2
    page.screenshot(path=str(ARTIFACTS / "explorer-pass-rates.png"))
