"""Present mode's own cards for today's attention: RoPE's pair and its angle, which kv head each query head reads,
the window, the KV cache stepped token by token, and every head's weights side by side; and every head's output, the
heads combined stage's inputs.

Each card is drawn only while its step is on (RoPE, kv heads < heads, a window, KV-cache decoding, several heads),
hidden (``p-extra``) until present mode reaches its stage, so a stage whose card is absent is skipped
(static/present.js). Pure: a trace in, HTML out, every number from the trace (nothing recomputed here).

Symbols: T tokens (queries) and S keys, H query heads, G kv heads, E the head width, t a token's position from 0.
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable

import torch
from torch import Tensor

import attention_core as ac

Table = Callable[..., str]  # table(t, rows, cols, name, kind="signed", bits=, attrs=) -> a table, as the overview's


def _card(name: str, title: str, body: str, attrs: str = "") -> str:
    return (
        f"<div class='card p-extra st-card' data-card='{name}'{attrs}><div class='card-title'>{title}</div>{body}</div>"
    )


def _named(caption: str, table: str) -> str:
    """A table with its caption above it (the overview's tables have none)."""
    return f"<div class='st-t'><div class='st-cap'>{caption}</div>{table}</div>"


HEADS_SHOWN, TOKENS_SHOWN = 4, 16  # the every-head stage: at most this many heads side by side, of this many tokens


def stage_cards(s: ac.Scenario, tr: ac.Trace, h: int, table: Table) -> str:
    """Every present-only card that applies to this state, for head ``h`` (0-based); "" when none does."""
    parts = [heads_cards(s, tr, table)]
    if tr.variants is not None:
        parts = [rope_card(s, tr, h, table), kv_map_card(s, tr, h, table), window_card(s, tr, table),
                 cache_card(s, tr, h, table), *parts]  # fmt: skip
    shown = "".join(x for x in parts if x)
    return f"<div class='stage st-stages'>{shown}</div>" if shown else ""


def rope_card(s: ac.Scenario, tr: ac.Trace, h: int, table: Table) -> str:
    """Pair 1 (dims 1 and 1 + E/2) of head h's q, before and after RoPE, with each token's angle t·θ₁ in radians
    and degrees: q′ = (q₁ cos tθ − q₂ sin tθ, q₂ cos tθ + q₁ sin tθ)."""
    r = tr.rope
    if r is None:
        return ""
    e = r.q.shape[-1]
    half = e // 2
    theta = float(r.theta[0])
    ang = r.angles_q[:, 0].to(torch.float64)  # (T,) t·θ₁
    angles = torch.stack((ang, torch.rad2deg(ang)), dim=-1)  # (T, 2)
    pair = (0, half)
    q = r.q[h][:, pair]  # (T, 2) before
    q_rot = r.q_rot[h][:, pair]  # (T, 2) after
    a, b = "d1", f"d{half + 1}"
    title = (
        f"RoPE, head {h + 1}, pair ({a}, {b}): θ = {r.base:g}<sup>−2·0/{e}</sup> = {theta:g} rad, the token at "
        f"position t turns by t·θ ({s.tokens[0]} is at t = 0)"
    )
    body = (
        "<div class='st-row'>"
        + _named("angle t·θ (t = 0, 1, …)", table(angles, s.tokens, ["rad", "°"], "rope_angle", "prob"))
        + _named("q before", table(q, s.tokens, [a, b], "rope_q"))
        + _named("q′ after RoPE", table(q_rot, s.tokens, [a, b], "rope_q_rot"))
        + "</div>"
    )
    return _card("rope_pair", title, body)


def kv_map_card(s: ac.Scenario, tr: ac.Trace, h: int, table: Table) -> str:
    """Which kv head each query head reads: an (H, G) map of 1 (reads) and 0, the shown head's row named."""
    p = tr
    if tr.variants is None or p.k_kv is None or p.k_kv.shape[0] == s.heads:
        return ""
    n_kv = p.k_kv.shape[0]
    reads = torch.zeros(s.heads, n_kv, dtype=torch.float64)
    reads[torch.arange(s.heads), torch.tensor(p.head_map)] = 1.0  # (H, G)
    rows = [f"q head {i + 1}" for i in range(s.heads)]
    cols = [f"kv {g + 1}" for g in range(n_kv)]
    title = f"{s.heads} query heads read {n_kv} kv head{'s' if n_kv > 1 else ''} (1 = reads)"
    return _card("kv_map", title, table(reads, rows, cols, "kv_map", "prob", bits=True))


def window_card(s: ac.Scenario, tr: ac.Trace, table: Table) -> str:
    """The window alone: 1 where query i sees key j, 0 where the window hides it, (T, S)."""
    p = tr
    if tr.variants is None or p.window_keep is None:
        return ""
    keep = p.window_keep.to(torch.float64)
    title = f"the window of {tr.variants.window}: 1 = seen, 0 = hidden"
    return _card("window_keep", title, table(keep, s.tokens, s.tokens_k, "window_keep", "prob", bits=True))


def cache_card(s: ac.Scenario, tr: ac.Trace, h: int, table: Table) -> str:
    """The KV-cache stepper: the cache's K and V rows of head h's kv head (after RoPE: what the cache holds), the
    weights token t's query gives the cache, and the full causal attention's row t, all (T, ·); present mode
    (static/stepper.js) shows step t's rows only. ``data-steps``: the positions each step's cache holds."""
    p = tr
    d = p.decoding
    if d is None:
        return ""
    g = d.kv_head[h]
    e_cols = [f"d{j + 1}" for j in range(p.k_kv.shape[-1])]
    v_cols = [f"d{j + 1}" for j in range(p.v_kv.shape[-1])]
    full = tr.weights[h]  # (T, S) the full path's weights, causal
    held = [st.positions.tolist() for st in d.steps]
    # the full path's own mask: causal, or causal under a sliding window (Mistral's: the card said "full causal
    # attention" beside a row whose key past the window read 0)
    window = tr.variants.window if tr.variants is not None and p.window_keep is not None else None
    path = f"causal, window {window}" if window else "causal"
    says = "".join(_says(s, st.t, d.weights[h][st.t], full[st.t], held[st.t], path) for st in d.steps)
    nav = (
        "<div class='st-nav'><button type='button' class='kv-prev' aria-label='previous token'>◀</button>"
        "<span class='kv-at' aria-live='polite'></span>"
        "<button type='button' class='kv-next' aria-label='next token'>▶</button></div>"
    )
    body = (
        nav
        + "<div class='st-row'>"
        + _named("K cache", table(p.k_kv[g], s.tokens_k, e_cols, "kv_k", attrs=KV["cache"]))
        + _named("V cache", table(p.v_kv[g], s.tokens_k, v_cols, "kv_v", attrs=KV["cache"]))
        + "<div class='st-col'>"  # (beside the cache: the room a projector has is wider than high)
        + _named(
            "q<sub>t</sub> reads the cache: weights",
            table(d.weights[h], s.tokens, s.tokens_k, "kv_row", "prob", attrs=KV["row"]),
        )
        + _named(
            f"full attention ({path}), row t", table(full, s.tokens, s.tokens_k, "kv_full", "prob", attrs=KV["row"])
        )
        + f"</div></div>{says}"  # (the sentence under them all, as wide as the card: two lines, not three)
    )
    title = f"KV cache, head {h + 1} (kv head {g + 1})"
    attrs = f" data-steps='{html.escape(json.dumps(held))}' data-tokens='{html.escape(json.dumps(s.tokens))}'"
    return _card("kv_step", title, body, attrs)


# the KV-cache card's tables, marked for static/stepper.js: "cache" (rows shown while cached) or "row" (row t shown)
KV = {role: f"data-kv='{role}' " for role in ("cache", "row")}


def _says(s: ac.Scenario, t: int, row: Tensor, full: Tensor, held: list[int], path: str) -> str:
    """Step t's sentence: what the cache holds, and how far its row is from the full path's row (S,), whose mask
    ``path`` names ("causal", "causal, window 3")."""
    diff = float((row - full).abs().max())
    same = "equals" if diff <= 1e-6 else "differs from"
    first, last = s.tokens[held[0]], s.tokens[held[-1]]
    return (
        f"<p class='kv-say' data-t='{t}'>The cache holds {len(held)} k, v rows ({html.escape(first)} … "
        f"{html.escape(last)}). This row {same} the full attention's row {t + 1} ({html.escape(path)}; largest "
        f"difference {diff:.1g}).</p>"
    )


def heads_cards(s: ac.Scenario, tr: ac.Trace, table: Table) -> str:
    """Every head's weights (T, S), a card each, side by side; "" with one head, and beyond what a projector can
    show side by side (more than 4 heads or 16 tokens: every edit of the large case drew 8 hidden 24×24 windows,
    143 -> 162 KB an answer)."""
    if s.heads < 2 or s.heads > HEADS_SHOWN or max(len(s.tokens), len(s.tokens_k)) > TOKENS_SHOWN:
        return ""
    w = tr.weights  # (H, T, S)
    return "".join(
        _card("head_weights", f"head {i + 1}", table(w[i], s.tokens, s.tokens_k, f"weights_h{i + 1}", "prob"))
        for i in range(s.heads)
    )


def head_output_cards(s: ac.Scenario, tr: ac.Trace, table: Table) -> str:
    """Every head's output (T, E), a card each titled with its head, in the order the heads are joined: what the
    heads combined stage is computed from. "" with one head and beyond what a projector shows side by side (more
    than HEADS_SHOWN heads or TOKENS_SHOWN tokens): that stage then shows the shown head's output (present.py
    INSTEAD). Joined as they are (no W_o), a head's columns are named as the combined table names them (head 2 of
    width 2: o3, o4); through W_o, d1 … dE."""
    if s.heads < 2 or s.heads > HEADS_SHOWN or len(s.tokens) > TOKENS_SHOWN:
        return ""
    e = tr.head(0)["output"].shape[-1]
    name, step = ("o", e) if tr.params.W_o is None else ("d", 0)  # (head i's columns: name + i·step + 1 …)
    cols = [[f"{name}{i * step + j + 1}" for j in range(e)] for i in range(s.heads)]
    return "".join(
        f"<div class='card p-extra st-card' data-card='head_output'><div class='card-title'>head {i + 1} output "
        f"<span class='shape'>{len(s.tokens)}×{e}</span></div>"
        f"{table(tr.head(i)['output'], s.tokens, cols[i], f'output_h{i + 1}')}</div>"
        for i in range(s.heads)
    )
