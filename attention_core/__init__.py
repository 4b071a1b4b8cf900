"""attention_core: traced attention that reproduces the seed notebooks number by number.

Modules, one job each:
    sdpa       scaled dot-product attention returning a frozen trace; masks and fill conventions
    multihead  projections, seeded weight recipes, concat and split multi-head attention
    tokenizer  003's SimpleTokenizer and weightless simplified attention
    scenario   the JSON contract ``compute(scenario) -> result`` and its validation
    scenario_modern  the contract's optional modern keys (RoPE, ALiBi, kv heads, window, tiles, decoding)
    presets    every notebook example as data, with the tensors it printed; today's Llama- and Mistral-style
"""

from .multihead import MultiHeadTrace, Weights, init_weights, multi_head
from .presets import (
    Preset,
    Printed,
    all_presets,
    check,
    get_preset,
    modern_presets,
    preset_ids,
    read_preset,
    scenario_of,
)
from .scenario import MAX_D, MAX_HEADS, MAX_T, Scenario, ScenarioError, compute, evaluate, parse, result_json
from .sdpa import AttentionTrace, attend, causal_keep, padding_keep
from .tokenizer import SimpleTokenizer, simplified_attention

__all__ = [
    "MAX_D", "MAX_HEADS", "MAX_T", "AttentionTrace", "MultiHeadTrace", "Preset", "Printed", "Scenario",
    "ScenarioError", "SimpleTokenizer", "Weights", "all_presets", "attend", "causal_keep", "check", "compute",
    "evaluate", "get_preset", "init_weights", "modern_presets", "multi_head", "padding_keep", "parse", "preset_ids",
    "read_preset", "result_json", "scenario_of", "simplified_attention",
]  # fmt: skip
