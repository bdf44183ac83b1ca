"""Sweeps: plan every test first, then pack the tests onto free cores and memory, staging each row as it lands.

A sweep is resumable: a test whose row is already staged under the same key (store.row_key) is skipped, so a
sweep killed at any moment and started again runs only what is missing. Executors (local threads, Ray) live in
sweep_exec.py and sweep_ray.py; the packing (`Packer`) is pure and tested on its own.
"""

from __future__ import annotations

import importlib
import os
import time
from dataclasses import dataclass, field, replace

from . import harness, provenance, store, targets
from . import facts as facts_mod
from . import plan as plan_mod
from .catalog import Entry
from .errors import ModelcompatError, UnknownName
from .harness import TestSpec, Workspace
from .schema import Result

EXECUTORS = {"local": "modelcompat.sweep_exec:LocalExecutor", "ray": "modelcompat.sweep_ray:RayExecutor"}
THREADS = {"cpu": {"OMP_NUM_THREADS": "1"}}  # a planned core is one rank with one thread (see Packer)


@dataclass(frozen=True)
class SweepConfig:
    task: str | None = None  # None: each entry's task, else the checkpoint's config
    target: str = "cpu"
    backend: str | None = None  # None: the target's default
    cores: int | None = None  # cores the sweep may use at once (None: the target's, or the Ray cluster's)
    timeout: float = 900.0  # seconds per run.py process group
    retest: bool = False  # run tests whose row is already staged
    executor: str = "local"  # a key of EXECUTORS
    address: str | None = None  # Ray cluster address (None: start or join a local Ray)
    tokens: int = 32
    reference: bool = True
    patience: int = 2  # how many smaller tests may overtake a waiting one before its resources are reserved


@dataclass(frozen=True)
class Job:
    key: str  # store.row_key of the row this test will stage: the resume identity
    spec: TestSpec
    cores: int  # cores held while it runs; 0 when nothing heavy runs (a planned skip, an uninspectable model)
    memory: int  # planned bytes over all its cores
    order: int = 0  # position in the catalog
    facts: object = None  # facts.ModelFacts from planning, so the test does not inspect (hash) the model again


@dataclass
class Packer:
    """Which queued tests start now. Pure: no clocks, no processes.

    Tests start in queue order when their cores and planned bytes fit what is free. A test that does not fit
    may be overtaken by at most `patience` later ones; then it is reserved: nothing behind it starts until it
    has, so large tests are never starved by a stream of small ones. A test larger than the whole machine is
    clamped to it, so it runs alone instead of never."""

    cores: int
    memory: int
    queue: list[Job]
    patience: int = 2
    running: list[Job] = field(default_factory=list)
    overtaken: dict[str, int] = field(default_factory=dict)

    def need(self, job: Job) -> tuple[int, int]:
        return min(job.cores, self.cores), min(job.memory, self.memory)

    def free(self) -> tuple[int, int]:
        held = [self.need(j) for j in self.running]
        return self.cores - sum(c for c, _ in held), self.memory - sum(m for _, m in held)

    def fits(self, job: Job) -> bool:
        (cores, memory), (free_cores, free_memory) = self.need(job), self.free()
        return cores <= free_cores and memory <= free_memory

    def take(self) -> list[Job]:
        """Start what fits now; returns the started tests (already moved from queue to running)."""
        started, waiting = [], None
        for job in list(self.queue):
            if waiting and self.overtaken.get(waiting.key, 0) >= self.patience:
                break  # reserved: what is free now is held for the waiting test
            if not self.fits(job):
                waiting = waiting or job
                continue
            self.queue.remove(job)
            self.running.append(job)
            started.append(job)
            if waiting and job.cores:
                self.overtaken[waiting.key] = self.overtaken.get(waiting.key, 0) + 1
        return started

    def done(self, job: Job) -> None:
        self.running.remove(job)

    @property
    def busy(self) -> bool:
        return bool(self.queue or self.running)


def packing_order(jobs: list[Job]) -> list[Job]:
    """Largest first (the hardest to place), then by planned bytes, then catalog order."""
    return sorted(jobs, key=lambda j: (-j.cores, -j.memory, j.order))


@dataclass(frozen=True)
class Summary:
    rows: tuple[Result, ...]  # rows staged by this sweep, in finishing order
    already_staged: int  # tests skipped because their row was already staged
    wall_s: float
    busy_core_s: float  # sum over tests of cores held x seconds running
    cores: int

    @property
    def references_reused(self) -> int:
        return sum("reference reused" in (r.notes or "") for r in self.rows)

    @property
    def references_computed(self) -> int:
        ran = [r for r in self.rows if r.reference_token_ids or (r.error or "").startswith("CPU eager reference")]
        return len(ran) - sum("reference reused" in (r.notes or "") for r in ran)

    @property
    def utilisation(self) -> float:
        return self.busy_core_s / (self.cores * self.wall_s) if self.wall_s and self.cores else 0.0

    def counts(self) -> dict[str, int]:
        found: dict[str, int] = {}
        for row in self.rows:
            found[row.result] = found.get(row.result, 0) + 1
        return found


