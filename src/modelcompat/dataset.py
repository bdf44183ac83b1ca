"""The results dataset in a folder: one Parquet file per (compiler, compiler version, transformers version).

Publishing merges staged rows into those files under a file lock (two publishers lose no row), writes each
file beside its final name and renames it (readers never see half a file), regenerates the dataset card,
and only then moves the staged files to staging/published/.
"""

from __future__ import annotations

import fcntl
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from . import card, store
from .errors import WriteFailed
from .schema import Result, arrow_schema

NEWEST_KEY = ("model_id", "revision", "task", "target", "backend")  # one test; the newest row wins
SORT_KEY = ("model_id", "task", "target", "backend", "tested_at")  # sorted by model: row groups prune lookups
ROW_GROUP_ROWS = 4096  # measured in bench/bench_query.py: small enough to prune a model lookup to one group
LOCK_NAME = ".publish.lock"
# few distinct values, long text: kept dictionary-encoded while merging (a take on 25,000 plain copies of a
# 12 kB run.py took 3.7 s; on the dictionary indices 0.08 s, measured on this 2-core machine)
DICTIONARY_COLUMNS = ("run_py", "stack", "extra_packages", "platform")


@dataclass(frozen=True)
class Published:
    destination: str
    files: tuple[str, ...]  # the Parquet files this run wrote
    staged: int  # rows read from staging
    rows: int  # rows in the written files after merging


def safe_part(text: str | None) -> str:
    """A file-name-safe piece: letters, digits, `.`, `+`, `-`; anything else becomes `_`."""
    return re.sub(r"[^A-Za-z0-9.+-]+", "_", text or "unknown").strip("._") or "unknown"


def file_name(row: Result) -> str:
    """e.g. `inductor-2.13.0+cpu__transformers-5.24.0.parquet`."""
    return (f"{safe_part(row.compiler)}-{safe_part(row.compiler_version)}"
            f"__transformers-{safe_part(row.transformers)}.parquet")


def group_by_file(rows: list[Result]) -> dict[str, list[dict]]:
    groups: dict[str, list[dict]] = {}
    for row in rows:
        groups.setdefault(file_name(row), []).append(row.to_dict())
    return groups


def rows_table(rows: list[dict]):
    import pyarrow as pa

    return pa.Table.from_pylist(rows, schema=arrow_schema())


def merge_schema():
    """arrow_schema() with DICTIONARY_COLUMNS dictionary-encoded: the in-memory form while merging."""
    import pyarrow as pa

    schema = arrow_schema()
    for name in DICTIONARY_COLUMNS:
        field = schema.field(name)
        schema = schema.set(schema.get_field_index(name), field.with_type(pa.dictionary(pa.int32(), field.type)))
    return schema


def upgrade(table):
    """A table of this or an older schema version with every schema column (missing ones get the defaults),
    in merge_schema() form."""
    import pyarrow as pa

    schema, defaults, n = merge_schema(), Result().to_dict(), table.num_rows
    columns = [table.column(f.name).cast(f.type) if f.name in table.column_names
               else pa.array([defaults[f.name]] * n, type=f.type) for f in schema]
    return pa.Table.from_arrays(columns, schema=schema)


def read_table(path: Path):
    """One of our Parquet files as a table of this schema version, or None when there is no such file."""
    import pyarrow.parquet as pq

    if not Path(path).exists():
        return None
    return upgrade(pq.read_table(path, read_dictionary=list(DICTIONARY_COLUMNS)))


def read_rows(path: Path) -> list[dict]:
    table = read_table(path)
    return table.cast(arrow_schema()).to_pylist() if table is not None else []


def newest_indices(keys: list[dict], fields: tuple[str, ...]) -> list[int]:
    """Row numbers of the newest row per key (ties: the later row)."""
    chosen: dict[tuple, int] = {}
    for i, row in enumerate(keys):
        key = tuple(row[f] for f in fields)
        old = chosen.get(key)
        if old is None or (row["tested_at"] or "") >= (keys[old]["tested_at"] or ""):
            chosen[key] = i
    return sorted(chosen.values())


def merge_tables(existing, new, keep_history: bool = False):
    """Newest row per test from both tables (ties: the new one); with history, only exact repeats go. Only the
    key columns are read into Python; the big ones (run_py, stack) stay in Arrow."""
    import pyarrow as pa

    table = pa.concat_tables([t for t in (existing, new) if t is not None])
    fields = NEWEST_KEY + (("tested_at",) if keep_history else ())
    keys = table.select(list(NEWEST_KEY) + ["tested_at"]).to_pylist()
    return sorted_table(table.take(newest_indices(keys, fields)))


def merge_file(existing: Path | None, rows: list[dict], out: Path, keep_history: bool = False) -> int:
    """Merge rows into the file at `existing` (if any), write the result to `out`; returns its row count."""
    merged = merge_tables(read_table(existing) if existing else None, upgrade(rows_table(rows)), keep_history)
    write_table(merged, out)
    return merged.num_rows


def write_parquet(rows: list[dict], path: Path) -> Path:
    """Write dict rows through the one writer (`write_table`)."""
    return write_table(rows_table(rows), path)


def sorted_table(table):
    """Sorted by SORT_KEY; a table already in order (merge_rows sorts) is not copied."""
    import pyarrow as pa
    import pyarrow.compute as pc

    order = pc.sort_indices(table.select(list(SORT_KEY)), [(name, "ascending") for name in SORT_KEY])
    in_order = pc.all(pc.equal(order, pa.array(range(len(order)), type=order.type))).as_py()
    return table if in_order or len(order) == 0 else table.take(order)


def write_table(table, path: Path) -> Path:
    """Cast to the schema, sort by model (a lookup reads one row group), write beside, fsync, rename."""
    import pyarrow.parquet as pq

    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    table = sorted_table(table.cast(arrow_schema()))
    try:
        pq.write_table(table, tmp, compression="zstd", compression_level=6,
                       use_dictionary=True, row_group_size=ROW_GROUP_ROWS, write_statistics=True)
        with open(tmp, "rb") as f:
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as exc:  # a full disk: the old file stays whole, the staged rows stay staged
        tmp.unlink(missing_ok=True)
        raise WriteFailed(str(path), exc.strerror or str(exc)) from exc
    return path


@contextmanager
def locked(folder: Path) -> Iterator[None]:
    """An exclusive flock on a lock file in the destination: publishers take turns, none loses a row."""
    Path(folder).mkdir(parents=True, exist_ok=True)
    with open(Path(folder) / LOCK_NAME, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def parquet_files(folder: Path) -> list[Path]:
    """The dataset's files; hidden ones (a publish in progress) are never listed."""
    return sorted(Path(folder).glob("[!.]*.parquet")) if Path(folder).is_dir() else []


def write_card(folder: Path) -> Path:
    names = [p.name for p in parquet_files(folder)]
    return store.replace_atomically(Path(folder) / "README.md", card.render(names).encode())


def publish_local(staging: Path, destination: Path, keep_history: bool = False) -> Published:
    """Merge every staged row into the destination folder, then move the staged files aside."""
    staged = store.staged_files(staging)
    groups = group_by_file([row for _, row in staged])
    total = 0
    with locked(destination):
        for name, rows in groups.items():
            path = Path(destination) / name
            total += merge_file(path, rows, path, keep_history)
        write_card(destination)
    store.mark_published(staging, [path for path, _ in staged])
    return Published(str(destination), tuple(sorted(groups)), len(staged), total)
