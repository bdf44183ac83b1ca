"""Compiled-graph cache: a real cold and warm inductor test, version refusal, broken entries, concurrent pushes.

Only two runs here use inductor (one cold compile, ~30 s on 2 cores, and one warm); the rest use small files.
"""

import json
import shutil
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from modelcompat import cache, errors
from modelcompat.cache_store import COMPLETE, FAILED, LOCK, open_store
from modelcompat.cli import main
from modelcompat.harness import TestSpec, Workspace, run_test

VERSION = cache.installed_compiler("cpu").version
KEY = cache.CacheKey("local:0123456789abcdef", "text-generation", "cpu", "inductor", "float32", 1, 1, 1, 32)


def llama(fixture_dir, ws, compile_cache):
    return run_test(TestSpec(str(fixture_dir / "tiny-llama")), replace(ws, compile_cache=str(compile_cache)))


def plant_half_written_entry(folder: Path, model: Path) -> cache.EntryRef:
    """What a push that crashed midway leaves: some files, no `.complete` marker, at the key the harness uses."""
    from modelcompat.facts import inspect_model

    facts = inspect_model(str(model))
    key = cache.CacheKey(facts.revision, "text-generation", "cpu", "inductor", facts.dtype, 1, 1, 1, 32)
    ref = cache.EntryRef("inductor", VERSION, "local/tiny-llama", key.digest)
    (folder / ref.path / "files" / "ab").mkdir(parents=True)
    (folder / ref.path / "files" / "ab" / "cabc.main.so").write_bytes(b"\x7fELF half")
    return ref


@pytest.fixture(scope="module")
def cold(fixture_dir, session_cache, tmp_path_factory):
    """One cold inductor run on a cache holding a half-written entry for its key: it must ignore that entry,
    compile, pass, and push a complete entry in its place."""
    folder = tmp_path_factory.mktemp("compiled")
    ref = plant_half_written_entry(folder, fixture_dir / "tiny-llama")
    ws = Workspace(staging=tmp_path_factory.mktemp("staging"), cache=session_cache)
    return folder, ref, llama(fixture_dir, ws, folder)


def copy_of(folder: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(folder, tmp_path / "copy"))


def test_half_written_entry_is_ignored_recompiled_and_replaced(cold):
    folder, ref, row = cold
    assert row.result == "PASS" and row.cpu_match is True, row.error
    assert row.cache_hit is False and f"{ref.path}: entry is incomplete; ignored" in row.notes
    assert "fx graph cache hit 0, miss 2" in row.notes and "pushed" in row.notes  # a real cold compile
    [entry] = cache.ls(str(folder))
    assert entry.ref == ref and entry.state == "complete" and entry.nfiles > 10
    assert not (folder / ref.path / "files" / "ab" / "cabc.main.so").exists()  # the half-written files are gone


def test_warm_run_hits_the_cache_and_compiles_much_faster(cold, fixture_dir, ws, tmp_path):
    folder, ref, cold_row = cold
    row = llama(fixture_dir, ws, copy_of(folder, tmp_path))
    assert row.result == "PASS", row.error
    assert row.cache_hit is True and f"{ref.path}: hit" in row.notes and "fx graph cache hit 2, miss 0" in row.notes
    assert row.token_ids == cold_row.token_ids and len(row.token_ids) == 32
    assert row.compile_s < 0.35 * cold_row.compile_s, (row.compile_s, cold_row.compile_s)


def test_a_corrupt_complete_entry_is_replaced_by_the_next_push(tmp_path):
    root, ref = pushed_entry(tmp_path)
    truncated(root / ref.path)
    store = open_store(str(root))
    assert not cache.fetch_entry(store, ref, tmp_path / "a").hit
    assert cache.push_entry(store, ref, tmp_path / "src", {}) == "exists"  # a plain push keeps what is there
    assert cache.push_entry(store, ref, tmp_path / "src", {}, replace=True) == "pushed"  # what the harness does
    assert cache.fetch_entry(store, ref, tmp_path / "b").hit


