"""Model lists to sweep: selected (shipped), trending / downloads (Hub rankings, kept as dated snapshots),
local (the HF cache and folders you name) and file (one id per line).

`entries(name, task)` answers every kind the same way, as a `Snapshot`, for the sweep and the explorer alike.
Hub rankings are fetched only by `refresh` and saved as dated JSON files, so reading a catalog never needs the
network: the newest saved snapshot is used, else the recording shipped in the package, with its date.
"""

from __future__ import annotations

import importlib
import json
import os
from dataclasses import asdict, dataclass, replace
from datetime import datetime, timezone
from pathlib import Path

from .errors import CatalogProblem, HubProblem, UnknownName

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

TASKS = ("text-generation", "image-text-to-text")
RANKINGS = {"trending": "trending_score", "downloads": "downloads"}  # catalog name -> list_models(sort=...)
CATALOGS = {  # name -> "module:function(task, where) -> Snapshot", imported on use
    "selected": "modelcompat.catalog:selected",
    "trending": "modelcompat.catalog:trending",
    "downloads": "modelcompat.catalog:downloads",
    "local": "modelcompat.catalog:local",
}
DATA = Path(__file__).with_name("data")


@dataclass(frozen=True)
class Entry:
    id: str  # Hub id (org/name) or a local folder
    task: str | None  # None: the checkpoint's config decides
    reason: str | None = None  # why it is on a curated list
    rank: int | None = None  # 1-based position in a Hub ranking
    downloads: int | None = None  # the Hub's download count when the ranking was saved (None: not recorded)
    path: str | None = None  # a folder holding this checkpoint on this machine (local catalog)

    @property
    def model(self) -> str:
        """What to test: the folder when there is one (no Hub needed), else the id."""
        return self.path or self.id


@dataclass(frozen=True)
class Snapshot:
    name: str
    entries: tuple[Entry, ...]
    date: str | None  # the day the list was made, YYYY-MM-DD; None for lists read live (local, file)
    source: str  # where the list came from, in words
    problems: tuple[CatalogProblem, ...] = ()  # lines or folders that were left out, and why


@dataclass(frozen=True)
class Where:
    snapshots: Path  # folder of saved Hub ranking snapshots
    folders: tuple[Path, ...] = ()  # extra folders for the local catalog
    hub_cache: Path | None = None  # the HF cache to scan; None: huggingface_hub's default


def default_snapshots() -> Path:
    from .fixtures import cache_root

    return cache_root() / "catalogs"


def names() -> tuple[str, ...]:
    return tuple(CATALOGS) + ("FILE",)


def entries(name: str, task: str | None = None, limit: int | None = None, where: Where | None = None) -> Snapshot:
    """The entries of catalog `name` (or of the id file at path `name`), for `task` (None: every task)."""
    if task is not None and task not in TASKS:
        raise UnknownName("task", task, TASKS)
    where = where or Where(default_snapshots())
    if name not in CATALOGS and Path(name).expanduser().is_file():
        snapshot = from_file(Path(name).expanduser())
    else:
        snapshot = lookup(name)(task, where)
    kept = [e for e in snapshot.entries if task is None or e.task in (None, task)]
    return replace(snapshot, entries=tuple(kept[:limit] if limit else kept))


def lookup(name: str):
    if name not in CATALOGS:
        raise UnknownName("catalog", name, names())
    module, attr = CATALOGS[name].split(":")
    return getattr(importlib.import_module(module), attr)


def selected(task: str | None, where: Where) -> Snapshot:
    path = DATA / "selected.toml"
    table = tomllib.loads(path.read_text())
    found = [Entry(item["id"], t, reason=item.get("reason")) for t in TASKS if task in (None, t)
             for item in table.get(t, [])]
    return Snapshot("selected", tuple(found), None, f"curated list shipped with modelcompat ({path.name})")


def trending(task: str | None, where: Where) -> Snapshot:
    return ranking("trending", task, where)


def downloads(task: str | None, where: Where) -> Snapshot:
    return ranking("downloads", task, where)


def ranking(name: str, task: str | None, where: Where) -> Snapshot:
    """The newest saved snapshot per task, else the recording shipped in the package."""
    loaded = [read_snapshot(newest(name, t, where.snapshots)) for t in TASKS if task in (None, t)]
    dates = sorted({s["date"] for s in loaded})
    found = tuple(Entry(**e) for s in loaded for e in s["entries"])
    return Snapshot(name, found, ", ".join(dates), "; ".join(dict.fromkeys(s["source"] for s in loaded)))


def newest(name: str, task: str, folder: Path) -> Path:
    saved = sorted(Path(folder).glob(f"{name}-{task}-*.json"))
    return saved[-1] if saved else DATA / f"hub-{name}-{task}.json"


def read_snapshot(path: Path) -> dict:
    try:
        data = json.loads(path.read_text())
        return {"date": data["date"], "source": data["source"], "entries": data["entries"]}
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise CatalogProblem(str(path), f"unreadable snapshot ({type(exc).__name__}: {exc})") from None


