"""Run a command as its own process group, with a timeout that kills the whole group."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Exit:
    returncode: int | None
    timed_out: bool
    seconds: float
    log: str  # tail of the combined output

    @property
    def signal_name(self) -> str | None:
        if self.returncode is None or self.returncode >= 0:
            return None
        try:
            return signal.Signals(-self.returncode).name
        except ValueError:
            return f"signal {-self.returncode}"


def kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def limit_memory(limit: int | None):
    """A preexec function capping the child's address space (RLIMIT_AS), or None for no cap."""
    if not limit:
        return None
    return lambda: resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def run_group(argv: list[str], timeout: float, log_path: Path, env: dict | None = None,
              memory_limit: int | None = None) -> Exit:
    """Start `argv` in a new session; on timeout (or when it ends) kill every process left in its group."""
    start = time.monotonic()
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True, env=env, preexec_fn=limit_memory(memory_limit))
        try:
            proc.wait(timeout=timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            timed_out = True
        except BaseException:  # Ctrl-C in the parent: take the group down, then re-raise
            kill_group(proc.pid)
            proc.wait()
            raise
        finally:
            kill_group(proc.pid)  # ranks or helpers left behind die with the group
    proc.wait()
    return Exit(None if timed_out else proc.returncode, timed_out, time.monotonic() - start, tail(log_path))


def tail(path: Path, limit: int = 4000) -> str:
    data = Path(path).read_bytes()[-limit:]
    return data.decode("utf-8", "replace")
