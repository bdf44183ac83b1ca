"""Compiled-graph cache: fetch and push a compiler's on-disk caches per compiler version, so reruns skip compiling.

A cache is a folder or a Hugging Face repo (cache_store.open_store), laid out as

    <compiler>-<compiler_version>/<model>/<key>/
        entry.json   the key's fields, the model id, the compiler and its version
        files/...    the compiler's own cache folder for that test (inductor: TORCHINDUCTOR_CACHE_DIR;
                     neuron: TORCH_NEURONX_NEFF_CACHE_DIR, not verified on hardware)
        .complete    manifest {name: sha256}, written last: only a complete entry whose files match it is used
        .failed      a push that failed; .lock: a push in progress (folder caches only)

<model>: the Hub id, or local/<folder name> (a local revision is a content hash, in the key). <key>: a hash of
CacheKey's canonical JSON. Reuse needs the exact compiler version.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import tempfile
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from . import targets
from .cache_store import COMPLETE, FAILED, LOCK, META, Store, clear_folder, open_store, sha256_file
from .errors import CompilerVersionMismatch

SOURCE_ENV = "MODELCOMPAT_COMPILE_CACHE"  # the default cache to fetch from: a folder or Hub repo ORG/NAME
KEY = re.compile(r"^[0-9a-f]{24}$")
HUB_ID = re.compile(r"^[\w.-]+(/[\w.-]+)?$")


@dataclass(frozen=True)
class CompilerCache:
    dir_env: str  # the environment variable that points the compiler at its on-disk cache
    extra_env: tuple[tuple[str, str], ...] = ()
    subdir_env: tuple[tuple[str, str], ...] = ()  # variables pointed at a subfolder of the cache folder
    skip: tuple[str, ...] = ()  # top-level names in the cache folder that are not content


# inductor: the FX graph and AOTAutograd caches are on by default; set them anyway, so a user's environment that
# turned them off cannot make a fetched entry silently useless. Triton kernels (cuda) go under <dir>/triton, as
# inductor puts them when TRITON_CACHE_DIR is unset. `locks/` holds inductor's empty file locks.
COMPILER_CACHES: dict[str, CompilerCache] = {
    "inductor": CompilerCache("TORCHINDUCTOR_CACHE_DIR", (("TORCHINDUCTOR_FX_GRAPH_CACHE", "1"),
                                                          ("TORCHINDUCTOR_AUTOGRAD_CACHE", "1")),
                              (("TRITON_CACHE_DIR", "triton"),), ("locks",)),
    "neuronx-cc": CompilerCache("TORCH_NEURONX_NEFF_CACHE_DIR"),
}


@dataclass(frozen=True)
class CacheKey:
    """Everything that changes the compiled graphs of one test, apart from the compiler version (the folder)."""

    revision: str | None
    task: str
    target: str
    backend: str
    dtype: str | None
    cores: int
    tp: int
    ep: int
    tokens: int
    prompt: str | None = None  # the prompt's length fixes the static shapes

    @property
    def digest(self) -> str:
        return hashlib.sha256(canonical_json(asdict(self)).encode()).hexdigest()[:24]


@dataclass(frozen=True)
class EntryRef:
    compiler: str
    compiler_version: str
    model: str  # folder: the Hub id, or local/<name>
    key: str

    @property
    def version_folder(self) -> str:
        return f"{self.compiler}-{self.compiler_version}"

    @property
    def path(self) -> str:
        return f"{self.version_folder}/{self.model}/{self.key}"


@dataclass(frozen=True)
class CachedEntry:
    ref: EntryRef
    state: str  # complete | failed | locked | incomplete (no marker: half-written)
    size: int  # bytes
    nfiles: int


@dataclass(frozen=True)
class Lookup:
    ref: EntryRef
    hit: bool
    reason: str


@dataclass(frozen=True)
class Transfer:
    ref: EntryRef
    outcome: str  # pushed | exists | locked | conflict | a miss reason


def canonical_json(data) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


def model_folder(model_id: str) -> str:
    """The Hub id as it is; a local checkpoint as local/<folder name> (its content hash is in the key)."""
    if model_id.startswith(("/", ".", "~")) or Path(model_id).exists() or not HUB_ID.match(model_id):
        name = re.sub(r"[^\w.-]", "_", Path(model_id.rstrip("/")).name) or "model"
        return f"local/{name}"
    return model_id


def installed_compiler(target: str) -> targets.Compiler:
    target_ = targets.get_target(target)
    return targets.compiler_for(target_, target_.default_backend)


def require_version(target: str, compiler_version: str) -> targets.Compiler:
    """The installed compiler, if it is exactly `compiler_version`; refused otherwise, naming both."""
    compiler = installed_compiler(target)
    if compiler.version != compiler_version:
        raise CompilerVersionMismatch(compiler.name, compiler_version, compiler.version)
    return compiler


def split_version_folder(name: str) -> tuple[str, str]:
    for compiler in sorted(COMPILER_CACHES, key=len, reverse=True):
        if name.startswith(compiler + "-"):
            return compiler, name[len(compiler) + 1:]
    return name, ""


def entry_state(names: set[str]) -> str:
    if LOCK in names:
        return "locked"
    if COMPLETE in names:
        return "complete"
    return "failed" if FAILED in names else "incomplete"


def group_entries(files: dict[str, int]) -> dict[str, dict[str, int]]:
    """Entry path -> {name inside the entry: size}. The key is the first 24-hex part after the model."""
    grouped: dict[str, dict[str, int]] = {}
    for path, size in files.items():
        parts = path.split("/")
        at = next((i for i in (2, 3) if i < len(parts) - 1 and KEY.match(parts[i])), None)
        if at is not None:
            grouped.setdefault("/".join(parts[:at + 1]), {})["/".join(parts[at + 1:])] = size
    return grouped


def list_entries(store: Store, prefix: str = "") -> list[CachedEntry]:
    """Every entry under `prefix` with its state from its marker files."""
    found = []
    for path, names in sorted(group_entries(store.list_files(prefix)).items()):
        version, *model, key = path.split("/")
        ref = EntryRef(*split_version_folder(version), "/".join(model), key)
        found.append(CachedEntry(ref, entry_state(set(names)), sum(names.values()), len(names)))
    return found


def read_manifest(store: Store, ref: EntryRef) -> dict | None:
    try:
        return json.loads(store.read(f"{ref.path}/{COMPLETE}") or b"null")
    except ValueError:
        return None


def fetch_entry(store: Store, ref: EntryRef, dest: Path) -> Lookup:
    """Copy a complete entry into dest (dest/files is the compiler's cache folder) after checking every file."""
    names = set(store.list_files(ref.path))
    state = entry_state({n.removeprefix(ref.path + "/") for n in names})
    if not names or state != "complete":
        return Lookup(ref, False, f"entry is {state}; ignored" if names else "no entry")
    manifest = read_manifest(store, ref)
    if not manifest or not isinstance(manifest.get("files"), dict):
        return Lookup(ref, False, "corrupt: unreadable .complete manifest; ignored")
    if manifest.get("compiler_version") != ref.compiler_version:
        raise CompilerVersionMismatch(ref.compiler, manifest.get("compiler_version"), ref.compiler_version)
    store.download(ref.path, sorted(manifest["files"]), dest)
    bad = next((n for n, digest in sorted(manifest["files"].items()) if sha256_file(dest / n) != digest), None)
    if bad:
        clear_folder(dest)
        return Lookup(ref, False, f"corrupt: {bad} does not match its manifest; ignored")
    return Lookup(ref, True, "hit")


def content_files(src: Path, compiler: str) -> dict[str, Path]:
    skip = COMPILER_CACHES[compiler].skip if compiler in COMPILER_CACHES else ()
    return {f"files/{p.relative_to(src).as_posix()}": p for p in sorted(src.rglob("*"))
            if p.is_file() and p.relative_to(src).parts[0] not in skip}


def push_entry(store: Store, ref: EntryRef, src: Path, meta: dict, replace: bool = False) -> str:
    """Push src (a compiler cache folder) as one entry; the `.complete` manifest goes last."""
    files = content_files(src, ref.compiler)
    if not files:
        return "nothing to push"
    with tempfile.TemporaryDirectory() as tmp:
        meta_path = Path(tmp) / META
        meta_path.write_text(canonical_json({**meta, "compiler": ref.compiler,
                                             "compiler_version": ref.compiler_version}))
        files[META] = meta_path
        manifest = {"compiler": ref.compiler, "compiler_version": ref.compiler_version,
                    "pushed_at": datetime.now(timezone.utc).isoformat(),
                    "files": {name: sha256_file(path) for name, path in files.items()}}
        return store.push(ref.path, files, canonical_json(manifest).encode(), replace)


def copy_entry(source: Store, dest: Store, ref: EntryRef) -> Transfer:
    with tempfile.TemporaryDirectory() as tmp:
        lookup = fetch_entry(source, ref, Path(tmp))
        if not lookup.hit:
            return Transfer(ref, lookup.reason)
        meta = json.loads((Path(tmp) / META).read_text())
        return Transfer(ref, push_entry(dest, ref, Path(tmp) / "files", meta))


def transfer(model_id: str, compiler: str, compiler_version: str, source: str, dest: str) -> list[Transfer]:
    """Copy every complete entry of one model and compiler version from one cache to another."""
    src, dst = open_store(source), open_store(dest)
    prefix = f"{compiler}-{compiler_version}/{model_folder(model_id)}"
    return [copy_entry(src, dst, e.ref) for e in list_entries(src, prefix) if e.state == "complete"]


def fetch(model_id: str, compiler_version: str, source: str, dest: str, target: str = "cpu") -> list[Transfer]:
    """`cache fetch`: refused unless the installed compiler is exactly `compiler_version`."""
    compiler = require_version(target, compiler_version)
    return transfer(model_id, compiler.name, compiler_version, source, dest)


def push(model_id: str, compiler_version: str, source: str, dest: str, target: str = "cpu") -> list[Transfer]:
    return transfer(model_id, installed_compiler(target).name, compiler_version, source, dest)


def fetch_command(row, source: str | None = None) -> str | None:
    """The exact `modelcompat cache fetch` command for a row's model and compiler version (None: not cacheable).
    `--from` is `source`, else $MODELCOMPAT_COMPILE_CACHE; with neither, it is left out (the CLI then asks for it)."""
    if row.compiler not in COMPILER_CACHES or not row.compiler_version:
        return None
    source = source or os.environ.get(SOURCE_ENV)
    argv = ["modelcompat", "cache", "fetch", row.model_id, "--compiler-version", row.compiler_version]
    argv += ["--target", row.target] if row.target != "cpu" else []
    argv += ["--from", source] if source else []
    return shlex.join(argv)


@dataclass(frozen=True)
class PrunePlan:
    """What `cache prune` would delete, and why; nothing happens until execute()."""

    store: Store = field(compare=False, repr=False)
    items: tuple[tuple[CachedEntry, str], ...]

    @property
    def freed_bytes(self) -> int:
        return sum(entry.size for entry, _ in self.items)

    def execute(self) -> int:
        self.store.delete([entry.ref.path for entry, _ in self.items])
        return len(self.items)


def plan_prune(location: str, compiler_version: str | None = None) -> PrunePlan:
    """Broken entries (failed, half-written, abandoned lock), plus every entry of `compiler_version` if given."""
    store = open_store(location)
    items = tuple((e, reason) for e in list_entries(store) if (reason := prune_reason(store, e, compiler_version)))
    return PrunePlan(store, items)


def prune_reason(store: Store, entry: CachedEntry, compiler_version: str | None) -> str | None:
    if compiler_version and entry.ref.compiler_version == compiler_version:
        return f"compiler version {compiler_version}"
    if entry.state == "locked":
        return "abandoned lock" if store.lock_is_stale(entry.ref.path) else None
    return None if entry.state == "complete" else entry.state


def ls(location: str) -> list[CachedEntry]:
    return list_entries(open_store(location))
