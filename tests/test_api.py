"""The JSON API and the badge, through an HTTP client (FastAPI's TestClient) against the whole app."""

from __future__ import annotations

import pytest
from test_app_data import NEW, OLD, XSS, row, sample_rows, write_dataset

EVIL_ID = 'evil/<svg onload="window.__xss=3">'


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    from fastapi.testclient import TestClient

    from modelcompat.app import create_app

    folder = write_dataset(tmp_path_factory.mktemp("api") / "ds", sample_rows() + [row(EVIL_ID, "FAIL")])
    with TestClient(create_app(folder)) as client:
        yield client


def test_versions_newest_first(client):
    versions = client.get("/api/versions").json()["versions"]
    assert [(v["compiler_version"], v["transformers"]) for v in versions] == [NEW, OLD]
    assert versions[1]["pass_rate"] == 1.0


def test_models_search_and_filters(client):
    found = client.get("/api/models", params={"q": "QWEN"}).json()["models"]
    assert [m["model_id"] for m in found] == ["Qwen/Qwen3-0.6B"] and found[0]["compiler_version"] == NEW[0]
    failing = client.get("/api/models", params={"status": "FAIL"}).json()["models"]
    assert {m["model_id"] for m in failing} == {"tiny/mixtral-moe", EVIL_ID}
    old = client.get("/api/models", params={"compiler_version": OLD[0], "transformers": OLD[1]}).json()
    assert old["count"] == 2 and {m["result"] for m in old["models"]} == {"PASS"}


@pytest.mark.parametrize("params", [
    {"q": "'; DROP TABLE results; --"}, {"q": "%"}, {"q": "Q_en"}, {"q": "x' OR '1'='1"},
    {"compiler_version": "2.13.0+cpu' OR 1=1 --"}, {"transformers": "5.24.0\"; SELECT 1; --"},
    {"q": "Qwen%"}, {"task": "text-generation' --"},
])
def test_hostile_parameters_are_values_not_sql(client, params):
    response = client.get("/api/models", params=params)
    assert response.status_code == 200 and response.json()["models"] == []
    assert client.get("/api/models").json()["count"] == 7  # the dataset is still all there


def test_unknown_status_is_a_clear_400(client):
    response = client.get("/api/models", params={"status": "PASSED"})
    assert response.status_code == 400 and "Unknown status 'PASSED'" in response.json()["error"]


def test_model_detail_routes_ids_with_slashes(client):
    data = client.get("/api/models/meta-llama/Llama-3.2-1B-Instruct").json()
    assert data["result"] == "ERROR" and data["error"] == XSS and data["stage"] == "compile"
    assert data["reproduce_command"][-1] == "python run.py --model meta-llama/Llama-3.2-1B-Instruct"
    old = client.get("/api/models/meta-llama%2FLlama-3.2-1B-Instruct", params={"compiler_version": OLD[0]})
    assert old.json()["result"] == "PASS"


def test_unknown_model_is_a_clear_404(client):
    response = client.get("/api/models/no-such/model")
    assert response.status_code == 404
    assert response.json() == {"error": "No result for 'no-such/model'. Try `modelcompat query` to list what is "
                                        "tested."}


def test_badge_is_svg_with_status(client):
    response = client.get("/badge/Qwen/Qwen3-0.6B.svg")
    assert response.status_code == 200 and response.headers["content-type"].startswith("image/svg+xml")
    assert "PASS · cpu inductor 2.13.0+cpu" in response.text and "#1a7f37" in response.text
    unknown = client.get("/badge/no-such/model.svg")
    assert unknown.status_code == 404 and ">untested<" in unknown.text


def test_badge_escapes_a_hostile_model_id(client):
    from urllib.parse import quote

    response = client.get("/badge/" + quote(EVIL_ID) + ".svg")
    assert response.status_code == 200 and "<svg onload" not in response.text
    detail = client.get("/api/models/" + quote(EVIL_ID))
    assert detail.json()["model_id"] == EVIL_ID


@pytest.mark.parametrize("method", ["post", "put", "delete", "patch"])
def test_read_only(client, method):
    assert getattr(client, method)("/api/models/Qwen/Qwen3-0.6B").status_code in (404, 405)


def open_client(folder):
    from fastapi.testclient import TestClient

    from modelcompat.app import create_app

    return TestClient(create_app(folder))


def test_empty_dataset_still_answers(tmp_path):
    (tmp_path / "empty").mkdir()
    with open_client(tmp_path / "empty") as client:
        versions = client.get("/api/versions").json()
        assert versions["versions"] == [] and "no Parquet files" in versions["warnings"][0]
        assert client.get("/api/models").json()["count"] == 0
        assert client.get("/api/models/Qwen/Qwen3-0.6B").status_code == 404
        assert client.get("/").status_code == 200


def test_corrupt_file_is_skipped_and_named(tmp_path):
    folder = write_dataset(tmp_path / "ds", sample_rows())
    (folder / "broken.parquet").write_bytes(b"PAR1 this is not parquet")
    with open_client(folder) as client:
        data = client.get("/api/models").json()
        assert data["count"] == 6 and any("broken.parquet" in w for w in data["warnings"])


def test_trainium_layout_is_read_through_the_adapter(tmp_path):
    """A file in the public Trainium dataset's layout (aliased column names) lists beside ours."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    (tmp_path / "trn").mkdir()
    table = pa.table({"model": ["org/trn-model"], "status": ["passed"], "neuron_cores": [8],
                      "wall_time_s": [321.0], "neuronx_cc_version": ["2.21.0"], "transformers_version": ["4.57.0"]})
    pq.write_table(table, tmp_path / "trn" / "results.parquet")
    with open_client(tmp_path / "trn") as client:
        models = client.get("/api/models").json()["models"]
        assert [(m["model_id"], m["result"], m["cores"], m["target"]) for m in models] == \
            [("org/trn-model", "PASS", 8, "neuron")]
        assert client.get("/badge/org/trn-model.svg").status_code == 200


def test_unreachable_hub_dataset_says_why(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with open_client("hf://datasets/someorg/not-here") as client:
        response = client.get("/api/versions")
        assert response.status_code == 503 and "someorg/not-here" in response.json()["error"]
        assert client.get("/api/models").status_code == 503
        assert client.get("/").status_code == 200