def fetch(name: str, task: str, limit: int) -> list[Entry]:
    """One Hub ranking through huggingface_hub.list_models (HF_ENDPOINT is read at call time)."""
    import httpx2
    from huggingface_hub import HfApi

    api = HfApi(endpoint=os.environ.get("HF_ENDPOINT") or None)
    try:
        models = list(api.list_models(pipeline_tag=task, sort=RANKINGS[name], limit=limit))
    except (OSError, httpx2.HTTPError) as exc:  # offline mode, no route, HTTP errors (HfHubHTTPError is an OSError)
        status = getattr(getattr(exc, "response", None), "status_code", None)
        raise HubProblem(f"{api.endpoint}/api/models", status, f"{type(exc).__name__}: {exc}") from None
    return [Entry(m.id, task, rank=i, downloads=m.downloads) for i, m in enumerate(models, 1)]


def refresh(folder: Path | None = None, task: str | None = None, limit: int = 50,
            now: datetime | None = None) -> list[Path]:
    """Fetch every Hub ranking for `task` (None: all tasks) and save each as a dated snapshot file."""
    from .store import write_json_atomic

    folder, now = Path(folder or default_snapshots()), now or datetime.now(timezone.utc)
    saved = []
    for name in RANKINGS:
        for t in (task,) if task else TASKS:
            found = fetch(name, t, limit)
            data = {"ranking": name, "task": t, "date": now.date().isoformat(), "fetched_at": now.isoformat(),
                    "source": f"Hub ranking sort={RANKINGS[name]} saved {now:%Y-%m-%d %H:%M} UTC",
                    "entries": [asdict(e) for e in found]}
            saved.append(write_json_atomic(folder / f"{name}-{t}-{now:%Y%m%dT%H%M%S}.json", data))
    return saved


def local(task: str | None, where: Where) -> Snapshot:
    """Checkpoints in the HF cache (newest revision of each model repo) and in the folders named in `where`."""
    found, problems = cached_models(where.hub_cache), []
    for folder in where.folders:
        more = checkpoint_folders(Path(folder))
        problems += [] if more else [CatalogProblem(str(folder), "no folder with a config.json here")]
        found += more
    return Snapshot("local", tuple(found), None, "HF cache and named folders", tuple(problems))


def cached_models(hub_cache: Path | None) -> list[Entry]:
    from huggingface_hub import scan_cache_dir
    from huggingface_hub.errors import CacheNotFound

    try:
        repos = scan_cache_dir(hub_cache).repos
    except CacheNotFound:
        return []
    found = []
    for repo in sorted((r for r in repos if r.repo_type == "model"), key=lambda r: r.repo_id):
        newest_rev = max(repo.revisions, key=lambda r: r.last_modified, default=None)
        if newest_rev and (newest_rev.snapshot_path / "config.json").is_file():
            found.append(Entry(repo.repo_id, config_task(newest_rev.snapshot_path), path=str(newest_rev.snapshot_path)))
    return found


def checkpoint_folders(folder: Path) -> list[Entry]:
    """`folder` itself when it holds a config.json, else its immediate subfolders that do."""
    folders = [folder] if (folder / "config.json").is_file() else \
        sorted(p for p in folder.glob("*") if (p / "config.json").is_file())
    return [Entry(str(p.resolve()), config_task(p)) for p in folders]


def config_task(folder: Path) -> str | None:
    try:
        config = json.loads((folder / "config.json").read_text())
    except (OSError, ValueError):
        return None  # the sweep's inspection turns a bad config into its own row
    return "image-text-to-text" if isinstance(config, dict) and "vision_config" in config else "text-generation"


def from_file(path: Path) -> Snapshot:
    """One id per line; `#` starts a comment. A bad line becomes a problem naming it; the rest is kept."""
    found, problems = [], []
    for number, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        problem = bad_id(line)
        if problem:
            problems.append(CatalogProblem(f"{path} line {number}", f"{line!r} {problem}"))
        else:  # a folder is named absolutely, so its rows and resume keys do not depend on the working directory
            folder = Path(line).expanduser()
            found.append(Entry(str(folder.resolve()) if folder.is_dir() else line, None))
    return Snapshot(str(path), tuple(found), None, f"id file {path}", tuple(problems))


def bad_id(text: str) -> str | None:
    """Why `text` is not a usable model id, or None when it is a Hub id or an existing folder."""
    from .facts import HUB_ID

    if "\0" in text or "\\" in text or ".." in Path(text).parts:
        return "could escape its folder"
    if Path(text).expanduser().is_dir() or HUB_ID.match(text):
        return None
    return "is neither a Hub id (org/name) nor an existing folder"


def describe(snapshot: Snapshot) -> str:
    """One line for the top of a listing: name, count, date and source."""
    when = f", as of {snapshot.date}" if snapshot.date else ""
    return f"{snapshot.name}: {len(snapshot.entries)} models{when} ({snapshot.source})"
