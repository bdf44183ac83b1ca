"""The query layer over published folders: versions, search, detail, regressions, failure causes, faults."""

import json
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from resultrows import RUN_PY, make_row

from modelcompat import dataset, errors, query, store
from modelcompat.schema import Result

OLD, NEW = ("2.12.0+cpu", "5.23.0"), ("2.13.0+cpu", "5.24.0")
LATER = "2026-11-30T00:00:00+00:00"


def publish(folder: Path, *rows: Result) -> query.Dataset:
    for row in rows:
        store.stage_row(folder / "staging", row)
    dataset.publish_local(folder / "staging", folder / "ds")
    return query.open_dataset(folder / "ds")


def at(pair, model_id, result="PASS", **kw) -> Result:
    return make_row(model_id, result, compiler_version=pair[0], transformers=pair[1], **kw)


@pytest.fixture
def ds(tmp_path) -> query.Dataset:
    return publish(tmp_path, at(OLD, "org/Alpha"), at(OLD, "org/beta", "FAIL"), at(OLD, "org/gamma"),
                   at(NEW, "org/Alpha", "ERROR"), at(NEW, "org/beta"), at(NEW, "org/gamma"), at(NEW, "org/delta"),
                   at(NEW, "org/gamma", "OOM", tested_at=LATER, stage="load", error_signature="OOM at load"),
                   at(NEW, "org/Alpha", "ERROR", task="image-text-to-text"))


def ids(rows) -> list[str]:
    return [r["model_id"] for r in rows]


def test_versions_and_pass_rates_are_newest_first(ds):
    assert [(v["compiler_version"], v["transformers"], v["rows"], v["passed"]) for v in query.versions(ds)] == \
        [(*NEW, 5, 2), (*OLD, 3, 2)]
    assert query.pass_rates(ds)[1] == {"compiler_version": OLD[0], "transformers": OLD[1], "rows": 3, "passed": 2,
                                       "pass_rate": 0.6667}


def test_search_gives_the_newest_row_per_model_task_target_in_the_newest_pair(ds):
    rows = query.search(ds)
    assert [(r["model_id"], r["task"], r["result"]) for r in rows] == [
        ("org/Alpha", "image-text-to-text", "ERROR"), ("org/Alpha", "text-generation", "ERROR"),
        ("org/beta", "text-generation", "PASS"), ("org/delta", "text-generation", "PASS"),
        ("org/gamma", "text-generation", "OOM")]
    needed = {"model_id", "result", "task", "target", "backend", "cores", "tp", "ep", "wall_s", "compile_s",
              "device_mem_peak_gb", "tested_at", "exclusion", "error_signature", "compiler_version", "transformers"}
    assert needed <= set(rows[0])


def test_search_filters_text_any_case_status_task_and_versions(ds):
    assert ids(query.search(ds, "ALPHA", task="text-generation")) == ["org/Alpha"]
    assert ids(query.search(ds, status="PASS")) == ["org/beta", "org/delta"]
    assert ids(query.search(ds, status="FAIL", compiler_version=OLD[0])) == ["org/beta"]
    assert query.search(ds, target="neuron") == [] and len(query.search(ds, limit=2)) == 2
    with pytest.raises(errors.UnknownName, match="status"):
        query.search(ds, status="pass'; --")


@pytest.mark.parametrize("text", ["o'brien", "100%", "a_b", "x; DROP TABLE results; --", "' OR 1=1 --",
                                  "SELECT * FROM results", "back\\slash"])
def test_search_text_is_plain_text_never_sql(tmp_path, text):
    ds = publish(tmp_path, at(NEW, f"org/{text}"), at(NEW, "org/plain"), at(NEW, "org/a-b-100x"))
    assert ids(query.search(ds, text)) == [f"org/{text}"]
    assert len(query.search(ds)) == 3  # the table is still there


def test_detail_is_the_newest_matching_row_as_a_result(ds):
    row = query.detail(ds, "org/gamma")
    assert isinstance(row, Result) and row.result == "OOM" and row.run_py == RUN_PY and row.token_ids == [1, 2, 3]
    assert query.detail(ds, "org/gamma", *OLD).result == "PASS"
    assert query.detail(ds, "org/Alpha", task="image-text-to-text").task == "image-text-to-text"
    assert query.detail(ds, "org/nobody") is None and query.detail(ds, "org/gamma", "9.9", "9.9") is None


