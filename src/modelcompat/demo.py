"""The main job on the embedded default: build the fixtures, test each on the cpu target, print a table."""

from __future__ import annotations

from pathlib import Path

from .fixtures import ALL, TASKS, build_all, cache_root
from .harness import TestSpec, Workspace, run_test
from .provenance import collect
from .report import print_table


def run_demo(directory: Path, backend: str | None = None) -> int:
    paths = build_all(directory / "fixtures", ALL)
    ws = Workspace(staging=directory / "staging", cache=cache_root())
    prov, rows = collect(), []
    for name, path in paths.items():
        print(f"testing {name} ...", flush=True)
        rows.append(run_test(TestSpec(str(path), task=TASKS[name], backend=backend), ws, prov))
    print_table(rows, title=f"modelcompat: fixtures on cpu ({len(rows)} tests)")
    return 0
