"""Result rows for the dataset tests, built directly from the schema (fast: no harness run)."""

import json

from modelcompat.schema import Result

RUN_PY = "import torch\nprint('the protocol')\n"
STACK = json.dumps({"torch": "2.13.0+cpu", "transformers": "5.24.0", "accelerate": "1.15.0"})


def make_row(model_id="org/model", result="PASS", tested_at="2026-11-29T10:00:00+00:00", compiler_version="2.13.0+cpu",
             transformers="5.24.0", **kw) -> Result:
    fields = dict(model_id=model_id, revision="abc123", result=result, compiler="inductor",
                  compiler_version=compiler_version, transformers=transformers, torch="2.13.0+cpu",
                  tested_at=tested_at, run_py=RUN_PY, stack=STACK, extra_packages=json.dumps({"gguf": "0.19.0"}),
                  command=json.dumps(["python", "run.py", "--model", model_id, "--device", "cpu"]),
                  cores=1, tp=1, ep=1, wall_s=1.5, token_ids=[1, 2, 3])
    if result not in ("PASS", "SKIPPED"):
        fields.update(stage="compile", error=f"boom in {model_id}", error_type="RuntimeError",
                      error_signature="RuntimeError: boom")
    return Result(**{**fields, **kw})
