"""Sweeps: the packing (pure), reference reuse, and Ray against local (kill -9 and resume: tests/faults)."""

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from modelcompat import errors, store
from modelcompat.catalog import Entry
from modelcompat.harness import TestSpec, Workspace
from modelcompat.sweep import Job, Packer, SweepConfig, packing_order, run_sweep

GIB = 2**30


def job(name: str, cores: int = 1, memory: int = GIB, order: int = 0) -> Job:
    return Job(name, TestSpec(name), cores, memory, order)


def test_a_one_core_and_a_two_core_test_share_three_cores():
    packer = Packer(3, 100 * GIB, [job("two", 2), job("one", 1)])
    assert [j.key for j in packer.take()] == ["two", "one"]
    assert packer.free() == (0, 98 * GIB) and packer.take() == []


def test_planned_memory_limits_what_runs_together():
    a, b, c = job("a", 1, 6 * GIB), job("b", 1, 6 * GIB), job("c", 1, 3 * GIB)
    packer = Packer(4, 10 * GIB, [a, b, c])
    assert packer.take() == [a, c]  # 4 cores free, but a and b together would need 12 GiB of 10
    packer.done(a)
    assert packer.take() == [b]


def test_a_waiting_large_test_is_overtaken_at_most_patience_times_then_reserved():
    first, big, smalls = job("first"), job("big", 2), [job(f"s{i}") for i in range(4)]
    packer = Packer(2, 100 * GIB, [first, big, *smalls], patience=2)
    assert packer.take() == [first, smalls[0]]  # big waits; overtaken once
    packer.done(first)
    assert packer.take() == [smalls[1]]  # overtaken twice: now reserved
    packer.done(smalls[0])
    assert packer.take() == []  # one core is free, and it is held for big
    packer.done(smalls[1])
    assert packer.take() == [big]
    packer.done(big)
    assert packer.take() == smalls[2:]


def test_a_test_larger_than_the_machine_runs_alone_instead_of_never():
    huge, small = job("huge", 8, 500 * GIB), job("small")
    packer = Packer(2, 16 * GIB, [huge, small])
    assert packer.take() == [huge] and packer.take() == []
    packer.done(huge)
    assert packer.take() == [small]


def test_planned_skips_take_no_cores_and_largest_tests_go_first():
    jobs = [job("one", 1, order=0), job("skip", 0, 0, order=1), job("two", 2, order=2), job("one-big", 1, 5 * GIB, 3)]
    assert [j.key for j in packing_order(jobs)] == ["two", "one-big", "one", "skip"]
    packer = Packer(1, 100 * GIB, packing_order(jobs))
    assert [j.key for j in packer.take()] == ["two", "skip"]  # "two" is clamped to the one core


def entries(fixture_dir, *names) -> list[Entry]:
    return [Entry(str(fixture_dir / n), None) for n in names]


def staged_by_key(staging: Path) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for row in store.staged_rows(staging):
        found.setdefault(store.row_key(row), []).append(row.result)
    return found


