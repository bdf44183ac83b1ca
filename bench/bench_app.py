"""The explorer on the 1,000,000-row synthetic dataset of bench_query (its generator, `build`, is reused).

Starts `modelcompat serve` in a subprocess on 127.0.0.1, then prints p50/p95 latency of the JSON API's search
and detail over HTTP, and the time headless Chromium takes to render the first page (navigation start until
the All tested table is in the page). Goals: API p95 < 100 ms, first page < 3 s. Run: `python -m bench.bench_app`.
"""

from __future__ import annotations

import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.bench_query import COMPILERS, FILES, ROWS, TRANSFORMERS, build

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
PER_FILE = ROWS // FILES


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(folder: Path, port: int, cache: Path) -> subprocess.Popen:
    command = [sys.executable, "-m", "modelcompat", "serve", "--data", str(folder), "--port", str(port)]
    env = {**os.environ, "MODELCOMPAT_CACHE": str(cache), "HF_HUB_OFFLINE": "1"}
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)


def save_trending(cache: Path, entries: int = 50) -> None:
    """A saved Trending snapshot whose models are all in the synthetic data, so every lookup finds a row."""
    ids = [f"org{i % 700}/model-{i:06d}" for i in range(0, entries * 400, 400)]
    snapshot = {"ranking": "trending", "task": "text-generation", "date": "2026-11-29", "source": "bench_app",
                "entries": [{"id": m, "task": "text-generation", "rank": r} for r, m in enumerate(ids, 1)]}
    (cache / "catalogs").mkdir(parents=True)
    (cache / "catalogs" / "trending-text-generation-20261129T000000.json").write_text(json.dumps(snapshot))


def wait_ready(client, server: subprocess.Popen, timeout: float = 120.0) -> float:
    started = time.perf_counter()
    while time.perf_counter() - started < timeout and server.poll() is None:
        try:
            if client.get("/api/versions").status_code == 200:
                return time.perf_counter() - started
        except Exception:  # not listening yet
            time.sleep(0.2)
    raise RuntimeError(f"server did not start: {server.stderr.read()[-2000:] if server.poll() is not None else ''}")


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered) * 1000, ordered[int(0.95 * (len(ordered) - 1))] * 1000


def timed_get(client, paths: list[tuple[str, dict]]) -> tuple[float, float]:
    samples = []
    for path, params in paths:
        started = time.perf_counter()
        response = client.get(path, params=params)
        samples.append(time.perf_counter() - started)
        assert response.status_code == 200, (path, response.status_code, response.text[:300])
    return percentiles(samples)


def search_requests(rng: random.Random, n: int) -> list[tuple[str, dict]]:
    def one() -> dict:
        choice = rng.randrange(4)
        if choice == 0:
            return {"q": f"model-{rng.randrange(PER_FILE):06d}"}
        if choice == 1:
            return {"q": f"org{rng.randrange(700)}/", "status": "FAIL"}
        if choice == 2:
            return {"compiler_version": rng.choice(COMPILERS), "transformers": rng.choice(TRANSFORMERS)}
        return {"q": "model-0"}
    return [("/api/models", one()) for _ in range(n)]


def detail_requests(rng: random.Random, n: int) -> list[tuple[str, dict]]:
    ids = [(i, f"org{i % 700}/model-{i:06d}") for i in (rng.randrange(PER_FILE) for _ in range(n))]
    return [(f"/api/models/{model}", {"compiler_version": COMPILERS[i % 2]} if i % 3 == 0 else {}) for i, model in ids]


def first_page_seconds(url: str, loads: int, ready: str = "#mc-list-all table") -> tuple[list[float], int]:
    """Navigation start until `ready` is in the DOM, each load in a fresh browser context (no cache)."""
    from playwright.sync_api import sync_playwright

    seconds = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for _ in range(loads):
            context = browser.new_context(viewport={"width": 1400, "height": 1000})
            page = context.new_page()
            page.goto(url, wait_until="commit")
            page.wait_for_selector(ready, timeout=60_000)
            seconds.append(page.evaluate("performance.now()") / 1000)
            tested = page.locator(".mc-pill:not(.mc-untested)").count()
            context.close()
        browser.close()
    return seconds, tested


def report_api(client) -> None:
    rng = random.Random(0)
    timed_get(client, search_requests(rng, 10) + detail_requests(rng, 10))  # warm-up, not counted
    for name, paths in (("search", search_requests(rng, 200)), ("detail", detail_requests(rng, 200))):
        p50, p95 = timed_get(client, paths)
        print(f"API {name:8} {len(paths)} requests: p50 {p50:7.1f} ms  p95 {p95:7.1f} ms  (goal p95 < 100 ms)")


def report_pages(url: str) -> None:
    for label, path, ready in (("first page (All tested)", "/", "#mc-list-all table"),
                               ("Selected tab (48 lookups, none in data)", "/?tab=selected", "#mc-list-selected table"),
                               ("Trending tab (50 lookups, all in data)", "/?tab=trending", "#mc-list-trending table"),
                               ("model page (?tab=model&model=...)", "/?tab=model&model=org1/model-000001",
                                "text=Timings and memory")):
        seconds, tested = first_page_seconds(url + path, loads=5, ready=ready)
        print(f"{label:40} in Chromium: first load {seconds[0]:.2f} s, median of 5 {statistics.median(seconds):.2f} s,"
              f" max {max(seconds):.2f} s, {tested} results shown  (goal < 3 s)")


def main() -> None:
    import httpx

    with tempfile.TemporaryDirectory(prefix="bench-app-") as tmp:
        folder = Path(tmp) / "dataset"
        folder.mkdir()
        print(f"built {ROWS:,} rows in {FILES} files in {build(folder):.1f} s (bench_query's generator)")
        save_trending(Path(tmp) / "cache")
        port = free_port()
        server = start_server(folder, port, Path(tmp) / "cache")
        try:
            with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as client:
                print(f"server ready in {wait_ready(client, server):.1f} s (imports, app build, dataset open)")
                report_pages(f"http://127.0.0.1:{port}")
                report_api(client)
        finally:
            server.terminate()
            server.wait(timeout=30)


if __name__ == "__main__":
    main()
