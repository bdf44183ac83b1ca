"""The planner on the real published config numbers of well-known models (literal dicts, no weights)."""

import pytest

from modelcompat.facts import facts_from
from modelcompat.plan import GIB, Limits, make_plan, parse_size

NEURON = Limits(core_memory=24 * GIB, max_cores=16, degrees=(1, 2, 4, 8, 16))
BF16, FP32 = 2, 4


def llama(hidden, layers, heads, kv, **extra):
    return dict(model_type="llama", architectures=["LlamaForCausalLM"], hidden_size=hidden,
                num_hidden_layers=layers, num_attention_heads=heads, num_key_value_heads=kv,
                torch_dtype="bfloat16", **extra)


CONFIGS = {
    "Llama-3.1-8B": (llama(4096, 32, 32, 8), 8_030_261_248),
    "Llama-3.1-70B": (llama(8192, 80, 64, 8), 70_553_706_496),
    "Llama-3.1-405B": (llama(16384, 126, 128, 8), 405_853_388_800),
    "Qwen3-0.6B": (dict(llama(1024, 28, 16, 8), model_type="qwen3", head_dim=128), 751_632_384),
    "Qwen3-30B-A3B": (dict(llama(2048, 48, 32, 4), model_type="qwen3_moe", head_dim=128, num_experts=128,
                           num_experts_per_tok=8), 30_532_122_624),
    "Mixtral-8x7B": (dict(llama(4096, 32, 32, 8), model_type="mixtral", num_local_experts=8), 46_702_792_704),
    "gpt-oss-20b": (dict(llama(2880, 24, 64, 8), model_type="gpt_oss", head_dim=64, num_local_experts=32),
                    20_914_757_184),
    "SmolLM2-135M": (llama(576, 30, 9, 3), 134_515_008),
    "Mistral-7B": (dict(llama(4096, 32, 32, 8), model_type="mistral"), 7_241_732_096),
    "gpt2-xl": (dict(model_type="gpt2", n_embd=1600, n_layer=48, n_head=25), 1_557_611_200),
    "DBRX-odd": (dict(model_type="dbrx", num_attention_heads=48, num_key_value_heads=8, num_hidden_layers=40,
                      hidden_size=6144, num_local_experts=7, torch_dtype="bfloat16"), 132_000_000_000),
}


def facts(name, bytes_per_param=BF16, weight_bytes=None):
    config, params = CONFIGS[name]
    weights = (params, weight_bytes or params * bytes_per_param, {})
    return facts_from(name, "sha", False, config, weights)


@pytest.mark.parametrize("name, expected", [
    ("Llama-3.1-8B", (1, 1, 1)),
    ("Llama-3.1-70B", (8, 8, 1)),
    ("Qwen3-0.6B", (1, 1, 1)),
    ("Qwen3-30B-A3B", (4, 4, 4)),
    ("Mixtral-8x7B", (8, 8, 8)),
    ("SmolLM2-135M", (1, 1, 1)),
    ("Mistral-7B", (1, 1, 1)),
    ("gpt2-xl", (1, 1, 1)),
])
def test_neuron_plans_for_real_models(name, expected):
    plan = make_plan(facts(name), NEURON)
    assert plan.runnable and (plan.cores, plan.tp, plan.ep) == expected


def test_gpt_oss_20b_mxfp4_fits_one_core():
    plan = make_plan(facts("gpt-oss-20b", weight_bytes=13_761_264_768), NEURON)
    assert (plan.cores, plan.tp, plan.ep) == (1, 1, 1)


def test_gpt_oss_20b_in_bf16_needs_tp_and_ep():
    """41.8 GB of bf16: 2 cores need 24.3 GiB each with the margin, so 4 (TP 4 + EP 4 over 32 experts)."""
    plan = make_plan(facts("gpt-oss-20b"), NEURON)
    assert (plan.cores, plan.tp, plan.ep) == (4, 4, 4)