def sweep_cli(*args) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "modelcompat", "sweep", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def children_running(pid: int, marker: str) -> list[int]:
    """run.py processes (group leaders) whose parent is `pid` and whose command line names `marker`."""
    found = []
    for child in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[1].split()
            cmd = Path(f"/proc/{child}/cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        if int(stat[1]) == pid and marker in cmd and "run.py" in cmd:
            found.append(int(child))
    return found


def wait_until(condition, limit: float = 120.0):
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        time.sleep(0.2)
    raise AssertionError("timed out waiting")


def test_a_second_backend_reuses_the_cpu_reference(fixture_dir, tmp_path):
    ws = Workspace(staging=tmp_path / "staging", cache=tmp_path / "fresh-cache")
    models = entries(fixture_dir, "tiny-llama")
    first = run_sweep(models, SweepConfig(backend="eager"), ws)
    assert [r.result for r in first.rows] == ["PASS"]
    assert (first.references_computed, first.references_reused) == (1, 0)
    second = run_sweep(models, SweepConfig(backend="aot_eager"), ws)
    assert [r.result for r in second.rows] == ["PASS"] and second.already_staged == 0
    assert (second.references_computed, second.references_reused) == (0, 1)
    assert second.rows[0].reference_token_ids == first.rows[0].reference_token_ids == second.rows[0].token_ids


def test_two_concurrent_tests_of_one_checkpoint_compute_its_reference_once(fixture_dir, tmp_path):
    from modelcompat.facts import inspect_model
    from modelcompat.harness import reference
    from modelcompat.provenance import collect

    ws = Workspace(staging=tmp_path / "staging", cache=tmp_path / "fresh-cache", env={"OMP_NUM_THREADS": "1"})
    spec, prov = TestSpec(str(fixture_dir / "tiny-qwen3"), task="text-generation"), collect()
    facts, found = inspect_model(spec.model_id), []
    threads = [threading.Thread(target=lambda: found.append(reference(facts, spec, ws, prov))) for _ in range(2)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    assert sorted(r["reused"] for r in found) == [False, True]
    assert found[0]["token_ids"] == found[1]["token_ids"] and len(found[0]["token_ids"]) == 32


def test_ray_executor_gives_the_same_rows_as_local(fixture_dir, ws, tmp_path):
    ray = pytest.importorskip("ray")
    models = entries(fixture_dir, "tiny-llama", "broken-config")
    local = run_sweep(models, SweepConfig(backend="eager", cores=2), ws)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        remote = run_sweep(models, SweepConfig(backend="eager", executor="ray"), Workspace(
            staging=tmp_path / "ray-staging", cache=ws.cache))
    finally:
        ray.shutdown()
    assert remote.cores == 2 and len(store.staged_rows(tmp_path / "ray-staging")) == 2

    def same(rows):
        return sorted((r.model_id, r.result, r.cores, tuple(r.token_ids), tuple(r.reference_token_ids)) for r in rows)

    assert same(remote.rows) == same(local.rows)
    assert {r.result for r in remote.rows} == {"PASS", "ERROR"}


def test_unknown_names_stop_a_sweep_before_it_starts(fixture_dir, ws):
    with pytest.raises(errors.UnknownName) as info:
        run_sweep(entries(fixture_dir, "tiny-llama"), SweepConfig(executor="rey"), ws)
    assert "Did you mean 'ray'?" in errors.message(info.value)
    out = subprocess.run([sys.executable, "-m", "modelcompat", "sweep", "--catalog", "selectd"],
                         capture_output=True, text=True)
    assert out.returncode == 2 and "Did you mean 'selected'?" in out.stderr
    assert store.staged_rows(ws.staging) == []


def test_retest_reruns_what_resume_skips(fixture_dir, ws):
    models = entries(fixture_dir, "broken-config")  # an error row at inspect: no subprocess, so this is fast
    first = run_sweep(models, SweepConfig(backend="eager"), ws)
    again = run_sweep(models, SweepConfig(backend="eager"), ws)
    retest = run_sweep(models, SweepConfig(backend="eager", retest=True), ws)
    assert (len(first.rows), len(again.rows), again.already_staged, len(retest.rows)) == (1, 0, 1, 1)
    assert len(store.staged_rows(ws.staging)) == 2  # --retest adds a newer row beside the old one


def test_planning_hands_its_facts_to_the_test(fixture_dir):
    """A model is inspected (its folder hashed) once per sweep: the job carries the facts to the harness."""
    from modelcompat import provenance
    from modelcompat.sweep import plan_jobs

    (job,) = plan_jobs(entries(fixture_dir, "tiny-llama"), SweepConfig(backend="eager"), provenance.collect())
    assert job.facts.revision.startswith("local:") and job.facts.num_params and job.cores == 1
