"""Typed errors with structured fields. They become user messages only at the CLI boundary (cli.MESSAGES)."""

from __future__ import annotations

import difflib
from dataclasses import dataclass


class ModelcompatError(Exception):
    """Base class; subclasses are dataclasses whose fields fill the CLI's message templates."""

    def __str__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in vars(self).items())})"


@dataclass
class UnknownName(ModelcompatError):
    kind: str  # "target", "backend", "catalog", "task", ...
    name: str
    choices: tuple[str, ...]

    @property
    def suggestion(self) -> str:
        close = difflib.get_close_matches(self.name, self.choices, n=1, cutoff=0.5)
        return f" Did you mean {close[0]!r}?" if close else ""


@dataclass
class ModelNotFound(ModelcompatError):
    model_id: str
    reason: str


@dataclass
class UnsafeModelId(ModelcompatError):
    model_id: str


@dataclass
class MalformedConfig(ModelcompatError):
    path: str
    detail: str


@dataclass
class RemoteCodeRequired(ModelcompatError):
    model_id: str
    auto_map: str


@dataclass
class GatedModel(ModelcompatError):
    model_id: str


@dataclass
class BadBackend(ModelcompatError):
    backend: str
    detail: str


@dataclass
class DatasetProblem(ModelcompatError):
    path: str
    detail: str


@dataclass
class NoResult(ModelcompatError):
    model_id: str
    filters: str


@dataclass
class CatalogProblem(ModelcompatError):
    source: str
    detail: str


@dataclass
class CacheProblem(ModelcompatError):
    where: str
    detail: str


@dataclass
class HubProblem(ModelcompatError):
    repo: str
    status: int | None
    detail: str


@dataclass
class CompilerVersionMismatch(ModelcompatError):
    compiler: str
    wanted: str | None  # the version the cache entries were compiled with
    installed: str  # the version this machine has


@dataclass
class WriteFailed(ModelcompatError):
    path: str
    detail: str


MESSAGES: dict[type, str] = {
    UnknownName: "Unknown {kind} {name!r}.{suggestion} Choose one of: {choices_text}.",
    ModelNotFound: "Model {model_id!r} not found: {reason}. Check the id or the path.",
    UnsafeModelId: "Refusing model id {model_id!r}: it could escape its folder. "
                   "Use a Hub id (org/name) or the folder's absolute path.",
    MalformedConfig: "Malformed checkpoint file {path}: {detail}. Fix or re-download the file.",
    RemoteCodeRequired: "{model_id} needs remote code ({auto_map}). Pass --trust-remote-code if you trust it.",
    GatedModel: "{model_id} is gated: accept its license on the Hub, then `hf auth login`.",
    BadBackend: "Cannot use compile backend {backend!r}: {detail}. "
                   "Give a torch.compile backend name or an importable package.module:callable.",
    DatasetProblem: "Dataset problem at {path}: {detail}.",
    WriteFailed: "Could not write {path}: {detail}. Free some space (or fix permissions) and rerun; "
                 "nothing already written was lost.",
    NoResult: "No result for {model_id!r}{filters}. Try `modelcompat query` to list what is tested.",
    CatalogProblem: "Catalog {source}: {detail}.",
    CacheProblem: "Compiled-graph cache {where}: {detail}.",
    HubProblem: "Hugging Face Hub error for {repo} (HTTP {status}): {detail}.",
    CompilerVersionMismatch: "Refusing compiled graphs for {compiler} {wanted}: this machine has {compiler} "
                             "{installed}, and reuse needs the exact version. Install {compiler} {wanted}, or "
                             "use --compiler-version {installed}.",
}


def message(exc: ModelcompatError) -> str:
    fields = dict(vars(exc))
    if isinstance(exc, UnknownName):
        fields.update(suggestion=exc.suggestion, choices_text=", ".join(exc.choices[:20]))
    return MESSAGES.get(type(exc), "{exc}").format(exc=exc, **fields)
