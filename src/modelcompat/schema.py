"""The one declaration of a result row.

Everything else derives from `Result`: the Arrow schema (`arrow_schema`), the dataset card's column table
(`column_docs`), the CLI's columns and the JSON round-trip. Column names follow the public Trainium results
dataset where one exists there.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from typing import Any

SCHEMA_VERSION = 1

STATUSES: dict[str, str] = {
    "PASS": "The verification for its path held (token match on one core; CPU match or fluency judge on several).",
    "FAIL": "It ran, but the verification did not hold (a token mismatch, or text judged not fluent).",
    "ERROR": "An exception was raised; `stage` says where.",
    "TIMEOUT": "The test ran past its time limit and its whole process group was killed.",
    "OOM": "The process ran out of memory.",
    "CRASH": "A process died by a signal or exited without a report.",
    "SKIPPED": "Not attempted; `exclusion` says why (too large, unsupported task, remote code, gated).",
}

STAGES = ("inspect", "plan", "load", "shard", "compile", "generate", "verify")
VERDICT_BASES = ("cpu_match", "judge", "none")


def column(arrow_type: str, doc: str, default: Any = None) -> Any:
    """Declare one column: its Arrow type name and the sentence the dataset card prints for it."""
    factory = {"default_factory": list} if arrow_type.startswith("list") else {"default": default}
    return field(metadata={"type": arrow_type, "doc": doc}, **factory)


@dataclass
class Result:
    # --- identity ---
    model_id: str = column("string", "Hub id (`org/name`) or local path of the checkpoint.", "")
    revision: str | None = column("string", "Hub commit sha, or `local:<sha256 of the files>` for a folder.")
    library: str = column("string", "Model library; always `transformers` for now.", "transformers")
    library_version: str | None = column("string", "Version of the model library that ran the test.")
    task: str = column("string", "`text-generation` or `image-text-to-text`.", "text-generation")
    runner: str = column("string", "The protocol that ran: `run.py`.", "run.py")
    architecture: str | None = column("string", "First entry of `architectures` in config.json.")
    model_type: str | None = column("string", "`model_type` from config.json.")
    num_params: int | None = column("int64", "Parameter count, from safetensors metadata (weights never loaded).")
    dtype: str | None = column("string", "Weight dtype the test loaded (e.g. `bfloat16`).")
    # --- target ---
    target: str = column("string", "Target name: `cpu`, `cuda` or `neuron`.", "cpu")
    backend: str = column("string", "The `torch.compile` backend (a name or `module:callable`).", "inductor")
    compiler: str | None = column("string", "Compiler behind the backend, e.g. `inductor` or `neuronx-cc`.")
    compiler_version: str | None = column("string", "Compiler version (inductor: the torch version, +triton).")
    cores: int | None = column("int64", "Cores (ranks) the plan used.")
    tp: int | None = column("int64", "Tensor-parallel degree.")
    ep: int | None = column("int64", "Expert-parallel degree (1 when not MoE).")
    # --- outcome ---
    result: str = column("string", "One of PASS, FAIL, ERROR, TIMEOUT, OOM, CRASH, SKIPPED.", "ERROR")
    stage: str | None = column("string", "Where it stopped: inspect, plan, load, shard, compile, generate, verify.")
    error: str | None = column("string", "Error message plus a trimmed traceback.")
    error_type: str | None = column("string", "Exception class name (or signal name for a crash).")
    error_signature: str | None = column("string", "Normalized error (numbers, paths, hex removed) to group failures.")
    exclusion: str | None = column("string", "Why a SKIPPED test was not attempted.")
    notes: str | None = column("string", "Free-form remarks from the harness.")
    # --- evidence ---
    cpu_match: bool | None = column("bool", "Tokens equal the CPU eager reference; null when not checked.")
    match_prefix: int | None = column("int64", "Tokens equal to the reference before the first difference.")
    english: bool | None = column("bool", "Judge's verdict that the text is fluent English; null when not judged.")
    english_score: float | None = column("float64", "Judge score in [0, 1]; higher is more fluent.")
    judge: str | None = column("string", "Judge model and threshold used, e.g. `SmolLM2-135M-Instruct@0.5`.")
    verdict_basis: str | None = column("string", "What decided PASS/FAIL: `cpu_match`, `judge` or `none`.")
    generated_text: str | None = column("string", "Decoded generated tokens.")
    token_ids: list[int] = column("list<int64>", "Generated token ids on the target.")
    reference_token_ids: list[int] = column("list<int64>", "Generated token ids of the CPU eager reference.")
    # --- measurements ---
    wall_s: float | None = column("float64", "Whole test wall time, compilation included (seconds).")
    load_s: float | None = column("float64", "`from_pretrained` time, sharding included (seconds).")
    compile_s: float | None = column("float64", "First generate minus a warm generate: the compile cost (seconds).")
    generate_s: float | None = column("float64", "Warm generate time for all tokens (seconds).")
    tokens_per_s: float | None = column("float64", "Warm decode tokens/s of this tiny test: NOT a performance claim.")
    device_mem_peak_gb: float | None = column("float64", "Peak device memory, max over ranks (GB; host RSS on cpu).")
    device_mem_capacity_gb: float | None = column("float64", "Memory per core the plan assumed (GB).")
    host_rss_peak_gb: float | None = column("float64", "Peak host resident memory, max over ranks (GB).")
    cache_hit: bool | None = column("bool", "A compiled-graph cache entry was used; null when no cache was given.")
    # --- provenance ---
    torch: str | None = column("string", "torch version.")
    transformers: str | None = column("string", "transformers version.")
    accelerate: str | None = column("string", "accelerate version, if installed.")
    python: str | None = column("string", "Python version.")
    platform: str | None = column("string", "`platform.platform()` of the machine.")
    driver: str | None = column("string", "Accelerator driver version, if any.")
    stack: str | None = column("string", "JSON object of every installed distribution and its version.")
    extra_packages: str | None = column("string", "JSON object of packages beyond torch/transformers that the test used.")
    run_py: str | None = column("string", "The exact text of run.py that ran.")
    run_py_sha256: str | None = column("string", "sha256 of `run_py`.")
    command: str | None = column("string", "JSON list: the exact argv that ran on the target.")
    harness_version: str | None = column("string", "modelcompat version.")
    tested_at: str | None = column("string", "UTC time the test finished, ISO 8601.")
    schema_version: int = column("int64", "Version of this schema.", SCHEMA_VERSION)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Result":
        """Read a row of this or an older schema version: unknown keys are dropped, missing ones defaulted."""
        known = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})


def columns() -> list[dataclasses.Field]:
    return list(dataclasses.fields(Result))


def column_names() -> list[str]:
    return [f.name for f in columns()]


def column_docs() -> list[tuple[str, str, str]]:
    """(name, arrow type, meaning) for every column, in order."""
    return [(f.name, f.metadata["type"], f.metadata["doc"]) for f in columns()]


def arrow_schema():
    import pyarrow as pa

    types = {"string": pa.string(), "int64": pa.int64(), "float64": pa.float64(), "bool": pa.bool_(),
             "list<int64>": pa.list_(pa.int64())}
    fields_ = [pa.field(name, types[kind], metadata={"doc": doc}) for name, kind, doc in column_docs()]
    return pa.schema(fields_, metadata={"schema_version": str(SCHEMA_VERSION)})
