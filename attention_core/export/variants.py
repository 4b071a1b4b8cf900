"""The variant steps of an export (``notebook.py``): sinusoidal PE, RoPE, grouped K and V, ALiBi, the window, the tiles
and KV-cache decoding, as torch code that does the core's operations in the core's order, so the script prints the
app's numbers character for character. Each function returns code lines; an empty list where the step is off.

Shapes: L queries, S keys, D = d_model, H query heads, G kv heads, E head width, B_r × B_c a tile.
"""

from __future__ import annotations

import json

from ..contract.scenario import Scenario
from ..ops.positions import alibi_slopes


def on(s: Scenario, key: str) -> bool:
    """Whether variant key ``key`` is on in ``s`` (False for a scenario without variant keys)."""
    m = s.variants
    if m is None:
        return False
    if key == "positions":
        return m.positions != "none"
    if key == "tiles":
        return m.tiled
    return bool(getattr(m, key))


def kv_count(s: Scenario) -> int:
    """G: the kv heads (H without grouped-query)."""
    return s.heads if s.variants is None or s.variants.kv_heads is None else s.variants.kv_heads


def sinusoidal_lines(s: Scenario) -> list[str]:
    """x + PE (Vaswani et al. §3.5) before the projections."""
    if s.variants is None or s.variants.positions != "sinusoidal":
        return []
    lines = [
        "",
        "def sinusoidal(n, d):  # PE[pos, 2i] = sin(pos / 10000^(2i/d)), PE[pos, 2i+1] = cos(the same), float64",
        "    pos = torch.arange(n, dtype=torch.float64).unsqueeze(1)  # (n, 1)",
        "    two_i = (torch.arange(d) // 2 * 2).to(torch.float64)  # (d,) 0, 0, 2, 2, ...",
        "    angles = pos / 10000.0 ** (two_i / d)  # (n, d)",
        "    return torch.where(torch.arange(d) % 2 == 0, angles.sin(), angles.cos()).to(dtype)",
        "",
    ]
    if s.self_attention:
        return [*lines, "x_q = x_k = x_v = x_q + sinusoidal(len(tokens), x_q.size(-1))  # positions added to x"]
    return [
        *lines,
        "x_q = x_q + sinusoidal(len(tokens), x_q.size(-1))  # query positions 0..L-1",
        "pe_k = sinusoidal(len(tokens_k), x_k.size(-1))  # key positions 0..S-1",
        "x_k, x_v = x_k + pe_k, x_v + pe_k",
    ]


def window_lines(s: Scenario) -> list[str]:
    """The sliding window ANDed into ``keep``."""
    if not on(s, "window"):
        return []
    causal = s.mask_kind in ("causal", "causal+padding")
    rule = "(j > i - window) & (j <= i)  # causal: the last w keys" if causal else "(i - j).abs() < window  # band"
    return [
        f"window = {s.variants.window}",
        "i, j = torch.arange(len(tokens)).unsqueeze(1), torch.arange(len(tokens_k)).unsqueeze(0)  # (L, 1), (1, S)",
        f"in_window = {rule}",
        "keep = in_window if keep is None else keep & in_window  # (L, S) True = may look",
    ]


def rope_lines(s: Scenario) -> list[str]:
    """q and k turned pair by pair (Hugging Face Llama's rotate_half pairing)."""
    if s.variants is None or s.variants.positions != "rope":
        return []
    return [
        f"rope_base = {s.variants.rope_base!r}",
        "E = q.size(-1)",
        "theta = rope_base ** (-torch.arange(0, E, 2, dtype=torch.float64) / E)  # (E/2,) θ_i = base^(-2i/E)",
        "",
        "",
        "def rotate(x):  # (n, P, E): row p turned by p·θ_i, pair i = dims (i, i + E/2)",
        "    angles = torch.arange(x.size(-2), dtype=torch.float64).unsqueeze(1) * theta  # (P, E/2)",
        "    cos, sin = angles.cos().to(x.dtype), angles.sin().to(x.dtype)",
        "    x1, x2 = x[..., : E // 2], x[..., E // 2 :]",
        "    return torch.cat((x1 * cos - x2 * sin, x2 * cos + x1 * sin), dim=-1)",
        "",
        "",
        "q_before, k_before = q, k",
        "q, k = rotate(q), rotate(k)  # q'_m · k'_n depends on m − n only",
    ]


def share_lines(s: Scenario) -> list[str]:
    """Each kv head's K and V repeated for its group of query heads (torch's enable_gqa order)."""
    g = kv_count(s)
    lines = ["k_kv, v_kv = k, v  # (G, S, E): one K and V per kv head"]
    if g != s.heads:
        lines.append(f"k, v = k.repeat_interleave({s.heads // g}, dim=-3), v.repeat_interleave({s.heads // g}, dim=-3)")
        lines[-1] += "  # (G, S, E) -> (H, S, E)"
    return lines


def alibi_lines(s: Scenario) -> list[str]:
    """ALiBi's bias added to the scaled scores."""
    if not on(s, "alibi"):
        return []
    slopes = json.dumps(alibi_slopes(s.heads).tolist())
    return [
        f"slopes = torch.tensor({slopes}, dtype=torch.float64)  # (H,) ALiBi's m_h",
        "distance = torch.arange(len(tokens)).unsqueeze(1) - torch.arange(len(tokens_k))  # (L, S) i − j",
        "bias = (slopes[:, None, None] * (-distance.abs()).to(torch.float64)).to(dtype)  # (H, L, S) −m_h·|i − j|",
        "biased = scaled + bias",
    ]