def test_regressions_between_two_version_pairs(ds):
    found = query.regressions(ds, OLD, NEW)
    pick = {k: [(r["model_id"], r["task"], r["old_result"], r["new_result"]) for r in v] for k, v in found.items()}
    assert pick == {"newly_failing": [("org/Alpha", "text-generation", "PASS", "ERROR"),
                                      ("org/gamma", "text-generation", "PASS", "OOM")],
                    "newly_passing": [("org/beta", "text-generation", "FAIL", "PASS")],
                    "newly_tested": [("org/Alpha", "image-text-to-text", None, "ERROR"),
                                     ("org/delta", "text-generation", None, "PASS")]}


def test_failure_causes_group_by_error_signature(ds):
    causes = query.failure_causes(ds)
    assert causes == [{"error_signature": "RuntimeError: boom", "count": 2, "examples": ["org/Alpha"],
                       "stage": "compile"},
                      {"error_signature": "OOM at load", "count": 1, "examples": ["org/gamma"], "stage": "load"}]


def test_an_empty_or_missing_folder_is_an_empty_dataset_with_a_warning(tmp_path):
    for folder in (tmp_path, tmp_path / "missing"):
        ds = query.open_dataset(folder)
        assert ds.empty and len(ds.warnings) == 1
        assert query.search(ds) == [] and query.versions(ds) == [] and query.detail(ds, "org/a") is None
        assert query.failure_causes(ds) == [] and query.regressions(ds, OLD, NEW)["newly_tested"] == []


def test_the_public_trainium_layout_is_adapted(tmp_path):
    theirs = pa.table({"model_id": ["Qwen/Qwen3-0.6B", "meta-llama/Llama-3.2-1B"], "status": ["passed", "FAILED"],
                       "neuron_cores": [1, 2], "wall_time_s": [120.5, 300.0], "peak_device_memory_gb": [2.5, 7.0],
                       "neuronx_cc_version": ["2.21.0", "2.21.0"], "transformers_version": ["5.24.0", "5.24.0"],
                       "script": ["print('run')", "print('run')"], "timestamp": ["2026-11-01", "2026-11-02"]})
    (tmp_path / "data").mkdir()
    pq.write_table(theirs, tmp_path / "data" / "train-00000-of-00001.parquet")
    ds = query.open_dataset(tmp_path)
    rows = query.search(ds)
    assert [(r["model_id"], r["result"], r["cores"], r["target"], r["compiler"]) for r in rows] == [
        ("Qwen/Qwen3-0.6B", "PASS", 1, "neuron", "neuronx-cc"), ("meta-llama/Llama-3.2-1B", "FAIL", 2, "neuron",
                                                                 "neuronx-cc")]
    assert query.detail(ds, "Qwen/Qwen3-0.6B").run_py == "print('run')"


def test_reproduce_files_and_commands_come_from_the_row():
    row = make_row("org/a", extra_packages=json.dumps({"gguf": "0.19.0"}))
    files = query.reproduce_files(row)
    pins = [line for line in files["requirements.txt"].splitlines() if not line.startswith("#")]
    assert pins == ["torch==2.13.0", "transformers==5.24.0", "gguf==0.19.0"] and files["run.py"] == RUN_PY
    assert query.reproduce_command(row) == ["pip install -r requirements.txt",
                                            "python run.py --model org/a --device cpu"]


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "modelcompat", *args], capture_output=True, text=True, timeout=120)


def test_cli_query_show_reproduce_versions(tmp_path):
    publish(tmp_path, at(NEW, "org/a b"), at(NEW, "org/c", "FAIL"))
    data = str(tmp_path / "ds")
    assert [r["model_id"] for r in json.loads(cli("query", "A B", "--data", data, "--json").stdout)] == ["org/a b"]
    assert json.loads(cli("show", "org/c", "--data", data, "--json").stdout)["result"] == "FAIL"
    done = cli("reproduce", "org/a b", "--data", data, "--dir", str(tmp_path / "rep"))
    assert done.returncode == 0 and "python run.py --model 'org/a b' --device cpu" in done.stdout
    assert (tmp_path / "rep" / "run.py").read_text() == RUN_PY
    assert json.loads(cli("versions", "--data", data, "--json").stdout)[0]["rows"] == 2
    missing = cli("show", "org/nope", "--data", data, "--transformers", "5.24.0")
    assert missing.returncode == 2 and "No result for 'org/nope' with transformers 5.24.0" in missing.stderr
