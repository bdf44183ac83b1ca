import ast
import hashlib
import subprocess
import sys

from modelcompat import fixtures
from modelcompat.provenance import RUN_PY


def digests(folder):
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def test_fixtures_are_deterministic(tmp_path, fixture_dir):
    fixtures.build_all(tmp_path, ("tiny-llama", "tiny-llava"))
    for name in ("tiny-llama", "tiny-llava"):
        assert digests(tmp_path / name) == digests(fixture_dir / name)


def test_tokenizer_is_trained_on_english_prose():
    tok = fixtures.train_tokenizer()
    ids = tok("The return statement leaves the current function call.")["input_ids"]
    assert len(tok) > 900 and len(ids) < 20  # common English words are single tokens
    assert tok.decode(ids) == "The return statement leaves the current function call."


def test_cli_builds_fixtures(tmp_path):
    out = subprocess.run([sys.executable, "-m", "modelcompat", "fixtures", str(tmp_path), "--only", "tiny-qwen3"],
                         capture_output=True, text=True)
    assert out.returncode == 0 and (tmp_path / "tiny-qwen3" / "model.safetensors").exists()
    out = subprocess.run([sys.executable, "-m", "modelcompat", "fixtures", str(tmp_path), "--only", "tiny-lama"],
                         capture_output=True, text=True)
    assert out.returncode == 2 and "Did you mean 'tiny-llama'?" in out.stderr


def test_run_py_uses_only_stdlib_torch_and_transformers():
    tree = ast.parse(RUN_PY.read_text())
    modules = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    modules |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    allowed = set(sys.stdlib_module_names) | {"torch", "transformers"}
    assert modules <= allowed, modules - allowed


def test_smollm2_is_a_real_pretrained_model(smollm2):
    from transformers import AutoConfig

    config = AutoConfig.from_pretrained(smollm2)
    assert (config.num_attention_heads, config.num_key_value_heads, config.hidden_size) == (9, 3, 576)