def tiles_lines(s: Scenario) -> list[str]:
    """FlashAttention-2's sweep: each block of B_r query rows against the key blocks, running m, l and O."""
    if not on(s, "tiles"):
        return []
    m = s.variants
    b_r = len(s.tokens) if m.block_rows is None else m.block_rows
    b_c = len(s.tokens_k) if m.block_cols is None else m.block_cols
    tile = ["        s_ij = q[:, r0:r1] @ k[:, c0:c1].transpose(-2, -1)  # (H, B_r, B_c): this tile's scores only"]
    if s.scale is not False:
        tile.append("        s_ij = s_ij / torch.tensor(divisor, dtype=dtype)")
    if on(s, "alibi"):
        tile.append("        s_ij = s_ij + bias[:, r0:r1, c0:c1]")
    if keeps(s):
        tile.append("        s_ij = s_ij.masked_fill(~keep[r0:r1, c0:c1], float('-inf'))")
    return [
        f"B_r, B_c = {b_r}, {b_c}",
        _divisor_line(s),
        "rows_m, rows_l, rows_o = [], [], []",
        "for r0 in range(0, len(tokens), B_r):",
        "    r1 = min(r0 + B_r, len(tokens))",
        "    m = torch.full((q.size(0), r1 - r0), float('-inf'), dtype=dtype)  # (H, B_r) running max",
        "    l = torch.zeros(q.size(0), r1 - r0, dtype=dtype)  # (H, B_r) running sum",
        "    o = torch.zeros(q.size(0), r1 - r0, v.size(-1), dtype=dtype)  # (H, B_r, Ev) unnormalised output",
        "    for c0 in range(0, len(tokens_k), B_c):",
        "        c1 = min(c0 + B_c, len(tokens_k))",
        *tile,
        "        m_new = torch.maximum(m, s_ij.amax(dim=-1))",
        "        m_safe = torch.where(torch.isinf(m_new), torch.zeros_like(m_new), m_new)",
        "        alpha = torch.exp(m - m_safe)  # how much the old l and O shrink",
        "        p = torch.exp(s_ij - m_safe.unsqueeze(-1))",
        "        l = alpha * l + p.sum(dim=-1)",
        "        o = alpha.unsqueeze(-1) * o + p @ v[:, c0:c1]",
        "        m = m_new",
        "        print(f'## tile rows {r0 + 1}-{r1} keys {c0 + 1}-{c1} m'); print(m)",
        "        print(f'## tile rows {r0 + 1}-{r1} keys {c0 + 1}-{c1} l'); print(l)",
        "    rows_m.append(m), rows_l.append(l), rows_o.append(o)",
        "l, o = torch.cat(rows_l, dim=-1), torch.cat(rows_o, dim=-2)",
        "seen = l > 0",
        "tiled = torch.where(seen.unsqueeze(-1), o / torch.where(seen, l, torch.ones_like(l)).unsqueeze(-1), 0.0)",
        "print('## tiles output'); print(tiled)  # equals output: the same softmax, never the whole row at once",
    ]


def decode_lines(s: Scenario) -> list[str]:
    """Token by token with a KV cache (a rolling buffer of w tokens with a window); each step's rows printed."""
    if not on(s, "decode"):
        return []
    w = s.variants.window
    drop = "0" if w is None else f"max(0, len(held) + 1 - {w})"
    bias = "bias[:, t : t + 1, held]" if on(s, "alibi") else "None"
    lines = [
        _divisor_line(s),
        f"group = {s.heads // kv_count(s)}",
        "pad = " + ("None" if s.padding is None else f"torch.tensor({list(s.padding)!r})  # True = padded"),
        "k_cache, v_cache, held, outputs = k_kv[:, :0], v_kv[:, :0], torch.zeros(0, dtype=torch.int64), []",
        "for t in range(len(tokens)):",
        f"    drop = {drop}  # the rolling buffer evicts the oldest past the window",
        "    held = torch.cat((held, torch.tensor([t])))[drop:]  # (C,) positions in the cache",
        "    k_cache = torch.cat((k_cache, k_kv[:, t : t + 1]), dim=-2)[:, drop:]  # (G, C, E) keys as rotated",
        "    v_cache = torch.cat((v_cache, v_kv[:, t : t + 1]), dim=-2)[:, drop:]",
        "    k_s, v_s = k_cache.repeat_interleave(group, dim=-3), v_cache.repeat_interleave(group, dim=-3)",
        "    s_t = q[:, t : t + 1] @ k_s.transpose(-2, -1)  # (H, 1, C): no mask needed, the cache holds 0..t",
    ]
    if s.scale is not False:
        lines.append("    s_t = s_t / torch.tensor(divisor, dtype=dtype)")
    if on(s, "alibi"):
        lines.append(f"    s_t = s_t + {bias}")
    if s.padding is not None:
        lines += [
            "    visible = ~pad[held]",
            "    s_t = s_t.masked_fill(~visible.unsqueeze(0), float('-inf'))",
            "    w_t = torch.softmax(s_t, dim=-1)",
            "    if not visible.any():",
            "        w_t = w_t.masked_fill(torch.ones_like(w_t, dtype=torch.bool), 0.0)",
        ]
    else:
        lines.append("    w_t = torch.softmax(s_t, dim=-1)")
    return [
        *lines,
        "    outputs.append((w_t @ v_s).squeeze(-2))  # (H, Ev)",
        "    print(f'## step {t + 1} cache'); print(held)",
        "print('## decoded output'); print(torch.stack(outputs, dim=-2))  # (H, L, Ev): the full causal rows",
    ]


def keeps(s: Scenario) -> bool:
    """Whether the script's ``keep`` is a mask (the scenario's, or the window's)."""
    return s.keep is not None or on(s, "window")


def _divisor_line(s: Scenario) -> str:
    if s.scale is True:
        return "divisor = q.size(-1) ** 0.5"
    return "divisor = None" if s.scale is False else f"divisor = {float(s.scale)!r}"
