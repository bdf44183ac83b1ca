"""One test end to end -> one Result row. Failures become rows, never exceptions."""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path

from . import facts as facts_mod
from . import plan as plan_mod
from . import cache_session, provenance, store, targets, verify
from .errors import GatedModel, MalformedConfig, ModelcompatError, RemoteCodeRequired, message
from .locks import file_lock
from .schema import Result

TASKS = ("text-generation", "image-text-to-text")


@dataclass(frozen=True)
class TestSpec:
    __test__ = False  # not a pytest class

    model_id: str
    task: str | None = None  # None: from the config (a vision_config means image-text-to-text)
    target: str = "cpu"
    backend: str | None = None  # None: the target's default
    tokens: int = 32
    cores: int | None = None  # force a core count instead of planning one
    core_memory: int | None = None  # bytes per core, overriding the target's
    max_cores: int | None = None
    timeout: float = 900.0
    reference: bool = True  # run (or reuse) the CPU eager reference
    trust_remote_code: bool = False
    revision: str | None = None
    judge: str | None = None  # judge model id or path; None: the default SmolLM2 judge
    prompt: str | None = None
    memory_limit: int | None = None  # address-space cap (RLIMIT_AS) for run.py, in bytes

    @property
    def backend_name(self) -> str:
        return self.backend or targets.get_target(self.target).default_backend


@dataclass(frozen=True)
class Workspace:
    staging: Path  # finished rows, one JSON file each
    cache: Path  # CPU references and run logs
    env: dict = field(default_factory=dict)  # extra environment for run.py (e.g. a compile cache dir)
    compile_cache: str | None = None  # compiled-graph cache, a folder or Hub repo: fetched before, pushed after PASS

    @property
    def references(self) -> Path:
        return self.cache / "references"


def check_spec(spec: TestSpec) -> TestSpec:
    """Refuse bad names before anything runs: unknown target, task or backend."""
    from .errors import UnknownName

    target = targets.get_target(spec.target)
    if spec.task is not None and spec.task not in TASKS:
        raise UnknownName("task", spec.task, TASKS)
    targets.check_backend(target, spec.backend_name)
    return spec


def limits_for(spec: TestSpec, target: targets.Target) -> plan_mod.Limits:
    memory = spec.core_memory or targets.call(target.core_memory_probe)
    return plan_mod.Limits(memory, spec.max_cores or targets.max_cores(target), target.degrees)


def run_py_argv(spec: TestSpec, device: str, backend: str, cores: int, tp: int, ep: int) -> list[str]:
    argv = ["run.py", "--model", spec.model_id, "--task", spec.task, "--device", device, "--backend", backend,
            "--tokens", str(spec.tokens), "--cores", str(cores), "--tp", str(tp), "--ep", str(ep)]
    argv += ["--revision", spec.revision] if spec.revision else []
    argv += ["--prompt", spec.prompt] if spec.prompt else []
    return argv + (["--trust-remote-code"] if spec.trust_remote_code else [])


def execute(argv: list[str], spec: TestSpec, ws: Workspace, workdir: Path, run_py: str) -> dict:
    """Run run.py in its own process group and turn however it ended into a report dict."""
    from .procs import run_group

    report_path, script = workdir / "report.json", workdir / "run.py"
    script.write_text(run_py)  # the exact text the row stores is what runs
    full = [sys.executable, str(script), *argv[1:], "--report", str(report_path)]
    env = {**os.environ, "HF_HUB_DISABLE_PROGRESS_BARS": "1", "TRANSFORMERS_VERBOSITY": "error", **ws.env}
    ended = run_group(full, spec.timeout, workdir / "run.log", env, spec.memory_limit)
    report = json.loads(report_path.read_text()) if report_path.exists() else {}
    return outcome(report, ended, spec.timeout)


