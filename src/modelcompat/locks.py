"""A lock file held with flock: exclusive across threads and processes, released by the kernel when its holder
dies (kill -9 included), so a crash never leaves a stale lock behind."""

from __future__ import annotations

import fcntl
import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator


@contextmanager
def file_lock(path: Path) -> Iterator[Path]:
    """Hold `path` exclusively while the block runs; other holders wait (each open() is its own lock)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield path
    finally:
        os.close(fd)  # closing the descriptor releases the lock
