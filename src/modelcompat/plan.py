"""The planner: the smallest number of cores that holds a model. A pure function of facts and limits."""

from __future__ import annotations

import re
from dataclasses import dataclass

GIB = 2**30
PROMPT_TOKENS = 64  # static cache length budget for the prompt; run.py's prompts are well under this
MARGIN = 0.25  # activations, compile workspace and allocator slack, as a share of weights + KV cache
DTYPE_BYTES = {"float32": 4, "bfloat16": 2, "float16": 2, "float64": 8, "float8_e4m3fn": 1, "int8": 1}


@dataclass(frozen=True)
class Limits:
    core_memory: int  # bytes per core
    max_cores: int
    degrees: tuple[int, ...] | None = None  # allowed core counts; None: any up to max_cores


@dataclass(frozen=True)
class Plan:
    cores: int | None
    tp: int | None
    ep: int | None
    bytes_per_core: int | None  # planned need on each core, margin included
    core_memory: int
    exclusion: str | None = None

    @property
    def runnable(self) -> bool:
        return self.exclusion is None


def model_bytes(facts) -> int:
    if facts.weight_bytes:
        return facts.weight_bytes
    return (facts.num_params or 0) * DTYPE_BYTES.get(facts.dtype or "float32", 4)


def kv_cache_bytes(facts, tokens: int) -> int:
    """Static KV cache for one sequence of PROMPT_TOKENS + tokens, at the weights' dtype."""
    per_token = 2 * (facts.num_layers or 0) * (facts.num_kv_heads or 0) * (facts.head_dim or 0)
    return per_token * (PROMPT_TOKENS + tokens) * DTYPE_BYTES.get(facts.dtype or "float32", 4)


def need_per_core(facts, degree: int, tokens: int) -> int:
    return int((model_bytes(facts) + kv_cache_bytes(facts, tokens)) / degree * (1 + MARGIN))


def split(facts, degree: int) -> tuple[int, int] | None:
    """(tp, ep) to run on `degree` cores, or None when the model cannot be split that way."""
    if degree == 1:
        return 1, 1
    heads_ok = all(h and h % degree == 0 for h in (facts.num_heads, facts.num_kv_heads))
    experts_ok = bool(facts.num_experts) and facts.num_experts % degree == 0
    if facts.num_experts and facts.has_tp_plan:
        return (degree, degree) if heads_ok and experts_ok else None
    if facts.num_experts:
        return (1, degree) if experts_ok else None
    return (degree, 1) if heads_ok and facts.has_tp_plan else None


def candidates(limits: Limits) -> list[int]:
    allowed = limits.degrees or range(1, limits.max_cores + 1)
    return [d for d in allowed if d <= limits.max_cores]


def make_plan(facts, limits: Limits, tokens: int = 32, cores: int | None = None) -> Plan:
    """The smallest degree whose share fits a core; `cores` forces one degree instead."""
    degrees = [cores] if cores else candidates(limits)
    for degree in degrees:
        shape = split(facts, degree)
        need = need_per_core(facts, degree, tokens)
        if shape and (cores or need <= limits.core_memory):
            return Plan(degree, shape[0], shape[1], need, limits.core_memory)
    return Plan(None, None, None, None, limits.core_memory, exclusion(facts, limits, cores))


def exclusion(facts, limits: Limits, cores: int | None) -> str:
    valid = [d for d in ([cores] if cores else candidates(limits)) if split(facts, d)]
    shape = f"{facts.num_heads} heads, {facts.num_kv_heads} KV heads, {facts.num_experts or 0} experts, " \
            f"TP plan: {'yes' if facts.has_tp_plan else 'no'}"
    if cores and not valid:
        return f"cannot split over {cores} cores ({shape})"
    top = cores or limits.max_cores
    return f"too large for {top} cores ({format_bytes(need_per_core(facts, max(valid or [1]), 32))} per core " \
           f"at the largest valid degree {max(valid or [1])}, {format_bytes(limits.core_memory)} available; {shape})"


def format_bytes(n: int) -> str:
    return f"{n / GIB:.2f} GiB" if n >= GIB / 10 else f"{n / 2**20:.2f} MiB"


def parse_size(text: str) -> int:
    """'24GiB', '512MB', '0.5' (GiB when no unit) -> bytes."""
    match = re.fullmatch(r"\s*([\d.]+)\s*([KMGT]i?B?|B)?\s*", str(text), re.IGNORECASE)
    if not match:
        raise ValueError(f"not a size: {text!r} (use e.g. 24GiB, 512MB or 0.5)")
    unit = (match.group(2) or "GiB").upper().rstrip("B").replace("I", "")
    scale = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}[unit]
    return int(float(match.group(1)) * scale)
