"""Today's attention in the notebook and the overview: the rotated q and k, the shared K and V, the sinusoidal PE, the
ALiBi bias, the window, the tiles with their m and l, the KV cache step by step; each shown only while it is on.

Each notebook cell has its heading, formula, one plain sentence, the code (Hugging Face Llama's and Mistral's names
where they have one), torch's print and exact tables. Pure: a trace in, HTML out. The pieces come from
``Trace.variants`` (``attention_core/contract/variants.py``); ``tr.variants`` is None when every one is off.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

import torch
from torch import Tensor

import attention_core as ac
from ui.render import printing, slots
from ui.render import tables as vw

Table = Callable[..., str]  # table(t, rows, cols, name, kind="signed") -> HTML, as the caller draws its tables


def cell(title: str, formula: str, words: str, code: str, printed: str, tables: str) -> str:
    """One notebook cell of a variant step (``formula`` is HTML; the rest is text)."""
    return (
        f"<div class='md-step'><div class='nb-head'><h3>{html.escape(title)}</h3><div class='nb-formula'>{formula}"
        f"</div><p class='nb-words'>{html.escape(words)}</p></div><div class='step'><pre class='code'>"
        f"{html.escape(code)}</pre>{slots.pre(printed)}<div class='tables'>{tables}</div>"
        "</div></div>"
    )


def notebook_extra(step: str, s: ac.Scenario, tr: ac.Trace, h: int) -> str:
    """The variant cells that follow notebook step ``step`` for head ``h`` (0-based); "" when none is on."""
    p = tr
    if tr.variants is None:
        return ""
    parts = {
        "qkv": [_sinusoidal(s, p), _rope(s, p, h), _grouped(s, tr, h)],
        "scaled": [_alibi(s, tr, h)],
        "masked": [_window(s, p)],
        "weights": [_tiles(s, p, h)],
        "output": [_decode(s, p, h)],
    }.get(step, [])
    return "".join(x for x in parts if x)


def _t(t: Tensor, dt: str, rows: list[str], cols: list[str], name: str, title: str, kind: str = "signed") -> str:
    return vw.html_table(t, dt, rows, cols, name, kind, title=title)


def _cols(n: int, prefix: str = "d") -> list[str]:
    return [f"{prefix}{j + 1}" for j in range(n)]


def _sinusoidal(s: ac.Scenario, p: Any) -> str:
    if p.pe_q is None:
        return ""
    cols = _cols(p.pe_q.shape[-1])
    formula = (
        "x′ = x + PE, &nbsp;PE<sub>pos, 2i</sub> = sin(pos / 10000<sup>2i/D</sup>), "
        "&nbsp;PE<sub>pos, 2i+1</sub> = cos(…)"
    )
    words = "Each token's encoding gets a fixed wave pattern added, one per position, before W_q, W_k and W_v see it."
    tables = _t(p.pe_q, s.dtype, s.tokens, cols, "pe", "PE") + _t(p.x_q, s.dtype, s.tokens, cols, "x_pe", "x + PE")
    code = "x = x + pe[: x.size(0)]  # the Transformer paper, §3.5"
    return cell("positions: sinusoidal (added to x)", formula, words, code, f"pe = {vw.torch_print(p.pe_q)}", tables)


def _rope(s: ac.Scenario, p: Any, h: int) -> str:
    r = p.rope
    if r is None:
        return ""
    g = p.head_map[h]
    e = r.q.shape[-1]
    d_cols, pair_cols = _cols(e), [f"θ{i + 1}" for i in range(e // 2)]
    formula = (
        "x′<sub>i</sub> = x<sub>i</sub> cos(pos·θ<sub>i</sub>) − x<sub>i+E/2</sub> sin(pos·θ<sub>i</sub>), "
        "&nbsp;x′<sub>i+E/2</sub> = x<sub>i+E/2</sub> cos(pos·θ<sub>i</sub>) + x<sub>i</sub> sin(pos·θ<sub>i</sub>), "
        f"&nbsp;θ<sub>i</sub> = {r.base:g}<sup>−2i/E</sup>"
    )
    words = (
        "RoPE turns each query and key row by angles that grow with its position, one pair of dimensions (i, i + E/2) "
        "at a time, so q′ of token m times k′ of token n depends only on how far apart m and n are."
    )
    code = "cos, sin = rotary_emb(value_states, position_ids)\nq, k = apply_rotary_pos_emb(q, k, cos, sin)  # Llama"
    printed = f"q_before = {vw.torch_print(r.q[h])}\nq_after = {vw.torch_print(r.q_rot[h])}"
    tables = (
        _t(r.q[h], s.dtype, s.tokens, d_cols, "q_before", "q before RoPE")
        + _t(r.q_rot[h], s.dtype, s.tokens, d_cols, "q_after", "q after RoPE")
        + _t(r.k[g], s.dtype, s.tokens_k, d_cols, "k_before", "k before RoPE")
        + _t(r.k_rot[g], s.dtype, s.tokens_k, d_cols, "k_after", "k after RoPE")
        + _t(r.angles_q, "float64", s.tokens, pair_cols, "angles", "angle pos·θ (radians)")
    )
    return cell(f"positions: RoPE (base {r.base:g})", formula, words, code, printed, tables)


def _grouped(s: ac.Scenario, tr: ac.Trace, h: int) -> str:
    p = tr
    n_kv = p.k_kv.shape[0]
    if n_kv == s.heads:
        return ""
    g = p.head_map[h]
    group = s.heads // n_kv
    readers = ", ".join(str(i + 1) for i, k in enumerate(p.head_map) if k == g)
    formula = f"K<sub>h</sub> = K<sub>⌊h / {group}⌋</sub>, &nbsp;V<sub>h</sub> = V<sub>⌊h / {group}⌋</sub>"
    kind = "multi-query: every query head" if n_kv == 1 else f"grouped-query: each group of {group} query heads"
    words = (
        f"{kind} shares one K and one V ({n_kv} kv head{'s' if n_kv > 1 else ''} for {s.heads} query heads), so "
        f"the cache is {group}× smaller. Head {h + 1} reads kv head {g + 1}, shared by heads {readers}."
    )
    code = "key_states = repeat_kv(key_states, self.num_key_value_groups)  # Llama; SDPA: enable_gqa=True"
    cols = _cols(p.k_kv.shape[-1])
    tables = _t(p.k_kv[g], s.dtype, s.tokens_k, cols, "k_shared", f"K of kv head {g + 1}") + _t(
        p.v_kv[g], s.dtype, s.tokens_k, _cols(p.v_kv.shape[-1]), "v_shared", f"V of kv head {g + 1}"
    )
    return cell(f"kv heads: {n_kv} for {s.heads} query heads", formula, words, code, vw.torch_print(p.k_kv), tables)


def _alibi(s: ac.Scenario, tr: ac.Trace, h: int) -> str:
    ab = tr.alibi
    if ab is None:
        return ""
    m = float(ab.slopes[h])
    formula = (
        f"S′<sub>ij</sub> + b<sub>ij</sub>, &nbsp;b<sub>ij</sub> = −m<sub>h</sub>·|i − j|, &nbsp;m<sub>{h + 1}</sub> "
        f"= {m:.6g}"
    )
    words = (
        "ALiBi puts no positions on q or k: each head subtracts its own slope times the distance from every scaled "
        "score, so far keys weigh less, faster in the heads with larger slopes."
    )
    code = "scaled = scaled + alibi_bias  # −m_h·|i − j| (Press et al. 2022), before the mask"
    biased = tr.biased[h]
    tables = _t(ab.bias[h], s.dtype, s.tokens, s.tokens_k, "alibi_bias", "ALiBi bias b") + _t(
        biased, s.dtype, s.tokens, s.tokens_k, "biased", "scaled + b"
    )
    return cell(f"ALiBi bias (head {h + 1})", formula, words, code, vw.torch_print(ab.bias[h]), tables)


def _window(s: ac.Scenario, p: Any) -> str:
    if p.window_keep is None:
        return ""
    w = p.variants.window
    causal = s.mask_kind in ("causal", "causal+padding")
    rule = f"i − {w} &lt; j ≤ i" if causal else f"|i − j| &lt; {w}"
    formula = f"keep<sub>ij</sub> = ({rule}) ∧ the mask"
    words = (
        f"A sliding window of {w}: query i sees itself and the {w - 1} key(s) before it, nothing older, even where "
        "the causal mask would allow it (Mistral)."
        if causal
        else f"A band of width {w}: query i sees the keys less than {w} positions away on either side."
    )
    code = "mask = mask & (j > i - sliding_window)  # Mistral" if causal else "mask = (i - j).abs() < w"
    keep = p.window_keep.to(torch.float64)
    table = _t(keep, "float64", s.tokens, s.tokens_k, "window", "in the window (1) or hidden (0)", "prob")
    return cell(f"sliding window: {w}", formula, words, code, vw.torch_print(p.window_keep), table)


def _tiles(s: ac.Scenario, p: Any, h: int) -> str:
    t = p.tiled
    if t is None:
        return ""
    formula = (
        "m′ = max(m, rowmax S<sub>ij</sub>), &nbsp;α = e<sup>m − m′</sup>, &nbsp;P = e<sup>S<sub>ij</sub> − m′</sup>, "
        "&nbsp;l′ = α·l + rowsum P, &nbsp;O′ = α·O + P·V<sub>j</sub>; &nbsp;output = O / l"
    )
    words = (
        f"FlashAttention computes the same weights {t.block_rows} query rows × {t.block_cols} keys at a time, never "
        "the whole row: each row keeps its running max m and running sum l, and shrinks what it has by α when a "
        f"larger score arrives. The result equals the full softmax (largest difference {t.max_abs_diff:.2g})."
    )
    code = "m_new = torch.maximum(m, s_ij.amax(-1)); alpha = torch.exp(m - m_new)\nl = alpha * l + p.sum(-1)"
    rows = []
    for x in t.tiles:
        nums = [" ".join(vw.fmt(float(v), s.dtype) for v in getattr(x, n)[h].tolist()) for n in ("m", "l", "alpha")]
        rows.append(
            f"<tr><td>{x.row_block + 1}, {x.col_block + 1}</td><td>{x.rows[0] + 1}–{x.rows[1]}</td>"
            f"<td>{x.cols[0] + 1}–{x.cols[1]}</td>" + "".join(f"<td>{html.escape(n)}</td>" for n in nums) + "</tr>"
        )
    head = "<tr><th>tile</th><th>query rows</th><th>keys</th><th>m</th><th>l</th><th>α</th></tr>"
    table = f"<table class='md-tiles' aria-label='tiles, head {h + 1}'>{head}{''.join(rows)}</table>"
    out = _t(t.output[h], s.dtype, s.tokens, _cols(t.output.shape[-1]), "tiled_output", "output O / l")
    title = f"tiles: online softmax, B_r = {t.block_rows}, B_c = {t.block_cols}"
    return cell(title, formula, words, code, f"m = {vw.torch_print(t.m[h])}\nl = {vw.torch_print(t.l[h])}", table + out)


def _decode(s: ac.Scenario, p: Any, h: int) -> str:
    d = p.decoding
    if d is None:
        return ""
    g = d.kv_head[h]
    formula = "o<sub>t</sub> = softmax(q<sub>t</sub>·K<sub>cache</sub><sup>T</sup> / s + b)·V<sub>cache</sub>"
    w = d.window
    words = (
        "Decoding one token at a time: token t's key and value join the cache, and its query reads only the cache, "
        "so no causal mask is needed; each row equals the full causal row."
        + (f" The cache is a rolling buffer of {w}: the oldest key leaves when a new one comes." if w else "")
    )
    code = "past_key_values.update(k_t, v_t, layer_idx)  # the KV cache grows by one row a step\no_t = attn(q_t, K, V)"
    rows = []
    weights = [st.weights[h].reshape(-1) for st in d.steps]  # every step's weights: one format for all (issue 37)
    texts = vw.one_format([[vw.fmt(x, s.dtype) for x in w.tolist()] for w in weights],
                          printing.sci_mode(torch.cat(weights)))  # fmt: skip
    for st, said in zip(d.steps, texts, strict=True):
        held = {int(pos): i for i, pos in enumerate(st.positions.tolist())}
        # every weight and '·' is kv_row's cell (step t, key j) and every count the cache's (step t), so a click or
        # Enter explains it as the overview's and present mode's cells do (watch.js: a cell's own data-name first)
        cells = [
            f"<td data-r='{st.t}' data-c='{j}'>{html.escape(said[held[j]]) if j in held else '·'}</td>"
            for j in range(len(s.tokens))
        ]
        gone = ", ".join(s.tokens[e] for e in st.evicted)
        rows.append(
            f"<tr><th scope='row'>{html.escape(s.tokens[st.t])}</th>{''.join(cells)}"
            f"<td data-name='cache' data-r='{st.t}' data-c='0'>{st.cache_size}</td><td>{html.escape(gone)}</td></tr>"
        )
    head = "".join(f"<th scope='col'>{html.escape(t)}</th>" for t in s.tokens)
    table = (
        f"<table class='nt md-cache' data-name='kv_row' aria-label='KV cache, head {h + 1} (kv head {g + 1})'>"
        f"<tr><th>step</th>{head}<th>cached</th><th>evicted</th></tr>{''.join(rows)}</table>"
    )
    title = "KV-cache decoding, token by token" + (f" (rolling buffer of {w})" if w else "")
    return cell(title, formula, words, code, f"output = {vw.torch_print(d.output[h])}", table)


def overview_cards(s: ac.Scenario, tr: ac.Trace, h: int, table: Table) -> dict[str, str]:
    """Overview cards of the variant steps that are on, by where they go: "before" (q and k before RoPE, ahead of
    Q, K, V), "scores" (the ALiBi bias), "weights" (the tiles' final m and l), "output" (the KV cache's size)."""
    p = tr
    out: dict[str, str] = {}
    if tr.variants is None:
        return out
    if p.rope is not None:
        e = p.rope.q.shape[-1]
        g = p.head_map[h]
        q, k = p.rope.q[h], p.rope.k[g]
        out["before"] = _card("q_before", "q before RoPE", q, table(q, s.tokens, _cols(e), "q_before"))
        out["before"] += _card("k_before", "k before RoPE", k, table(k, s.tokens_k, _cols(e), "k_before"))
    if p.alibi is not None:
        bias = p.alibi.bias[h]
        out["scores"] = _card("alibi_bias", "ALiBi bias", bias, table(bias, s.tokens, s.tokens_k, "alibi_bias"))
    if p.tiled is not None:
        ml = torch.stack((p.tiled.m[h], p.tiled.l[h]), dim=-1)  # (L, 2)
        title = f"tiles {p.tiled.block_rows}×{p.tiled.block_cols}: m, l"
        out["weights"] = _card("tiles", title, ml, table(ml, s.tokens, ["m", "l"], "tiles"))
    if p.decoding is not None:
        sizes = torch.tensor([[float(st.cache_size)] for st in p.decoding.steps], dtype=torch.float64)
        out["output"] = _card("cache", "KV cache size", sizes, table(sizes, s.tokens, ["keys"], "cache", "count"))
    return out


def _card(name: str, title: str, t: Tensor, body: str) -> str:
    dims = "×".join(str(n) for n in t.shape)
    return (
        f"<div class='card md-card' data-card='{name}'><div class='card-title'>{html.escape(title)} "
        f"<span class='shape'>{dims}</span></div>{body}</div>"
    )


def op_extra(s: ac.Scenario, tr: ac.Trace) -> str:
    """What the variant settings add to the overview's mask words: "+ window 3", "+ ALiBi"."""
    p = tr
    if tr.variants is None:
        return ""
    bits = [f"+ window {p.variants.window}" if p.window_keep is not None else "", "+ ALiBi" if p.alibi else ""]
    return " ".join(b for b in bits if b)
