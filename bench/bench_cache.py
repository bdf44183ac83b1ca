"""Compiled-graph cache: warm-cache compile_s over cold compile_s for every fixture on cpu/inductor, in one run.

For each tiny fixture it runs the real harness twice against one cache folder: cold (an empty inductor cache: it
compiles, passes and pushes the entry), then warm (the entry is fetched into a fresh folder). compile_s is the
first generate minus a warm generate, as in every row. Goal: warm/cold <= 0.25. Run: `python -m bench.bench_cache`.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

FIXTURES = ("tiny-llama", "tiny-qwen3", "tiny-qwen3-moe", "tiny-mixtral", "tiny-llava")
GOAL = 0.25


def run_twice(name: str, fixtures: Path, ws) -> tuple:
    from modelcompat.harness import TestSpec, run_test

    spec = TestSpec(str(fixtures / name), target="cpu", backend="inductor")
    return run_test(spec, ws), run_test(spec, ws)


def line(name: str, cold, warm) -> str:
    ratio = warm.compile_s / cold.compile_s if cold.compile_s and warm.compile_s is not None else float("nan")
    same = "same tokens" if warm.token_ids == cold.token_ids else "TOKENS DIFFER"
    return (f"{name:16} {cold.result:5} cold {cold.compile_s or 0:6.2f} s (hit {cold.cache_hit})  "
            f"{warm.result:5} warm {warm.compile_s or 0:6.2f} s (hit {warm.cache_hit})  ratio {ratio:.3f}  {same}")


def main() -> None:
    from dataclasses import replace

    from modelcompat.fixtures import build_all
    from modelcompat.harness import Workspace

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    with tempfile.TemporaryDirectory(prefix="bench-cache-") as tmp:
        root = Path(tmp)
        fixtures = root / "fixtures"
        build_all(fixtures, FIXTURES)
        ws = Workspace(staging=root / "staging", cache=root / "work", compile_cache=str(root / "compiled"))
        print(f"cpu/inductor, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start")
        started, pairs = time.monotonic(), []
        for name in FIXTURES:
            cold, warm = run_twice(name, fixtures, replace(ws))
            pairs.append((cold, warm))
            print(line(name, cold, warm), flush=True)
        summarize(pairs, time.monotonic() - started)


def summarize(pairs: list, seconds: float) -> None:
    good = [(c, w) for c, w in pairs if c.compile_s and w.compile_s is not None and w.cache_hit]
    if not good:
        print("no fixture produced a warm cache hit: no ratio to report")
        return
    total = sum(w.compile_s for _, w in good) / sum(c.compile_s for c, _ in good)
    worst = max(w.compile_s / c.compile_s for c, w in good)
    verdict = "meets" if worst <= GOAL else "misses"
    print(f"warm/cold compile_s over {len(good)} fixtures: total {total:.3f}, worst {worst:.3f} "
          f"({verdict} the goal <= {GOAL}); bench took {seconds:.0f} s, load average {os.getloadavg()[0]:.1f} at end")


if __name__ == "__main__":
    main()
