"""The Ray executor: each test is a Ray task that asks for its planned cores as a resource.

`neuron_cores` on neuron, `GPU` on cuda, `CPU` on cpu. The task runs harness.run_test on whichever node Ray
picks and returns the row; the driver stages it, so resume works exactly as with the local executor.
Point it at a cluster with `--address ray://head:10001` (or `auto` on a cluster node); without one it starts a
local Ray. Ray is optional: `pip install modelcompat[ray]`.
"""

from __future__ import annotations

from .harness import TestSpec, Workspace
from .schema import Result

RESOURCES = {"cpu": "CPU", "cuda": "GPU", "neuron": "neuron_cores"}  # target -> Ray resource a core is counted in


def task_options(target: str, cores: int) -> dict:
    """Ray `.options(...)` asking for `cores` of the target's resource (one host CPU besides, off CPU)."""
    resource = RESOURCES[target]
    if resource == "CPU":
        return {"num_cpus": cores}
    if resource == "GPU":
        return {"num_gpus": cores, "num_cpus": 1}
    return {"resources": {resource: cores}, "num_cpus": 1}


def run_remote(spec: TestSpec, ws: Workspace, facts=None) -> dict:
    """The Ray task body: one test on this node, in a scratch staging folder; the row goes back as a dict."""
    from .sweep_exec import run_in_scratch

    return run_in_scratch(spec, ws, facts=facts).to_dict()


class RayExecutor:
    def __init__(self, config, ws: Workspace, prov) -> None:
        import ray

        self.ray, self.config, self.ws = ray, config, ws
        self.started_ray = not ray.is_initialized()
        if self.started_ray:
            ray.init(address=config.address, include_dashboard=False, log_to_driver=False)
        self.task = ray.remote(run_remote)
        self.running: dict = {}  # ObjectRef -> Job

    def capacity(self, cores: int, memory: int) -> tuple[int, int]:
        """The cluster's count of the target's resource (or --cores when smaller); memory stays the target's."""
        total = int(self.ray.cluster_resources().get(RESOURCES[self.config.target], 0))
        total = total or cores  # no such resource in the cluster: Ray will say the tasks are infeasible
        return (min(total, self.config.cores) if self.config.cores else total), memory

    def submit(self, job) -> None:
        options = task_options(self.config.target, job.cores)
        ref = self.task.options(**options).remote(job.spec, self.ws, job.facts)
        self.running[ref] = job

    def wait(self, timeout: float) -> list[tuple[object, Result]]:
        ready, _ = self.ray.wait(list(self.running), num_returns=1, timeout=timeout)
        return [(self.running.pop(ref), Result.from_dict(self.ray.get(ref))) for ref in ready]

    def stop(self) -> list[tuple[object, Result]]:
        """Cancel running tasks: Ray raises KeyboardInterrupt in each, and procs.run_group kills its group."""
        for ref in self.running:
            self.ray.cancel(ref, force=False)
        return []

    def close(self) -> None:
        if self.started_ray:
            self.ray.shutdown()