def outcome(report: dict, ended, timeout: float) -> dict:
    """A finished report stands; otherwise how the process ended says TIMEOUT, OOM or CRASH (at the last stage)."""
    log = ended.log[-1500:]
    if ended.timed_out:
        return {**report, "status": "timeout", "error_type": "Timeout",
                "error": f"killed after {timeout:.0f} s (whole process group)\n{log}"}
    if report.get("status") not in (None, "running"):
        return report
    if ended.signal_name:
        kind = "oom" if "MemoryError" in log else "crash"
        return {**report, "status": kind, "error_type": ended.signal_name,
                "error": f"run.py died by {ended.signal_name}\n{log}"}
    return {"stage": "load", **report, "status": "crash", "error_type": f"exit {ended.returncode}",
            "error": f"run.py exited with code {ended.returncode} without a final report\n{log}"}


STATUS = {"ok": "PASS", "error": "ERROR", "timeout": "TIMEOUT", "oom": "OOM", "crash": "CRASH"}


def apply_report(row: Result, report: dict) -> Result:
    keys = ("load_s", "compile_s", "generate_s", "tokens_per_s", "device_mem_peak_gb", "host_rss_peak_gb", "dtype",
            "error", "error_type", "notes", "stage")
    found = {k: report[k] for k in keys if report.get(k) is not None}
    found["notes"] = "; ".join(filter(None, [found.get("notes"), shard_note(report, row.num_params)])) or None
    row = replace(row, **found, token_ids=report.get("token_ids") or [], generated_text=report.get("text"),
                  result=STATUS[report.get("status", "crash")])
    if row.result == "PASS":
        return replace(row, stage=None)
    return replace(row, error_signature=verify.error_signature(row.error_type, row.error))


def shard_note(report: dict, num_params: int | None) -> str | None:
    """Evidence that the weights were split: each rank's local parameter count against the whole."""
    local = [r.get("local_param_numel") for r in report.get("ranks", [])]
    if len(local) < 2 or None in local:
        return None
    return f"rank-local parameters {'/'.join(map(str, local))} of {num_params}"


def reference_key(facts, spec: TestSpec, prov: provenance.Provenance) -> str:
    key = dict(revision=facts.revision, model_id=facts.model_id if not facts.local else None, task=spec.task,
               transformers=prov.version("transformers"), tokens=spec.tokens, prompt=spec.prompt)
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:24]


def reference(facts, spec: TestSpec, ws: Workspace, prov) -> dict:
    """The CPU eager reference report, from the on-disk cache or a fresh run (cached only when it succeeded)."""
    path = ws.references / f"{reference_key(facts, spec, prov)}.json"
    with file_lock(path.with_suffix(".lock")):  # concurrent tests of one checkpoint: one computes, the rest reuse
        if path.exists():
            return {**json.loads(path.read_text()), "reused": True}
        argv = run_py_argv(spec, "cpu", "none", 1, 1, 1)
        with tempfile.TemporaryDirectory(dir=ws.cache) as tmp:
            report = execute(argv, spec, ws, Path(tmp), prov.run_py)
        if report.get("status") == "ok":
            store.write_json_atomic(path, {k: report.get(k) for k in ("token_ids", "text", "status")})
    return {**report, "reused": False}


def reference_fits(facts) -> bool:
    host = targets.host_memory_per_core() * (os.cpu_count() or 1)
    return plan_mod.need_per_core(facts, 1, 32) <= host * 0.8


def base_row(spec: TestSpec, prov: provenance.Provenance) -> Result:
    target = targets.get_target(spec.target)
    compiler = targets.compiler_for(target, spec.backend_name)
    also = (compiler.name,) if ":" in spec.backend_name else ()
    return Result(model_id=spec.model_id, task=spec.task or "text-generation", target=spec.target,
                  backend=spec.backend_name, compiler=compiler.name, compiler_version=compiler.version,
                  extra_packages=prov.extra_packages(also), **prov.row_fields())


def with_facts(row: Result, facts) -> Result:
    return replace(row, revision=facts.revision, architecture=facts.architecture, model_type=facts.model_type,
                   num_params=facts.num_params, dtype=facts.dtype)


