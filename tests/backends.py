"""Custom torch.compile backends for tests, used as `backends:NAME` (tests/ is on PYTHONPATH)."""

import ctypes
import os
import signal
import time

PERTURB_AT = 5  # the generated token index whose logits the perturbing backend flips


CALLS = {"n": 0}  # forward calls across the prefill and decode graphs: 32 per generate of 32 tokens


def perturb(gm, example_inputs):
    """Runs the graph, then at generated token PERTURB_AT of every generate makes the runner-up token win."""

    def run(*args):
        out = gm(*args)
        step = CALLS["n"] % 32
        CALLS["n"] += 1
        if step == PERTURB_AT:
            logits = max((t for t in out if hasattr(t, "dim") and t.dim() == 3), key=lambda t: t.shape[-1])
            last = logits[:, -1, :]
            last[:, last.topk(2, dim=-1).indices[:, 1]] = last.max() + 1.0
        return out

    return run


def raising(gm, example_inputs):
    raise RuntimeError("this backend refuses every graph")


def kill_self(gm, example_inputs):
    os.kill(os.getpid(), signal.SIGKILL)


def segfault(gm, example_inputs):
    ctypes.string_at(0)


def hang(gm, example_inputs):
    time.sleep(3600)


def kill_rank1(gm, example_inputs):
    """Kills only rank 1 of a multi-rank run, mid-compile."""
    if os.environ.get("RANK") == "1":
        os.kill(os.getpid(), signal.SIGKILL)
    return gm


def hog(gm, example_inputs):
    """Allocates far more memory than any test's address-space limit allows."""
    import torch

    hoard = [torch.ones(2**28) for _ in range(64)]  # 64 GiB of float32, one GiB at a time
    return gm if hoard else gm
