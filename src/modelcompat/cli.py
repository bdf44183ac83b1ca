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


def local_or_hub(model_id: str) -> str:
    """A local folder is recorded by its absolute path, so `reproduce` works from any directory."""
    folder = Path(model_id).expanduser()
    return str(folder.resolve()) if folder.is_dir() and ".." not in folder.parts else model_id


def spec_from(args, model_id: str):
    from .harness import TestSpec
    from .plan import parse_size

    return TestSpec(model_id=local_or_hub(model_id), task=args.task, target=args.target, backend=args.backend,
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
        if row.cache_hit is not None:  # --cache: say whether compiled graphs came from it, and what happened
            print(f"cache_hit {row.cache_hit}  notes: {row.notes}")
    return 0 if row.result == "PASS" else 1


def cmd_fixtures(args) -> int:
    from .fixtures import ALL, build_all

    paths = build_all(Path(args.dir), tuple(args.only or ALL), force=args.force)
    for name, path in paths.items():
        print(f"{name:16} {path}")
    return 0


def cmd_demo(args) -> int:
    from .demo import run_demo
    from .fixtures import ALL

    return run_demo(Path(args.dir), backend=args.backend, serve=not args.no_serve, names=tuple(args.only or ALL),
                    port=args.port)


DEFAULT_DATA = "results/dataset"


def open_data(args):
    from .query import open_dataset

    ds = open_dataset(args.data)
    for warning in ds.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    return ds


def one_row(args):
    from .query import detail

    row = detail(open_data(args), local_or_hub(args.model), args.compiler_version, args.transformers)
    if row is None:
        pins = [f"{k} {v}" for k, v in (("compiler", args.compiler_version), ("transformers", args.transformers)) if v]
        raise errors.NoResult(args.model, f" with {', '.join(pins)}" if pins else "")
    return row


def cmd_query(args) -> int:
    from . import query, terminal

    rows = query.search(open_data(args), args.text, args.status, args.task, args.target, args.compiler_version,
                        args.transformers, args.limit)
    emit(args, rows, lambda: terminal.print_search(rows))
    return 0


def cmd_show(args) -> int:
    from .terminal import print_detail

    row = one_row(args)
    emit(args, row.to_dict(), lambda: print_detail(row))
    return 0


def cmd_reproduce(args) -> int:
    from .query import reproduce_command, write_reproduction

    row = one_row(args)
    for path in write_reproduction(row, Path(args.dir)):
        print(f"wrote {path}")
    print(f"cd {args.dir}\n" + "\n".join(reproduce_command(row)))
    return 0


def cmd_versions(args) -> int:
    from . import query, terminal

    rows = query.versions(open_data(args))
    emit(args, rows, lambda: terminal.print_rows(rows, "versions (newest first)"))
    return 0


def cmd_publish(args) -> int:
    from . import dataset, hub

    if args.repo:
        done = hub.publish_hub(Path(args.staging), args.repo, args.keep_history)
    else:
        done = dataset.publish_local(Path(args.staging), Path(args.to), args.keep_history)
    print(dumps(vars(done)))
    return 0


def add_data_options(p: argparse.ArgumentParser, versions: bool = True) -> None:
    p.add_argument("--data", default=DEFAULT_DATA, help=f"dataset folder or hf://datasets/ORG/NAME ({DEFAULT_DATA})")
    p.add_argument("--json", action="store_true", help="print JSON")
    if versions:
        p.add_argument("--compiler-version", default=None, help="default: the newest present")
        p.add_argument("--transformers", default=None, help="default: the newest present")


def add_dataset_commands(sub) -> None:
    p = sub.add_parser("publish", help="compact staged rows into the Parquet dataset (a folder or a Hub repo)")
    p.add_argument("--staging", default="results/staging")
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--to", help="dataset folder")
    where.add_argument("--repo", help="Hub dataset repo ORG/NAME")
    p.add_argument("--keep-history", action="store_true", help="keep every row, not only the newest per test")
    p.set_defaults(func=cmd_publish)
    p = sub.add_parser("query", help="search the results (newest per model in one version pair)")
    p.add_argument("text", nargs="?", default="", help="part of a model id (any case)")
    add_data_options(p)
    for name in ("status", "task", "target"):
        p.add_argument(f"--{name}", default=None)
    p.add_argument("--limit", type=int, default=500)
    p.set_defaults(func=cmd_query)
    for name, func, text in (("show", cmd_show, "one model's newest result in full"),
                             ("reproduce", cmd_reproduce, "write run.py + requirements.txt and print the commands")):
        p = sub.add_parser(name, help=text)
        p.add_argument("model")
        add_data_options(p)
        p.set_defaults(func=func)
    p.add_argument("--dir", default="reproduce", help="folder for run.py and requirements.txt")
    p = sub.add_parser("versions", help="version pairs in the dataset with pass rates")
    add_data_options(p, versions=False)
    p.set_defaults(func=cmd_versions)


def add_sweep_commands(sub) -> None:
    from .cli_sweep import add_commands

    add_commands(sub)


def add_cache_commands(sub) -> None:
    from .cache_cli import add_cache_commands as add

    add(sub)


def cmd_serve(args) -> int:
    from .app import serve

    serve(args.data, host=args.host, port=args.port)
    return 0


def add_serve_command(sub) -> None:
    p = sub.add_parser("serve", help="the explorer: web app, JSON API (/api/...) and badges (/badge/ID.svg)")
    p.add_argument("--data", default=DEFAULT_DATA, help=f"dataset folder or hf://datasets/ORG/NAME ({DEFAULT_DATA})")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default: 127.0.0.1, this machine only)")
    p.add_argument("--port", type=int, default=7860)
    p.set_defaults(func=cmd_serve)


def cmd_judge(args) -> int:
    from .judge import Judge

    score = Judge.load(args.judge).score(sys.stdin.read() if args.text == "-" else args.text)
    print(dumps(score.to_dict()) if args.json else score.summary())
    return 0 if score.english else 1


def add_judge_command(sub) -> None:
    p = sub.add_parser("judge", help="score a text's English fluency with the judge LM (exit 0 when fluent)")
    p.add_argument("text", help="the text to judge ('-' reads standard input)")
    p.add_argument("--judge", default=None, help="a causal LM id or path (default: SmolLM2-135M-Instruct)")
    p.add_argument("--json", action="store_true", help="print the verdict, score and signals as JSON")
    p.set_defaults(func=cmd_judge)


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
    p = sub.add_parser("demo", help="the main job: build the fixtures, sweep them on cpu, publish, query, serve")
    p.add_argument("--dir", default="results", help="working folder (fixtures/, staging/, dataset/)")
    p.add_argument("--backend", default=None, help="compile backend (default: the cpu target's inductor)")
    p.add_argument("--only", nargs="*", help="fixture names (default: all)")
    p.add_argument("--no-serve", action="store_true", help="stop after printing the table")
    p.add_argument("--port", type=int, default=7860, help="explorer port on 127.0.0.1")
    p.set_defaults(func=cmd_demo)
    add_dataset_commands(sub)
    add_sweep_commands(sub)
    add_cache_commands(sub)
    add_serve_command(sub)
    add_judge_command(sub)
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


def emit(args, data, show) -> None:
    """--json prints `data` as JSON; otherwise `show()` prints the human view."""
    if args.json:
        print(dumps(data))
    else:
        show()


def dumps(data) -> str:
    return json.dumps(data, indent=1, default=str)