def error_row(row: Result, stage: str, exc: Exception) -> Result:
    if isinstance(exc, (RemoteCodeRequired, GatedModel)):
        reason = "remote code not trusted (pass --trust-remote-code)" if isinstance(exc, RemoteCodeRequired) \
            else "gated model: accept its license on the Hub and log in"
        return replace(row, result="SKIPPED", stage=stage, exclusion=reason)
    error = message(exc) if isinstance(exc, ModelcompatError) else f"{type(exc).__name__}: {exc}"
    return replace(row, result="ERROR", stage=stage, error=error, error_type=type(exc).__name__,
                   error_signature=verify.error_signature(type(exc).__name__, error))


def finish(row: Result, started: float, ws: Workspace) -> Result:
    row = replace(row, wall_s=time.monotonic() - started, tested_at=datetime.now(timezone.utc).isoformat())
    store.stage_row(ws.staging, row)
    return row


def run_test(spec: TestSpec, ws: Workspace, prov: provenance.Provenance | None = None, judge=None,
             facts=None) -> Result:
    """Inspect (unless a sweep already did: `facts`), plan, run on the target, run/reuse the CPU reference,
    verify; stage and return the row."""
    started = time.monotonic()
    check_spec(spec)
    prov = prov or provenance.collect()
    row = base_row(spec, prov)
    try:
        facts = facts or facts_mod.inspect_model(spec.model_id, spec.revision, spec.trust_remote_code)
    except (MalformedConfig, RemoteCodeRequired, GatedModel) as exc:  # the checkpoint's fault: a row
        return finish(error_row(row, "inspect", exc), started, ws)
    spec = replace(spec, task=spec.task or facts.default_task)
    row = run_planned(spec, ws, prov, replace(with_facts(row, facts), task=spec.task), facts, judge)
    return finish(row, started, ws)


def run_planned(spec: TestSpec, ws: Workspace, prov, row: Result, facts, judge) -> Result:
    target = targets.get_target(spec.target)
    plan = plan_mod.make_plan(facts, limits_for(spec, target), spec.tokens, spec.cores)
    row = replace(row, device_mem_capacity_gb=plan.core_memory / plan_mod.GIB)
    if not plan.runnable:
        return replace(row, result="SKIPPED", stage="plan", exclusion=plan.exclusion)
    argv = run_py_argv(spec, target.device, spec.backend_name, plan.cores, plan.tp, plan.ep)
    row = replace(row, cores=plan.cores, tp=plan.tp, ep=plan.ep, command=json.dumps(["python", *argv]))
    ws.cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=ws.cache) as tmp:
        session = cache_session.open_session(ws.compile_cache, row, spec.tokens, spec.prompt, Path(tmp))
        report = execute(argv, spec, session.workspace(ws), Path(tmp), prov.run_py)
        row = apply_report(row, report)
        if row.result == "PASS":
            row = verify_row(row, spec, ws, prov, facts, judge)
        return session.finish(row, report)


def verify_row(row: Result, spec: TestSpec, ws: Workspace, prov, facts, judge) -> Result:
    ref = reference(facts, spec, ws, prov) if spec.reference and reference_fits(facts) else None
    if ref is not None and ref.get("status") != "ok":
        return replace(row, result="ERROR", stage="verify", error=f"CPU eager reference failed: {ref.get('error')}",
                       error_type=ref.get("error_type"), error_signature=verify.error_signature(
                           ref.get("error_type"), ref.get("error")))
    ref_ids = ref.get("token_ids") if ref else None
    score = None
    if row.cores > 1 and row.token_ids != ref_ids:
        score = (judge or default_judge(spec)).score(row.generated_text or "")
    v = verify.decide(row.cores, row.token_ids, ref_ids, score)
    notes = "; ".join(n for n in (row.notes, v.notes, "reference reused" if ref and ref.get("reused") else None) if n)
    return replace(row, result=v.result, verdict_basis=v.basis, cpu_match=v.cpu_match, match_prefix=v.match_prefix,
                   english=v.english, english_score=v.english_score, judge=v.judge, reference_token_ids=ref_ids or [],
                   notes=notes or None, stage=None if v.result == "PASS" else "verify")


def default_judge(spec: TestSpec):
    from .judge import Judge

    return Judge.load(spec.judge)
