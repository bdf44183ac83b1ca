#!/usr/bin/env python
"""modelcompat test protocol: does this checkpoint generate under torch.compile on this device?

Loads a checkpoint with from_pretrained, shards it over --cores ranks (tensor parallel, plus expert parallel for
MoE with --ep) when asked, and generates --tokens tokens greedily with a static KV cache under
torch.compile(backend=...). It proves compilation happened (a silent eager fallback is an error) and writes a
JSON report. Uses only the standard library, torch and transformers, so anyone can rerun it:

    python run.py --model HF_ID_OR_PATH --device cpu --backend inductor --report report.json

Several cores: the script starts its own torch.distributed processes (no torchrun); rank 0's tokens are reported
and every rank's peak memory is merged. `--backend none` runs plain eager (the CPU reference).
"""

import argparse
import importlib
import json
import os
import resource
import signal
import socket
import sys
import time
import traceback

PROMPT = "Write a short story about a robot who learns to paint."
IMAGE_PROMPT = "Describe this image in one sentence."
DIST_BACKENDS = {"cpu": "gloo", "cuda": "nccl", "xpu": "xccl", "neuron": "neuron"}
GIB = 2**30


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", required=True, help="Hub id or local folder")
    p.add_argument("--revision", default=None)
    p.add_argument("--task", default="text-generation", choices=["text-generation", "image-text-to-text"])
    p.add_argument("--device", default="cpu", help="torch device type: cpu, cuda, neuron")
    p.add_argument("--backend", default="inductor", help="torch.compile backend, module:callable, or none")
    p.add_argument("--tokens", type=int, default=32)
    p.add_argument("--cores", type=int, default=1, help="ranks to start")
    p.add_argument("--tp", type=int, default=None, help="tensor-parallel degree (default: --cores)")
    p.add_argument("--ep", type=int, default=1, help="expert-parallel degree for MoE models")
    p.add_argument("--dist-backend", default=None, help="process-group backend (default from --device)")
    p.add_argument("--dtype", default="auto")
    p.add_argument("--prompt", default=None)
    p.add_argument("--trust-remote-code", action="store_true")
    p.add_argument("--report", default="report.json")
    args = p.parse_args(argv)
    args.tp = args.tp or args.cores
    return args


def write_json(path, data):
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        json.dump(data, f, indent=1)
    os.replace(tmp, path)


def resolve_backend(name):
    if ":" not in name:
        return name
    module, attr = name.split(":", 1)
    return getattr(importlib.import_module(module), attr)


def import_device_module(device):
    if device == "neuron":  # TorchNeuron registers the device and the "neuron" compile backend
        importlib.import_module("torch_neuronx")


