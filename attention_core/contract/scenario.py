"""The JSON contract: ``compute(scenario: dict) -> dict``, with strict, field-naming validation.

Every bad input raises :class:`ScenarioError` (a ValueError) whose message starts with the field,
e.g. ``x_k row 2, column 1: 'abc' is not a number``. Sizes are checked before any cell is read
and before any tensor is built. Rows and columns in messages count from 1, as a table shows them.
The keys, their types, defaults and descriptions: keys.py (and docs/contract.md, generated from it).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import Tensor

from ..ops.masks import causal_keep, padding_keep
from ..ops.projections import LAYOUTS, MODES, RECIPES, Weights, init_weights
from ..ops.sdpa import FILLS
from ..pipeline.layer import Trace, multi_head
from ..validation.errors import ScenarioError
from ..validation.fields import (
    MAX_D,
    MAX_HEADS,
    MAX_SEED,
    check_keys,
    parse_array,
    parse_choice,
    parse_flag,
    parse_int,
    parse_matrix,
    parse_number,
    parse_vector,
    show,
)
from . import keys, variants
from .record import Scenario, to_json

MASK_KINDS = ("none", "causal", "padding", "causal+padding", "custom")
CAUSAL_KINDS = ("causal", "causal+padding")  # the kinds a window keeps the last w keys of (otherwise a band)
BIASES = ("b_q", "b_k", "b_v", "b_o")  # optional, in explicit weights only; absent = no bias
DTYPES = {"float32": torch.float32, "float64": torch.float64}
NORMALIZE = ("softmax", "sum")
KNOWN_KEYS = keys.NAMES  # every key, with its type, default and description: contract/keys.py


def parse_tokens(value: Any, field: str, n: int, default_prefix: str) -> list[str]:
    if value is None:
        return [f"{default_prefix}{i + 1}" for i in range(n)]
    if not isinstance(value, list) or len(value) != n:
        raise ScenarioError(field, f"must be a list of {n} labels, one per row")
    return [str(t)[:40] for t in value]


def parse_scale(value: Any) -> bool | float:
    if isinstance(value, bool):
        return value
    x = parse_number(value, "scale")
    if x <= 0:
        raise ScenarioError("scale", f"{show(value)}: a temperature must be positive")
    return x


def parse_mask(value: Any, n_q: int, n_k: int) -> tuple[str, str, Tensor | None, tuple[bool, ...] | None]:
    """-> (kind, fill, keep (L, S) or None, the padding flags (S,) for the padding kinds or None).

    The flags are kept as given: with causal+padding and L < S the last query row cannot see the last keys
    either, so they cannot be read back from ``keep``.
    """
    if value is None:
        return "none", "-inf", None, None
    if not isinstance(value, dict):
        raise ScenarioError("mask", "must be an object like {'kind': 'causal', 'fill': '-inf'}")
    check_keys(value, "mask.", {"kind", "keep", "padding", "fill"})
    kind = parse_choice(value.get("kind", "none"), "mask.kind", MASK_KINDS)
    fill = parse_choice(value.get("fill", "-inf"), "mask.fill", FILLS)
    keep: Tensor | None = None
    flags: list[bool] | None = None
    if kind in ("causal", "causal+padding"):
        keep = causal_keep(n_q, n_k)
    if kind in ("padding", "causal+padding"):
        pad = value.get("padding")
        if not isinstance(pad, list) or len(pad) != n_k:
            raise ScenarioError("mask.padding", f"must list {n_k} true/false flags, one per key")
        flags = [parse_flag(p, f"mask.padding item {j + 1}") for j, p in enumerate(pad)]
        pk = padding_keep(n_q, flags)
        keep = pk if keep is None else keep & pk
    if kind == "custom":
        grid = parse_matrix(value.get("keep"), "mask.keep", rows=n_q, cols=n_k)
        for i, row in enumerate(grid):
            for j, c in enumerate(row):
                if c not in (0.0, 1.0):
                    raise ScenarioError(f"mask.keep row {i + 1}, column {j + 1}", f"{c:g} must be 0 (hide) or 1 (keep)")
        keep = torch.tensor(grid) == 1
    return kind, fill, keep, None if flags is None else tuple(flags)


def parse_weights(
    value: Any,
    d_in: int,
    d_out: int | None,
    heads: int,
    mode: str,
    layout: str,
    dtype: torch.dtype,
    kv_heads: int | None = None,
) -> Weights:
    """Seeded ({"init", "seed", "w_o"}) or explicit ({"W_q", "W_k", "W_v", "W_o"}) weights.

    ``kv_heads`` G (grouped-query): W_k and W_v (and b_k, b_v) have G heads, concat, or G·D/H columns of
    projection, split; None is G = H.
    """
    if not isinstance(value, dict):
        raise ScenarioError("weights", "must be {'init': 'linear', 'seed': 42} or {'W_q': [...], ...}")
    if "init" in value:
        check_keys(value, "weights.", {"init", "seed", "w_o"})
        recipe = parse_choice(value["init"], "weights.init", RECIPES)
        seed = parse_int(value.get("seed", 0), "weights.seed", 0, MAX_SEED)
        width = d_in if d_out is None else d_out
        if recipe == "identity" and mode == "concat" and width != d_in:
            raise ScenarioError("weights.init", f"identity needs d_out = d_in = {d_in}, not {width}")
        w_o = parse_flag(value.get("w_o", False), "weights.w_o")
        return init_weights(recipe, seed, d_in, width, heads, mode, layout, w_o, dtype, kv_heads)
    check_keys(value, "weights.", {"W_q", "W_k", "W_v", "W_o", *BIASES})
    n_mats = heads if mode == "concat" else 1
    group = 1 if kv_heads is None else heads // kv_heads
    width = d_out if mode == "concat" else d_in
    if width is None:  # concat without d_out: the width W_q's first matrix has
        m = value.get("W_q")
        if isinstance(m, list) and m and isinstance(m[0], np.ndarray) and m[0].ndim == 2:
            width = m[0].shape[0 if layout == "linear" else 1]
        elif isinstance(m, list) and m and isinstance(m[0], list) and m[0] and isinstance(m[0][0], list):
            width = len(m[0]) if layout == "linear" else len(m[0][0])
    width = width or d_in
    mats = {
        name: _parse_mats(value.get(name), name, n, w, d_in, mode, layout, heads, dtype)
        for name, n, w in _roles(n_mats, group, width, mode)
    }
    w_o = None
    if value.get("W_o") is not None:
        cat = n_mats * width
        rows, cols = (d_in, cat) if layout == "linear" else (cat, d_in)
        wide = MAX_HEADS * MAX_D  # W_o is D × H·d (linear) or H·d × D (matmul): H·d reaches 8 × 64
        w_o = _tensor(parse_array(value["W_o"], "W_o", rows=rows, cols=cols, max_rows=wide, max_cols=wide), dtype)
    b = {
        f"b_{name[-1]}": parse_bias(value.get(f"b_{name[-1]}"), f"b_{name[-1]}", n, w, mode, dtype)
        for name, n, w in _roles(n_mats, group, width, mode)
    }
    b_o = None
    if value.get("b_o") is not None:
        if w_o is None:
            raise ScenarioError("b_o", "is added after W_o, so it needs W_o (give W_o, or leave b_o out)")
        b_o = torch.tensor(parse_vector(value["b_o"], "b_o", d_in), dtype=dtype)
    return Weights(mats["W_q"], mats["W_k"], mats["W_v"], w_o, layout, **b, b_o=b_o)


def _roles(n_mats: int, group: int, width: int, mode: str) -> list[tuple[str, int, int]]:
    """(name, matrices, width) for W_q, W_k, W_v: a group of H/G query heads shares one W_k and W_v."""
    if mode == "concat":
        return [("W_q", n_mats, width), ("W_k", n_mats // group, width), ("W_v", n_mats // group, width)]
    return [("W_q", 1, width), ("W_k", 1, width // group), ("W_v", 1, width // group)]


def _parse_mats(
    lst: Any, name: str, n: int, width: int, d_in: int, mode: str, layout: str, heads: int, dtype: torch.dtype
) -> Tensor:
    """One role's explicit matrices: ``n`` of them, each width×d_in (linear) or d_in×width (matmul) -> a tensor."""
    if not isinstance(lst, list) or len(lst) != n or not all(isinstance(m, (list, np.ndarray)) for m in lst):
        if mode == "concat":
            what = f"{n} matrices, one per {'head' if n == heads else 'kv head'}"
        else:
            what = "exactly one d_model×d_model matrix" if width == d_in else f"exactly one {width}×d_model matrix"
        raise ScenarioError(f"weights.{name}", f"must be a list of {what}")
    parsed = []
    for h, m in enumerate(lst):
        field = f"{name} head {h + 1}" if mode == "concat" else name
        rows, cols = (width, d_in) if layout == "linear" else (d_in, width)
        parsed.append(parse_array(m, field, rows=rows, cols=cols, max_rows=MAX_D))
    return _tensor(np.stack(parsed), dtype)


