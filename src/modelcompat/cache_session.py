"""The harness's hook into the compiled-graph cache: fetch before a test, push after a PASS.

    session = open_session(ws.compile_cache, row, tokens, prompt, workdir)   # fetches, never raises
    report = execute(..., session.workspace(ws), ...)                          # run.py gets the cache dir
    row = session.finish(row, report)                                          # cache_hit, notes, push
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from pathlib import Path

from . import cache
from .cache_store import Store, open_store
from .errors import ModelcompatError, message
from .schema import Result

PUSH_NOTES = {"pushed": "pushed", "exists": "push skipped: an entry was already complete",
              "locked": "push skipped: another push holds the entry's lock",
              "conflict": "push skipped: another push committed first"}


@dataclass(frozen=True)
class Session:
    store: Store | None
    ref: cache.EntryRef | None
    key: cache.CacheKey | None
    folder: Path | None  # the fetched entry; folder/files is the compiler's cache folder
    lookup: cache.Lookup | None
    note: str | None  # why the cache is not used, when it is not

    def workspace(self, ws):
        if self.folder is None:
            return ws
        settings, files = cache.COMPILER_CACHES[self.ref.compiler], self.folder / "files"
        env = {**ws.env, **dict(settings.extra_env), settings.dir_env: str(files),
               **{name: str(files / sub) for name, sub in settings.subdir_env}}
        return replace(ws, env=env)

    def finish(self, row: Result, report: dict) -> Result:
        """Record cache_hit and what happened; after a PASS that compiled afresh, push the new entry."""
        if self.lookup is None:
            return add_note(row, self.note) if self.note else row
        notes = [f"compiled-graph cache {self.ref.path}: {self.lookup.reason}", compiler_counts(report)]
        if row.result == "PASS" and not self.lookup.hit and self.store is not None:
            notes.append(self.push(row))
        return add_note(replace(row, cache_hit=self.lookup.hit), "; ".join(n for n in notes if n))

    def push(self, row: Result) -> str:
        meta = {"model_id": row.model_id, "key": asdict(self.key), "torch": row.torch,
                "transformers": row.transformers, "compile_s": row.compile_s}
        try:
            outcome = cache.push_entry(self.store, self.ref, self.folder / "files", meta,
                                       replace=self.lookup.reason != "no entry")
        except (OSError, ModelcompatError) as exc:
            return f"push failed: {describe(exc)}"
        return PUSH_NOTES.get(outcome, outcome)


def open_session(location: str | None, row: Result, tokens: int, prompt: str | None, workdir: Path) -> Session:
    """Fetch the entry for this planned test into workdir/compiled. A cache problem is a miss, not an error."""
    if not location:
        return Session(None, None, None, None, None, None)
    if row.compiler not in cache.COMPILER_CACHES:
        return Session(None, None, None, None, None, f"no compiled-graph cache for compiler {row.compiler}")
    key = cache.CacheKey(row.revision, row.task, row.target, row.backend, row.dtype, row.cores, row.tp, row.ep,
                         tokens, prompt)
    ref = cache.EntryRef(row.compiler, row.compiler_version, cache.model_folder(row.model_id), key.digest)
    folder = workdir / "compiled"
    (folder / "files").mkdir(parents=True, exist_ok=True)
    try:
        store = open_store(location)
        lookup = cache.fetch_entry(store, ref, folder)
    except (OSError, ModelcompatError) as exc:
        cache.clear_folder(folder / "files")
        return Session(None, ref, key, folder, cache.Lookup(ref, False, f"not used: {describe(exc)}"), None)
    return Session(store, ref, key, folder, lookup, None)


def compiler_counts(report: dict) -> str | None:
    counts = report.get("compile_cache") or {}
    if not counts:
        return None
    return "inductor fx graph cache " + ", ".join(f"{k.removeprefix('fxgraph_cache_')} {v}" for k, v in counts.items())


def add_note(row: Result, note: str) -> Result:
    return replace(row, notes="; ".join(n for n in (row.notes, note) if n))


def describe(exc: Exception) -> str:
    return message(exc) if isinstance(exc, ModelcompatError) else f"{type(exc).__name__}: {exc}"
