"""The scenario's keys, written once: name, type, default and a one-line description.

The parser's list of known keys and the variant keys are built from :data:`KEYS`; tests/test_contract_keys.py
checks the parser's defaults and choices, the API's description (serving/api.py, also the MCP tool's) and the
page's controls (ui/values.py) against it, and that docs/contract.md is :func:`markdown` (regenerate it with
``python3 -m attention_core.contract.keys > docs/contract.md``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

ABSENT = object()  # a key whose absence means something of its own (no default value to write)


@dataclass(frozen=True)
class Key:
    """One key of the scenario object."""

    name: str
    type: str  # as JSON writes it
    default: Any  # the JSON value that means the same as leaving the key out; ABSENT when none does
    shown: str  # the default as the table shows it
    description: str
    group: str  # "input" | "layer" | "variant" | "view"
    choices: tuple[str, ...] = ()  # the words a string key takes


KEYS: tuple[Key, ...] = (
    Key("x", "number[][] (T × D)", ABSENT, "required*", "token rows for self-attention: x_q = x_k = x_v = x", "input"),
    Key("x_q", "number[][] (L × D)", ABSENT, "—", "query rows, for cross-attention (*instead of x, with x_k)", "input"),
    Key("x_k", "number[][] (S × D)", ABSENT, "—", "key rows, for cross-attention", "input"),
    Key("x_v", "number[][] (S × D)", ABSENT, "x_k", "value rows, for cross-attention", "input"),
    Key("tokens", "string[] (L)", ABSENT, "t1, t2, …", "a label per query row", "input"),
    Key("tokens_k", "string[] (S)", ABSENT, "tokens (s1, s2, … across)", "a label per key row", "input"),
    Key("heads", "int 1..8", 1, "1", "H, the number of (query) heads", "layer"),
    Key("head_mode", "string", "concat", "concat", "concat: a D→d_out projection per head; split: one D→D, split in H",
        "layer", ("concat", "split")),
    Key("layout", "string", "linear", "linear", "a stored matrix: linear out×in (x @ W.T), matmul in×out (x @ W)",
        "layer", ("linear", "matmul")),
    Key("d_out", "int 1..64", ABSENT, "D (init), W_q's width", "d, each head's width in concat mode", "layer"),
    Key("weights", "object", {"init": "linear", "seed": 42}, '{"init": "linear", "seed": 42}',
        '{"init": linear|rand|randn|identity, "seed", "w_o"} or explicit W_q, W_k, W_v, W_o and biases b_q … b_o',
        "layer"),
    Key("mask", "object", {"kind": "none"}, '{"kind": "none"}',
        '{"kind": none|causal|padding|causal+padding|custom, "padding": flags, "keep": 0/1 rows, "fill": '
        "-inf|-1e9|additive}", "layer"),
    Key("scale", "bool or number > 0", True, "true", "true: divide the scores by √d_k; false: not; a number: by it",
        "layer"),
    Key("dtype", "string", "float32", "float32", "the tensors' precision", "layer", ("float32", "float64")),
    Key("normalize", "string", "softmax", "softmax", "softmax, or 003's divide-by-sum", "layer", ("softmax", "sum")),
    Key("positions", "string", "none", "none", "sinusoidal: added to x; rope: q and k turned by position", "variant",
        ("none", "sinusoidal", "rope")),
    Key("rope_base", "number > 0", 10000.0, "10000", "RoPE's base: θ_i = base^(−2i/E)", "variant"),
    Key("alibi", "bool", False, "false", "ALiBi: −m_h·|i − j| added to the scaled scores", "variant"),
    Key("kv_heads", "int dividing heads", ABSENT, "heads", "G kv heads (grouped-query; 1 = multi-query)", "variant"),
    Key("window", "int 1..64", ABSENT, "none", "sliding window: the last w keys (causal), else the band |i − j| < w",
        "variant"),
    Key("block_rows", "int", ABSENT, "none", "B_r: also run FlashAttention's tiled online softmax", "variant"),
    Key("block_cols", "int", ABSENT, "none", "B_c, the tiles' key columns", "variant"),
    Key("decode", "bool", False, "false", "also decode token by token with a KV cache (causal self-attention)",
        "variant"),
    Key("preset", "string", ABSENT, "—", "the app's label of the preset it came from; compute ignores it", "view"),
    Key("title", "string", ABSENT, "—", "the app's title; compute ignores it", "view"),
    Key("head_shown", "int", ABSENT, "—", "which head the app shows in detail (1-based); compute ignores it", "view"),
)  # fmt: skip

NAMES = frozenset(k.name for k in KEYS)
VARIANT_KEYS = tuple(k.name for k in KEYS if k.group == "variant")


def markdown() -> str:
    """The keys as the Markdown table docs/contract.md holds."""
    rows = [
        "# The compute contract: the scenario's keys",
        "",
        "Generated from `attention_core/contract/keys.py` (`python3 -m attention_core.contract.keys > "
        "docs/contract.md`); tests/test_contract_keys.py fails when they differ.",
        "",
        "| key | type | default | description |",
        "|---|---|---|---|",
    ]
    bar = "\\|"  # a | inside a cell
    for k in KEYS:
        kind = k.type + (": " + bar.join(k.choices) if k.choices else "")
        shown, said = k.shown.replace("|", bar), k.description.replace("|", bar)
        rows.append(f"| `{k.name}` | {kind} | {shown} | {said} |")
    return "\n".join(rows) + "\n"


if __name__ == "__main__":
    print(markdown(), end="")