def source_files(folder: Path, count: int = 3, size: int = 1000) -> Path:
    for i in range(count):
        (folder / f"{i % 7:02d}").mkdir(parents=True, exist_ok=True)
        (folder / f"{i % 7:02d}" / f"kernel{i}.so").write_bytes(bytes([i % 251]) * size)
    (folder / "locks").mkdir(exist_ok=True)
    (folder / "locks" / "x.lock").write_text("")  # inductor's file locks are not content
    return folder


def pushed_entry(tmp_path: Path, version: str = VERSION) -> tuple[Path, cache.EntryRef]:
    root = tmp_path / "cache"
    ref = cache.EntryRef("inductor", version, cache.model_folder(str(tmp_path / "tiny-llama")), KEY.digest)
    assert cache.push_entry(open_store(str(root)), ref, source_files(tmp_path / "src"), {"model_id": "x"}) == "pushed"
    return root, ref


def test_key_is_a_hash_of_canonical_json_under_the_compiler_version(tmp_path):
    root, ref = pushed_entry(tmp_path)
    assert ref.path == f"inductor-{VERSION}/local/tiny-llama/{KEY.digest}"
    assert KEY.digest == replace(KEY).digest != replace(KEY, tokens=16).digest != replace(KEY, cores=2).digest
    names = {p.relative_to(root / ref.path).as_posix() for p in (root / ref.path).rglob("*") if p.is_file()}
    assert names == {COMPLETE, "entry.json", "files/00/kernel0.so", "files/01/kernel1.so", "files/02/kernel2.so"}
    manifest = json.loads((root / ref.path / COMPLETE).read_text())
    assert manifest["compiler_version"] == VERSION and len(manifest["files"]) == 4


def test_compiler_version_mismatch_is_refused_naming_both(tmp_path, capsys):
    root, _ = pushed_entry(tmp_path, "2.12.0")
    with pytest.raises(errors.CompilerVersionMismatch) as caught:
        cache.fetch(str(tmp_path / "tiny-llama"), "2.12.0", str(root), str(tmp_path / "to"))
    assert "2.12.0" in errors.message(caught.value) and VERSION in errors.message(caught.value)
    assert main(["cache", "fetch", str(tmp_path / "tiny-llama"), "--compiler-version", "2.12.0",
                 "--from", str(root), "--to", str(tmp_path / "to")]) == 2
    assert f"inductor 2.12.0: this machine has inductor {VERSION}" in capsys.readouterr().err
    assert not (tmp_path / "to").exists()


def test_entry_whose_manifest_names_another_version_is_refused(tmp_path):
    root, ref = pushed_entry(tmp_path)
    manifest = json.loads((root / ref.path / COMPLETE).read_text())
    (root / ref.path / COMPLETE).write_text(json.dumps({**manifest, "compiler_version": "2.12.0"}))
    with pytest.raises(errors.CompilerVersionMismatch):
        cache.fetch_entry(open_store(str(root)), ref, tmp_path / "dest")


def unmark(entry: Path) -> None:
    (entry / COMPLETE).unlink()


def failed(entry: Path) -> None:
    unmark(entry)
    (entry / FAILED).write_text("OSError: disk full\n")


def locked(entry: Path) -> None:
    (entry / LOCK).write_text(json.dumps({"pid": 1, "host": "elsewhere", "time": time.time()}))


def truncated(entry: Path) -> None:
    next((entry / "files").rglob("*.so")).write_bytes(b"half")


def bad_manifest(entry: Path) -> None:
    (entry / COMPLETE).write_text("{not json")


@pytest.mark.parametrize("damage,reason", [(unmark, "entry is incomplete"), (failed, "entry is failed"),
                                           (locked, "entry is locked"), (truncated, "does not match"),
                                           (bad_manifest, "unreadable .complete")])
def test_broken_entries_are_never_used(tmp_path, damage, reason):
    root, ref = pushed_entry(tmp_path)
    damage(root / ref.path)
    dest = tmp_path / "dest"
    dest.mkdir()
    lookup = cache.fetch_entry(open_store(str(root)), ref, dest)
    assert not lookup.hit and reason in lookup.reason
    assert not [p for p in dest.rglob("*") if p.is_file()]  # nothing half-fetched is left for the compiler


