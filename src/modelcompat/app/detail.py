"""One model's detail as HTML sections: the verdict, the evidence, timings and memory, the versions."""

from __future__ import annotations

from ..schema import Result
from .render import esc, num, pill


def facts(pairs: list[tuple[str, str]]) -> str:
    """A two-column table; values are escaped here."""
    body = "".join(f"<tr><th>{esc(k)}</th><td>{esc(v)}</td></tr>" for k, v in pairs)
    return f'<table class="mc-table mc-facts"><tbody>{body}</tbody></table>'


def summary(row: Result) -> str:
    head = (f'<h2 class="mc-title">{pill(row.result)} <span class="mc-model">{esc(row.model_id)}</span></h2>')
    return head + facts([
        ("task", row.task), ("target / backend", f"{row.target} / {row.backend}"),
        ("compiler", f"{row.compiler or '-'} {row.compiler_version or ''}"), ("transformers", row.transformers),
        ("verdict basis", row.verdict_basis), ("stage", row.stage), ("error type", row.error_type),
        ("exclusion", row.exclusion), ("revision", row.revision), ("architecture", row.architecture),
        ("parameters", row.num_params), ("dtype", row.dtype), ("tested", row.tested_at), ("notes", row.notes)])


def evidence(row: Result) -> str:
    tokens = f"{num(row.match_prefix)} of {len(row.token_ids)} tokens" if row.match_prefix is not None else "-"
    return "<h3>Evidence</h3>" + facts([
        ("cpu_match", num(row.cpu_match)), ("match_prefix", tokens), ("english", num(row.english)),
        ("english score", num(row.english_score, 3)), ("judge", row.judge)])


def timings(row: Result) -> str:
    return "<h3>Timings and memory</h3>" + facts([
        ("wall (whole test, compilation included)", f"{num(row.wall_s)} s"), ("load", f"{num(row.load_s)} s"),
        ("compile", f"{num(row.compile_s)} s"), ("generate (warm)", f"{num(row.generate_s)} s"),
        ("warm tokens/s", f"{num(row.tokens_per_s, 1)} (this tiny 32-token test; NOT a throughput claim)"),
        ("peak device memory", f"{num(row.device_mem_peak_gb)} GB"),
        ("memory per core assumed", f"{num(row.device_mem_capacity_gb)} GB"),
        ("peak host RSS", f"{num(row.host_rss_peak_gb)} GB"),
        ("cores / TP / EP", f"{num(row.cores)} / {num(row.tp)} / {num(row.ep)}"),
        ("compiled-graph cache hit", num(row.cache_hit))])


def versions(row: Result) -> str:
    return "<h3>Versions</h3>" + facts([
        ("torch", row.torch), ("transformers", row.transformers), ("accelerate", row.accelerate),
        ("python", row.python), ("platform", row.platform), ("driver", row.driver),
        ("harness", row.harness_version), ("run.py sha256", row.run_py_sha256)])


def detail_html(row: Result, note: str = "") -> str:
    lead = f'<p class="mc-warn">{esc(note)}</p>' if note else ""
    return lead + summary(row) + evidence(row) + timings(row) + versions(row)
