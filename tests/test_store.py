"""Staging and publishing: one Parquet file per version triple, merged, atomic, locked, with a generated card."""

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from resultrows import make_row

from modelcompat import card, dataset, query, store
from modelcompat.schema import STATUSES, Result, arrow_schema, column_names

FILE = "inductor-2.13.0+cpu__transformers-5.24.0.parquet"


def stage(folder: Path, *rows: Result) -> None:
    for row in rows:
        store.stage_row(folder, row)


def published_rows(folder: Path, name: str = FILE) -> list[dict]:
    return dataset.read_rows(folder / name)


def test_one_readable_file_per_compiler_and_versions_with_the_declared_schema(tmp_path):
    stage(tmp_path / "s", make_row("org/a"), make_row("org/b", transformers="5.25.0"),
          make_row("org/c", compiler="aot_eager"))
    done = dataset.publish_local(tmp_path / "s", tmp_path / "ds")
    assert done.files == ("aot_eager-2.13.0+cpu__transformers-5.24.0.parquet", FILE,
                          "inductor-2.13.0+cpu__transformers-5.25.0.parquet")
    for name in done.files:
        meta = pq.ParquetFile(tmp_path / "ds" / name)
        assert meta.schema_arrow.equals(arrow_schema()) and meta.metadata.row_group(0).column(0).compression == "ZSTD"
    encodings = pq.ParquetFile(tmp_path / "ds" / FILE).metadata.row_group(0).column(column_names().index("run_py"))
    assert "RLE_DICTIONARY" in encodings.encodings  # run_py and stack repeat: dictionary-encoded


@pytest.mark.parametrize("version, expected", [("2.13.0+cpu", "2.13.0+cpu"), ("2.13/../../x y", "2.13_.._.._x_y"),
                                               (None, "unknown"), ("../..", "unknown")])
def test_file_names_are_sanitized(version, expected):
    assert dataset.file_name(make_row(compiler_version=version)) == \
        f"inductor-{expected}__transformers-5.24.0.parquet"


def test_newest_row_per_test_wins_and_merges_with_the_published_file(tmp_path):
    stage(tmp_path / "s", make_row("org/a", "FAIL"), make_row("org/b"))
    dataset.publish_local(tmp_path / "s", tmp_path / "ds")
    stage(tmp_path / "s", make_row("org/a", "PASS", tested_at="2026-11-30T00:00:00+00:00"),
          make_row("org/b", "ERROR", tested_at="2026-11-01T00:00:00+00:00"))  # older than the published one
    dataset.publish_local(tmp_path / "s", tmp_path / "ds")
    assert {r["model_id"]: r["result"] for r in published_rows(tmp_path / "ds")} == {"org/a": "PASS", "org/b": "PASS"}


def test_keep_history_keeps_every_row_and_republishing_adds_no_duplicate(tmp_path):
    rows = [make_row("org/a", "FAIL"), make_row("org/a", "PASS", tested_at="2026-11-30T00:00:00+00:00")]
    stage(tmp_path / "s", *rows)
    dataset.publish_local(tmp_path / "s", tmp_path / "ds", keep_history=True)
    stage(tmp_path / "s", *rows)  # the same rows staged again (e.g. a copy of an old staging folder)
    dataset.publish_local(tmp_path / "s", tmp_path / "ds", keep_history=True)
    assert [r["result"] for r in published_rows(tmp_path / "ds")] == ["FAIL", "PASS"]


def test_staged_files_move_aside_only_after_publishing(tmp_path):
    stage(tmp_path / "s", make_row("org/a"), make_row("org/b"))
    dataset.publish_local(tmp_path / "s", tmp_path / "ds")
    assert store.staged_rows(tmp_path / "s") == []
    assert len(list((tmp_path / "s" / "published").glob("*.json"))) == 2
    assert dataset.publish_local(tmp_path / "s", tmp_path / "ds").staged == 0
    assert len(published_rows(tmp_path / "ds")) == 2


def test_a_publish_in_progress_is_invisible_to_readers(tmp_path):
    stage(tmp_path / "s", make_row("org/a"))
    dataset.publish_local(tmp_path / "s", tmp_path / "ds")
    (tmp_path / "ds" / f".{FILE}.tmp999").write_bytes(b"PAR1 half a file")
    ds = query.open_dataset(tmp_path / "ds")
    assert ds.warnings == () and [r["model_id"] for r in query.search(ds)] == ["org/a"]


def publish_many(staging: str, destination: str, prefix: str, count: int) -> None:
    for i in range(count):
        store.stage_row(Path(staging), make_row(f"org/{prefix}-{i:03d}"))
        dataset.publish_local(Path(staging), Path(destination))


def test_the_card_documents_every_column_and_status_and_the_limits_of_a_pass():
    text = card.render([FILE])
    for name in column_names():
        assert f"| `{name}` |" in text
    for status, meaning in STATUSES.items():
        assert f"- `{status}`: {meaning}" in text
    assert "no performance claim" in text and "not of numerical equivalence" in text
    assert "token-identical to CPU eager for 32 greedy tokens of one prompt" in text


def test_load_dataset_reads_each_config_of_the_published_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "hf-datasets"))
    import datasets

    stage(tmp_path / "s", make_row("org/a"), make_row("org/b", transformers="5.25.0", result="FAIL"))
    done = dataset.publish_local(tmp_path / "s", tmp_path / "ds")
    for name in done.files:
        loaded = datasets.load_dataset(str(tmp_path / "ds"), name=card.config_name(name), split="train",
                                       cache_dir=str(tmp_path / "hf-datasets"))
        assert loaded.num_rows == 1 and set(loaded.column_names) == set(column_names())
        assert json.loads(loaded[0]["stack"])["torch"] == "2.13.0+cpu"


def test_a_real_harness_row_survives_publish_and_query(fixture_dir, ws, tmp_path):
    from modelcompat.harness import TestSpec, run_test

    row = run_test(TestSpec(str(fixture_dir / "tiny-llama"), backend="eager"), ws)
    dataset.publish_local(ws.staging, tmp_path / "ds")
    back = query.detail(query.open_dataset(tmp_path / "ds"), row.model_id)
    assert back == row
