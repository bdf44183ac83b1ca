"""Verification rules: token comparison, the verdict, and error signatures for grouping failures."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Verdict:
    result: str  # PASS or FAIL
    basis: str  # cpu_match, judge or none
    cpu_match: bool | None
    match_prefix: int | None
    english: bool | None = None
    english_score: float | None = None
    judge: str | None = None
    notes: str | None = None


def match_prefix(ids: list[int], reference: list[int]) -> int:
    """How many tokens are equal before the first difference."""
    for i, (a, b) in enumerate(zip(ids, reference)):
        if a != b:
            return i
    return min(len(ids), len(reference))


def compare(ids: list[int], reference: list[int] | None) -> tuple[bool | None, int | None]:
    if reference is None:
        return None, None
    prefix = match_prefix(ids, reference)
    return ids == reference, prefix


def decide(cores: int, ids: list[int], reference: list[int] | None, judge_score=None) -> Verdict:
    """One core: exact tokens vs the CPU reference. Several: an exact match if available, else the judge."""
    match, prefix = compare(ids, reference)
    if cores == 1 or match or judge_score is None:
        if match is None:
            return Verdict("FAIL", "none", None, None, notes="no CPU reference and no judge: nothing verified")
        return Verdict("PASS" if match else "FAIL", "cpu_match", match, prefix)
    return Verdict("PASS" if judge_score.english else "FAIL", "judge", match, prefix, judge_score.english,
                   judge_score.score, judge_score.judge)


EXCEPTION_LINE = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception|Failed|Interrupt|Exit)\b:?")
SIGNATURE_RULES = [
    (re.compile(r"0x[0-9a-fA-F]+"), "<hex>"),
    (re.compile(r"(/[\w.+-]+)+"), "<path>"),
    (re.compile(r"'[^']*'|\"[^\"]*\""), "<str>"),
    (re.compile(r"\b\d+(\.\d+)?\b"), "<n>"),
    (re.compile(r"\s+"), " "),
]


def error_signature(error_type: str | None, error: str | None) -> str | None:
    """A normalized one-liner: the exception type and its last message line with numbers and paths removed."""
    if not error_type and not error:
        return None
    lines = [line.strip() for line in (error or "").strip().splitlines() if line.strip()]
    raised = [line for line in lines if EXCEPTION_LINE.match(line)]
    message = (raised or lines or [""])[-1]
    for pattern, repl in SIGNATURE_RULES:
        message = pattern.sub(repl, message)
    prefix = f"{error_type or 'Error'}: "
    return (message if message.startswith(prefix) else prefix + message)[:300]
