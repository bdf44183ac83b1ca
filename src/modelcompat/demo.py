"""The main job on the embedded default (`make run`): build the fixtures, sweep them on the cpu target, publish
the rows to a dataset folder, print the query table, then serve the explorer over it."""

from __future__ import annotations

from pathlib import Path

from .fixtures import ALL, build_all, cache_root


def sweep_fixtures(folder: Path, staging: Path, backend: str | None):
    from .catalog import Where, default_snapshots, entries
    from .harness import Workspace
    from .sweep import SweepConfig, run_sweep
    from .sweep_view import RichProgress, print_summary

    snapshot = entries("local", where=Where(default_snapshots(), (folder,), hub_cache=folder / "no-hf-cache"))
    with RichProgress() as progress:
        summary = run_sweep(list(snapshot.entries), SweepConfig(backend=backend),
                            Workspace(staging=staging, cache=cache_root()), progress)
    print_summary(summary, f"fixtures on cpu ({len(snapshot.entries)} tests)")
    return summary


def publish_and_show(staging: Path, data: Path) -> None:
    from . import dataset, query, terminal

    done = dataset.publish_local(staging, data)
    print(f"published {done.rows} rows to {data}: {', '.join(done.files)}")
    terminal.print_search(query.search(query.open_dataset(data)))


def run_demo(directory: Path, backend: str | None = None, serve: bool = True, names: tuple[str, ...] = ALL,
             port: int = 7860) -> int:
    fixtures = directory / "fixtures"
    build_all(fixtures, names)
    sweep_fixtures(fixtures, directory / "staging", backend)
    publish_and_show(directory / "staging", directory / "dataset")
    if serve:
        from .app import serve as serve_app

        serve_app(directory / "dataset", host="127.0.0.1", port=port)
    return 0