def test_llama_405b_is_too_large_for_16_neuron_cores():
    plan = make_plan(facts("Llama-3.1-405B"), NEURON)
    assert not plan.runnable and plan.exclusion.startswith("too large for 16 cores")


def test_fp32_doubles_the_need():
    assert make_plan(facts("Llama-3.1-8B", FP32), NEURON).cores == 2


def test_heads_not_divisible_skip_to_the_next_valid_degree():
    """SmolLM2 has 9 heads and 3 KV heads: it shards at 3, never at 2."""
    limits = Limits(core_memory=int(0.2 * GIB), max_cores=16)
    plan = make_plan(facts("SmolLM2-135M"), limits)
    assert (plan.cores, plan.tp) == (3, 3)


def test_neuron_degrees_exclude_three():
    limits = Limits(core_memory=int(0.2 * GIB), max_cores=16, degrees=(1, 2, 4, 8, 16))
    plan = make_plan(facts("SmolLM2-135M"), limits)
    assert not plan.runnable and "9 heads, 3 KV heads" in plan.exclusion


def test_moe_without_tp_plan_uses_expert_parallel_only():
    limits = Limits(core_memory=48 * GIB, max_cores=16)
    plan = make_plan(facts("DBRX-odd"), limits)
    assert (plan.cores, plan.tp, plan.ep) == (7, 1, 7)  # 7 experts: only degrees 1 and 7 split them


def test_odd_expert_count_on_neuron_degrees_is_skipped():
    plan = make_plan(facts("DBRX-odd"), NEURON)
    assert not plan.runnable and "7 experts" in plan.exclusion and "TP plan: no" in plan.exclusion


def test_dense_model_without_tp_plan_cannot_shard():
    limits = Limits(core_memory=1 * GIB, max_cores=16)
    plan = make_plan(facts("gpt2-xl"), limits)
    assert not plan.runnable and plan.exclusion.startswith("too large for 16 cores")
    assert "25 heads" in plan.exclusion and "TP plan: no" in plan.exclusion  # gpt2 names: n_head, n_layer


def test_a_cores_limit():
    limits = Limits(core_memory=24 * GIB, max_cores=4, degrees=(1, 2, 4, 8, 16))
    plan = make_plan(facts("Llama-3.1-70B"), limits)
    assert not plan.runnable and plan.exclusion.startswith("too large for 4 cores")


def test_forced_cores_are_used_even_when_one_would_fit():
    plan = make_plan(facts("SmolLM2-135M"), NEURON, cores=3)
    assert (plan.cores, plan.tp, plan.ep) == (3, 3, 1)


def test_forced_cores_that_cannot_split_are_excluded():
    plan = make_plan(facts("SmolLM2-135M"), NEURON, cores=2)
    assert not plan.runnable and plan.exclusion.startswith("cannot split over 2 cores")


def test_kv_cache_and_margin_are_counted():
    plan = make_plan(facts("Llama-3.1-8B"), NEURON)
    weights = CONFIGS["Llama-3.1-8B"][1] * BF16
    kv = 2 * 32 * 8 * 128 * (64 + 32) * BF16
    assert plan.bytes_per_core == int((weights + kv) * 1.25)


def test_more_tokens_need_more_memory():
    small = make_plan(facts("Llama-3.1-8B"), NEURON, tokens=32).bytes_per_core
    assert make_plan(facts("Llama-3.1-8B"), NEURON, tokens=4096).bytes_per_core > small


@pytest.mark.parametrize("text, expected", [
    ("24GiB", 24 * GIB), ("512MB", 512 * 2**20), ("0.5", GIB // 2), ("800K", 800 * 1024), ("1.5 gb", int(1.5 * GIB)),
])
def test_parse_size(text, expected):
    assert parse_size(text) == expected


def test_parse_size_rejects_garbage():
    with pytest.raises(ValueError, match="not a size"):
        parse_size("lots")