def init_distributed(rank, args, port):
    import torch.distributed as dist

    os.environ.update(RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE=str(args.cores),
                      MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    if args.device != "cpu":
        import torch

        torch.accelerator.set_device_index(rank)
    dist.init_process_group(args.dist_backend or DIST_BACKENDS.get(args.device, "gloo"))


def distributed_config(args):
    from transformers.distributed import DistributedConfig

    if args.tp > 1 and args.ep > 1:
        return DistributedConfig(tp_plan="auto", ep_size=args.ep)
    if args.ep > 1:  # experts split over ranks; the rest sharded FSDP-style (transformers needs ep | fsdp * tp)
        return DistributedConfig(fsdp_size=args.cores, ep_size=args.ep)
    return DistributedConfig(tp_plan="auto")


def load(args):
    import transformers as tf

    auto = tf.AutoModelForImageTextToText if args.task == "image-text-to-text" else tf.AutoModelForCausalLM
    proc = tf.AutoProcessor if args.task == "image-text-to-text" else tf.AutoTokenizer
    common = dict(revision=args.revision, trust_remote_code=args.trust_remote_code)
    kwargs = dict(common, dtype=args.dtype)
    if args.cores > 1:
        kwargs["distributed_config"] = distributed_config(args)
    model = auto.from_pretrained(args.model, **kwargs)
    if args.cores == 1:
        model = model.to(args.device)
    return model.eval(), proc.from_pretrained(args.model, **common)


def test_image():
    """A deterministic 64x64 RGB gradient with a square, as a CHW uint8 tensor."""
    import torch

    y, x = torch.meshgrid(torch.arange(64), torch.arange(64), indexing="ij")
    img = torch.stack([x * 4, y * 4, (x + y) * 2]).clamp(0, 255)
    img[:, 16:48, 16:48] = torch.tensor([200, 30, 30]).view(3, 1, 1)
    return img.to(torch.uint8)


def build_inputs(args, processor, device):
    tokenizer = getattr(processor, "tokenizer", processor)
    if args.task == "image-text-to-text":
        text = args.prompt or IMAGE_PROMPT
        if getattr(processor, "chat_template", None):
            chat = [{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": text}]}]
            text = processor.apply_chat_template(chat, add_generation_prompt=True, tokenize=False)
        else:
            text = f"{getattr(processor, 'image_token', '<image>')}\n{text}"
        inputs = processor(images=test_image(), text=text, return_tensors="pt")
    elif getattr(tokenizer, "chat_template", None):
        chat = [{"role": "user", "content": args.prompt or PROMPT}]
        inputs = tokenizer.apply_chat_template(chat, add_generation_prompt=True, return_dict=True,
                                               return_tensors="pt")
    else:
        inputs = tokenizer(args.prompt or PROMPT, return_tensors="pt")
    return {k: v.to(device) for k, v in dict(inputs).items()}, tokenizer


def compile_model(model, backend):
    import torch

    if backend != "none":
        model.forward = torch.compile(model.forward, backend=resolve_backend(backend), dynamic=False)


def compiled_graphs():
    from torch._dynamo.utils import counters

    return counters["stats"]["unique_graphs"]


def compile_cache_counts():
    """Inductor's on-disk FX graph cache hits and misses in this process (empty for other backends)."""
    from torch._dynamo.utils import counters

    keys, found = ("fxgraph_cache_hit", "fxgraph_cache_miss"), counters["inductor"]
    return {k: found[k] for k in keys} if any(k in found for k in keys) else {}


def generate(model, inputs, tokens, pad_id):
    import torch

    start = time.perf_counter()
    with torch.no_grad():
        out = model.generate(**inputs, max_new_tokens=tokens, min_new_tokens=tokens, do_sample=False,
                             cache_implementation="static", disable_compile=True, pad_token_id=pad_id)
    return out[0, inputs["input_ids"].shape[1]:].tolist(), time.perf_counter() - start


def is_compiler_error(exc):
    return type(exc).__module__.startswith(("torch._dynamo", "torch._inductor"))


def local_param_numel(model):
    return sum(p.to_local().numel() if hasattr(p, "to_local") else p.numel() for p in model.parameters())


def enter(report, stage, path):
    """Record the stage on disk before doing it, so a process killed mid-stage still says where it died."""
    report["stage"] = stage
    write_json(path, report)


def run_protocol(args, report, device, path):
    enter(report, "load", path)
    start = time.perf_counter()
    model, processor = load(args)
    report.update(load_s=time.perf_counter() - start, dtype=str(model.dtype).replace("torch.", ""),
                  local_param_numel=local_param_numel(model))
    inputs, tokenizer = build_inputs(args, processor, device)
    pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    enter(report, "compile", path)
    compile_model(model, args.backend)
    try:
        first_ids, first_s = generate(model, inputs, args.tokens, pad_id)
    except Exception as exc:
        report["stage"] = "compile" if is_compiler_error(exc) else "generate"
        raise
    report["graphs"] = compiled_graphs()
    report["compile_cache"] = compile_cache_counts()
    if args.backend != "none" and report["graphs"] == 0:
        raise RuntimeError(f"generation ran uncompiled: backend {args.backend!r} compiled no graph")
    enter(report, "generate", path)
    ids, warm_s = generate(model, inputs, args.tokens, pad_id)
    if ids != first_ids:
        report["notes"] = "warm generate differs from the first; the warm tokens are reported"
    report.update(token_ids=ids, text=tokenizer.decode(ids, skip_special_tokens=True), generate_s=warm_s,
                  compile_s=max(first_s - warm_s, 0.0) if args.backend != "none" else None,
                  first_generate_s=first_s, tokens_per_s=len(ids) / warm_s if warm_s else None)


def record_memory(report, device):
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / GIB
    report["host_rss_peak_gb"] = rss
    report["device_mem_peak_gb"] = rss
    if device != "cpu":
        import torch

        report["device_mem_peak_gb"] = torch.accelerator.max_memory_allocated() / GIB


def run_rank(rank, args, port=None):
    """One rank's whole protocol; always writes this rank's report, returns True on success."""
    path = rank_report_path(args.report, rank, args.cores)
    report = {"rank": rank, "status": "running", "stage": "load", "device": args.device, "backend": args.backend,
              "cores": args.cores, "tp": args.tp, "ep": args.ep, "pid": os.getpid()}
    try:
        import_device_module(args.device)
        if args.cores > 1:
            enter(report, "shard", path)
            init_distributed(rank, args, port)
        device = f"{args.device}:{rank}" if args.cores > 1 and args.device != "cpu" else args.device
        run_protocol(args, report, device, path)
        report["status"] = "ok"
    except BaseException as exc:
        report.update(status="oom" if is_out_of_memory(exc) else "error", error_type=type(exc).__name__,
                      error=trimmed_traceback(exc))
    finally:
        record_memory(report, args.device)
        write_json(path, report)
    return report["status"] == "ok"


def is_out_of_memory(exc):
    text = str(exc).lower()
    return isinstance(exc, MemoryError) or "out of memory" in text or "can't allocate memory" in text


def trimmed_traceback(exc, limit=40):
    lines = "".join(traceback.format_exception(exc)).splitlines()
    if len(lines) > limit:
        lines = lines[:8] + [f"... {len(lines) - limit} lines trimmed ..."] + lines[-(limit - 8):]
    return "\n".join(lines)


def rank_report_path(report, rank, cores):
    return report if cores == 1 else f"{report}.rank{rank}"


def die_with_launcher():
    """Linux: a rank is killed when its launcher dies, so a killed test leaves no orphan rank."""
    try:
        import ctypes

        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def rank_entry(rank, args, port):
    die_with_launcher()
    if not run_rank(rank, args, port):
        sys.exit(1)  # a failed rank takes the group down: the launcher terminates the others


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def launch_ranks(args):
    """Start --cores ranks with torch.multiprocessing; returns a description of a rank death, or None."""
    import torch.multiprocessing as mp

    context = mp.start_processes(rank_entry, args=(args, free_port()), nprocs=args.cores, join=False,
                                 start_method="spawn")
    try:
        while not context.join():
            pass
    except mp.ProcessExitedException as exc:
        return {"rank": exc.error_index, "exit_code": exc.exit_code, "signal": exc.signal_name}
    except mp.ProcessRaisedException as exc:
        return {"rank": exc.error_index, "exit_code": 1, "signal": None, "error": str(exc)}
    return None


def merge_reports(args, death):
    ranks = []
    for rank in range(args.cores):
        path = rank_report_path(args.report, rank, args.cores)
        if os.path.exists(path):
            with open(path) as f:
                ranks.append(json.load(f))
            os.remove(path)
    failed = [r for r in ranks if r["status"] != "ok"]
    merged = dict(failed[0] if failed else next((r for r in ranks if r["rank"] == 0), {}))
    if death and (death.get("signal") or not failed):
        merged.update(status="crash", rank=death["rank"], error_type=death.get("signal") or "exit",
                      error=f"rank {death['rank']} died: " + (f"signal {death['signal']}" if death.get("signal")
                                                              else f"exit code {death['exit_code']}"))
    for key in ("host_rss_peak_gb", "device_mem_peak_gb"):
        merged[key] = max((r.get(key) or 0.0 for r in ranks), default=None)
    merged["ranks"] = [{k: r.get(k) for k in ("rank", "status", "stage", "pid", "local_param_numel",
                                              "host_rss_peak_gb", "device_mem_peak_gb")} for r in ranks]
    merged.setdefault("stage", "shard")
    if merged.get("status", "running") == "running":
        merged.update(status="crash", error_type="exit", error="a rank ended without a final report")
    return merged


def main(argv=None):
    args = parse_args(argv)
    if args.cores == 1:
        return 0 if run_rank(0, args) else 1
    report = merge_reports(args, launch_ranks(args))
    write_json(args.report, report)
    return 0 if report["status"] == "ok" else 1


if __name__ == "__main__":
    sys.exit(main())