def _tensor(a: np.ndarray, dtype: torch.dtype) -> Tensor:
    """= ``torch.tensor(a.tolist(), dtype=dtype)`` (each float64 rounded once to ``dtype``), without the lists (a
    read-only array, one a caller shares, is copied first: torch takes only writable ones)."""
    return torch.from_numpy(np.require(a, requirements="W")).to(dtype, copy=True)


def parse_bias(value: Any, name: str, n_mats: int, width: int, mode: str, dtype: torch.dtype) -> Tensor | None:
    """Optional per-head biases: a list of ``n_mats`` vectors of ``width`` numbers -> (n_mats, width), or None."""
    if value is None:
        return None
    what = f"{n_mats} vectors, one per head" if mode == "concat" else "exactly one vector of d_model numbers"
    if not isinstance(value, list) or len(value) != n_mats or not all(isinstance(b, list) for b in value):
        raise ScenarioError(f"weights.{name}", f"must be a list of {what}")
    rows = [parse_vector(b, f"{name} head {h + 1}" if mode == "concat" else name, width) for h, b in enumerate(value)]
    return torch.tensor(rows, dtype=dtype)


def parse(scenario: Any) -> Scenario:
    """Validate a JSON-able scenario dict into tensors, or raise ScenarioError naming the field."""
    if not isinstance(scenario, dict):
        raise ScenarioError("scenario", f"must be a JSON object, not {type(scenario).__name__}")
    check_keys(scenario, "", KNOWN_KEYS)
    dtype_name = parse_choice(scenario.get("dtype", "float32"), "dtype", tuple(DTYPES))
    dtype = DTYPES[dtype_name]
    cross = any(k in scenario for k in ("x_q", "x_k", "x_v"))
    if cross and "x" in scenario:
        raise ScenarioError("x", "give either x (self-attention) or x_q and x_k (cross-attention), not both")
    if cross:
        if "x_q" not in scenario or "x_k" not in scenario:
            raise ScenarioError(
                "x_q" if "x_q" not in scenario else "x_k", "is missing (cross-attention needs x_q and x_k)"
            )
        xq = parse_array(scenario["x_q"], "x_q")
        xk = parse_array(scenario["x_k"], "x_k", cols=len(xq[0]))
        xv = parse_array(scenario["x_v"], "x_v", rows=len(xk), cols=len(xq[0])) if "x_v" in scenario else xk
    else:
        if "x" not in scenario:
            raise ScenarioError("x", "is missing: give the token encodings as a list of rows")
        xq = xk = xv = parse_array(scenario["x"], "x")
    n_q, n_k, d_in = len(xq), len(xk), len(xq[0])
    heads = parse_int(scenario.get("heads", 1), "heads", 1, MAX_HEADS)
    mode = parse_choice(scenario.get("head_mode", "concat"), "head_mode", MODES)
    layout = parse_choice(scenario.get("layout", "linear"), "layout", LAYOUTS)
    d_out = None if scenario.get("d_out") is None else parse_int(scenario["d_out"], "d_out", 1, MAX_D)
    if mode == "split":
        if d_in % heads:
            raise ScenarioError("heads", f"heads={heads} does not divide d_model={d_in} in split mode")
        if d_out not in (None, d_in):
            raise ScenarioError("d_out", f"split mode projects d_model→d_model, so d_out must be {d_in}, not {d_out}")
    elif d_out is None and isinstance(scenario.get("weights"), dict) and "init" in scenario["weights"]:
        d_out = d_in
    var = variants.parse_variants(scenario, heads)
    kv_heads = None if var is None else var.kv_heads
    weights = parse_weights(
        scenario.get("weights", {"init": "linear", "seed": 42}), d_in, d_out, heads, mode, layout, dtype, kv_heads
    )
    kind, fill, keep, padding = parse_mask(scenario.get("mask"), n_q, n_k)
    normalize = parse_choice(scenario.get("normalize", "softmax"), "normalize", NORMALIZE)
    tokens = parse_tokens(scenario.get("tokens"), "tokens", n_q, "t")
    tokens_k = parse_tokens(scenario.get("tokens_k"), "tokens_k", n_k, "s") if cross else tokens
    if not cross and scenario.get("tokens_k") is not None:
        tokens_k = parse_tokens(scenario["tokens_k"], "tokens_k", n_k, "s")
    s = Scenario(
        x_q=_tensor(xq, dtype),
        x_k=_tensor(xk, dtype),
        x_v=_tensor(xv, dtype),
        self_attention=not cross,
        tokens=tokens,
        tokens_k=tokens_k,
        heads=heads,
        head_mode=mode,
        weights=weights,
        keep=keep,
        mask_kind=kind,
        fill=fill,
        scale=parse_scale(scenario.get("scale", True)),
        dtype=dtype_name,
        normalize=normalize,
        padding=padding,
        variants=var,
    )
    if var is not None:
        variants.check_variants(var, s)
    return s


