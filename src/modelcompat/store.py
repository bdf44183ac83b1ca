"""Staging: one JSON file per finished test, written atomically, so a crash loses nothing."""

from __future__ import annotations

import hashlib
import json
import os
import threading
from pathlib import Path

from .errors import DatasetProblem, WriteFailed
from .schema import Result

KEY_FIELDS = ("model_id", "revision", "task", "target", "backend", "compiler_version", "transformers")


def write_json_atomic(path: Path, data) -> Path:
    """JSON through `replace_atomically`: readers see the old file or the whole new one, never half."""
    return replace_atomically(path, json.dumps(data, sort_keys=True).encode())


def row_key(row: Result) -> str:
    """Identity of a test for resume: the same model, revision, task, target, backend and versions."""
    key = json.dumps([getattr(row, k) for k in KEY_FIELDS])
    return hashlib.sha256(key.encode()).hexdigest()[:20]


def stage_row(staging: Path, row: Result) -> Path:
    stamp = (row.tested_at or "").replace(":", "").replace("-", "").replace("+", "Z")[:22]
    return write_json_atomic(Path(staging) / f"{row_key(row)}-{stamp}.json", row.to_dict())


def staged_rows(staging: Path) -> list[Result]:
    """Every staged row; hidden temp files (a crash mid-write) are never read."""
    return [row for _, row in staged_files(staging)]


def read_staged(path: Path) -> Result:
    try:
        return Result.from_dict(json.loads(path.read_text()))
    except (ValueError, TypeError) as exc:  # JSON or UTF-8 errors, or not an object of columns
        raise DatasetProblem(str(path), f"not a staged result row ({exc}); move the file aside and rerun") from None


def replace_atomically(path: Path, data: bytes) -> Path:
    """Write beside, fsync, then rename. A failed write (a full disk) removes its temp file and raises WriteFailed;
    the file it would have replaced is untouched."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}-{threading.get_ident()}")
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise WriteFailed(str(path), exc.strerror or str(exc)) from exc
    return path


def staged_files(staging: Path) -> list[tuple[Path, Result]]:
    """Like `staged_rows`, with the file each row came from (so publishing can move it once it is safe)."""
    folder = Path(staging)
    if not folder.is_dir():
        return []
    return [(p, read_staged(p)) for p in sorted(folder.glob("[!.]*.json"))]


def mark_published(staging: Path, paths: list[Path]) -> int:
    """Move staged files into staging/published/ once their rows are in the dataset; a file another publisher
    already moved is fine. Returns how many this call moved."""
    done = Path(staging) / "published"
    done.mkdir(parents=True, exist_ok=True)
    moved = 0
    for path in paths:
        try:
            os.replace(path, done / Path(path).name)
            moved += 1
        except FileNotFoundError:
            pass
    return moved