PUSHER = """
import sys, time
from pathlib import Path
from modelcompat import cache
from modelcompat.cache_store import open_store
root, src, key, start = sys.argv[1:]
ref = cache.EntryRef("inductor", cache.installed_compiler("cpu").version, "local/tiny-llama", key)
while time.time() < float(start):
    pass
print(cache.push_entry(open_store(root), ref, Path(src), {"model_id": "x"}))
"""


def test_two_concurrent_pushes_leave_one_complete_entry(tmp_path):
    src, root = source_files(tmp_path / "src", count=300, size=20_000), tmp_path / "cache"
    start = str(time.time() + 3)
    procs = [subprocess.Popen([sys.executable, "-c", PUSHER, str(root), str(src), KEY.digest, start],
                              stdout=subprocess.PIPE, text=True) for _ in range(2)]
    outcomes = sorted(p.communicate(timeout=120)[0].strip() for p in procs)
    assert outcomes in (["exists", "pushed"], ["locked", "pushed"]), outcomes
    [entry] = cache.ls(str(root))
    assert entry.state == "complete" and entry.nfiles == 302
    assert cache.fetch_entry(open_store(str(root)), entry.ref, tmp_path / "dest").hit
    assert not list(root.rglob(f"*{LOCK}*")) and not list(root.rglob("*.tmp*"))


def test_fetch_command_round_trips_through_the_cli(tmp_path, capsys):
    root, ref = pushed_entry(tmp_path)
    row = cache_row(str(tmp_path / "tiny-llama"))
    command = cache.fetch_command(row, str(root))
    assert command == f"modelcompat cache fetch {tmp_path / 'tiny-llama'} --compiler-version {VERSION} --from {root}"
    assert main([*command.split()[1:], "--to", str(tmp_path / "local")]) == 0
    assert f"pushed     {ref.path}" in capsys.readouterr().out
    assert [e.state for e in cache.ls(str(tmp_path / "local"))] == ["complete"]
    assert cache.fetch_command(replace(row, compiler="aot_eager")) is None
    neuron = replace(row, model_id="org/m", target="neuron", compiler="neuronx-cc", compiler_version="2.21")
    assert cache.fetch_command(neuron, "org/cache") == ("modelcompat cache fetch org/m --compiler-version 2.21 "
                                                        "--target neuron --from org/cache")


def cache_row(model_id: str):
    from modelcompat.schema import Result

    return Result(model_id=model_id, compiler="inductor", compiler_version=VERSION, target="cpu")


def test_push_then_ls_through_the_cli(tmp_path, capsys):
    root, ref = pushed_entry(tmp_path)
    assert main(["cache", "push", str(tmp_path / "tiny-llama"), "--compiler-version", VERSION,
                 "--from", str(root), "--to", str(tmp_path / "remote")]) == 0
    assert main(["cache", "ls", str(tmp_path / "remote")]) == 0
    out = capsys.readouterr().out
    assert f"complete" in out and ref.path in out and "1 entries" in out


def test_prune_plans_first_and_deletes_only_on_execute(tmp_path, capsys):
    root, ref = pushed_entry(tmp_path)
    broken = replace(ref, key=replace(KEY, tokens=8).digest)
    shutil.copytree(root / ref.path, root / broken.path)
    unmark(root / broken.path)
    plan = cache.plan_prune(str(root))
    assert [(e.ref, reason) for e, reason in plan.items] == [(broken, "incomplete")]
    assert len(cache.ls(str(root))) == 2  # planning deleted nothing
    assert main(["cache", "prune", str(root)]) == 0  # not a terminal and no --yes: nothing deleted
    assert "nothing deleted" in capsys.readouterr().out and len(cache.ls(str(root))) == 2
    assert main(["cache", "prune", str(root), "--yes"]) == 0
    assert [e.ref for e in cache.ls(str(root))] == [ref]
    assert [e.ref for e, _ in cache.plan_prune(str(root), VERSION).items] == [ref]
