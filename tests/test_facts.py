import json
import shutil

import pytest

from modelcompat.errors import MalformedConfig, ModelNotFound, RemoteCodeRequired
from modelcompat.facts import inspect_model


@pytest.mark.parametrize("name, experts", [("tiny-llama", None), ("tiny-qwen3-moe", 4), ("tiny-mixtral", 4)])
def test_facts_match_the_loaded_model_without_loading_it(fixture_dir, name, experts):
    from transformers import AutoModelForCausalLM

    facts = inspect_model(str(fixture_dir / name))
    model = AutoModelForCausalLM.from_pretrained(fixture_dir / name)
    assert facts.num_params == model.num_parameters()
    assert facts.weight_bytes == facts.num_params * 4 and facts.dtype == "float32"
    assert (facts.num_heads, facts.num_kv_heads, facts.num_layers) == (4, 2, 2)
    assert facts.num_experts == experts and facts.has_tp_plan
    assert facts.local and facts.revision.startswith("local:")


def test_vision_model_facts_come_from_the_text_config(fixture_dir):
    facts = inspect_model(str(fixture_dir / "tiny-llava"))
    assert facts.default_task == "image-text-to-text" and facts.num_heads == 4 and facts.model_type == "llava"


def test_revision_is_content_identity(fixture_dir, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(fixture_dir / "tiny-llama", copy)
    assert inspect_model(str(copy)).revision == inspect_model(str(fixture_dir / "tiny-llama")).revision
    (copy / "generation_config.json").write_text("{}")
    assert inspect_model(str(copy)).revision != inspect_model(str(fixture_dir / "tiny-llama")).revision


def test_corrupt_safetensors_header_is_named(fixture_dir, tmp_path):
    copy = tmp_path / "corrupt"
    shutil.copytree(fixture_dir / "tiny-llama", copy)
    data = (copy / "model.safetensors").read_bytes()
    (copy / "model.safetensors").write_bytes(data[:8] + b"{not json" + data[17:])
    with pytest.raises(MalformedConfig, match="safetensors"):
        inspect_model(str(copy))


def test_truncated_safetensors_is_named(tmp_path, fixture_dir):
    copy = tmp_path / "trunc"
    shutil.copytree(fixture_dir / "tiny-llama", copy)
    (copy / "model.safetensors").write_bytes(b"\x01\x02")
    with pytest.raises(MalformedConfig, match="truncated"):
        inspect_model(str(copy))


def test_empty_folder_and_config_that_is_not_an_object(tmp_path):
    with pytest.raises(ModelNotFound, match="no config.json"):
        inspect_model(str(tmp_path))
    (tmp_path / "config.json").write_text("[1, 2]")
    with pytest.raises(MalformedConfig, match="not a JSON object"):
        inspect_model(str(tmp_path))


def test_remote_code_is_detected_from_auto_map(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "x", "auto_map": {"AutoModel": "m.M"}}))
    with pytest.raises(RemoteCodeRequired):
        inspect_model(str(tmp_path))
    assert inspect_model(str(tmp_path), trust_remote_code=True).model_type == "x"


def test_hub_facts_come_from_metadata_calls(fixture_dir, monkeypatch, tmp_path):
    """inspect_hub against a local stand-in Hub (tests/cache_hubserver.py): model info, config.json and the
    safetensors header, never the weights; the facts equal those read from the same folder locally."""
    from cache_hubserver import CacheHubServer, FakeModelRepo
    from huggingface_hub import constants

    from modelcompat.facts import inspect_hub

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    folder = fixture_dir / "tiny-qwen3-moe"
    repo = FakeModelRepo("org/tiny-moe", exists=True)
    repo.files.update({p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()})
    server = CacheHubServer(repo)
    try:
        facts = inspect_hub("org/tiny-moe", endpoint=server.url)
    finally:
        server.close()
    local = inspect_model(str(folder))
    assert facts.revision == repo.sha and not facts.local
    assert (facts.num_params, facts.num_experts, facts.num_heads) == (local.num_params, 4, 4)
    assert not list((tmp_path / "hf").rglob("model.safetensors"))  # the header was read, the weights not saved
