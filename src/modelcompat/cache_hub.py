"""A compiled-graph cache in a Hugging Face model repo, through huggingface_hub.

Same layout and markers as a folder cache. A push is ONE commit holding every file of the entry and its
`.complete` manifest, made against the head it looked at (`parent_commit`): the Hub applies a commit whole or not
at all, so an entry is never half-written there, and of two concurrent pushes the second gets HTTP 412 and
steps aside ("conflict"). Hub errors become HubProblem.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from .cache_store import COMPLETE
from .errors import HubProblem
from .hub import hub_errors, status_of


def is_missing(exc: Exception) -> bool:
    return status_of(exc) == 404


class HubStore:
    def __init__(self, repo: str, endpoint: str | None = None, token: str | None = None):
        from huggingface_hub import HfApi

        self.repo = repo
        self.location = f"hf://{repo}"
        self.api = HfApi(endpoint=endpoint, token=token)

    def list_files(self, prefix: str) -> dict[str, int]:
        from huggingface_hub.errors import HfHubHTTPError

        try:
            with hub_errors(self.repo):
                tree = list(self.api.list_repo_tree(self.repo, path_in_repo=prefix or None, recursive=True))
        except HubProblem as exc:
            if isinstance(exc.__cause__, HfHubHTTPError) and is_missing(exc.__cause__):
                return {}  # no repo yet, or nothing under prefix
            raise
        return {item.path: item.size for item in tree if getattr(item, "size", None) is not None}

    def read(self, path: str) -> bytes | None:
        with tempfile.TemporaryDirectory() as tmp:
            found = self.download_one(path, None, Path(tmp))
            return found.read_bytes() if found else None

    def download_one(self, path: str, revision: str | None, tmp: Path) -> Path | None:
        from huggingface_hub.errors import HfHubHTTPError

        try:
            with hub_errors(self.repo):
                return Path(self.api.hf_hub_download(self.repo, path, revision=revision, local_dir=tmp))
        except HubProblem as exc:
            if isinstance(exc.__cause__, HfHubHTTPError) and is_missing(exc.__cause__):
                return None
            raise

    def download(self, entry: str, names: list[str], dest: Path) -> None:
        """Every file at one commit, so a push landing meanwhile cannot mix two entries' files."""
        with hub_errors(self.repo):
            sha = self.api.repo_info(self.repo).sha
        with tempfile.TemporaryDirectory() as tmp:
            for name in names:
                found = self.download_one(f"{entry}/{name}", sha, Path(tmp))
                if found:  # a missing file fails the manifest check
                    (dest / name).parent.mkdir(parents=True, exist_ok=True)
                    shutil.move(found, dest / name)

    def push(self, entry: str, files: dict[str, Path], complete: bytes, replace: bool) -> str:
        """One commit; returns "pushed", "exists" or "conflict" (another commit landed first: HTTP 412)."""
        from huggingface_hub import CommitOperationAdd, CommitOperationDelete

        with hub_errors(self.repo):
            self.api.create_repo(self.repo, exist_ok=True)
            head = self.api.repo_info(self.repo).sha
        present = {p.removeprefix(entry + "/") for p in self.list_files(entry)}
        if COMPLETE in present and not replace:
            return "exists"
        ops = [CommitOperationAdd(f"{entry}/{name}", str(path)) for name, path in files.items()]
        ops += [CommitOperationDelete(f"{entry}/{name}") for name in sorted(present - set(files) - {COMPLETE})]
        ops.append(CommitOperationAdd(f"{entry}/{COMPLETE}", complete))
        try:
            with hub_errors(self.repo):
                self.api.create_commit(self.repo, ops, commit_message=f"modelcompat cache: {entry}",
                                       parent_commit=head)
        except HubProblem as exc:
            if exc.status == 412:
                return "conflict"
            raise
        return "pushed"

    def delete(self, entries: list[str]) -> None:
        from huggingface_hub import CommitOperationDelete

        if entries:
            ops = [CommitOperationDelete(f"{entry}/", is_folder=True) for entry in entries]
            with hub_errors(self.repo):
                self.api.create_commit(self.repo, ops, commit_message=f"modelcompat cache prune: {len(ops)} entries")

    def lock_is_stale(self, entry: str) -> bool:
        return False  # Hub pushes are single commits and never write a lock
