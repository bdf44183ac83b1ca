"""One Markdown page per CLI command, generated from the parser's own help (a test keeps them in step).

    python -m modelcompat.clidocs docs/cli
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

WIDTH = 100  # fixed, so the pages do not depend on the terminal that generated them


def fixed_width(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    parser.formatter_class = lambda prog: argparse.HelpFormatter(prog, width=WIDTH)
    return parser


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)
    return dict(action.choices) if action else {}


def page(prog: str, parser: argparse.ArgumentParser, level: int = 1) -> str:
    """The command's help, then each of its subcommands' (e.g. `cache fetch`) under its own heading."""
    text = f"{'#' * level} {prog}\n\n```\n{fixed_width(parser).format_help()}```\n"
    return text + "".join("\n" + page(f"{prog} {name}", sub, level + 1)
                          for name, sub in subcommands(parser).items())


def pages() -> dict[str, str]:
    """{file name: Markdown} for the index and every command."""
    from .cli import build_parser

    parser = fixed_width(build_parser())
    commands = subcommands(parser)
    out = {"index.md": "# modelcompat CLI\n\n```\n" + parser.format_help() + "```\n\n" +
           "".join(f"- [`modelcompat {name}`]({name}.md)\n" for name in commands)}
    for name, sub in commands.items():
        out[f"{name}.md"] = page(f"modelcompat {name}", sub)
    return out


def write(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    for stale in folder.glob("*.md"):
        stale.unlink()
    written = []
    for name, text in pages().items():
        (folder / name).write_text(text)
        written.append(folder / name)
    return written


if __name__ == "__main__":
    for path in write(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/cli")):
        print(path)
