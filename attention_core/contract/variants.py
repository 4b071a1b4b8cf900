"""The contract's optional variant keys: RoPE or sinusoidal positions, ALiBi, grouped-query heads, a sliding window,
FlashAttention's tiles and KV-cache decoding, parsed, evaluated on the scenario's own weights, and written as JSON.

Symbols: L queries, S keys, D = d_model, H query heads, G kv heads (G divides H), E head width (d_out in concat mode,
D/H in split mode), B_r × B_c a tile. The order is a decoder layer's:

    x (+ sinusoidal PE) ─ W_q (H heads), W_k, W_v (G heads) ─ RoPE on q, k ─ q kᵀ / s ─ + ALiBi ─ mask (the scenario's
      mask ∧ the window) ─ the fill and the normalisation the scenario names ─ · v (each query head reads its group's)

With none of the keys set (or each at its default) :func:`parse_variants` returns None and the scenario runs the plain
path: every result stays as it always was. Setting ``kv_heads`` = ``heads`` alone is that plain path too.

``scenario.py`` imports this module; this one reads the shared parsers from ``validation`` and the record from
``record.py``, so there is no cycle.
"""

from __future__ import annotations

import math
from typing import Any

from torch import Tensor

from ..ops.positions import ROPE_BASE
from ..ops.trace import Trace, Variants
from ..pipeline.kv_cache import DecodeTrace
from ..pipeline.tiled import Tile, TiledTrace
from ..validation.errors import ScenarioError
from ..validation.fields import MAX_T, parse_choice, parse_flag, parse_int, parse_number
from . import keys
from .record import Scenario
from .record import to_json as js

POSITIONS = ("none", "sinusoidal", "rope")
VARIANT_KEYS = keys.VARIANT_KEYS  # positions, rope_base, alibi, kv_heads, window, block_rows, block_cols, decode
MAX_BLOCKS = 8  # row blocks and column blocks at most: 64 tiles a head, so the JSON stays small


def parse_variants(sc: dict[str, Any], heads: int) -> Variants | None:
    """The variant keys of scenario ``sc`` (``heads`` H already parsed), or None when every one is at its default."""
    positions = parse_choice(sc.get("positions", "none"), "positions", POSITIONS)
    base = ROPE_BASE
    if sc.get("rope_base") is not None:
        base = parse_number(sc["rope_base"], "rope_base")
        if base <= 0:
            raise ScenarioError("rope_base", f"{base:g} must be above 0 (Llama uses 10000, Llama 3 500000)")
    kv = None
    if sc.get("kv_heads") is not None:
        kv = parse_int(sc["kv_heads"], "kv_heads", 1, heads)
        if heads % kv:
            raise ScenarioError("kv_heads", f"kv_heads={kv} does not divide heads={heads}")
    window = None if sc.get("window") is None else parse_int(sc["window"], "window", 1, MAX_T)
    m = Variants(
        positions=positions,
        rope_base=base if positions == "rope" else ROPE_BASE,
        alibi=parse_flag(sc.get("alibi", False), "alibi"),
        kv_heads=None if kv == heads else kv,
        window=window,
        block_rows=None if sc.get("block_rows") is None else parse_int(sc["block_rows"], "block_rows", 1, MAX_T),
        block_cols=None if sc.get("block_cols") is None else parse_int(sc["block_cols"], "block_cols", 1, MAX_T),
        decode=parse_flag(sc.get("decode", False), "decode"),
    )
    return None if m == Variants() else m


def check_variants(m: Variants, s: Scenario) -> None:
    """What the keys need of the rest of the scenario; each failure names the variant key (or the clashing one)."""
    width = s.weights.W_q.shape[-2 if s.weights.layout == "linear" else -1]  # concat: d_out; split: D
    head_width = width if s.head_mode == "concat" else width // s.heads
    if m.positions == "rope" and head_width % 2:
        what = "d_out" if s.head_mode == "concat" else "d_model / heads"
        raise ScenarioError(
            "positions", f"RoPE turns pairs of dimensions, so the head width must be even; it is {head_width} ({what})"
        )
    n_q, n_k = s.x_q.shape[0], s.x_k.shape[0]
    for key, n, side in (("block_rows", n_q, "queries"), ("block_cols", n_k, "keys")):
        b = getattr(m, key)
        lo = math.ceil(n / MAX_BLOCKS)
        if b is not None and not lo <= b <= n:
            raise ScenarioError(key, f"{b} is out of range {lo}..{n} ({n} {side}, at most {MAX_BLOCKS} blocks)")
    if m.tiled or m.decode:
        key = "decode" if m.decode else ("block_rows" if m.block_rows is not None else "block_cols")
        if s.normalize != "softmax":
            raise ScenarioError("normalize", f"{key} runs softmax step by step; set normalize to softmax")
        if s.fill == "-1e9":
            raise ScenarioError("mask.fill", f"{key} hides keys with -inf; -1e9 is a score, so use -inf or additive")
    if m.decode:
        if not s.self_attention:
            raise ScenarioError("decode", "KV-cache decoding is self-attention: give x, not x_q and x_k")
        if s.mask_kind not in ("causal", "causal+padding"):
            raise ScenarioError("decode", "KV-cache decoding is causal: set mask.kind to causal or causal+padding")


