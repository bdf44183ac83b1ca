"""The query layer: DuckDB over the Parquet files of a results dataset (a local folder or hf://datasets/ORG/NAME).

The CLI, the explorer web app and its JSON API all read results through this module. User input only reaches
SQL as bound parameters; the SQL text holds nothing but column names from the schema and the dataset's paths.
"""

from __future__ import annotations

import json
import shlex
import threading
from dataclasses import dataclass, field
from pathlib import Path

from .datafiles import DataFile, inspect_file, read_sql, visible_parquet
from .errors import UnknownName
from .schema import STATUSES, Result

SEARCH_COLUMNS = ("model_id", "result", "task", "target", "backend", "compiler", "cores", "tp", "ep", "wall_s",
                  "compile_s", "device_mem_peak_gb", "tested_at", "exclusion", "error_signature", "stage",
                  "verdict_basis", "compiler_version", "transformers")
TEST_KEY = "model_id, task, target"  # one row per model, task and target in a version pair
NEWEST = "ORDER BY tested_at DESC NULLS LAST"


@dataclass(frozen=True)
class Dataset:
    source: str  # what the user gave: a folder or hf://datasets/ORG/NAME
    files: tuple[DataFile, ...] = ()  # the readable Parquet files (ours, any schema version, or Trainium's)
    warnings: tuple[str, ...] = ()  # skipped files and other things the user should know
    _db: dict = field(default_factory=lambda: {"lock": threading.Lock()}, compare=False, repr=False)  # the
    # DuckDB connection and derived tables, made once under the lock (the web app queries from threads)

    @property
    def paths(self) -> list[str]:
        return [f.path for f in self.files]

    @property
    def empty(self) -> bool:
        return not self.files

    def connect(self):
        """A DuckDB cursor with a view `results` over the good files, every schema column present."""
        with self._db["lock"]:
            if "con" not in self._db:
                self._db["con"] = make_connection(self)
            return self._db["con"].cursor()


def make_connection(ds: Dataset):
    import duckdb

    con = duckdb.connect(":memory:")
    con.execute("SET parquet_metadata_cache = true")
    con.execute(f"CREATE VIEW results AS {read_sql(list(ds.files))}")
    return con


def results_for(ds: Dataset, *pairs_: tuple[str, str]) -> str:
    """The rows of these version pairs as a FROM item: only their files are opened (files holding mixed or
    unknown versions are always included; the WHERE clause still filters their rows)."""
    files = [f for f in ds.files if f.pair is None or f.pair in pairs_]
    return f"({read_sql(files)}) AS results"


def open_dataset(data: str | Path, **hub_options) -> Dataset:
    """Open a results folder, or hf://datasets/ORG/NAME (its Parquet files are fetched into the HF cache)."""
    from . import hub

    source = str(data)
    folder = hub.download(hub.repo_of(source), **hub_options) if hub.repo_of(source) else Path(source)
    paths = visible_parquet(folder)
    found = [inspect_file(p) for p in paths]
    warnings = [f for f in found if isinstance(f, str)]
    if not folder.is_dir():
        warnings.append(f"{source} is not a folder: the dataset is empty")
    elif not paths:
        warnings.append(f"no Parquet files in {source}: the dataset is empty")
    return Dataset(source, tuple(f for f in found if not isinstance(f, str)), tuple(warnings))


def fetch(ds: Dataset, sql: str, params: list) -> list[dict]:
    cur = ds.connect()
    cur.execute(sql, params)
    names = [d[0] for d in cur.description]
    return [dict(zip(names, row)) for row in cur.fetchall()]


def same_pair(pair: tuple[str | None, str | None]) -> tuple[str, list]:
    """Rows of exactly this version pair (a NULL version matches only NULL)."""
    return "compiler_version IS NOT DISTINCT FROM ? AND transformers IS NOT DISTINCT FROM ?", list(pair)


def equals(**filters) -> tuple[str, list]:
    """`col = ?` for every filter that is set (column names come from code, values are bound)."""
    used = {k: v for k, v in filters.items() if v is not None}
    return " AND ".join([f"{k} = ?" for k in used] or ["true"]), list(used.values())


def version_key(text: str | None):
    from packaging.version import InvalidVersion, Version

    try:
        return (1, Version(text or ""), text or "")
    except InvalidVersion:
        return (0, Version("0"), text or "")


def pairs(ds: Dataset) -> list[tuple[str, str]]:
    """Every (compiler_version, transformers) present, newest first."""
    if "pairs" not in ds._db:
        found = {f.pair for f in ds.files}
        if None in found:  # some file's versions are not in its footer: ask the data
            rows = fetch(ds, "SELECT DISTINCT compiler_version, transformers FROM results", [])
            found = {(r["compiler_version"], r["transformers"]) for r in rows}
        ds._db["pairs"] = sorted(found, key=lambda p: (version_key(p[0]), version_key(p[1])), reverse=True)
    return ds._db["pairs"]