class NoEvents:
    """The progress interface; sweep_view.RichProgress draws it."""

    def planned(self, total: int, already_staged: int) -> None: ...

    def started(self, job: Job) -> None: ...

    def finished(self, job: Job, row: Result) -> None: ...


def template(config: SweepConfig, model_id: str = "") -> TestSpec:
    return TestSpec(model_id, task=config.task, target=config.target, backend=config.backend,
                    max_cores=config.cores, timeout=config.timeout, tokens=config.tokens, reference=config.reference)


def key_of(spec: TestSpec, facts, prov: provenance.Provenance) -> str:
    """The key of the row the harness will stage for `spec` (same fields, same defaults as harness.run_test)."""
    row = harness.base_row(spec, prov)
    if facts is not None:
        row = replace(harness.with_facts(row, facts), task=spec.task or facts.default_task)
    return store.row_key(row)


def plan_job(entry: Entry, config: SweepConfig, prov: provenance.Provenance, order: int) -> Job:
    """Inspect and plan one entry; a model that cannot be inspected still becomes a job (the harness rows it)."""
    spec = replace(template(config, entry.model), task=config.task or entry.task)
    try:
        facts = facts_mod.inspect_model(spec.model_id, spec.revision, spec.trust_remote_code)
    except ModelcompatError:
        return Job(key_of(spec, None, prov), spec, 0, 0, order)
    limits = harness.limits_for(spec, targets.get_target(spec.target))
    plan = plan_mod.make_plan(facts, limits, spec.tokens, spec.cores)
    cores, memory = (plan.cores, plan.cores * plan.bytes_per_core) if plan.runnable else (0, 0)
    return Job(key_of(spec, facts, prov), spec, cores, memory, order, facts)


def plan_jobs(entries: list[Entry], config: SweepConfig, prov: provenance.Provenance) -> list[Job]:
    """One job per distinct key, in catalog order (an entry listed twice is tested once)."""
    jobs: dict[str, Job] = {}
    for order, entry in enumerate(entries):
        job = plan_job(entry, config, prov, order)
        jobs.setdefault(job.key, job)
    return list(jobs.values())


def capacity(config: SweepConfig) -> tuple[int, int]:
    """(cores, bytes) the sweep may use on this machine: the target's cores and their total memory."""
    spec = template(config)
    target = targets.get_target(config.target)
    cores = config.cores or targets.max_cores(target)
    return cores, harness.limits_for(spec, target).core_memory * cores


def open_executor(config: SweepConfig, ws: Workspace, prov: provenance.Provenance):
    if config.executor not in EXECUTORS:
        raise UnknownName("executor", config.executor, tuple(EXECUTORS))
    module, attr = EXECUTORS[config.executor].split(":")
    return getattr(importlib.import_module(module), attr)(config, ws, prov)


def run_sweep(entries: list[Entry], config: SweepConfig, ws: Workspace, events=None,
              prov: provenance.Provenance | None = None) -> Summary:
    """Plan every entry, skip what is staged (unless retest), pack the rest onto the cores, stage every row."""
    harness.check_spec(template(config, "check"))  # unknown target, task or backend: refuse before anything runs
    events, prov = events or NoEvents(), prov or provenance.collect()
    threads = {k: v for k, v in THREADS.get(config.target, {}).items() if k not in os.environ}  # yours win
    ws = replace(ws, env={**threads, **ws.env})
    executor = open_executor(config, ws, prov)
    try:
        jobs = plan_jobs(entries, config, prov)
        done = set() if config.retest else {store.row_key(r) for r in store.staged_rows(ws.staging)}
        todo = [j for j in jobs if j.key not in done]
        events.planned(len(todo), len(jobs) - len(todo))
        cores, memory = executor.capacity(*capacity(config))
        return drive(Packer(cores, memory, packing_order(todo), config.patience), executor, ws, events,
                     len(jobs) - len(todo))
    finally:
        executor.close()


def drive(packer: Packer, executor, ws: Workspace, events, already_staged: int) -> Summary:
    """The scheduling loop: start what fits, stage what finished, until the queue is empty."""
    started_at, rows, busy, began = time.monotonic(), [], 0.0, {}
    try:
        while packer.busy:
            for job in packer.take():
                began[job.key] = time.monotonic()
                executor.submit(job)
                events.started(job)
            for job, row in executor.wait(0.25):
                busy += job.cores * (time.monotonic() - began[job.key])
                rows.append(land(packer, job, row, ws, events))
    except KeyboardInterrupt:  # kill the running tests' process groups; keep every row that finished before
        for job, row in executor.stop():
            land(packer, job, row, ws, events)
        raise
    return Summary(tuple(rows), already_staged, time.monotonic() - started_at, busy, packer.cores)


def land(packer: Packer, job: Job, row: Result, ws: Workspace, events) -> Result:
    packer.done(job)
    store.stage_row(ws.staging, row)
    events.finished(job, row)
    return row
