"""Docs and code must agree: a failing test here means regenerate or fix the docs."""

from pathlib import Path

from modelcompat.clidocs import pages
from modelcompat.schema import STATUSES, column_names

ROOT = Path(__file__).parents[1]


def test_cli_pages_match_the_parser():
    folder = ROOT / "docs" / "cli"
    expected = pages()
    on_disk = {p.name: p.read_text() for p in folder.glob("*.md")}
    assert on_disk == expected, "run: python -m modelcompat.clidocs docs/cli"


def test_protocol_doc_names_every_status():
    text = (ROOT / "docs" / "protocol.md").read_text()
    assert all(f"`{status}`" in text for status in STATUSES)


def test_readme_names_the_two_fresh_machine_commands():
    text = (ROOT / "README.md").read_text()
    assert "make run" in text and "make test" in text


def test_protocol_doc_columns_exist():
    """The columns protocol.md explains are real schema columns."""
    text = (ROOT / "docs" / "protocol.md").read_text()
    for name in ("cpu_match", "match_prefix", "verdict_basis", "english_score", "compile_s"):
        assert name in column_names() and name in text