def evaluate(s: Scenario) -> Trace:
    """Run a parsed scenario through the attention layer (pipeline/layer.py): one path, whatever its keys."""
    return multi_head(
        s.x_q, s.x_k, s.x_v, s.weights, s.heads, s.head_mode, keep=s.keep, scale=s.scale, fill=s.fill,
        normalize=s.normalize, variants=s.variants, causal=s.mask_kind in CAUSAL_KINDS, padding=s.padding,
    )  # fmt: skip


def result_json(s: Scenario, tr: Trace) -> dict[str, Any]:
    """The contract's result: per-head intermediates, combined output, warnings and context."""
    a, w = tr, tr.params
    heads = []
    for h in range(tr.heads):
        parts = tr.head(h)
        head: dict[str, Any] = {n: to_json(t) for n, t in parts.items()}
        # population variance (numpy's .var()), as 004 prints it to motivate √d_k
        head["stats"] = {f"var_{n}": float(parts[n].var(unbiased=False)) for n in ("q", "k", "scores", "scaled")}
        heads.append(head)
    out = {
        "heads": heads,
        "concat": to_json(tr.concat),
        "output": to_json(tr.output),
        "warnings": list(a.warnings),
        "fully_masked_rows": list(a.fully_masked_rows),
        "keep": None if a.keep is None else a.keep.int().tolist(),
        "d_k": int(a.k.shape[-1]),
        "divisor": a.divisor,
        "weights_used": {
            "layout": w.layout,
            "W_q": to_json(w.W_q),
            "W_k": to_json(w.W_k),
            "W_v": to_json(w.W_v),
            "W_o": None if w.W_o is None else to_json(w.W_o),
            **{n: to_json(getattr(w, n)) for n in BIASES if getattr(w, n) is not None},  # only when given
        },
        "tokens": s.tokens,
        "tokens_k": s.tokens_k,
        "dtype": s.dtype,
    }
    if tr.variants is not None:
        out.update(variants.variants_json(tr))
    return out


def compute(scenario: dict[str, Any]) -> dict[str, Any]:
    """The JSON contract: a scenario dict in, every intermediate as plain lists out.

    Raises ScenarioError (a ValueError) whose message names the offending field.
    """
    s = parse(scenario)
    return result_json(s, evaluate(s))
