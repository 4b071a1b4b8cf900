"""attention_core: traced attention that reproduces the seed notebooks number by number.

Layers, from the bottom up (each imports only the ones below it; tests/test_layers.py checks this with import-linter):
    validation  the one error type (ScenarioError) and the field parsers every layer shares
    ops         the steps as small pure functions: projections, positions, kv heads, masks, scaled dot-product
    pipeline    the attention layer assembled from the steps, with its execution strategies (tiled, KV cache)
    contract    the JSON contract ``compute(scenario) -> result``: the scenario's keys, parsed and written back
    notebooks   every notebook example as data (presets), 003's tokenizer
    teaching    explain, quiz, compare, the scaling lab, training, the real model
    export      a scenario as a runnable .py and .ipynb

The names below are the package's public face: ui/ and serving/ import only these.
"""

from .contract.record import Scenario
from .contract.scenario import (
    BIASES,
    MASK_KINDS,
    compute,
    evaluate,
    parse,
    parse_matrix,
    result_json,
)
from .contract.steps import STEPS as NOTEBOOK_STEPS
from .contract.steps import Step
from .contract.variants import VARIANT_KEYS
from .export.notebook import export_title, scenario_json, scenario_text, to_notebook, to_script
from .notebooks.presets import (
    EMBEDDINGS_003,
    SENTENCE,
    Preset,
    Printed,
    all_presets,
    check,
    decoder_presets,
    get_preset,
    preset_ids,
    read_preset,
    scenario_of,
)
from .notebooks.tokenizer import MAX_SENTENCE, SimpleTokenizer, embedding_table, shown_token, simplified_attention
from .ops.masks import causal_keep, compose_keep, padding_keep
from .ops.positions import ROPE_BASE
from .ops.projections import LAYOUTS, MODES, Weights, init_weights, merge_heads, project
from .ops.sdpa import attend, compare_fills, fill_verdicts
from .ops.trace import Trace, Variants
from .pipeline.layer import multi_head
from .teaching import compare, quiz, real_model, train
from .teaching.compare import MASKED, MOVED, SAME, UNMASKED, CompareError, diff, snapshot
from .teaching.explain import NAMES as EXPLAINABLE
from .teaching.explain import explain
from .teaching.explain import sources as explain_sources
from .teaching.quiz import Grade, Question, QuizError, Tally
from .teaching.scaling import MAX_DK, MIN_DK, scaling_lab
from .teaching.train import LOSS_LATEX, LOSS_TEXT, TrainState
from .validation.errors import ScenarioError
from .validation.fields import MAX_ABS, MAX_D, MAX_HEADS, MAX_SEED, MAX_T, parse_choice, parse_int, parse_number

__all__ = [
    "BIASES", "EMBEDDINGS_003", "EXPLAINABLE", "LAYOUTS", "LOSS_LATEX", "LOSS_TEXT", "MASKED", "MASK_KINDS", "MAX_ABS",
    "MAX_D", "MAX_DK", "MAX_HEADS", "MAX_SEED", "MAX_SENTENCE", "MAX_T", "MIN_DK", "MODES", "MOVED", "NOTEBOOK_STEPS",
    "ROPE_BASE", "SAME", "SENTENCE", "UNMASKED", "VARIANT_KEYS", "CompareError", "Grade", "Preset", "Printed",
    "Question", "QuizError", "Scenario", "ScenarioError", "SimpleTokenizer", "Step", "Tally", "Trace", "TrainState",
    "Variants", "Weights", "all_presets", "attend", "causal_keep", "check", "compare", "compare_fills", "compose_keep",
    "compute", "decoder_presets", "diff", "embedding_table", "evaluate", "explain", "explain_sources", "export_title",
    "fill_verdicts", "get_preset", "init_weights", "merge_heads", "multi_head", "padding_keep", "parse", "parse_choice",
    "parse_int", "parse_matrix", "parse_number", "preset_ids", "project", "quiz", "read_preset", "real_model",
    "result_json", "scaling_lab", "scenario_json", "scenario_of", "scenario_text", "shown_token",
    "simplified_attention", "snapshot", "to_notebook", "to_script", "train",
]  # fmt: skip
