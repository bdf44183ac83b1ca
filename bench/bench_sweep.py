"""Sweep benchmark on the tiny fixtures, every figure measured in this one run:

- packed / serial: wall time of a sweep packed onto all cores over the same sweep run one test at a time
  (both with a fresh CPU-reference cache, so both do the same work);
- utilisation: cores held x seconds / (cores x wall), from the scheduler, and the children's measured CPU
  seconds / (cores x wall), from getrusage; "others" is the share of the cores other work on the machine used;
- reference reuse: the same sweep on a second backend with the references cached vs with a fresh cache.

Run: python -m bench.bench_sweep   (about 4-5 minutes on 2 cores)
"""

from __future__ import annotations

import os
import resource
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

MODELS = ("tiny-llama", "tiny-qwen3", "tiny-qwen3-moe", "tiny-mixtral")


@dataclass(frozen=True)
class Measured:
    wall_s: float  # the whole run_sweep call: planning, running, staging
    cpu_s: float  # user + system seconds of the child processes (run.py and what it waited for)
    summary: object
    ours_s: float  # CPU seconds of this process and its children
    machine_s: float  # busy CPU seconds of the whole machine (/proc/stat), ours and everyone else's

    @property
    def others(self) -> float:
        """Share of the cores' time that other work on the machine used meanwhile."""
        return max(self.machine_s - self.ours_s, 0.0) / ((os.cpu_count() or 1) * self.wall_s)


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def self_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def machine_busy() -> float:
    """Busy CPU seconds of all cores since boot: /proc/stat's first line, less idle and iowait."""
    ticks = [int(x) for x in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
    return (sum(ticks[:8]) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")


def measure(entries, config, ws) -> Measured:
    from modelcompat.sweep import run_sweep

    cpu, own, machine, start = children_cpu(), self_cpu(), machine_busy(), time.monotonic()
    summary = run_sweep(entries, config, ws)
    cpu = children_cpu() - cpu
    return Measured(time.monotonic() - start, cpu, summary, cpu + self_cpu() - own, machine_busy() - machine)


def line(name: str, m: Measured, cores: int) -> str:
    s = m.summary
    return (f"{name:34} wall {m.wall_s:5.1f} s (running {s.wall_s:5.1f} s)  held {s.utilisation:4.0%}  "
            f"cpu {m.cpu_s / (cores * m.wall_s):4.0%}  others {m.others:4.0%}  {s.counts()}  "
            f"references computed {s.references_computed}, reused {s.references_reused}")


def main() -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from modelcompat.catalog import Entry
    from modelcompat.fixtures import build_all
    from modelcompat.harness import Workspace
    from modelcompat.sweep import SweepConfig

    cores = os.cpu_count() or 1
    with tempfile.TemporaryDirectory(prefix="bench-sweep-") as tmp:
        root = Path(tmp)
        entries = [Entry(str(p), None) for p in build_all(root / "fixtures", MODELS).values()]

        def ws(name: str) -> Workspace:
            return Workspace(staging=root / name / "staging", cache=root / name / "cache")

        serial = measure(entries, SweepConfig(backend="eager", cores=1), ws("serial"))
        print(line("serial (1 test at a time), eager", serial, 1), flush=True)
        packed = measure(entries, SweepConfig(backend="eager", cores=cores), ws("packed"))
        print(line(f"packed on {cores} cores, eager", packed, cores), flush=True)
        reused = measure(entries, SweepConfig(backend="aot_eager", cores=cores), ws("packed"))
        print(line("aot_eager, references cached", reused, cores), flush=True)
        fresh = measure(entries, SweepConfig(backend="aot_eager", cores=cores), ws("fresh"))
        print(line("aot_eager, fresh reference cache", fresh, cores), flush=True)
    report(serial, packed, reused, fresh, cores)


def report(serial: Measured, packed: Measured, reused: Measured, fresh: Measured, cores: int) -> None:
    ratio = packed.wall_s / serial.wall_s
    held = packed.summary.utilisation
    running = packed.summary.wall_s / serial.summary.wall_s
    print(f"{len(MODELS)} fixtures; packed/serial wall = {ratio:.2f} (goal <= 0.6: {'met' if ratio <= 0.6 else 'MISSED'}); "
          f"running phase only (planning excluded) {running:.2f}")
    print(f"other work on the machine used {serial.others:.0%} of the cores during the serial sweep and "
          f"{packed.others:.0%} during the packed one")
    print(f"utilisation of {cores} cores in the packed sweep: held {held:.0%} (goal >= 85%: "
          f"{'met' if held >= 0.85 else 'MISSED'}), measured CPU {packed.cpu_s / (cores * packed.wall_s):.0%}")
    print(f"reference reuse on a second backend: {reused.summary.references_reused} reused, "
          f"{reused.summary.references_computed} computed; wall {reused.wall_s:.1f} s vs {fresh.wall_s:.1f} s with a "
          f"fresh cache ({1 - reused.wall_s / fresh.wall_s:.0%} saved), child CPU {reused.cpu_s:.0f} s vs {fresh.cpu_s:.0f} s")


if __name__ == "__main__":
    main()
