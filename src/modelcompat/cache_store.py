"""Where compiled-graph cache entries live: a local folder, or a Hugging Face repo (cache_hub.py).

A store is a tree of files addressed by '/'-separated paths. It knows nothing about keys or compilers: it lists
files, reads one, downloads an entry's files, pushes an entry (all its files, then the `.complete` marker last)
and deletes entries. cache.py builds everything else on these five operations, for both kinds of store.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import socket
import time
from pathlib import Path
from typing import Protocol

from .store import replace_atomically

COMPLETE, FAILED, LOCK, META = ".complete", ".failed", ".lock", "entry.json"
LOCK_STALE_S = 6 * 3600  # a lock older than this (or held by a dead process on this host) is abandoned
HUB_REPO = re.compile(r"^(hf://)?[\w.-]+/[\w.-]+$")


class Store(Protocol):
    location: str

    def list_files(self, prefix: str) -> dict[str, int]: ...  # path -> size, under prefix ("" for all)

    def read(self, path: str) -> bytes | None: ...

    def download(self, entry: str, names: list[str], dest: Path) -> None: ...  # entry/<name> -> dest/<name>

    def push(self, entry: str, files: dict[str, Path], complete: bytes, replace: bool) -> str: ...

    def delete(self, entries: list[str]) -> None: ...

    def lock_is_stale(self, entry: str) -> bool: ...


def open_store(location: str) -> Store:
    """A Hub repo for `hf://org/name`, or `org/name` when there is no local folder `org`; else a folder."""
    path = Path(location).expanduser()
    looks_like_path = location.startswith(("/", ".", "~")) or path.exists() or path.parent.is_dir()
    if location.startswith("hf://") or (HUB_REPO.match(location) and not looks_like_path):
        from .cache_hub import HubStore

        return HubStore(location.removeprefix("hf://"))
    return FolderStore(Path(location).expanduser())


class FolderStore:
    """A cache folder. Concurrent pushes of one entry are serialized by an O_EXCL `.lock` marker."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self.location = str(root)

    def list_files(self, prefix: str) -> dict[str, int]:
        base = self.root / prefix
        if not base.is_dir():
            return {}
        return {p.relative_to(self.root).as_posix(): p.stat().st_size for p in base.rglob("*") if p.is_file()}

    def read(self, path: str) -> bytes | None:
        target = self.root / path
        return target.read_bytes() if target.is_file() else None

    def download(self, entry: str, names: list[str], dest: Path) -> None:
        for name in names:
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(self.root / entry / name, dest / name)

    def push(self, entry: str, files: dict[str, Path], complete: bytes, replace: bool) -> str:
        """Write the entry under its lock; returns "pushed", "exists" (kept as it was) or "locked" (skipped)."""
        folder = self.root / entry
        folder.mkdir(parents=True, exist_ok=True)
        if not take_lock(folder / LOCK):
            return "locked"
        try:
            if (folder / COMPLETE).exists() and not replace:
                return "exists"
            write_entry(folder, files, complete)
            return "pushed"
        except OSError as exc:
            replace_atomically(folder / FAILED, f"{type(exc).__name__}: {exc}\n".encode())
            raise
        finally:
            (folder / LOCK).unlink(missing_ok=True)

    def delete(self, entries: list[str]) -> None:
        for entry in entries:
            shutil.rmtree(self.root / entry, ignore_errors=True)

    def lock_is_stale(self, entry: str) -> bool:
        return lock_is_stale(self.root / entry / LOCK)


def write_entry(folder: Path, files: dict[str, Path], complete: bytes) -> None:
    """Clear the old markers and files, copy the new ones, then write `.complete` last, atomically."""
    for marker in (COMPLETE, FAILED):
        (folder / marker).unlink(missing_ok=True)
    shutil.rmtree(folder / "files", ignore_errors=True)
    for name, source in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, folder / name)
    replace_atomically(folder / COMPLETE, complete)


def sha256_file(path: Path) -> str | None:
    if not path.is_file():
        return None
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def clear_folder(folder: Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True, exist_ok=True)


def take_lock(path: Path) -> bool:
    """Create the lock marker exclusively; an abandoned lock is removed and taken over once."""
    for _ in range(2):
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            if not lock_is_stale(path):
                return False
            path.unlink(missing_ok=True)
            continue
        with os.fdopen(fd, "w") as f:
            json.dump({"pid": os.getpid(), "host": socket.gethostname(), "time": time.time()}, f)
        return True
    return False


def lock_is_stale(path: Path) -> bool:
    try:
        lock = json.loads(path.read_text() or "{}")
    except (OSError, ValueError):
        return False  # being written right now, or gone
    if time.time() - lock.get("time", time.time()) > LOCK_STALE_S:
        return True
    return lock.get("host") == socket.gethostname() and not pid_alive(lock.get("pid", 0))


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return pid > 0
