"""The dataset card (README.md of the dataset folder or Hub repo), generated from the schema declaration."""

from __future__ import annotations

import json

from .schema import SCHEMA_VERSION, STATUSES, column_docs

INTRO = """\
# modelcompat results

Does this Hugging Face checkpoint run on this backend, with this exact software stack? Each row is one test
of one checkpoint by modelcompat: `from_pretrained`, sharding over the smallest number of cores that can hold
the model, and 32 greedy tokens with a static KV cache under `torch.compile(backend=...)`, verified as
described below. Every row stores the exact `run.py` that ran, the
command line and the full package stack, so anyone can rerun it.

There is one Parquet file (one config) per compiler version and transformers version. Load one with
`datasets.load_dataset(REPO_OR_FOLDER, name=CONFIG)`, or query all of them with DuckDB.
"""

VERIFICATION = """\
## Verification rules

- **One core:** the generated token ids must equal, exactly, a CPU eager run of the same checkpoint with the
  same transformers version. `match_prefix` counts the tokens equal before the first difference.
- **Several cores, strongest evidence first:** where the CPU reference fits the host and the tokens equal it
  exactly, the verdict is PASS on basis `cpu_match`. Otherwise a small judge language model scores the decoded
  text for fluent English (perplexity plus repetition and known-word checks), on basis `judge`; the judge,
  its threshold and its score are in the row.

## What a PASS does not prove

- A PASS is **no performance claim**. The timings and `tokens_per_s` come from a tiny 32-token test;
  compilation is included in `wall_s`.
- A one-core PASS means the output was **token-identical to CPU eager for 32 greedy tokens of one prompt**;
  other prompts, lengths or sampling settings were not tested.
- A judge verdict is **evidence of fluency, not of numerical equivalence**.
- A model with no row is *untested*, which is different from `SKIPPED`.
"""


def config_name(file_name: str) -> str:
    return file_name.removesuffix(".parquet")


def front_matter(file_names: list[str]) -> str:
    """YAML: one config per file, so `load_dataset(folder, name=...)` and the Hub viewer see each file."""
    lines = ["---", "license: apache-2.0", "pretty_name: modelcompat results",
             "tags:", "- modelcompat", "- torch-compile", "- transformers", "configs:"]
    for name in sorted(file_names):
        lines += [f"- config_name: {json.dumps(config_name(name))}", "  data_files:",
                  "  - split: train", f"    path: {json.dumps(name)}"]
    return "\n".join(lines + ["---", ""])


def columns_section() -> str:
    rows = [f"| `{name}` | {kind} | {doc.replace('|', '/')} |" for name, kind, doc in column_docs()]
    return "\n".join([f"## Columns (schema version {SCHEMA_VERSION})", "", "| column | type | meaning |",
                      "| --- | --- | --- |", *rows, ""])


def statuses_section() -> str:
    rows = [f"- `{status}`: {meaning}" for status, meaning in STATUSES.items()]
    return "\n".join(["## Result values", "", *rows, ""])


def files_section(file_names: list[str]) -> str:
    rows = [f"- `{config_name(n)}`: `{n}`" for n in sorted(file_names)] or ["- (no files yet)"]
    return "\n".join(["## Configs (files)", "", *rows, ""])


def render(file_names: list[str]) -> str:
    parts = [front_matter(file_names), INTRO, files_section(file_names), columns_section(), statuses_section(),
             VERIFICATION]
    return "\n".join(parts)
