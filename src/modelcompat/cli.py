"""The thin CLI: each command parses arguments, calls one library function, prints. Typed errors become
messages in one place (errors.MESSAGES)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from . import errors

def add_test_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--task", default=None, help="text-generation or image-text-to-text (default: from config)")
    p.add_argument("--target", default="cpu", help="cpu, cuda or neuron (default: cpu)")
    p.add_argument("--backend", default=None, help="torch.compile backend or module:callable")
    p.add_argument("--tokens", type=int, default=32)
    p.add_argument("--cores", type=int, default=None, help="force this many cores instead of planning")
    p.add_argument("--core-memory", default=None, help="memory per core, e.g. 24GiB (overrides the target)")
    p.add_argument("--max-cores", type=int, default=None)
    p.add_argument("--timeout", type=float, default=900.0, help="seconds per run.py process group")
    p.add_argument("--no-reference", action="store_true", help="skip the CPU eager reference")
    p.add_argument("--trust-remote-code", action="store_true")
    p.add_argument("--judge", default=None, help="fluency judge: a causal LM id or path")
    p.add_argument("--out", default="results/staging", help="staging folder for result rows")


def spec_from(args, model_id: str):
    from .harness import TestSpec
    from .plan import parse_size

    return TestSpec(model_id=model_id, task=args.task, target=args.target, backend=args.backend,
                    tokens=args.tokens, cores=args.cores, max_cores=args.max_cores, timeout=args.timeout,
                    core_memory=parse_size(args.core_memory) if args.core_memory else None,
                    reference=not args.no_reference, trust_remote_code=args.trust_remote_code,
                    revision=getattr(args, "revision", None), judge=args.judge)


def workspace(args):
    from .fixtures import cache_root
    from .harness import Workspace

    return Workspace(staging=Path(args.out), cache=cache_root(), compile_cache=getattr(args, "cache", None))


def cmd_test(args) -> int:
    from .harness import run_test
    from .report import print_verdict

    row = run_test(spec_from(args, args.model), workspace(args))
    if args.json:
        print(row.to_json())
    else:
        print_verdict(row)
    return 0 if row.result == "PASS" else 1


def cmd_fixtures(args) -> int:
    from .fixtures import ALL, build_all

    paths = build_all(Path(args.dir), tuple(args.only or ALL), force=args.force)
    for name, path in paths.items():
        print(f"{name:16} {path}")
    return 0


def cmd_demo(args) -> int:
    from .demo import run_demo

    return run_demo(Path(args.dir), backend=args.backend)


def add_cache_commands(sub) -> None:
    from .cache_cli import add_cache_commands as add

    add(sub)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="modelcompat", description="Does this Hugging Face checkpoint run on "
                                     "this accelerator backend? Tests, datasets and an explorer.")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("test", help="test one checkpoint end to end and stage its result row")
    p.add_argument("model", help="Hub id or local folder")
    p.add_argument("--revision", default=None)
    p.add_argument("--json", action="store_true", help="print the row as JSON")
    p.add_argument("--cache", default=None, help="compiled-graph cache, a folder or Hub repo ORG/NAME: fetched "
                   "before the test, pushed after a PASS")
    add_test_options(p)
    p.set_defaults(func=cmd_test)
    p = sub.add_parser("fixtures", help="build the tiny real checkpoints used by the demo and the tests")
    p.add_argument("dir")
    p.add_argument("--only", nargs="*", help="fixture names (default: all)")
    p.add_argument("--force", action="store_true", help="rebuild existing fixtures")
    p.set_defaults(func=cmd_fixtures)
    p = sub.add_parser("demo", help="the main job: build the fixtures, test them all on cpu, print a table")
    p.add_argument("--dir", default="results", help="working folder (fixtures/, staging/)")
    p.add_argument("--backend", default=None, help="compile backend (default: the cpu target's inductor)")
    p.set_defaults(func=cmd_demo)
    add_cache_commands(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except errors.ModelcompatError as exc:
        print(f"error: {errors.message(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted; finished rows are kept", file=sys.stderr)
        return 130


def dumps(data) -> str:
    return json.dumps(data, indent=1, default=str)
