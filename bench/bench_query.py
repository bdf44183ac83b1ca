"""Query-layer latency on a synthetic dataset of 1,000,000 rows in 40 Parquet files.

The rows carry the real run.py text and the real stack JSON of this machine, written by the dataset's one
Parquet writer (dataset.write_table). Prints p50/p95 latency of search, detail, versions and regressions and
the size on disk. Goals: p95 < 50 ms for search and detail, < 1 GB on disk. Run: `python -m bench.bench_query`.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import tempfile
import time
from pathlib import Path

ROWS, FILES = 1_000_000, 40
COMPILERS = [f"2.{minor}.{patch}+cpu" for minor in (10, 11, 12, 13) for patch in (0, 1)]  # 8
TRANSFORMERS = [f"5.{minor}.0" for minor in (20, 21, 22, 23, 24)]  # 8 x 5 = 40 version pairs, one file each
RESULTS = ["PASS"] * 12 + ["FAIL"] * 2 + ["ERROR"] * 4 + ["TIMEOUT", "OOM", "CRASH", "SKIPPED"]
SIGNATURES = [f"RuntimeError: unsupported op aten.op_{i} in graph N" for i in range(40)]


def real_provenance() -> tuple[str, dict]:
    from modelcompat import provenance

    prov = provenance.collect()
    return prov.run_py, prov.stack


def column_values(n: int, pair: tuple[str, str], seed: int, run_py: str, stack: dict) -> dict[str, list]:
    """One file's columns; model ids are shared across files so regressions have something to compare."""
    rng = random.Random(seed)
    results = [rng.choice(RESULTS) for _ in range(n)]
    failed = [r not in ("PASS", "SKIPPED") for r in results]
    sigs = [rng.choice(SIGNATURES) if f else None for f in failed]
    tokens = [[rng.randrange(50_000) for _ in range(32)] for _ in range(n)]
    models = sorted(f"org{i % 700}/model-{i:06d}" for i in range(n))  # the writer's order: no copy to sort
    return dict(
        model_id=models, revision=[f"{i * 2654435761 % 2**40:010x}" for i in range(n)], result=results,
        stage=["compile" if f else None for f in failed], error_signature=sigs, error_type=[
            "RuntimeError" if f else None for f in failed],
        error=[f"{s} (node {rng.randrange(999)})\nTraceback ... torch/_dynamo/eval_frame.py line {rng.randrange(900)}"
               if s else None for s in sigs],
        exclusion=["too large for 16 cores" if r == "SKIPPED" else None for r in results],
        compiler_version=[pair[0]] * n, transformers=[pair[1]] * n, torch=[pair[0]] * n,
        cores=[rng.choice((1, 1, 1, 2, 4, 8)) for _ in range(n)], wall_s=[rng.uniform(5, 900) for _ in range(n)],
        compile_s=[rng.uniform(1, 600) for _ in range(n)], device_mem_peak_gb=[rng.uniform(0.1, 24) for _ in range(n)],
        tested_at=[f"2026-{1 + seed % 12:02d}-{1 + i % 28:02d}T{i % 24:02d}:00:00+00:00" for i in range(n)],
        token_ids=tokens, reference_token_ids=tokens, generated_text=[
            "The quick brown fox jumps over the lazy dog. " * 3 if r == "PASS" else None for r in results],
        command=[json.dumps(["python", "run.py", "--model", m, "--device", "cpu", "--backend", "inductor"])
                 for m in models],
        stack=[json.dumps({**stack, "torch": pair[0], "transformers": pair[1]}, sort_keys=True)] * n,
        run_py=[run_py if i % 10 else run_py + "\n# variant\n" for i in range(n)],
        compiler=["inductor"] * n, backend=["inductor"] * n, task=["text-generation"] * n, target=["cpu"] * n)


