"""The compiled-graph cache in a Hub model repo, through huggingface_hub, against tests/cache_hubserver.py.

What this covers: create_repo, repo_info, list_repo_tree, preupload, the NDJSON commit (regular files, deletes,
parentCommit -> 412) and hf_hub_download's HEAD + GET, in the shapes huggingface_hub 2.4.0 parses. What it does
not: LFS/Xet uploads (the server answers "regular" for every file), pagination of large trees, auth errors,
and the real Hub's behaviour beyond these shapes.
"""

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from cache_hubserver import CacheHubServer, FakeModelRepo
from huggingface_hub import constants

from modelcompat import cache
from modelcompat.cache_hub import HubStore
from modelcompat.cache_store import COMPLETE, open_store

REPO = "org/compiled"
VERSION = cache.installed_compiler("cpu").version
KEY = cache.CacheKey("local:0123456789abcdef", "text-generation", "cpu", "inductor", "float32", 1, 1, 1, 32)
REF = cache.EntryRef("inductor", VERSION, "local/tiny-llama", KEY.digest)


@pytest.fixture
def hub(monkeypatch):
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)  # conftest's offline switch; this Hub is local
    server = CacheHubServer(FakeModelRepo(REPO))
    yield server
    server.close()


def store_for(server) -> HubStore:
    return HubStore(REPO, endpoint=server.url, token="hf_test")


def compiler_cache(folder: Path) -> Path:
    for i in range(4):
        (folder / f"c{i}").mkdir(parents=True, exist_ok=True)
        (folder / f"c{i}" / f"k{i}.main.so").write_bytes(bytes(range(256)) * (i + 1))
    return folder


def test_push_is_one_commit_and_fetch_reads_it_back(hub, tmp_path):
    store = store_for(hub)
    assert cache.push_entry(store, REF, compiler_cache(tmp_path / "src"), {"model_id": "m"}) == "pushed"
    assert hub.repo.commits == [f"modelcompat cache: {REF.path}"]  # entry + .complete in one commit
    [entry] = cache.list_entries(store)
    assert entry.ref == REF and entry.state == "complete" and entry.nfiles == 6
    lookup = cache.fetch_entry(store, REF, tmp_path / "dest")
    assert lookup.hit, lookup.reason
    assert (tmp_path / "dest" / "files" / "c3" / "k3.main.so").read_bytes() == bytes(range(256)) * 4
    assert cache.push_entry(store, REF, tmp_path / "src", {}) == "exists" and len(hub.repo.commits) == 1


def test_missing_repo_is_a_miss_and_a_corrupt_file_is_ignored(hub, tmp_path):
    store = store_for(hub)
    assert cache.fetch_entry(store, REF, tmp_path / "a").reason == "no entry"  # no repo yet: 404 -> empty
    cache.push_entry(store, REF, compiler_cache(tmp_path / "src"), {})
    hub.repo.files[f"{REF.path}/files/c0/k0.main.so"] = b"tampered"
    lookup = cache.fetch_entry(store, REF, tmp_path / "b")
    assert not lookup.hit and "does not match its manifest" in lookup.reason
    assert not [p for p in (tmp_path / "b").rglob("*") if p.is_file()]


def test_two_concurrent_hub_pushes_leave_one_complete_entry(monkeypatch, tmp_path):
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    server = CacheHubServer(FakeModelRepo(REPO, exists=True, files={".gitattributes": b""}), hold_commits=2)
    src, outcomes = compiler_cache(tmp_path / "src"), []
    pushers = [threading.Thread(target=lambda: outcomes.append(cache.push_entry(store_for(server), REF, src, {})))
               for _ in range(2)]
    for t in pushers:
        t.start()
    for t in pushers:
        t.join(timeout=60)
    server.close()
    assert sorted(outcomes) == ["conflict", "pushed"]  # the second commit's parent was no longer the head
    assert len(server.repo.commits) == 1 and f"{REF.path}/{COMPLETE}" in server.repo.files


def cli(server, home: Path, *argv: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "HF_ENDPOINT": server.url, "HF_HUB_OFFLINE": "0", "HF_TOKEN": "hf_test",
           "HF_HOME": str(home), "MODELCOMPAT_CACHE": str(home / "mc")}
    return subprocess.run([sys.executable, "-m", "modelcompat", "cache", *argv], env=env, capture_output=True,
                          text=True, timeout=120)


def test_cli_push_ls_fetch_prune_through_hf_endpoint(hub, tmp_path):
    local = tmp_path / "local"
    cache.push_entry(open_store(str(local)), REF, compiler_cache(tmp_path / "src"), {"model_id": "m"})
    model = str(tmp_path / "tiny-llama")
    out = cli(hub, tmp_path, "push", model, "--compiler-version", VERSION, "--from", str(local), "--to", REPO)
    assert out.returncode == 0 and f"pushed     {REF.path}" in out.stdout, out.stderr
    hub.repo.files[f"inductor-{VERSION}/local/other/{'ab' * 12}/files/x.so"] = b"half-written"
    out = cli(hub, tmp_path, "ls", REPO)
    assert f"complete" in out.stdout and "incomplete" in out.stdout and "2 entries" in out.stdout, out.stderr
    out = cli(hub, tmp_path, "fetch", model, "--compiler-version", VERSION, "--from", REPO)
    assert out.returncode == 0 and "fetched 1 of 1" in out.stdout, out.stderr
    assert [e.state for e in cache.ls(str(tmp_path / "mc" / "compiled"))] == ["complete"]
    out = cli(hub, tmp_path, "prune", REPO, "--yes")
    assert "(incomplete" in out.stdout and "deleted 1 entries" in out.stdout, out.stderr
    assert [e.ref for e in cache.list_entries(store_for(hub))] == [REF]
