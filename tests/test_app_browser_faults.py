"""An empty dataset, or a folder with one corrupt file, still serves a page that says what is wrong
(headless Chromium against uvicorn on 127.0.0.1)."""

from __future__ import annotations

from test_app_browser import browser  # noqa: F401  (a module-scoped fixture)
from test_app_data import Served, sample_rows, write_dataset


def page_text(browser, folder, ready: str) -> str:
    from modelcompat.app import create_app

    served = Served(create_app(folder))
    try:
        page = browser.new_page()
        page.set_default_timeout(20_000)
        page.goto(served.url + "/")
        page.get_by_text(ready).first.wait_for()
        return page.inner_text("body")
    finally:
        served.stop()


def test_empty_dataset_page_says_so(browser, tmp_path):
    (tmp_path / "empty").mkdir()
    text = page_text(browser, tmp_path / "empty", "No models match these filters.")
    assert "no Parquet files in" in text and "No models match these filters." in text


def test_corrupt_file_is_named_and_the_rest_still_shows(browser, tmp_path):
    folder = write_dataset(tmp_path / "ds", sample_rows())
    (folder / "broken.parquet").write_bytes(b"PAR1 truncated")
    text = page_text(browser, folder, "Qwen/Qwen3-0.6B")
    assert "skipped broken.parquet: not a readable Parquet file" in text and "Qwen/Qwen3-0.6B" in text


def test_missing_folder_page_says_so(browser, tmp_path):
    text = page_text(browser, tmp_path / "nowhere", "No models match these filters.")
    assert "is not a folder: the dataset is empty" in text