def chosen_pair(ds: Dataset, compiler_version: str | None, transformers: str | None) -> tuple | None:
    """The given versions; a missing one is the newest present with the other (default: the newest pair)."""
    for cv, tf in pairs(ds):
        if compiler_version in (None, cv) and transformers in (None, tf):
            return (compiler_version or cv, transformers or tf)
    return None


def check_status(status: str | None) -> None:
    if status is not None and status not in STATUSES:
        raise UnknownName("status", status, tuple(STATUSES))


def newest_sql(columns: str, where: str, source: str = "results") -> str:
    return (f"SELECT {columns} FROM {source} WHERE {where} "
            f"QUALIFY row_number() OVER (PARTITION BY {TEST_KEY} {NEWEST}) = 1")


def search(ds: Dataset, text: str = "", status: str | None = None, task: str | None = None,
           target: str | None = None, compiler_version: str | None = None, transformers: str | None = None,
           limit: int = 500) -> list[dict]:
    """Newest result per (model, task, target) in one version pair whose model_id contains `text` (any case)."""
    check_status(status)
    pair = chosen_pair(ds, compiler_version, transformers)
    if pair is None:
        return []
    where, params = matching(pair, task, target, text or "")
    inner = newest_sql(", ".join(SEARCH_COLUMNS), where, results_for(ds, pair))
    sql = f"SELECT * FROM ({inner}) WHERE (? IS NULL OR result = ?) ORDER BY {TEST_KEY} LIMIT ?"
    return fetch(ds, sql, [*params, status, status, int(limit)])


def matching(pair: tuple, task: str | None, target: str | None, text: str = "") -> tuple[str, list]:
    where, params = equals(task=task, target=target)
    versions_sql, versions_params = same_pair(pair)
    return f"{versions_sql} AND {where} AND contains(lower(model_id), lower(?))", [*versions_params, *params, text]


def model_index(ds: Dataset) -> str:
    """A table of (model, task, target, version pair, newest tested_at), built on first use: a lookup of one
    model across all versions then opens only the files of the pair that holds its newest row."""
    cur = ds.connect()
    with ds._db["lock"]:
        if "index" in ds._db:
            return ds._db["index"]
        cur.execute("CREATE OR REPLACE TABLE model_index AS SELECT model_id, task, target, "
                    "compiler_version, transformers, max(tested_at) AS newest FROM results GROUP BY ALL")
        cur.execute("CREATE INDEX model_index_id ON model_index (model_id)")  # point lookups: ART, no scan
        ds._db["index"] = "model_index"
    return ds._db["index"]


def newest_pair_of(ds: Dataset, **filters) -> tuple | None:
    """The version pair holding the newest row that matches (model_id and any other filters)."""
    where, params = equals(**filters)
    found = fetch(ds, f"SELECT compiler_version, transformers, newest FROM {model_index(ds)} WHERE {where}",
                  params)  # no ORDER BY: DuckDB then answers from the ART index without a scan
    newest = max(found, key=lambda r: r["newest"] or "", default=None)
    return (newest["compiler_version"], newest["transformers"]) if newest else None


def detail(ds: Dataset, model_id: str, compiler_version: str | None = None, transformers: str | None = None,
           task: str | None = None, target: str | None = None) -> Result | None:
    """The newest row for this model matching the filters, as a schema.Result."""
    filters = dict(model_id=model_id, compiler_version=compiler_version, transformers=transformers, task=task,
                   target=target)
    pair = (compiler_version, transformers) if compiler_version and transformers else newest_pair_of(ds, **filters)
    if pair is None:
        return None
    where, params = equals(**{**filters, "compiler_version": pair[0], "transformers": pair[1]})
    rows = fetch(ds, f"SELECT * FROM {results_for(ds, pair)} WHERE {where} {NEWEST} LIMIT 1", params)
    return Result.from_dict(rows[0]) if rows else None


def newest_in(ds: Dataset, pair: tuple[str, str], columns: str) -> tuple[str, list]:
    where, params = same_pair(tuple(pair))
    return newest_sql(columns, where, results_for(ds, tuple(pair))), params


def regressions(ds: Dataset, old: tuple[str, str], new: tuple[str, str]) -> dict[str, list[dict]]:
    """What changed between two (compiler_version, transformers) pairs, per (model, task, target)."""
    old_sql, old_params = newest_in(ds, old, "model_id, task, target, result")
    new_sql, new_params = newest_in(ds, new, "model_id, task, target, result")
    sql = (f"SELECT n.model_id, n.task, n.target, o.result AS old_result, n.result AS new_result "
           f"FROM ({new_sql}) n LEFT JOIN ({old_sql}) o USING ({TEST_KEY}) ORDER BY n.model_id, n.task, n.target")
    out: dict[str, list[dict]] = {"newly_failing": [], "newly_passing": [], "newly_tested": []}
    for row in fetch(ds, sql, [*new_params, *old_params]):
        kind = change_kind(row["old_result"], row["new_result"])
        if kind:
            out[kind].append(row)
    return out


