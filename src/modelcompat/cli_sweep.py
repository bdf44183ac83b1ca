"""The `sweep` and `catalog` commands: argument parsing over catalog.entries and sweep.run_sweep."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path

from . import errors


def catalog_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--task", default=None, help="text-generation or image-text-to-text (default: every task)")
    p.add_argument("--limit", type=int, default=None, help="the first N entries")
    p.add_argument("--folder", action="append", default=[], help="local catalog: also a folder of checkpoints")
    p.add_argument("--snapshots", default=None, help="folder of saved Hub rankings (default: the user cache)")


def where(args):
    from .catalog import Where, default_snapshots

    return Where(Path(args.snapshots) if args.snapshots else default_snapshots(), tuple(map(Path, args.folder)))


def load_catalog(args):
    """The catalog's snapshot; lines or folders it had to leave out are warned about, and the rest goes on."""
    from .catalog import describe, entries

    snapshot = entries(args.catalog, args.task, args.limit, where(args))
    print(describe(snapshot), file=sys.stderr)
    for problem in snapshot.problems:
        print(f"warning: {errors.message(problem)}", file=sys.stderr)
    return snapshot


def cmd_catalog(args) -> int:
    from .catalog import refresh

    if args.catalog == "refresh":
        for path in refresh(args.snapshots, args.task, args.limit or 50):
            print(f"saved {path}")
        return 0
    snapshot = load_catalog(args)
    for e in snapshot.entries:
        print(json.dumps(asdict(e)) if args.json else
              "  ".join(str(x) for x in (e.rank or "-", e.id, e.task or "-", e.reason or e.path or "")))
    return 0


def sweep_config(args):
    from .sweep import SweepConfig

    return SweepConfig(task=args.task, target=args.target, backend=args.backend, cores=args.cores,
                       timeout=args.timeout, retest=args.retest, executor=args.executor, address=args.address,
                       reference=not args.no_reference)


def cmd_sweep(args) -> int:
    from .fixtures import cache_root
    from .harness import Workspace
    from .sweep import run_sweep
    from .sweep_view import RichProgress, print_summary

    snapshot = load_catalog(args)
    ws = Workspace(staging=Path(args.out), cache=Path(args.work) if args.work else cache_root(),
                   compile_cache=args.cache)
    with RichProgress() as progress:
        summary = run_sweep(list(snapshot.entries), sweep_config(args), ws, progress)
    print_summary(summary, f"sweep of {snapshot.name} on {args.target}")
    return 0


def add_commands(sub) -> None:
    p = sub.add_parser("catalog", help="list a catalog's models, or `catalog refresh` to save the Hub rankings")
    p.add_argument("catalog", nargs="?", default="selected",
                   help="selected, trending, downloads, local, an id file, or refresh")
    p.add_argument("--json", action="store_true", help="one JSON object per entry")
    catalog_options(p)
    p.set_defaults(func=cmd_catalog)
    p = sub.add_parser("sweep", help="test a catalog's models, packed onto free cores; resumable")
    p.add_argument("--catalog", default="selected", help="selected, trending, downloads, local, or an id file")
    catalog_options(p)
    p.add_argument("--target", default="cpu", help="cpu, cuda or neuron (default: cpu)")
    p.add_argument("--backend", default=None, help="torch.compile backend or module:callable")
    p.add_argument("--cores", type=int, default=None, help="cores the sweep may use at once")
    p.add_argument("--timeout", type=float, default=900.0, help="seconds per run.py process group")
    p.add_argument("--retest", action="store_true", help="rerun tests whose row is already staged")
    p.add_argument("--executor", default="local", help="local (threads on this machine) or ray")
    p.add_argument("--address", default=None, help="Ray cluster address (default: a local Ray)")
    p.add_argument("--no-reference", action="store_true", help="skip the CPU eager reference")
    p.add_argument("--out", default="results/staging", help="staging folder for result rows")
    p.add_argument("--cache", default=None, help="compiled-graph cache, a folder or Hub repo ORG/NAME: fetched "
                   "before each test, pushed after a PASS")
    p.add_argument("--work", default=None, help="CPU references and run logs (default: the user cache)")
    p.set_defaults(func=cmd_sweep)