TILE_KEYS = ("scores", "m_prev", "m", "alpha", "p", "l", "o")


def _tile_json(x: Tile, h: int) -> dict[str, Any]:
    """Tile (i, j) of head h: where it sits, its (B_r, B_c) scores and p, (B_r,) m_prev, m, alpha, l, (B_r, Ev) O."""
    place = {"row_block": x.row_block, "col_block": x.col_block, "rows": list(x.rows), "cols": list(x.cols)}
    return place | {n: js(getattr(x, n)[h]) for n in TILE_KEYS}


def _tiles_json(t: TiledTrace, heads: int) -> dict[str, Any]:
    """Every tile's running state, head by head, and the final m, l (H, L), output (H, L, Ev) and logsumexp."""
    return {
        "block_rows": t.block_rows, "block_cols": t.block_cols,
        "heads": [[_tile_json(x, h) for x in t.tiles] for h in range(heads)], "m": js(t.m), "l": js(t.l),
        "output": js(t.output), "logsumexp": js(t.logsumexp), "max_abs_diff": t.max_abs_diff,
    }  # fmt: skip


def _decode_json(d: DecodeTrace, full: Tensor) -> dict[str, Any]:
    """Each step: the positions its cache holds (oldest first; their rows are ``kv``'s k and v), what it evicted,
    its q (H, E), the new k, v (G, E), scores, masked and weights (H, C), output (H, Ev); ``max_abs_diff`` against
    the full path's output (H, T, Ev)."""
    steps = [
        {"t": st.t, "positions": st.positions.tolist(), "evicted": list(st.evicted), "q": js(st.q),
         "k_new": js(st.k_new), "v_new": js(st.v_new), "scores": js(st.scores), "masked": js(st.masked),
         "weights": js(st.weights), "output": js(st.output), "bias": None if st.bias is None else js(st.bias)}
        for st in d.steps
    ]  # fmt: skip
    diff = float((d.output - full).abs().max()) if full.numel() else 0.0
    return {"steps": steps, "weights": js(d.weights), "output": js(d.output), "max_abs_diff": diff}


def variants_json(tr: Trace) -> dict[str, Any]:
    """The result keys the variant settings add (see README, "The compute contract")."""
    p = tr
    m = p.variants
    on = m.as_json()
    out: dict[str, Any] = {
        "variants": on, "modern": dict(on),  # "modern": the same keys under their old name, kept for clients
        "positions": m.positions, "kv_heads": int(p.k_kv.shape[-3]), "head_map": list(p.head_map),
        "kv": [{"k": js(p.k_kv[g]), "v": js(p.v_kv[g])} for g in range(p.k_kv.shape[-3])],
    }  # fmt: skip
    if p.pe_q is not None:
        out["sinusoidal"] = {
            "pe_q": js(p.pe_q), "pe_k": js(p.pe_k), "x_q": js(p.x_q), "x_k": js(p.x_k), "x_v": js(p.x_v),
        }  # fmt: skip
    if p.rope is not None:
        r = p.rope
        out["rope"] = {
            "base": r.base, "theta": js(r.theta), "angles_q": js(r.angles_q), "angles_k": js(r.angles_k),
            "q_before": js(r.q), "q_after": js(r.q_rot), "k_before": js(r.k), "k_after": js(r.k_rot),
        }  # fmt: skip
    if p.alibi is not None:
        out["alibi"] = {"slopes": js(p.alibi.slopes), "bias": js(p.alibi.bias)}
    if p.window_keep is not None:
        out["window"] = {"size": m.window, "keep": p.window_keep.int().tolist()}
    if p.tiled is not None:
        out["tiles"] = _tiles_json(p.tiled, tr.heads)
    if p.decoding is not None:
        out["decode"] = _decode_json(p.decoding, tr.mixed)
    return out
