"""A shields-style SVG status badge for a model card. Every text is XML-escaped: a model id or version string
holding markup stays text."""

from __future__ import annotations

from ..schema import Result
from .render import COLOURS, esc
from .state import UNTESTED

CHAR_W = 6.6  # px per character of 11px Verdana, an estimate; badges only need to be roughly wide enough


def width(text: str) -> int:
    return int(len(text) * CHAR_W) + 12


def badge_svg(label: str, message: str, colour: str) -> str:
    lw, mw = width(label), width(message)
    label_x, message_x = lw / 2, lw + mw / 2
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{lw + mw}" height="20" role="img" '
            f'aria-label="{esc(label)}: {esc(message)}"><title>{esc(label)}: {esc(message)}</title>'
            f'<rect width="{lw}" height="20" fill="#555"/><rect x="{lw}" width="{mw}" height="20" fill="{colour}"/>'
            f'<g fill="#fff" text-anchor="middle" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11">'
            f'<text x="{label_x:.1f}" y="14">{esc(label)}</text><text x="{message_x:.1f}" y="14">{esc(message)}</text>'
            f'</g></svg>')


def model_badge(row: Result | None) -> str:
    """`modelcompat | PASS · cpu inductor 2.13.0`; a model with no row is `untested`."""
    if row is None:
        return badge_svg("modelcompat", UNTESTED, COLOURS[UNTESTED])
    where = " ".join(p for p in (row.target, row.compiler or row.backend, row.compiler_version) if p)
    return badge_svg("modelcompat", f"{row.result} · {where}", COLOURS.get(row.result, "#6e7781"))
