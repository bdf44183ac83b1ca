"""The dataset on the Hugging Face Hub.

Pushing is one commit with every changed file (the merged Parquet files and the card), made against the head
commit the merge was based on (`parent_commit`): if someone else committed in between, the Hub answers 412,
and the push re-downloads the changed files, merges again and retries. Reading fetches a dataset repo's
Parquet files into the HF cache (`snapshot_download`) and reads them locally. Hub errors become HubProblem.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from . import card, dataset, store
from .errors import HubProblem
from .schema import Result

HF_PREFIX = "hf://datasets/"
ATTEMPTS = 5  # commits tried before giving up on a repo that keeps changing under us
EXPLAIN = {
    401: "not authenticated, or the token is invalid: run `hf auth login` or set HF_TOKEN to a token with write "
         "access",
    403: "forbidden: the token has no write access to this repo",
    404: "dataset repo not found: check ORG/NAME, or create it with `hf repos create ORG/NAME --repo-type dataset`",
    412: "the repo kept changing while publishing, through every retry; run publish again",
}


@dataclass(frozen=True)
class Pushed:
    repo: str
    commit: str | None  # None: nothing was staged, nothing committed
    files: tuple[str, ...]
    attempts: int


def repo_of(data: str) -> str | None:
    """`ORG/NAME` for `hf://datasets/ORG/NAME`, else None (a local folder)."""
    return data[len(HF_PREFIX):].strip("/") if str(data).startswith(HF_PREFIX) else None


def api_for(endpoint: str | None = None, token: str | None = None):
    from huggingface_hub import HfApi

    return HfApi(endpoint=endpoint, token=token)


def status_of(exc: Exception) -> int | None:
    response = getattr(exc, "response", None)
    return getattr(response, "status_code", None)


def transport_errors() -> tuple[type, ...]:
    """The HTTP client's connection errors (huggingface_hub 2.x uses httpx2; older releases httpx)."""
    import importlib

    found: list[type] = [OSError]
    for module in ("httpx2", "httpx"):
        try:
            found.append(importlib.import_module(module).TransportError)
        except (ImportError, AttributeError):
            continue
    return tuple(found)


@contextmanager
def hub_errors(repo: str) -> Iterator[None]:
    """Turn huggingface_hub's HTTP and connection errors into HubProblem(repo, status, what to do)."""
    from huggingface_hub.errors import HfHubHTTPError, OfflineModeIsEnabled

    transport = transport_errors()
    try:
        yield
    except HfHubHTTPError as exc:
        status = status_of(exc)
        raise HubProblem(repo, status, EXPLAIN.get(status, str(exc).splitlines()[0])) from exc
    except OfflineModeIsEnabled as exc:
        raise HubProblem(repo, None, "HF_HUB_OFFLINE is set: unset it to reach the Hub") from exc
    except transport as exc:  # connection refused, DNS, timeouts
        raise HubProblem(repo, None, f"cannot reach the Hub ({type(exc).__name__}: {exc})") from exc


def download(repo: str, endpoint: str | None = None, token: str | None = None, cache_dir: str | None = None,
             revision: str | None = None) -> Path:
    """The repo's Parquet files and card in the HF cache; returns the snapshot folder."""
    with hub_errors(repo):
        folder = api_for(endpoint, token).snapshot_download(
            repo_id=repo, repo_type="dataset", revision=revision, cache_dir=cache_dir,
            allow_patterns=["*.parquet", "README.md"])
    return Path(folder)


def merged_file(api, repo: str, sha: str, name: str, rows: list[dict], present: set[str], folder: Path,
                keep_history: bool) -> Path:
    """The repo's version of one file (at `sha`) merged with our rows, written under `folder`."""
    existing = None
    if name in present:
        existing = Path(api.hf_hub_download(repo_id=repo, filename=name, repo_type="dataset", revision=sha,
                                            cache_dir=str(folder / "cache")))
    dataset.merge_file(existing, rows, folder / name, keep_history)
    return folder / name


def operations(api, repo: str, info, groups: dict[str, list[dict]], folder: Path, keep_history: bool) -> list:
    from huggingface_hub import CommitOperationAdd

    present = {s.rfilename for s in info.siblings or []}
    ops = [CommitOperationAdd(path_in_repo=name, path_or_fileobj=str(
        merged_file(api, repo, info.sha, name, rows, present, folder, keep_history))) for name, rows in groups.items()]
    names = {n for n in present if n.endswith(".parquet") and "/" not in n} | set(groups)
    return ops + [CommitOperationAdd(path_in_repo="README.md", path_or_fileobj=card.render(sorted(names)).encode())]


def push(rows: list[Result], repo: str, keep_history: bool = False, endpoint: str | None = None,
         token: str | None = None, attempts: int = ATTEMPTS) -> Pushed:
    """Merge rows into the repo's files in one commit; on a conflict (412) fetch, merge and try again."""
    groups = dataset.group_by_file(rows)
    if not groups:
        return Pushed(repo, None, (), 0)
    api = api_for(endpoint, token)
    for attempt in range(1, attempts + 1):
        with hub_errors(repo), tempfile.TemporaryDirectory(prefix="modelcompat-push-") as tmp:
            info = api.dataset_info(repo)
            ops = operations(api, repo, info, groups, Path(tmp), keep_history)
            try:
                commit = api.create_commit(repo_id=repo, repo_type="dataset", operations=ops,
                                           parent_commit=info.sha, commit_message=f"modelcompat: {len(rows)} rows")
                return Pushed(repo, commit.oid, tuple(sorted(groups)), attempt)
            except Exception as exc:
                if status_of(exc) != 412 or attempt == attempts:
                    raise
    raise AssertionError("unreachable")


def publish_hub(staging: Path, repo: str, keep_history: bool = False, **options) -> Pushed:
    """Push every staged row; staged files move to staging/published/ only after the commit landed."""
    staged = store.staged_files(staging)
    pushed = push([row for _, row in staged], repo, keep_history, **options)
    store.mark_published(staging, [path for path, _ in staged])
    return pushed
