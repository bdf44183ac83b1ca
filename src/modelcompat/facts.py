"""Model facts from config.json and safetensors headers: never a weight download, never a weight load."""

from __future__ import annotations

import hashlib
import json
import re
import struct
from dataclasses import asdict, dataclass
from pathlib import Path

from .errors import GatedModel, MalformedConfig, ModelNotFound, RemoteCodeRequired, UnsafeModelId

HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*(/[\w.-]+)?$")
DTYPE_BYTES = {"F64": 8, "F32": 4, "BF16": 2, "F16": 2, "I64": 8, "I32": 4, "I16": 2, "I8": 1, "U8": 1,
               "F8_E4M3": 1, "F8_E5M2": 1, "BOOL": 1, "float32": 4, "bfloat16": 2, "float16": 2, "float64": 8}
SAFETENSORS_DTYPES = {"F32": "float32", "BF16": "bfloat16", "F16": "float16", "F64": "float64"}


@dataclass(frozen=True)
class ModelFacts:
    model_id: str
    revision: str
    local: bool
    model_type: str | None
    architecture: str | None
    num_params: int | None
    weight_bytes: int | None
    dtype: str | None
    num_layers: int | None
    hidden_size: int | None
    num_heads: int | None
    num_kv_heads: int | None
    head_dim: int | None
    num_experts: int | None
    has_tp_plan: bool
    default_task: str = "text-generation"

    def to_dict(self) -> dict:
        return asdict(self)


def check_model_id(model_id: str) -> Path | None:
    """The local folder for `model_id`, or None for a Hub id. Refuses ids that could escape a folder."""
    if "\0" in model_id or "\\" in model_id or ".." in Path(model_id).parts:
        raise UnsafeModelId(model_id)
    path = Path(model_id).expanduser()
    if path.is_dir():
        return path.resolve()
    if model_id.startswith(("/", "~", ".")) or path.exists():
        raise ModelNotFound(model_id, "there is no folder at that path")
    if not HUB_ID.match(model_id):
        raise ModelNotFound(model_id, "it is neither a local folder nor a Hub id of the form org/name")
    return None


def read_config(path: Path) -> dict:
    if not path.exists():
        raise ModelNotFound(str(path.parent), "the folder has no config.json")
    try:
        config = json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise MalformedConfig(str(path), str(exc)) from None
    if not isinstance(config, dict):
        raise MalformedConfig(str(path), "config.json is not a JSON object")
    return config


def safetensors_header(path: Path) -> dict:
    with open(path, "rb") as f:
        raw = f.read(8)
        if len(raw) < 8:
            raise MalformedConfig(str(path), "safetensors file is truncated")
        (size,) = struct.unpack("<Q", raw)
        if size > 100_000_000:
            raise MalformedConfig(str(path), f"safetensors header declares {size} bytes")
        try:
            return json.loads(f.read(size))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise MalformedConfig(str(path), f"corrupt safetensors header: {exc}") from None


def count_tensors(headers: list[dict]) -> tuple[int, int, dict[str, int]]:
    """(parameters, bytes, parameters per dtype) over safetensors headers."""
    params, nbytes, by_dtype = 0, 0, {}
    for header in headers:
        for name, info in header.items():
            if name == "__metadata__":
                continue
            numel = 1
            for dim in info["shape"]:
                numel *= dim
            params += numel
            nbytes += numel * DTYPE_BYTES.get(info["dtype"], 4)
            by_dtype[info["dtype"]] = by_dtype.get(info["dtype"], 0) + numel
    return params, nbytes, by_dtype


