"""A small local stand-in for the Hugging Face Hub API (127.0.0.1, random port) for the dataset's Hub paths.

It replays the recorded response shapes in tests/data/hub/dataset_*.json, filled in with the state of one
in-memory dataset repo, and behaves like the Hub where the client depends on it: a commit whose parentCommit
is no longer the head gets 412, a bad token gets 401, an unknown repo 404.
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

RECORDINGS = Path(__file__).parent / "data" / "hub"


def recording(name: str) -> dict:
    return json.loads((RECORDINGS / f"{name}.json").read_text())


def git_oid(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


@dataclass
class FakeRepo:
    repo_id: str
    token: str = "hf_good"
    files: dict[str, bytes] = field(default_factory=lambda: {".gitattributes": b"*.parquet filter=lfs\n"})
    sha: str = "1" * 40
    commits: list[dict] = field(default_factory=list)  # every accepted commit's header, in order
    before_commit: list = field(default_factory=list)  # callbacks, one run per commit request that arrives

    def commit(self, changes: dict[str, bytes], summary: str) -> str:
        self.files.update(changes)
        self.sha = hashlib.sha1((self.sha + summary + str(sorted(changes))).encode()).hexdigest()
        self.commits.append({"summary": summary, "files": sorted(changes)})
        return self.sha


class ReplyHandler(BaseHTTPRequestHandler):
    """JSON or bytes replies in the Hub's way (HEAD gets the headers only); shared by the stand-in Hubs."""

    def log_message(self, *args) -> None:  # keep pytest output clean
        pass

    def reply(self, status: int, body=None, headers: dict | None = None, data: bytes | None = None) -> None:
        payload = data if data is not None else json.dumps(body).encode()
        self.send_response(status)
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(payload)))
        self.send_header("Content-Type", "application/json" if data is None else "application/octet-stream")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(payload)



class Handler(ReplyHandler):
    server: "HubServer"

    def error(self, status: int) -> None:
        rec = recording(f"dataset_error_{status}")
        self.reply(rec["status"], rec["body"], rec["headers"])

    def route(self) -> None:
        repo, path = self.server.repo, unquote(urlsplit(self.path).path)
        if self.headers.get("Authorization") != f"Bearer {repo.token}":
            return self.error(401)
        if path == "/api/validate-yaml":
            return self.reply(200, recording("dataset_validate_yaml"))
        for prefix in (f"/api/datasets/{repo.repo_id}", f"/datasets/{repo.repo_id}/resolve/"):
            if path.startswith(prefix):
                return self.dispatch(prefix, path[len(prefix):])
        return self.error(404)

    def dispatch(self, prefix: str, rest: str) -> None:
        if prefix.endswith("/resolve/"):
            return self.file(rest.split("/", 1)[1])
        if rest == "" or rest.startswith("/revision/"):
            return self.info()
        if rest.startswith("/tree/"):
            return self.tree()
        if rest.startswith("/preupload/"):
            return self.preupload()
        if rest.startswith("/commit/"):
            return self.commit()
        return self.error(404)

    def info(self) -> None:
        repo = self.server.repo
        body = {**recording("dataset_info"), "id": repo.repo_id, "sha": repo.sha,
                "siblings": [{"rfilename": name} for name in sorted(repo.files)]}
        self.reply(200, body)

    def tree(self) -> None:
        entry = recording("dataset_tree_entry")
        files = self.server.repo.files
        self.reply(200, [{**entry, "path": n, "size": len(d), "oid": git_oid(d)} for n, d in sorted(files.items())])

    def file(self, name: str) -> None:
        repo = self.server.repo
        if name not in repo.files:
            return self.reply(404, {"error": "Entry not found"}, {"X-Error-Code": "EntryNotFound"})
        data = repo.files[name]
        self.reply(200, None, {"X-Repo-Commit": repo.sha, "ETag": f'"{git_oid(data)}"'}, data)

    def body(self) -> bytes:
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def preupload(self) -> None:
        files = json.loads(self.body())["files"]
        rec = recording("dataset_preupload")
        entry = rec["files"][0]
        self.reply(200, {**rec, "commitOid": self.server.repo.sha,
                         "files": [{**entry, "path": f["path"]} for f in files]})

    def commit(self) -> None:
        repo = self.server.repo
        lines = [json.loads(line) for line in self.body().splitlines() if line.strip()]
        header = next(item["value"] for item in lines if item["key"] == "header")
        if repo.before_commit:  # one per commit request: another publisher's commit landing first
            repo.before_commit.pop(0)(repo)
        if header.get("parentCommit") not in (None, repo.sha):
            return self.error(412)
        changes = {i["value"]["path"]: base64.b64decode(i["value"]["content"]) for i in lines if i["key"] == "file"}
        sha = repo.commit(changes, header["summary"])
        rec = recording("dataset_commit")
        self.reply(200, {**rec, "commitOid": sha, "commitUrl": f"{self.server.url}/datasets/{repo.repo_id}/commit/{sha}"})

    do_GET = do_HEAD = do_POST = route


class HubServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, repo: FakeRepo):
        super().__init__(("127.0.0.1", 0), Handler)
        self.repo = repo
        self.url = f"http://127.0.0.1:{self.server_address[1]}"
        threading.Thread(target=self.serve_forever, daemon=True).start()