def change_kind(old: str | None, new: str) -> str | None:
    if old is None:
        return "newly_tested"
    if old == "PASS" and new != "PASS":
        return "newly_failing"
    return "newly_passing" if new == "PASS" and old != "PASS" else None


def failure_causes(ds: Dataset, compiler_version: str | None = None, transformers: str | None = None,
                   examples: int = 5) -> list[dict]:
    """Failures of one version pair grouped by normalized error signature, most common first."""
    pair = chosen_pair(ds, compiler_version, transformers)
    if pair is None:
        return []
    inner, params = newest_in(ds, pair, "model_id, task, target, result, stage, error_signature")
    sql = (f"SELECT error_signature, count(*) AS count, list(DISTINCT model_id ORDER BY model_id)[1:?] AS examples,"
           f" mode(stage) AS stage FROM ({inner}) WHERE result NOT IN ('PASS', 'SKIPPED') "
           f"AND error_signature IS NOT NULL GROUP BY error_signature ORDER BY count DESC, error_signature")
    return fetch(ds, sql, [int(examples), *params])


def tallies(ds: Dataset, group: str) -> list[dict]:
    """Counted once per Dataset (a snapshot of its files: open the dataset again to see a newer publish)."""
    if ("tallies", group) not in ds._db:
        ds._db[("tallies", group)] = count_tests(ds, group)
    return [dict(row) for row in ds._db[("tallies", group)]]


def count_tests(ds: Dataset, group: str) -> list[dict]:
    inner = (f"SELECT {group}, result FROM results QUALIFY row_number() OVER "
             f"(PARTITION BY {group}, {TEST_KEY}, backend {NEWEST}) = 1")
    sql = (f"SELECT {group}, count(*) AS rows, count(*) FILTER (WHERE result = 'PASS') AS passed "
           f"FROM ({inner}) GROUP BY ALL")
    rows = [{**r, "pass_rate": round(r["passed"] / r["rows"], 4) if r["rows"] else 0.0} for r in fetch(ds, sql, [])]
    return sorted(rows, key=lambda r: (version_key(r["compiler_version"]), version_key(r["transformers"]),
                                       r.get("compiler") or ""), reverse=True)


def versions(ds: Dataset) -> list[dict]:
    """Per (compiler, compiler_version, transformers): tests (newest row each), passed, pass_rate; newest first."""
    return tallies(ds, "compiler, compiler_version, transformers")


def pass_rates(ds: Dataset) -> list[dict]:
    """Per (compiler_version, transformers) pair: tests (newest row each), passed, pass_rate; newest first."""
    return tallies(ds, "compiler_version, transformers")


def requirements_txt(row: Result) -> str:
    """Pins from the row's stack: torch first (install it on its own first), transformers, the extra packages."""
    stack = json.loads(row.stack or "{}")
    extra = json.loads(row.extra_packages or "{}")
    torch = stack.get("torch") or row.torch or ""
    pins = {"torch": torch.split("+")[0], "transformers": stack.get("transformers") or row.transformers}
    pins.update({k: v for k, v in extra.items() if k not in pins})
    note = (f"# Install torch first, on its own, for your machine (the test ran torch {torch}; a plain\n"
            f"# `pip install torch` may pull a large CUDA build): pip install torch=={pins['torch']}\n")
    return note + "".join(f"{name}=={version}\n" for name, version in pins.items() if version)


def run_command(row: Result) -> str:
    argv = json.loads(row.command) if row.command else ["python", "run.py", "--model", row.model_id]
    return shlex.join(argv)


def reproduce_command(row: Result) -> list[str]:
    """The two commands that rerun a row from the folder `reproduce_files` wrote."""
    return ["pip install -r requirements.txt", run_command(row)]


def reproduce_files(row: Result) -> dict[str, str]:
    return {"run.py": row.run_py or "", "requirements.txt": requirements_txt(row)}


__all__ = ["Dataset", "open_dataset", "versions", "search", "detail", "regressions", "failure_causes",
           "pass_rates", "pairs", "chosen_pair", "reproduce_command", "reproduce_files", "requirements_txt",
           "write_reproduction"]


def write_reproduction(row: Result, folder: Path) -> list[Path]:
    """Write the row's run.py and a pinned requirements.txt into `folder` (atomically); returns the paths."""
    from .store import replace_atomically

    return [replace_atomically(Path(folder) / name, text.encode()) for name, text in reproduce_files(row).items()]