def build(folder: Path) -> float:
    import pyarrow as pa

    from modelcompat import dataset
    from modelcompat.schema import Result, arrow_schema, column_docs

    run_py, stack = real_provenance()
    started = time.perf_counter()
    schema, defaults = arrow_schema(), Result().to_dict()
    pairs = [(c, t) for c in COMPILERS for t in TRANSFORMERS]
    for seed, pair in enumerate(pairs[:FILES]):
        values = column_values(ROWS // FILES, pair, seed, run_py, stack)
        n = len(values["model_id"])
        arrays = [pa.array(values.get(name, [defaults[name]] * n), type=schema.field(name).type) for name, _, _ in column_docs()]
        name = f"inductor-{dataset.safe_part(pair[0])}__transformers-{pair[1]}.parquet"
        dataset.write_table(pa.Table.from_arrays(arrays, schema=schema), folder / name)
    return time.perf_counter() - started


def percentiles(samples: list[float]) -> tuple[float, float]:
    samples = sorted(samples)
    return statistics.median(samples), samples[max(0, int(round(0.95 * len(samples))) - 1)]


def timed(call, repeats: int) -> tuple[float, float, float, float]:
    """p50 and p95 of wall time, then of process CPU time (all threads): on a shared machine the CPU figures
    show the work, the wall figures also show waiting for a core."""
    wall, cpu = [], []
    for i in range(repeats):
        started, started_cpu = time.perf_counter(), time.process_time()
        call(i)
        wall.append((time.perf_counter() - started) * 1000)
        cpu.append((time.process_time() - started_cpu) * 1000)
    return (*percentiles(wall), *percentiles(cpu))


def measure(folder: Path) -> dict[str, tuple[float, float]]:
    from modelcompat import query

    started = time.perf_counter()
    ds = query.open_dataset(folder)
    opened = (time.perf_counter() - started) * 1000
    rng = random.Random(0)
    texts = ["model-0012", "ORG42/", "model-02499", "", "o'; DROP TABLE results; --", "%", "odel-01"]
    models = [f"org{i % 700}/model-{i:06d}" for i in rng.sample(range(ROWS // FILES), 200)]
    query.search(ds, "warm-up")
    query.versions(ds)
    started = time.perf_counter()
    query.detail(ds, models[0])  # builds the model index once (model -> version pairs)
    indexed = (time.perf_counter() - started) * 1000
    return {
        "open_dataset (first)": (opened, opened, None, None),
        "model index (one-off)": (indexed, indexed, None, None),
        "search (default versions)": timed(lambda i: query.search(ds, texts[i % len(texts)]), 60),
        "search (older pair, status)": timed(lambda i: query.search(
            ds, texts[i % len(texts)], status="FAIL", compiler_version="2.11.1+cpu", transformers="5.22.0"), 60),
        "detail (model + versions)": timed(lambda i: query.detail(
            ds, models[i], compiler_version="2.13.1+cpu", transformers="5.24.0"), 100),
        "detail (model, any version)": timed(lambda i: query.detail(ds, models[i + 100]), 100),
        "versions (first call)": timed(lambda i: query.versions(query.open_dataset(folder)), 3),
        "versions (again)": timed(lambda i: query.versions(ds), 5),  # measure() called it once already
        "regressions": timed(lambda i: query.regressions(ds, ("2.13.0+cpu", "5.24.0"), ("2.13.1+cpu", "5.24.0")), 5),
    }


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="bench-query-") as tmp:
        folder = Path(tmp)
        seconds = build(folder)
        size = sum(p.stat().st_size for p in folder.glob("*.parquet"))
        print(f"built {ROWS:,} rows in {FILES} files in {seconds:.1f} s; size on disk {size / 1e6:.1f} MB "
              f"(goal < 1000 MB)")
        print(f"load average before measuring: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        for name, (p50, p95, cpu50, cpu95) in measure(folder).items():
            goal = "  (goal p95 < 50 ms)" if name.startswith(("search", "detail")) else ""
            cpu = f"   cpu p50 {cpu50:7.1f} ms  p95 {cpu95:7.1f} ms" if cpu50 is not None else ""
            print(f"{name:28} wall p50 {p50:7.1f} ms  p95 {p95:7.1f} ms{cpu}{goal}")


if __name__ == "__main__":
    main()
