"""Faults of one test: hangs, crashes, a killed rank, memory limits, and bad model inputs."""

import json
import shutil

import pytest

from modelcompat import errors
from modelcompat.harness import TestSpec, run_test
from modelcompat.store import staged_rows
from test_harness import processes_with

GIB = 2**30


def run(fixture_dir, ws, name="tiny-llama", **kw):
    return run_test(TestSpec(str(fixture_dir / name), **kw), ws)


def observed(row) -> str:
    detail = row.exclusion or row.error_signature or row.verdict_basis or ""
    return f"{row.result} stage={row.stage} {detail}"[:110]


def test_hanging_test(fixture_dir, ws, record):
    marker = "fault-hang-3c1d"
    row = run(fixture_dir, ws, backend="backends:hang", timeout=12, prompt=marker)
    record("TIMEOUT, no orphans", f"{observed(row)}; orphans={len(processes_with(marker))}")
    assert row.result == "TIMEOUT" and processes_with(marker) == []
    assert len(staged_rows(ws.staging)) == 1


def test_segfaulting_backend(fixture_dir, ws, record):
    row = run(fixture_dir, ws, backend="backends:segfault")
    record("CRASH SIGSEGV", f"{observed(row)} {row.error_type}")
    assert row.result == "CRASH" and row.error_type == "SIGSEGV" and "died by SIGSEGV" in row.error


def test_one_rank_of_two_killed(fixture_dir, ws, record):
    marker = "fault-rank-77aa"
    row = run(fixture_dir, ws, backend="backends:kill_rank1", cores=2, prompt=marker)
    record("CRASH naming rank 1, no orphans", f"{observed(row)} | {row.error.splitlines()[0]}")
    assert row.result == "CRASH" and "rank 1 died" in row.error and processes_with(marker) == []


def test_memory_limit_gives_oom(fixture_dir, ws, record):
    row = run(fixture_dir, ws, backend="backends:hog", memory_limit=6 * GIB, timeout=120)
    record("OOM", observed(row))
    assert row.result == "OOM" and "allocate" in row.error


def test_missing_config(fixture_dir, ws, tmp_path, record):
    folder = tmp_path / "noconfig"
    shutil.copytree(fixture_dir / "tiny-llama", folder)
    (folder / "config.json").unlink()
    with pytest.raises(errors.ModelNotFound) as info:
        run_test(TestSpec(str(folder)), ws)
    record("clear error, no row", errors.message(info.value)[:110])
    assert "no config.json" in errors.message(info.value) and staged_rows(ws.staging) == []


def test_unknown_architecture(fixture_dir, ws, tmp_path, record):
    folder = tmp_path / "unknown-arch"
    shutil.copytree(fixture_dir / "tiny-llama", folder)
    config = json.loads((folder / "config.json").read_text())
    config.update(model_type="made_up_arch", architectures=["MadeUpForCausalLM"])
    (folder / "config.json").write_text(json.dumps(config))
    row = run_test(TestSpec(str(folder), backend="eager"), ws)
    record("ERROR at load", observed(row))
    assert row.result == "ERROR" and row.stage == "load" and "made_up_arch" in row.error


def test_tokenizer_without_chat_template(fixture_dir, ws, tmp_path, record):
    folder = tmp_path / "no-template"
    shutil.copytree(fixture_dir / "tiny-llama", folder)
    (folder / "chat_template.jinja").unlink()
    row = run_test(TestSpec(str(folder), backend="eager"), ws)
    record("PASS on a plain prompt", observed(row))
    assert row.result == "PASS" and row.cpu_match


def test_remote_code_model(fixture_dir, ws, tmp_path, record):
    folder = tmp_path / "remote"
    shutil.copytree(fixture_dir / "tiny-llama", folder)
    config = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**config, "auto_map": {"AutoModelForCausalLM": "x.Y"}}))
    row = run_test(TestSpec(str(folder)), ws)
    record("SKIPPED: remote code", observed(row))
    assert row.result == "SKIPPED" and "remote code" in row.exclusion


@pytest.mark.parametrize("model_id", ["../../etc/passwd", "org/../../../root", "a\\..\\b"])
def test_path_escape_id(ws, record, model_id):
    with pytest.raises(errors.UnsafeModelId) as info:
        run_test(TestSpec(model_id), ws)
    record("refused, no row", errors.message(info.value)[:110])
    assert staged_rows(ws.staging) == []


def test_empty_folder(ws, tmp_path, record):
    with pytest.raises(errors.ModelNotFound) as info:
        run_test(TestSpec(str(tmp_path)), ws)
    record("clear error, no row", errors.message(info.value)[:110])
    assert "no config.json" in errors.message(info.value)


def test_huge_declared_size(fixture_dir, ws, tmp_path, record):
    """A config and safetensors header that declare a 10-trillion-parameter model: planned, never loaded."""
    folder = tmp_path / "huge"
    shutil.copytree(fixture_dir / "tiny-llama", folder)
    header = json.dumps({"w": {"dtype": "BF16", "shape": [100_000, 100_000_000], "data_offsets": [0, 0]}}).encode()
    (folder / "model.safetensors").write_bytes(len(header).to_bytes(8, "little") + header)
    row = run_test(TestSpec(str(folder)), ws)
    record("SKIPPED: too large", observed(row))
    assert row.result == "SKIPPED" and row.exclusion.startswith("too large for") and row.load_s is None
