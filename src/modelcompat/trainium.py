"""Adapter for the public Trainium results dataset, so the explorer can open it beside ours.

Honest note on the layout: the public dataset (`aws-neuron/torch-neuronx-model-support` on the Hub, introduced
by the blog post "Does Your Model Run on AWS Trainium? Look It Up") could not be read from this machine (no Hub
access) and its column list was not in the searchable index. What is documented: each row gives the result,
the number of Trainium cores the model is sharded over, the wall time of the run (compilation included), the
peak device memory, and the script to run it yourself; and DESIGN.md says our column names follow theirs where
one exists. So this adapter passes columns with our names through unchanged, renames the plausible aliases
below, and fills what is missing with a Neuron default or NULL. Extend ALIASES when the real names are known.
"""

from __future__ import annotations

from .schema import column_docs

SQL_TYPES = {"string": "VARCHAR", "int64": "BIGINT", "float64": "DOUBLE", "bool": "BOOLEAN",
             "list<int64>": "BIGINT[]"}

ALIASES: dict[str, tuple[str, ...]] = {
    "model_id": ("model", "model_name"),
    "result": ("status", "outcome"),
    "cores": ("neuron_cores", "num_cores", "tp_degree"),
    "wall_s": ("wall_time_s", "wall_time", "duration_s"),
    "device_mem_peak_gb": ("peak_device_memory_gb", "peak_memory_gb", "device_memory_gb"),
    "run_py": ("script", "run_script"),
    "compiler_version": ("neuronx_cc_version", "neuronx_cc", "torch_neuronx_version", "torch_neuronx"),
    "transformers": ("transformers_version",),
    "torch": ("torch_version",),
    "error": ("error_message",),
    "tested_at": ("timestamp", "date", "tested_on"),
}

DEFAULTS = {"target": "'neuron'", "backend": "'neuron'", "compiler": "'neuronx-cc'", "library": "'transformers'",
            "task": "'text-generation'", "runner": "'run.py'", "schema_version": "0"}

# their spellings of a status -> ours; anything else is upper-cased
RESULT_SPELLINGS = {"PASSED": "PASS", "SUCCESS": "PASS", "OK": "PASS", "FAILED": "FAIL", "FAILURE": "FAIL",
                    "ERRORED": "ERROR", "TIMED_OUT": "TIMEOUT", "SKIP": "SKIPPED"}


def is_trainium_layout(columns: set[str]) -> bool:
    """Ours always has `result`; theirs is recognised by a model column and a status under another name."""
    has_model = any(c in columns for c in ("model_id", *ALIASES["model_id"]))
    return "result" not in columns and has_model and any(c in columns for c in ALIASES["result"])


def quote_ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def result_expression(source: str) -> str:
    cases = " ".join(f"WHEN '{theirs}' THEN '{ours}'" for theirs, ours in RESULT_SPELLINGS.items())
    value = f"upper(CAST({quote_ident(source)} AS VARCHAR))"
    return f"CASE {value} {cases} ELSE {value} END"


def column_expression(name: str, kind: str, columns: set[str]) -> str:
    """Our column from theirs: the same name, else the first alias present, else a default or NULL."""
    source = next((c for c in (name, *ALIASES.get(name, ())) if c in columns), None)
    if source is None:
        return f"CAST({DEFAULTS.get(name, 'NULL')} AS {SQL_TYPES[kind]}) AS {name}"
    if name == "result":
        return f"{result_expression(source)} AS result"
    return f"CAST({quote_ident(source)} AS {SQL_TYPES[kind]}) AS {name}"


def select_list(columns: set[str]) -> str:
    return ", ".join(column_expression(name, kind, columns) for name, kind, _ in column_docs())