def folder_revision(folder: Path) -> str:
    """Content identity of a local checkpoint: sha256 over every file's name and bytes."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and not p.name.startswith(".")):
        digest.update(str(path.relative_to(folder)).encode())
        with open(path, "rb") as f:
            while chunk := f.read(1 << 20):
                digest.update(chunk)
    return "local:" + digest.hexdigest()[:16]


def text_config(config: dict) -> dict:
    return config.get("text_config") or config.get("llm_config") or config


def has_tp_plan(config: dict) -> bool:
    text = text_config(config)
    if text.get("base_model_tp_plan"):
        return True
    try:
        from transformers import CONFIG_MAPPING

        return bool(getattr(CONFIG_MAPPING[text.get("model_type", "")], "base_model_tp_plan", None))
    except (KeyError, ImportError):
        return False


ALIASES = {"num_attention_heads": ("n_head", "num_heads"), "num_hidden_layers": ("n_layer", "num_layers"),
           "hidden_size": ("n_embd", "d_model")}  # older configs' names for the same numbers


def get(config: dict, key: str):
    return next((config[k] for k in (key, *ALIASES.get(key, ())) if config.get(k) is not None), None)


def facts_from(model_id: str, revision: str, local: bool, config: dict, weights: tuple) -> ModelFacts:
    """Pure: facts from a parsed config and (params, bytes, per-dtype) counts."""
    text = text_config(config)
    params, nbytes, by_dtype = weights
    heads, hidden = get(text, "num_attention_heads"), get(text, "hidden_size")
    dtype = config.get("dtype") or config.get("torch_dtype") or text.get("dtype") or text.get("torch_dtype")
    if not dtype and by_dtype:
        dtype = SAFETENSORS_DTYPES.get(max(by_dtype, key=by_dtype.get))
    return ModelFacts(
        model_id=model_id, revision=revision, local=local, model_type=config.get("model_type"),
        architecture=(config.get("architectures") or [None])[0], num_params=params or None,
        weight_bytes=nbytes or None, dtype=dtype, num_layers=get(text, "num_hidden_layers"),
        hidden_size=hidden, num_heads=heads,
        num_kv_heads=text.get("num_key_value_heads") or heads,
        head_dim=text.get("head_dim") or (hidden // heads if heads and hidden else None),
        num_experts=text.get("num_local_experts") or text.get("num_experts") or text.get("n_routed_experts"),
        has_tp_plan=has_tp_plan(config),
        default_task="image-text-to-text" if "vision_config" in config else "text-generation")


def check_remote_code(model_id: str, config: dict, trust_remote_code: bool) -> None:
    if config.get("auto_map") and not trust_remote_code:
        raise RemoteCodeRequired(model_id, json.dumps(config["auto_map"]))


def inspect_local(folder: Path, model_id: str, trust_remote_code: bool = False) -> ModelFacts:
    config = read_config(folder / "config.json")
    check_remote_code(model_id, config, trust_remote_code)
    headers = [safetensors_header(p) for p in sorted(folder.glob("*.safetensors"))]
    return facts_from(model_id, folder_revision(folder), True, config, count_tensors(headers))


def inspect_hub(model_id: str, revision: str | None = None, trust_remote_code: bool = False,
                endpoint: str | None = None) -> ModelFacts:
    """Config and safetensors metadata through huggingface_hub (a config download, no weights)."""
    from huggingface_hub import HfApi
    from huggingface_hub import errors as hub_errors

    api = HfApi(endpoint=endpoint)
    try:
        info = api.model_info(model_id, revision=revision)
        config = read_config(Path(api.hf_hub_download(model_id, "config.json", revision=info.sha)))
        check_remote_code(model_id, config, trust_remote_code)
        meta = api.get_safetensors_metadata(model_id, revision=info.sha)
    except hub_errors.GatedRepoError:
        raise GatedModel(model_id) from None
    except hub_errors.RepositoryNotFoundError:
        raise ModelNotFound(model_id, "no such model on the Hub (or it is private)") from None
    except hub_errors.NotASafetensorsRepoError:
        return facts_from(model_id, info.sha, False, config, (0, 0, {}))
    except (hub_errors.OfflineModeIsEnabled, hub_errors.LocalEntryNotFoundError, OSError) as exc:
        raise ModelNotFound(model_id, f"the Hub is unreachable and it is not cached ({type(exc).__name__})") from None
    counts = meta.parameter_count
    weights = (sum(counts.values()), sum(n * DTYPE_BYTES.get(d, 4) for d, n in counts.items()), dict(counts))
    return facts_from(model_id, info.sha, False, config, weights)


def inspect_model(model_id: str, revision: str | None = None, trust_remote_code: bool = False) -> ModelFacts:
    folder = check_model_id(model_id)
    if folder is not None:
        return inspect_local(folder, model_id, trust_remote_code)
    return inspect_hub(model_id, revision, trust_remote_code)
