"""The dataset's Hub paths against a local server replaying recorded Hub API responses (tests/hubserver.py)."""

import os
import subprocess
import sys

import pytest
from huggingface_hub import constants
from hubserver import FakeRepo, HubServer
from resultrows import make_row

from modelcompat import dataset, hub, query, store

REPO = "org/results"
FILE = "inductor-2.13.0+cpu__transformers-5.24.0.parquet"


@pytest.fixture
def server(monkeypatch):
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)  # conftest's offline switch; this Hub is local
    srv = HubServer(FakeRepo(REPO))
    yield srv
    srv.shutdown()
    srv.server_close()


def options(server, token="hf_good") -> dict:
    return {"endpoint": server.url, "token": token}


def repo_models(server, tmp_path, name=FILE) -> list[str]:
    path = tmp_path / "remote.parquet"
    path.write_bytes(server.repo.files[name])
    return sorted(r["model_id"] for r in dataset.read_rows(path))


def test_push_is_one_commit_and_reads_back_through_hf_url(server, tmp_path):
    pushed = hub.push([make_row(f"org/m{i}") for i in range(3)], REPO, **options(server))
    assert pushed.attempts == 1 and pushed.commit == server.repo.sha and pushed.files == (FILE,)
    assert server.repo.commits == [{"summary": "modelcompat: 3 rows", "files": ["README.md", FILE]}]
    assert f"path: \"{FILE}\"" in server.repo.files["README.md"].decode()
    ds = query.open_dataset(f"hf://datasets/{REPO}", cache_dir=str(tmp_path / "hf"), **options(server))
    assert ds.warnings == () and [r["model_id"] for r in query.search(ds)] == ["org/m0", "org/m1", "org/m2"]


def test_second_push_merges_with_the_file_in_the_repo(server, tmp_path):
    hub.push([make_row("org/a"), make_row("org/b", result="FAIL")], REPO, **options(server))
    hub.push([make_row("org/b", tested_at="2026-11-30T00:00:00+00:00"), make_row("org/c")], REPO, **options(server))
    path = tmp_path / "f.parquet"
    path.write_bytes(server.repo.files[FILE])
    rows = {r["model_id"]: r["result"] for r in dataset.read_rows(path)}
    assert rows == {"org/a": "PASS", "org/b": "PASS", "org/c": "PASS"}


def test_a_conflict_is_retried_after_a_fresh_merge(server, tmp_path):
    theirs = dataset.write_parquet([make_row("org/theirs").to_dict()], tmp_path / "theirs.parquet").read_bytes()
    server.repo.before_commit.append(lambda repo: repo.commit({FILE: theirs}, "another publisher"))
    pushed = hub.push([make_row("org/mine")], REPO, **options(server))
    assert pushed.attempts == 2  # the first commit got 412; the retry merged their file
    assert repo_models(server, tmp_path) == ["org/mine", "org/theirs"]


def test_cli_publish_to_repo_moves_staged_rows_only_after_the_commit(server, tmp_path):
    store.stage_row(tmp_path / "staging", make_row("org/cli"))
    env = {**os.environ, "HF_ENDPOINT": server.url, "HF_TOKEN": "hf_good", "HF_HUB_OFFLINE": "0"}
    done = subprocess.run([sys.executable, "-m", "modelcompat", "publish", "--staging", str(tmp_path / "staging"),
                           "--repo", REPO], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert repo_models(server, tmp_path) == ["org/cli"]
    assert store.staged_rows(tmp_path / "staging") == [] and len(list((tmp_path / "staging/published").iterdir())) == 1
