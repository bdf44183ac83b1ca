import json

import pyarrow as pa

from modelcompat.schema import SCHEMA_VERSION, STATUSES, Result, arrow_schema, column_docs, column_names
from modelcompat.store import stage_row, staged_rows


def test_every_column_is_documented_and_typed():
    assert len(column_docs()) == len(column_names()) == len(set(column_names()))
    assert all(doc.strip() and kind for _, kind, doc in column_docs())


def test_arrow_schema_is_derived_from_the_declaration():
    schema = arrow_schema()
    assert schema.names == column_names()
    assert schema.metadata[b"schema_version"] == str(SCHEMA_VERSION).encode()
    assert schema.field("token_ids").type == pa.list_(pa.int64())


def test_design_statuses_are_declared():
    assert set(STATUSES) == {"PASS", "FAIL", "ERROR", "TIMEOUT", "OOM", "CRASH", "SKIPPED"}


def test_a_staged_row_round_trips_through_json_and_arrow(tmp_path):
    row = Result(model_id="org/m", result="FAIL", token_ids=[1, 2, 3], cpu_match=False, match_prefix=2,
                 wall_s=1.5, tested_at="2026-11-29T20:00:00+00:00")
    stage_row(tmp_path, row)
    (back,) = staged_rows(tmp_path)
    assert back == row
    table = pa.Table.from_pylist([back.to_dict()], schema=arrow_schema())
    assert Result.from_dict(table.to_pylist()[0]) == row


def test_rows_of_an_older_schema_still_read():
    old = {"model_id": "org/m", "result": "PASS", "schema_version": 0, "a_removed_column": 1}
    row = Result.from_dict(old)
    assert row.model_id == "org/m" and row.schema_version == 0 and row.token_ids == []


def test_half_written_staging_files_are_never_read(tmp_path):
    stage_row(tmp_path, Result(model_id="a", tested_at="2026-01-01T00:00:00"))
    (tmp_path / ".b.json.tmp123").write_text('{"model_id": "b", "res')
    assert [r.model_id for r in staged_rows(tmp_path)] == ["a"]
    assert json.loads(next(tmp_path.glob("[!.]*.json")).read_text())["model_id"] == "a"
