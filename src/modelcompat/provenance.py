"""The software stack a test ran on: every installed distribution, run.py's exact text, versions."""

from __future__ import annotations

import hashlib
import importlib.metadata as md
import json
import platform
import subprocess
from dataclasses import dataclass
from pathlib import Path

from . import __version__

RUN_PY = Path(__file__).with_name("run.py")
EXTRA_CANDIDATES = ("accelerate", "safetensors", "tokenizers", "pillow", "numpy", "triton", "neuronx-cc",
                    "torch-neuronx", "libneuronxla")


@dataclass(frozen=True)
class Provenance:
    stack: dict[str, str]
    run_py: str
    platform: str
    python: str
    driver: str | None

    @property
    def run_py_sha256(self) -> str:
        return hashlib.sha256(self.run_py.encode()).hexdigest()

    def version(self, dist: str) -> str | None:
        return self.stack.get(dist.lower())

    def extra_packages(self, also: tuple[str, ...] = ()) -> str:
        names = [n for n in EXTRA_CANDIDATES + also if n.lower() in self.stack]
        return json.dumps({n: self.stack[n.lower()] for n in names}, sort_keys=True)

    def row_fields(self) -> dict:
        return dict(torch=self.version("torch"), transformers=self.version("transformers"),
                    library_version=self.version("transformers"), accelerate=self.version("accelerate"),
                    python=self.python, platform=self.platform, driver=self.driver,
                    stack=json.dumps(self.stack, sort_keys=True), run_py=self.run_py,
                    run_py_sha256=self.run_py_sha256, harness_version=__version__)


def installed() -> dict[str, str]:
    return {d.metadata["Name"].lower(): d.version for d in md.distributions() if d.metadata["Name"]}


def driver_version() -> str | None:
    """The NVIDIA driver version when nvidia-smi exists; None elsewhere."""
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip().splitlines()[0] if out.returncode == 0 and out.stdout.strip() else None


def collect() -> Provenance:
    return Provenance(stack=installed(), run_py=RUN_PY.read_text(), platform=platform.platform(),
                      python=platform.python_version(), driver=driver_version())
