"""Catalogs: the shipped list, Hub rankings (parsed by the real huggingface_hub from a recorded response served
on 127.0.0.1), local checkpoints, and id files with bad lines."""

import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

from modelcompat import catalog, errors
from modelcompat.catalog import Where

HUB_DATA = Path(__file__).parent / "data" / "hub"


def test_selected_lists_at_least_30_real_ids_with_reasons():
    snapshot = catalog.entries("selected")
    ids = [e.id for e in snapshot.entries]
    assert len(ids) >= 30 and len(set(ids)) == len(ids)
    assert all("/" in e.id and e.reason for e in snapshot.entries)
    assert {"meta-llama/Llama-3.1-8B-Instruct", "Qwen/Qwen3-0.6B", "llava-hf/llava-1.5-7b-hf"} <= set(ids)
    vision = catalog.entries("selected", "image-text-to-text")
    assert vision.entries and {e.task for e in vision.entries} == {"image-text-to-text"}
    assert len(catalog.entries("selected", limit=3).entries) == 3


@pytest.mark.parametrize("name", ["trending", "downloads"])
def test_shipped_ranking_snapshots_say_they_are_recordings(tmp_path, name):
    snapshot = catalog.entries(name, "text-generation", where=Where(tmp_path))
    assert snapshot.date == "2026-11-29" and "recording" in snapshot.source
    assert [e.rank for e in snapshot.entries] == list(range(1, len(snapshot.entries) + 1))
    assert all(e.downloads is None for e in snapshot.entries)  # not measured, so not stated


@pytest.mark.parametrize("name, kind, suggestion", [("selectd", "catalog", "selected"),
                                                    ("trendng", "catalog", "trending")])
def test_unknown_catalog_answers_did_you_mean(name, kind, suggestion):
    with pytest.raises(errors.UnknownName) as info:
        catalog.entries(name)
    assert info.value.kind == kind and f"Did you mean {suggestion!r}?" in errors.message(info.value)


def test_unknown_task_is_refused():
    with pytest.raises(errors.UnknownName) as info:
        catalog.entries("selected", "text-generaton")
    assert "Did you mean 'text-generation'?" in errors.message(info.value)


def test_id_file_keeps_good_lines_and_names_bad_ones(tmp_path, fixture_dir):
    path = tmp_path / "ids.txt"
    path.write_text(f"# my models\nQwen/Qwen3-0.6B\n\nnot an id!\n{fixture_dir / 'tiny-llama'}  # local\n"
                    "org/../../etc\n/no/such/folder\n")
    snapshot = catalog.entries(str(path))
    assert [e.id for e in snapshot.entries] == ["Qwen/Qwen3-0.6B", str(fixture_dir / "tiny-llama")]
    messages = [errors.message(p) for p in snapshot.problems]
    assert [p.source for p in snapshot.problems] == [f"{path} line {n}" for n in (4, 6, 7)]
    assert "'not an id!' is neither a Hub id" in messages[0] and "could escape" in messages[1]


def fake_hub_cache(root: Path, fixture: Path) -> Path:
    """The HF cache layout (models--org--name/snapshots/<sha>) holding one fixture's config."""
    snap = root / "models--org--tiny-vlm" / "snapshots" / "0123abc"
    snap.mkdir(parents=True)
    (snap / "config.json").write_text((fixture / "config.json").read_text())
    (root / "models--org--tiny-vlm" / "refs").mkdir()
    (root / "models--org--tiny-vlm" / "refs" / "main").write_text("0123abc")
    return root


def test_local_lists_the_hf_cache_and_named_folders(tmp_path, fixture_dir):
    where = Where(tmp_path / "snaps", (fixture_dir, tmp_path / "empty"), fake_hub_cache(tmp_path / "hub", fixture_dir / "tiny-llava"))
    (tmp_path / "empty").mkdir()
    snapshot = catalog.entries("local", where=where)
    by_id = {e.id: e for e in snapshot.entries}
    assert by_id["org/tiny-vlm"].task == "image-text-to-text" and by_id["org/tiny-vlm"].path.endswith("0123abc")
    assert by_id[str(fixture_dir / "tiny-llama")].task == "text-generation"
    assert [p.source for p in snapshot.problems] == [str(tmp_path / "empty")]
    texts = catalog.entries("local", "text-generation", where=where).entries
    assert "org/tiny-vlm" not in {e.id for e in texts}


class RecordedHub(BaseHTTPRequestHandler):
    """GET /api/models?pipeline_tag=T&sort=S&limit=N answered from tests/data/hub/list_models_T_S.json."""

    seen: list = []

    def do_GET(self):
        url = urlparse(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        self.seen.append((url.path, query))
        path = HUB_DATA / f"list_models_{query.get('pipeline_tag')}_{query.get('sort')}.json"
        if url.path != "/api/models" or not path.exists():
            self.send_error(404)
            return
        body = json.dumps(json.loads(path.read_text())[: int(query.get("limit", 1000))]).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def recorded_hub():
    server = ThreadingHTTPServer(("127.0.0.1", 0), RecordedHub)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    RecordedHub.seen = []
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def test_refresh_saves_dated_snapshots_parsed_by_huggingface_hub(tmp_path, recorded_hub):
    env = {**os.environ, "HF_ENDPOINT": recorded_hub, "HF_HUB_OFFLINE": "0"}
    out = subprocess.run([sys.executable, "-m", "modelcompat", "catalog", "refresh", "--snapshots", str(tmp_path),
                          "--limit", "4"], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    assert len(list(tmp_path.glob("*.json"))) == 4 and out.stdout.count("saved ") == 4
    assert ("/api/models", {"pipeline_tag": "text-generation", "sort": "trendingScore", "limit": "4"}) in RecordedHub.seen
    snapshot = catalog.entries("downloads", "text-generation", where=Where(tmp_path))
    assert [e.id for e in snapshot.entries] == ["openai-community/gpt2", "Qwen/Qwen2.5-7B-Instruct",
                                                "meta-llama/Llama-3.1-8B-Instruct", "Qwen/Qwen3-0.6B"]
    assert snapshot.entries[0].downloads == 5_000_000 and snapshot.entries[3].rank == 4
    assert "recording" not in snapshot.source and snapshot.date == json.loads(
        next(tmp_path.glob("downloads-text-generation-*.json")).read_text())["date"]


def test_newest_saved_snapshot_wins(tmp_path):
    for stamp, first in (("20260101T000000", "old/model"), ("20260301T000000", "new/model")):
        data = {"date": stamp[:8], "source": "test", "entries": [{"id": first, "task": "text-generation"}]}
        (tmp_path / f"trending-text-generation-{stamp}.json").write_text(json.dumps(data))
    snapshot = catalog.entries("trending", "text-generation", where=Where(tmp_path))
    assert [e.id for e in snapshot.entries] == ["new/model"] and snapshot.date == "20260301"


def test_refresh_offline_is_a_clear_error(tmp_path):
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    out = subprocess.run([sys.executable, "-m", "modelcompat", "catalog", "refresh", "--snapshots", str(tmp_path)],
                         capture_output=True, text=True, env=env)
    assert out.returncode == 2 and "Hugging Face Hub error" in out.stderr and "Traceback" not in out.stderr
    assert list(tmp_path.iterdir()) == []
