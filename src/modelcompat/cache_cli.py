"""`modelcompat cache fetch|push|ls|prune`: each command is a few lines over a cache.py function."""

from __future__ import annotations

import os
import sys

from . import cache
from .errors import CacheProblem


def local_cache() -> str:
    """The default local compiled-graph cache: <MODELCOMPAT_CACHE or ~/.cache/modelcompat>/compiled."""
    from .fixtures import cache_root

    return str(cache_root() / "compiled")


def describe_size(size: float) -> str:
    for unit in ("B", "KiB", "MiB"):
        if size < 1024:
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GiB"


def print_transfers(done: list[cache.Transfer], verb: str) -> int:
    for item in done:
        print(f"{item.outcome:10} {item.ref.path}")
    print(f"{verb} {sum(t.outcome == 'pushed' for t in done)} of {len(done)} complete entries")
    return 0


def cmd_fetch(args) -> int:
    source = args.source or os.environ.get(cache.SOURCE_ENV)
    if not source:
        raise CacheProblem("fetch", f"no source: pass --from DIR|ORG/NAME or set {cache.SOURCE_ENV}")
    done = cache.fetch(args.model, args.compiler_version, source, args.dest or local_cache(), args.target)
    return print_transfers(done, "fetched")


def cmd_push(args) -> int:
    done = cache.push(args.model, args.compiler_version, args.source or local_cache(), args.dest, args.target)
    return print_transfers(done, "pushed")


def cmd_ls(args) -> int:
    entries = cache.ls(args.location or local_cache())
    for e in entries:
        print(f"{e.state:10} {describe_size(e.size):>10} {e.nfiles:5} files  {e.ref.path}")
    print(f"{len(entries)} entries in {args.location or local_cache()}")
    return 0


def cmd_prune(args) -> int:
    plan = cache.plan_prune(args.location or local_cache(), args.compiler_version)
    for entry, reason in plan.items:
        print(f"delete {entry.ref.path}  ({reason}, {describe_size(entry.size)})")
    print(f"plan: delete {len(plan.items)} entries, {describe_size(plan.freed_bytes)}")
    if not plan.items or not (args.yes or confirm("proceed? [y/N] ")):
        return 0
    print(f"deleted {plan.execute()} entries")
    return 0


def confirm(prompt: str) -> bool:
    if not sys.stdin.isatty():
        print("not a terminal: nothing deleted (pass --yes)")
        return False
    return input(prompt).strip().lower() in ("y", "yes")


def add_cache_commands(sub) -> None:
    """Register `cache` and its four subcommands on the top-level parser's subparsers."""
    group = sub.add_parser("cache", help="compiled-graph cache: fetch, push, ls, prune").add_subparsers(
        dest="cache_command", required=True)
    for name, func, text in (("fetch", cmd_fetch, "copy a model's entries for one compiler version here"),
                             ("push", cmd_push, "copy a model's local entries for one compiler version out")):
        p = group.add_parser(name, help=text)
        p.add_argument("model", help="Hub id or local checkpoint folder")
        p.add_argument("--compiler-version", required=True, help="exact version, e.g. 2.13.0+cpu")
        p.add_argument("--target", default="cpu", help="cpu, cuda or neuron: which compiler (default cpu)")
        p.add_argument("--from", dest="source", help="cache folder or Hub repo ORG/NAME (default: "
                       + (f"${cache.SOURCE_ENV})" if name == "fetch" else "the local cache)"))
        p.add_argument("--to", dest="dest", required=name == "push", help="cache folder or Hub repo ORG/NAME"
                       + (" (default: the local cache)" if name == "fetch" else ""))
        p.set_defaults(func=func)
    for name, func, text in (("ls", cmd_ls, "list entries with their state"),
                             ("prune", cmd_prune, "plan deleting broken entries (or one version), then do it")):
        p = group.add_parser(name, help=text)
        p.add_argument("location", nargs="?", default=None, help="cache folder or Hub repo (default: local)")
        p.set_defaults(func=func)
    p.add_argument("--compiler-version", default=None, help="also delete every entry of this version")
    p.add_argument("--yes", action="store_true", help="delete without asking")

