import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from modelcompat import errors
from modelcompat.harness import TestSpec, run_test
from modelcompat.schema import Result
from modelcompat.store import staged_rows


def test(fixture_dir, ws, name, **kw) -> Result:
    return run_test(TestSpec(str(fixture_dir / name), **kw), ws)


test.__test__ = False  # a helper, not a test


@pytest.mark.parametrize("name", ["tiny-llama", "tiny-llava"])
def test_fixture_passes_on_cpu_aot_eager(fixture_dir, ws, name):
    row = test(fixture_dir, ws, name, backend="aot_eager")
    assert row.result == "PASS", row.error
    assert row.verdict_basis == "cpu_match" and row.cpu_match is True
    assert row.match_prefix == 32 and len(row.token_ids) == 32 and row.token_ids == row.reference_token_ids
    assert row.task == ("image-text-to-text" if name == "tiny-llava" else "text-generation")
    assert row.cores == 1 and row.compile_s > 0 and row.wall_s > row.compile_s
    assert row.run_py and row.run_py_sha256 and json.loads(row.stack)["torch"].startswith("2.13")


def test_tiny_llama_passes_with_real_inductor(fixture_dir, ws):
    row = test(fixture_dir, ws, "tiny-llama")
    assert row.backend == "inductor" and row.compiler == "inductor"
    assert row.result == "PASS", row.error
    assert row.cpu_match is True


def test_perturbing_backend_fails_with_the_right_prefix(fixture_dir, ws):
    from backends import PERTURB_AT

    row = test(fixture_dir, ws, "tiny-llama", backend="backends:perturb")
    assert row.result == "FAIL"
    assert row.cpu_match is False and row.match_prefix == PERTURB_AT
    assert row.stage == "verify" and row.verdict_basis == "cpu_match"


def test_raising_backend_is_an_error_at_compile(fixture_dir, ws):
    row = test(fixture_dir, ws, "tiny-llama", backend="backends:raising")
    assert row.result == "ERROR" and row.stage == "compile"
    assert "refuses every graph" in row.error and row.error_signature


def test_backend_that_kills_its_process_is_a_crash(fixture_dir, ws):
    row = test(fixture_dir, ws, "tiny-llama", backend="backends:kill_self")
    assert row.result == "CRASH" and row.error_type == "SIGKILL"


def processes_with(marker: str) -> list[str]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        if marker in cmd and "pytest" not in cmd:
            found.append(cmd)
    return found


def test_hanging_run_times_out_and_leaves_no_orphans(fixture_dir, ws):
    marker = "hang-marker-7f3a"
    row = test(fixture_dir, ws, "tiny-llama", backend="backends:hang", timeout=15, prompt=marker)
    assert row.result == "TIMEOUT" and "killed after 15 s" in row.error
    assert processes_with(marker) == []


def test_malformed_config_is_an_error_row_at_inspect(fixture_dir, ws):
    row = test(fixture_dir, ws, "broken-config")
    assert row.result == "ERROR" and row.stage == "inspect"
    assert "config.json" in row.error and "Fix or re-download" in row.error
    assert staged_rows(ws.staging) == [row]


def test_remote_code_is_skipped_unless_trusted(fixture_dir, ws, tmp_path):
    folder = tmp_path / "remote"
    shutil.copytree(fixture_dir / "tiny-llama", folder)
    config = json.loads((folder / "config.json").read_text())
    config["auto_map"] = {"AutoModelForCausalLM": "modeling_x.XForCausalLM"}
    (folder / "config.json").write_text(json.dumps(config))
    row = run_test(TestSpec(str(folder)), ws)
    assert row.result == "SKIPPED" and "--trust-remote-code" in row.exclusion


@pytest.mark.parametrize("model_id, error", [
    ("/nonexistent/checkpoint", errors.ModelNotFound),
    ("nobody-here/no-such-model", errors.ModelNotFound),
    ("../../etc", errors.UnsafeModelId),
    ("org/../../secrets", errors.UnsafeModelId),
])
def test_bad_model_ids_are_refused(ws, model_id, error):
    with pytest.raises(error):
        run_test(TestSpec(model_id), ws)
    assert staged_rows(ws.staging) == []


@pytest.mark.parametrize("spec, kind, suggestion", [
    (dict(target="cdua"), "target", "cuda"),
    (dict(backend="inductr"), "backend", "inductor"),
    (dict(task="text-generaton"), "task", "text-generation"),
])
def test_unknown_names_answer_did_you_mean(fixture_dir, ws, spec, kind, suggestion):
    with pytest.raises(errors.UnknownName) as info:
        run_test(TestSpec(str(fixture_dir / "tiny-llama"), **spec), ws)
    assert info.value.kind == kind
    assert f"Did you mean {suggestion!r}?" in errors.message(info.value)


def cli(*args, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "modelcompat", *args], capture_output=True, text=True, cwd=cwd)


def test_cli_messages_and_exit_codes(fixture_dir, tmp_path):
    out = cli("test", "../../etc/passwd", "--out", str(tmp_path))
    assert out.returncode == 2 and "could escape its folder" in out.stderr
    out = cli("test", str(fixture_dir / "tiny-llama"), "--target", "nueron", "--out", str(tmp_path))
    assert out.returncode == 2 and "Did you mean 'neuron'?" in out.stderr
    out = cli("test", str(fixture_dir / "tiny-llama"), "--backend", "nopkg.mod:fn", "--out", str(tmp_path))
    assert out.returncode == 2 and "nopkg.mod:fn" in out.stderr and "Traceback" not in out.stderr


def test_cli_test_prints_a_verdict_and_exit_code(fixture_dir, tmp_path):
    out = cli("test", str(fixture_dir / "tiny-qwen3"), "--backend", "eager", "--out", str(tmp_path / "s"))
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.startswith("PASS") and "match_prefix 32/32" in out.stdout
    out = cli("test", str(fixture_dir / "broken-config"), "--json", "--out", str(tmp_path / "s"))
    assert out.returncode == 1 and json.loads(out.stdout)["result"] == "ERROR"
