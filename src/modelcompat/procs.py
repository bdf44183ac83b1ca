"""Run a command as its own process group, with a timeout that kills the whole group."""

from __future__ import annotations

import ctypes
import os
import resource
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


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


def die_with_parent() -> None:
    """Linux: SIGKILL this process when the thread that started it dies (a `kill -9` of the sweep included)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):  # not Linux: the timeout still ends the group
        pass


def child_setup(memory_limit: int | None):
    """The preexec function: die with the parent, and cap the address space (RLIMIT_AS) when asked."""

    def setup() -> None:
        die_with_parent()
        if memory_limit:
            resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))

    return setup


def run_group(argv: list[str], timeout: float, log_path: Path, env: dict | None = None,
              memory_limit: int | None = None) -> Exit:
    """Start `argv` in a new session; on timeout (or when it ends) kill every process left in its group."""
    start = time.monotonic()
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True, env=env, preexec_fn=child_setup(memory_limit))
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
