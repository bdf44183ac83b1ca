"""A local stand-in for the Hugging Face Hub (127.0.0.1, random port) for one model repo: the compiled-graph cache
and facts.inspect_hub use it.

It answers with the response shapes in tests/data/cache_hub/ (see its README), filled in with the state of one
in-memory model repo, and behaves like the Hub where the cache depends on it: a commit applies whole, a commit
whose parentCommit is no longer the head gets 412, an unknown repo or path gets 404, creating an existing repo
409. `hold_commits=2` makes the first two commit requests wait for each other: a real race, every time.
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
from dataclasses import dataclass, field
from http.server import ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

from hubserver import ReplyHandler, git_oid

RECORDINGS = Path(__file__).parent / "data" / "cache_hub"


def recording(name: str):
    return json.loads((RECORDINGS / f"{name}.json").read_text())


@dataclass
class FakeModelRepo:
    repo_id: str
    exists: bool = False
    files: dict[str, bytes] = field(default_factory=dict)
    sha: str = "1" * 40
    commits: list[str] = field(default_factory=list)  # summaries of accepted commits
    lock: threading.Lock = field(default_factory=threading.Lock)

    def apply(self, lines: list[dict], summary: str) -> str:
        for item in lines:
            path = item["value"].get("path", "")
            if item["key"] == "file":
                self.files[path] = base64.b64decode(item["value"]["content"])
            elif item["key"] == "deletedFile":
                self.files.pop(path, None)
            elif item["key"] == "deletedFolder":
                self.files = {n: d for n, d in self.files.items() if not n.startswith(path.rstrip("/") + "/")}
        self.sha = hashlib.sha1((self.sha + summary).encode()).hexdigest()
        self.commits.append(summary)
        return self.sha

    def tree(self, path: str) -> list[dict]:
        under = sorted(n for n in self.files if not path or n.startswith(path + "/"))
        folders = sorted({"/".join(n.split("/")[:i]) for n in under for i in range(1, n.count("/") + 1)})
        folders = [f for f in folders if not path or f.startswith(path + "/")]
        return ([{**recording("tree_directory"), "path": f, "oid": git_oid(f.encode())} for f in folders] +
                [{**recording("tree_file"), "path": n, "size": len(self.files[n]), "oid": git_oid(self.files[n])}
                 for n in under])


class Handler(ReplyHandler):
    server: "CacheHubServer"

    def error(self, name: str) -> None:
        rec = recording(name)
        self.reply(rec["status"], rec["body"], rec["headers"])

    def body(self) -> bytes:
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def route(self) -> None:
        repo, url = self.server.repo, urlsplit(self.path)
        path = unquote(url.path)
        self.server.requests.append(f"{self.command} {path}")
        if path == "/api/repos/create":
            return self.create()
        api, resolve = f"/api/models/{repo.repo_id}", f"/{repo.repo_id}/resolve/"
        if not (path.startswith(api) or path.startswith(resolve)):
            return self.error("error_repo_not_found")
        if not repo.exists:
            return self.error("error_repo_not_found")
        if path.startswith(resolve):
            return self.file(path[len(resolve):].split("/", 1)[1])
        return self.api(path[len(api):], parse_qs(url.query))

    def api(self, rest: str, query: dict) -> None:
        if rest == "" or rest.startswith("/revision/"):
            return self.info()
        if rest.startswith("/tree/"):
            parts = rest[len("/tree/"):].split("/", 1)
            return self.tree(parts[1] if len(parts) > 1 else "")
        if rest.startswith("/preupload/"):
            files = json.loads(self.body())["files"]
            rec, entry = recording("preupload"), recording("preupload")["files"][0]
            return self.reply(200, {**rec, "commitOid": self.server.repo.sha,
                                    "files": [{**entry, "path": f["path"]} for f in files]})
        if rest.startswith("/commit/"):
            return self.commit()
        return self.error("error_entry_not_found")

    def create(self) -> None:
        repo, payload = self.server.repo, json.loads(self.body())
        if f"{payload.get('organization')}/{payload['name']}" != repo.repo_id or repo.exists:
            return self.error("error_conflict_409")
        repo.exists, repo.files = True, {".gitattributes": b"*.so filter=lfs diff=lfs merge=lfs -text\n"}
        self.reply(200, {**recording("create_repo"), "url": f"{self.server.url}/{repo.repo_id}",
                         "name": repo.repo_id})

    def info(self) -> None:
        repo = self.server.repo
        self.reply(200, {**recording("model_info"), "id": repo.repo_id, "modelId": repo.repo_id, "sha": repo.sha,
                         "siblings": [{"rfilename": n} for n in sorted(repo.files)]})

    def tree(self, path: str) -> None:
        entries = self.server.repo.tree(path.strip("/"))
        return self.reply(200, entries) if entries or not path else self.error("error_entry_not_found")

    def file(self, name: str) -> None:
        repo = self.server.repo
        if name not in repo.files:
            return self.error("error_entry_not_found")
        data = repo.files[name]
        self.reply(200, None, {"X-Repo-Commit": repo.sha, "ETag": f'"{git_oid(data)}"'}, data)

    def commit(self) -> None:
        repo, server = self.server.repo, self.server
        lines = [json.loads(line) for line in self.body().splitlines() if line.strip()]
        header = next(item["value"] for item in lines if item["key"] == "header")
        if server.held:
            server.held.pop().wait(timeout=30)  # the racing commits meet here, then apply one at a time
        with repo.lock:
            if header.get("parentCommit") not in (None, repo.sha):
                return self.error("error_parent_412")
            sha = repo.apply([i for i in lines if i["key"] != "header"], header["summary"])
        self.reply(200, {**recording("commit"), "commitOid": sha,
                         "commitUrl": f"{server.url}/{repo.repo_id}/commit/{sha}"})

    do_GET = do_HEAD = do_POST = route


class CacheHubServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, repo: FakeModelRepo, hold_commits: int = 0):
        super().__init__(("127.0.0.1", 0), Handler)
        self.repo = repo
        self.requests: list[str] = []
        barrier = threading.Barrier(hold_commits) if hold_commits else None
        self.held = [barrier] * hold_commits if barrier else []
        self.url = f"http://127.0.0.1:{self.server_address[1]}"
        threading.Thread(target=self.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.shutdown()
        self.server_close()
