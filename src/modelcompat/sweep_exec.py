"""The local executor: each test runs harness.run_test in a thread (the heavy work is in run.py subprocesses).

Each test stages into its own scratch folder; the sweep driver stages the row it gets back. So on Ctrl-C the
tests killed mid-run (whose rows would read CRASH) are dropped, and rows finished before the interrupt are kept.
"""

from __future__ import annotations

import os
import tempfile
import threading
import time
import traceback
from concurrent import futures
from dataclasses import replace
from pathlib import Path

from . import harness, provenance
from .errors import ModelcompatError
from .harness import TestSpec, Workspace
from .judge import LazyJudge
from .procs import kill_group
from .schema import Result


def run_job(spec: TestSpec, ws: Workspace, prov=None, judge=None, facts=None) -> Result:
    """harness.run_test, where even bad input becomes a row (a Hub id that cannot be inspected offline, ...)."""
    started = time.monotonic()
    try:
        return harness.run_test(spec, ws, prov, judge, facts)
    except ModelcompatError as exc:
        row = harness.error_row(harness.base_row(spec, prov or provenance.collect()), "inspect", exc)
    except Exception as exc:  # a harness bug must not sink the sweep: the row carries the traceback
        row = harness.error_row(harness.base_row(spec, prov or provenance.collect()), "load", exc)
        row = replace(row, error=f"{row.error}\n{traceback.format_exc()[-1500:]}")
    return harness.finish(row, started, ws)


def run_in_scratch(spec: TestSpec, ws: Workspace, prov=None, judge=None, facts=None) -> Result:
    ws.cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="inflight-", dir=ws.cache) as scratch:
        return run_job(spec, replace(ws, staging=Path(scratch)), prov, judge, facts)


def child_groups() -> list[int]:
    """Process groups led by our direct children: the run.py groups started by procs.run_group."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == os.getpid() and int(fields[2]) == int(pid):  # ppid is us, it leads its group
            found.append(int(pid))
    return found


class LocalExecutor:
    def __init__(self, config, ws: Workspace, prov) -> None:
        self.ws, self.prov, self.judge = ws, prov, LazyJudge()
        self.pool = futures.ThreadPoolExecutor(max_workers=64, thread_name_prefix="sweep")
        self.running: dict[futures.Future, object] = {}
        self.stopping = threading.Event()

    def capacity(self, cores: int, memory: int) -> tuple[int, int]:
        return cores, memory

    def submit(self, job) -> None:
        self.running[self.pool.submit(self.run, job)] = job

    def run(self, job) -> Result | None:
        row = run_in_scratch(job.spec, self.ws, self.prov, self.judge, job.facts)
        return None if self.stopping.is_set() else row  # finished after Ctrl-C: killed by us, not a result

    def wait(self, timeout: float) -> list[tuple[object, Result]]:
        done, _ = futures.wait(self.running, timeout=timeout, return_when=futures.FIRST_COMPLETED)
        return [(self.running.pop(f), f.result()) for f in done]

    def stop(self) -> list[tuple[object, Result]]:
        """Kill every running test's process group until all threads are back; return rows finished before."""
        self.stopping.set()
        while not all(f.done() for f in self.running):
            for pgid in child_groups():
                kill_group(pgid)
            time.sleep(0.05)
        return [(job, f.result()) for f, job in self.running.items() if not f.exception() and f.result()]

    def close(self) -> None:
        self.pool.shutdown(wait=True)
