"""The registry of targets. Adding a backend is one `Target(...)` line; version probes import lazily."""

from __future__ import annotations

import importlib
import importlib.metadata as md
import os
from dataclasses import dataclass

from .errors import BadBackend, UnknownName

GIB = 2**30


@dataclass(frozen=True)
class Target:
    name: str
    device: str  # torch device type, as in torch.device(...) and torch.accelerator
    default_backend: str  # torch.compile backend
    dist_backend: str  # torch.distributed process-group backend
    compiler: str  # what compiles the default backend's graphs
    version_probe: str  # "module:function" returning the compiler version, imported lazily
    core_memory_probe: str  # "module:function" returning bytes of memory per core
    max_cores: int | None  # None: as many as the machine has
    degrees: tuple[int, ...] | None  # allowed core counts; None: any
    verified: bool  # run on real hardware by this project


TARGETS: dict[str, Target] = {t.name: t for t in [
    Target("cpu", "cpu", "inductor", "gloo", "inductor", "modelcompat.targets:torch_version",
           "modelcompat.targets:host_memory_per_core", None, None, True),
    Target("cuda", "cuda", "inductor", "nccl", "inductor", "modelcompat.targets:inductor_cuda_version",
           "modelcompat.targets:cuda_memory_per_device", None, None, False),
    # AWS Trainium2 via TorchNeuron: 4 devices x 4 cores, 24 GiB per core. No hardware here: unverified.
    Target("neuron", "neuron", "neuron", "neuron", "neuronx-cc", "modelcompat.targets:neuronx_cc_version",
           "modelcompat.targets:neuron_memory_per_core", 16, (1, 2, 4, 8, 16), False),
]}


def get_target(name: str) -> Target:
    if name not in TARGETS:
        raise UnknownName("target", name, tuple(TARGETS))
    return TARGETS[name]


def call(ref: str):
    module, attr = ref.split(":")
    return getattr(importlib.import_module(module), attr)()


def dist_version(name: str) -> str | None:
    try:
        return md.version(name)
    except md.PackageNotFoundError:
        return None


def torch_version() -> str:
    return dist_version("torch") or "unknown"


def inductor_cuda_version() -> str:
    triton = dist_version("triton")
    return f"{torch_version()}+triton-{triton}" if triton else torch_version()


def neuronx_cc_version() -> str:
    return dist_version("neuronx-cc") or "not-installed"


def host_memory_per_core() -> int:
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // (os.cpu_count() or 1)


def cuda_memory_per_device() -> int:
    import torch

    return torch.cuda.get_device_properties(0).total_memory if torch.cuda.is_available() else 80 * GIB


def neuron_memory_per_core() -> int:
    return 24 * GIB


def max_cores(target: Target) -> int:
    if target.max_cores:
        return target.max_cores
    if target.device == "cuda":
        import torch

        return max(torch.cuda.device_count(), 1)
    return os.cpu_count() or 1


@dataclass(frozen=True)
class Compiler:
    name: str
    version: str


def compiler_for(target: Target, backend: str) -> Compiler:
    """Name and version of what compiles `backend` on `target` (the Parquet file is named after it)."""
    if backend == target.default_backend:
        return Compiler(target.compiler, call(target.version_probe))
    if ":" in backend:
        package = backend.split(":")[0].split(".")[0]
        owner = md.packages_distributions().get(package, [package])[0]
        return Compiler(owner, dist_version(owner) or torch_version())
    return Compiler(backend, torch_version())


def check_backend(target: Target, backend: str) -> str:
    """Validate a backend name or `module:callable` before anything runs; returns it unchanged."""
    if backend in (target.default_backend, "none"):
        return backend
    if ":" in backend:
        return check_callable_backend(backend)
    import torch._dynamo

    names = tuple(torch._dynamo.list_backends(exclude_tags=()))
    if backend not in names:
        raise UnknownName("backend", backend, names + (target.default_backend,))
    return backend


def check_callable_backend(backend: str) -> str:
    module, _, attr = backend.partition(":")
    try:
        found = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as exc:
        raise BadBackend(backend, f"{type(exc).__name__}: {exc}") from None
    if not callable(found):
        raise BadBackend(backend, f"{attr} is not callable")
    return backend
