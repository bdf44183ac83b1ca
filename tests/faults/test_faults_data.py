"""Faults of the dataset: a truncated staging file, a corrupt Parquet file, an older schema, two publishers at
once, and Hub errors (authentication, not found, conflict) on recorded responses."""

import multiprocessing

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from resultrows import make_row
from test_hub import REPO, options, server  # noqa: F401  (server is a fixture)
from test_query import NEW, OLD, at, ids, publish
from test_store import publish_many, published_rows, stage

from modelcompat import dataset, errors, hub, query, store
from modelcompat.schema import Result


def test_truncated_staging_file(tmp_path, record):
    stage(tmp_path / "s", make_row("org/a"))
    (tmp_path / "s" / ".abc-2026.json.tmp123").write_text('{"model_id": "org/half", "resu')
    (tmp_path / "s" / ".abc-2026.json").write_text('{"model_id": "org/half", "resu')
    staged = [r.model_id for r in store.staged_rows(tmp_path / "s")]
    dataset.publish_local(tmp_path / "s", tmp_path / "ds")
    published = [r["model_id"] for r in published_rows(tmp_path / "ds")]
    record("never read; whole rows publish", f"staged {staged}, published {published}")
    assert staged == published == ["org/a"]


def test_two_publishers_at_once(tmp_path, record):
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=publish_many, args=(str(tmp_path / f"s{p}"), str(tmp_path / "ds"), f"p{p}", 15))
             for p in range(2)]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(120)
    models = [r["model_id"] for r in published_rows(tmp_path / "ds")]
    record("30 rows, none lost or doubled", f"exit codes {[p.exitcode for p in procs]}, {len(models)} rows, "
                                           f"{len(set(models))} distinct")
    assert [proc.exitcode for proc in procs] == [0, 0]
    assert len(models) == 30 and len(set(models)) == 30


def test_corrupt_and_truncated_parquet(tmp_path, record):
    ds = publish(tmp_path, at(OLD, "org/old"), at(NEW, "org/new"))
    good = tmp_path / "ds" / dataset.file_name(at(OLD, "x"))
    (tmp_path / "ds" / "truncated.parquet").write_bytes(good.read_bytes()[:-100])
    (tmp_path / "ds" / "garbage.parquet").write_bytes(b"not parquet at all")
    ds = query.open_dataset(tmp_path / "ds")
    record("both named in warnings; others load", f"{len(ds.files)} files load; warnings: "
                                                  f"{'; '.join(w[:45] for w in ds.warnings)}")
    assert len(ds.files) == 2 and len(ds.warnings) == 2
    assert any("truncated.parquet" in w for w in ds.warnings) and any("garbage.parquet" in w for w in ds.warnings)
    assert ids(query.search(ds)) == ["org/new"] and query.detail(ds, "org/old").model_id == "org/old"


def test_dataset_with_an_old_schema_version(tmp_path, record):
    ds = publish(tmp_path, at(NEW, "org/new"))
    old_columns = [c for c in Result().to_dict() if c not in ("cache_hit", "english_score", "token_ids")]
    old = at(NEW, "org/older", tested_at="2025-01-01T00:00:00+00:00").to_dict()
    table = pa.Table.from_pylist([{**{c: old[c] for c in old_columns}, "schema_version": 0}])
    pq.write_table(table, tmp_path / "ds" / "old-schema.parquet")
    ds = query.open_dataset(tmp_path / "ds")
    row = query.detail(ds, "org/older")
    record("reads; new columns null", f"warnings {list(ds.warnings)}; schema_version {row.schema_version}, "
                                      f"cache_hit {row.cache_hit}")
    assert ds.warnings == () and ids(query.search(ds)) == ["org/new", "org/older"]
    assert row.schema_version == 0 and row.cache_hit is None and row.english_score is None


def test_hub_conflict_that_never_settles(server, record):  # noqa: F811
    server.repo.before_commit.extend(lambda repo, i=i: repo.commit({"x.txt": b"%d" % i}, "busy") for i in range(9))
    with pytest.raises(errors.HubProblem) as caught:
        hub.push([make_row()], REPO, attempts=3, **options(server))
    record("HubProblem 412, retried, clear", errors.message(caught.value)[:110])
    assert caught.value.status == 412
    assert "kept changing" in errors.message(caught.value) and "run publish again" in errors.message(caught.value)


def test_hub_authentication_error(server, tmp_path, record):  # noqa: F811
    store.stage_row(tmp_path / "staging", make_row())
    with pytest.raises(errors.HubProblem) as caught:
        hub.publish_hub(tmp_path / "staging", REPO, **options(server, token="hf_wrong"))
    kept = len(store.staged_rows(tmp_path / "staging"))
    record("HubProblem 401; staged rows stay", f"{errors.message(caught.value)[:80]}; {kept} row staged")
    assert caught.value.status == 401 and "hf auth login" in errors.message(caught.value)
    assert kept == 1 and server.repo.commits == []


def test_hub_repo_not_found(server, tmp_path, record):  # noqa: F811
    with pytest.raises(errors.HubProblem) as caught:
        hub.push([make_row()], "org/missing", **options(server))
    record("HubProblem 404 naming the fix", errors.message(caught.value)[:110])
    assert caught.value.status == 404 and "hf repos create" in errors.message(caught.value)
    with pytest.raises(errors.HubProblem):
        query.open_dataset("hf://datasets/org/missing", cache_dir=str(tmp_path / "hf"), **options(server))


def test_corrupt_visible_staging_file(tmp_path, record):
    """A staged file damaged after it was written (not a temp file): named, with the fix, and nothing moves."""
    stage(tmp_path / "s", make_row("org/a"))
    (tmp_path / "s" / "abc-2026.json").write_bytes(b'{"model_id": "org/b", "res\xff')
    with pytest.raises(errors.DatasetProblem) as caught:
        dataset.publish_local(tmp_path / "s", tmp_path / "ds")
    message = errors.message(caught.value)
    record("named; nothing published or moved", message[:110])
    assert "abc-2026.json" in message and "move the file aside" in message
    assert not (tmp_path / "ds").exists()
    assert len(list((tmp_path / "s").glob("*.json"))) == 2
