"""The Parquet files of a results dataset as the query layer sees them: readable or not, which layout, which
columns, and the one (compiler_version, transformers) pair a file holds (read from its footer statistics, so a
query for one version pair opens only that pair's files), and the SQL that reads a set of them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from . import trainium
from .schema import column_docs


@dataclass(frozen=True)
class DataFile:
    path: str
    columns: frozenset[str]
    layout: str  # "modelcompat" (ours, any schema version) or "trainium" (see trainium.py)
    compiler_version: str | None = None  # the single value in the file; None when mixed or unknown
    transformers: str | None = None

    @property
    def pair(self) -> tuple[str, str] | None:
        known = self.compiler_version is not None and self.transformers is not None
        return (self.compiler_version, self.transformers) if known else None


def visible_parquet(folder: Path) -> list[Path]:
    """Parquet files under the folder, skipping hidden ones (a publish in progress) and hidden folders."""
    if not folder.is_dir():
        return []
    found = sorted(folder.rglob("*.parquet"))
    return [p for p in found if not any(part.startswith(".") for part in p.relative_to(folder).parts)]


def single_value(meta, name: str) -> str | None:
    """The column's value when every row group's statistics say min == max == it, with no nulls."""
    index = meta.schema.to_arrow_schema().get_field_index(name)
    values = set()
    for group in range(meta.num_row_groups):
        stats = meta.row_group(group).column(index).statistics if index >= 0 else None
        if stats is None or not stats.has_min_max or stats.null_count or stats.min != stats.max:
            return None
        values.add(stats.min)
    return values.pop() if len(values) == 1 else None


def inspect_file(path: Path) -> DataFile | str:
    """A DataFile, or the reason the file is skipped (truncated, not Parquet, not a results file)."""
    import pyarrow.parquet as pq

    try:
        meta = pq.ParquetFile(path).metadata
        columns = frozenset(meta.schema.to_arrow_schema().names)
    except Exception as exc:  # any unreadable file is skipped and named; the rest still load
        return f"skipped {path.name}: not a readable Parquet file ({type(exc).__name__}: {exc})"
    if "result" in columns and "model_id" in columns:
        return DataFile(str(path), columns, "modelcompat", single_value(meta, "compiler_version"),
                        single_value(meta, "transformers"))
    if trainium.is_trainium_layout(columns):
        return DataFile(str(path), columns, "trainium")
    return f"skipped {path.name}: no model_id/result columns (not a results file)"


def sql_list(paths: list[str]) -> str:
    return "[" + ", ".join("'" + p.replace("'", "''") + "'" for p in paths) + "]"


def projection(layout: str, columns: frozenset[str]) -> str:
    if layout == "trainium":
        return trainium.select_list(set(columns))
    return ", ".join(name if name in columns else f"CAST(NULL AS {trainium.SQL_TYPES[kind]}) AS {name}"
                     for name, kind, _ in column_docs())


def read_sql(files: list[DataFile]) -> str:
    """SELECT every schema column from these files: one read_parquet per distinct column set (cheaper to bind
    than union_by_name over all), missing columns as NULL, the Trainium layout mapped, UNION ALL."""
    groups: dict[tuple, list[str]] = {}
    for f in files:
        groups.setdefault((f.layout, f.columns), []).append(f.path)
    parts = [f"SELECT {projection(layout, cols)} FROM read_parquet({sql_list(paths)})"
             for (layout, cols), paths in groups.items()]
    return " UNION ALL ".join(parts) or f"SELECT {projection('modelcompat', frozenset())} WHERE false"
