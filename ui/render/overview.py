"""The workbench overview: the whole pipeline of the shown head on one screen, as compact number cards.

X → W → Q, K, V → QKᵀ → ÷√d_k → mask → softmax → ·V → heads combined. The inputs (X and W) are editable grids
(grids.py); this module draws the rest from a trace. Pure: tensors in, HTML out.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

from torch import Tensor

import attention_core as ac
from ui.render import stages as st
from ui.render import tables as vw
from ui.render import variants as md

# Every edit re-renders every card, so the cards show whole tables only while they are small: up to WHOLE tokens and
# dimensions (a 13-token sentence, d_model 16) every row and column is there, scrolling inside its card; past it
# (up to T = 64, d = 64) a card shows a page of WINDOW and its buttons reach the rest (tables.window_note). Whole
# 64×64 cards made a T=64, d=64, 8-head edit take about half as long again.
WHOLE = 24
WINDOW = 12
Marks = dict[str, list[tuple[int | None, int | None]]]


def card(name: str, title: str, shape: tuple[int, ...], table: str, step: str, extra: str = "") -> str:
    """One card: a title that links to its notebook step, the shape, the table."""
    dims = "×".join(str(n) for n in shape)
    return (
        f"<div class='card' data-card='{name}'><div class='card-title'><a href='#step-{step}' "
        f"title='go to this step in the notebook below'>{title}</a> <span class='shape'>{dims}</span>{extra}</div>"
        f"{table}</div>"
    )


def arrow(label: str = "") -> str:
    return f"<div class='arrow' aria-hidden='true'>→<span>{html.escape(label)}</span></div>"


def op_words(s: ac.Scenario, divisor: float | None) -> tuple[str, str]:
    """The two operations between QKᵀ and the weights, in words: the scaling and the mask."""
    scale = "no scaling" if divisor is None else f"÷{'√d_k=' if s.scale is True else ''}{divisor:.4g}"
    mask = "no mask" if s.keep is None else f"{s.mask_kind} {s.fill}"
    return scale, mask


def wrappable(words: str) -> str:
    """``words`` as HTML that may break after "=" too (the narrow operation arrow: "÷√d_k=" above "1.414")."""
    return html.escape(words).replace("=", "=<wbr>")


def window_for(tr: ac.Trace) -> int:
    """How many rows and columns each overview card of this trace shows: all of them when every table is at most
    WHOLE on a side (queries, keys and each head's width), else a page of WINDOW."""
    part = tr.head(0)
    sides = (*part["q"].shape, *part["k"].shape, *part["v"].shape)  # (L, d), (S, d), (S, d_v)
    return WHOLE if max(sides) <= WHOLE else WINDOW


def overview_html(s: ac.Scenario, tr: ac.Trace, h: int, marks: Any, combine: str, head_note: str = "") -> str:
    """Q, K, V, scores, weights, output (and heads combined) of head ``h`` (0-based) as one pipeline.

    ``marks(name)`` gives the explain outlines for a table; ``combine`` is the combined-output table's HTML.
    """
    part = tr.head(h)
    dt = s.dtype
    d_cols = [f"d{j + 1}" for j in range(part["q"].shape[-1])]
    v_cols = [f"d{j + 1}" for j in range(part["v"].shape[-1])]

    win = window_for(tr)

    def table(t: Tensor, rows: list[str], cols: list[str], name: str, kind: str = "signed", **more: Any) -> str:
        """An overview card's table; ``more``: html_table's ``bits`` and ``attrs``."""
        return vw.html_table(t, dt, rows, cols, name, kind, marks=marks(name), title="", window=win, short=True,
                             **more)  # fmt: skip

    which = f" <span class='shape'>({head_note})</span>" if head_note else ""
    extra = md.overview_cards(s, tr, h, table)  # today's steps, only those that are on
    qkv = "".join(
        card(
            n,
            qkv_title(n, tr, h, not s.self_attention),
            tuple(part[n].shape),
            table(part[n], rows, cols, n),
            "qkv",
            which,
        )
        for n, rows, cols in (("q", s.tokens, d_cols), ("k", s.tokens_k, d_cols), ("v", s.tokens_k, v_cols))
    )
    scale, mask = op_words(s, tr.divisor)
    mask = f"{mask} {md.op_extra(s, tr)}".strip()
    weights_title = "softmax" if s.normalize == "softmax" else "÷ row sum"
    before = [f"<div class='stage'>{extra['before']}</div>", arrow("RoPE")] if "before" in extra else []
    parts = [
        *before,
        f"<div class='stage'>{qkv}</div>",
        arrow("q·k"),
        "<div class='break'></div>",
        card(
            "scores",
            "QKᵀ",
            tuple(part["scores"].shape),
            table(part["scores"], s.tokens, s.tokens_k, "scores"),
            "scores",
        ),
        extra.get("scores", ""),
        present_cards(part["scaled"], part["masked"], s.tokens, s.tokens_k, table),  # shown in present mode
        f"<div class='arrow op' aria-label='{html.escape(scale)}, {html.escape(mask)}'>→<span>{wrappable(scale)}"
        f"</span><span>{html.escape(mask.replace('-', '−'))}</span><span>{weights_title}</span></div>",
        card(
            "weights",
            "weights",
            tuple(part["weights"].shape),
            table(part["weights"], s.tokens, s.tokens_k, "weights", "prob"),
            "weights",
        ),
        extra.get("weights", ""),
        arrow("·V"),
        card(
            "output", "output", tuple(part["output"].shape), table(part["output"], s.tokens, v_cols, "output"), "output"
        ),
        extra.get("output", ""),
    ]
    if s.heads > 1 or tr.params.W_o is not None:
        how = "concat" if tr.params.W_o is None else "concat · W_o"
        # every head's output, shown in present mode while the combined table is whole: what it is joined from
        joined = st.head_output_cards(s, tr, table) if tr.output.shape[-1] <= win else ""
        parts += [joined, arrow(how), card("combine", "heads combined", tuple(tr.output.shape), combine, "combine")]
    parts.append(st.stage_cards(s, tr, h, table))  # present mode's own stages (RoPE, kv heads, window, cache, heads)
    return f"<div class='overview' data-head='{h + 1}'><div class='pipe'>{''.join(parts)}</div></div>"


def qkv_title(n: str, tr: ac.Trace, h: int, cross: bool = False) -> str:
    """A Q, K or V card's title: ``Q = X·W_q`` (cross-attention: ``K = x_k·W_k``, each from its own source); after
    RoPE ``Q = RoPE(X·W_q)``; a shared K or V names its kv head."""
    p = None if tr.variants is None else tr
    title = f"x<sub>{n}</sub>·W<sub>{n}</sub>" if cross else f"X·W<sub>{n}</sub>"
    if p is not None and p.rope is not None and n in ("q", "k"):
        title = f"RoPE({title})"
    title = f"{n.upper()} = {title}"
    if p is not None and n in ("k", "v") and p.k_kv.shape[0] != tr.heads:
        title += f" <span class='sub'>kv head {p.head_map[h] + 1}, shared</span>"
    return title


def present_cards(scaled: Tensor, masked: Tensor, rows: list[str], cols: list[str], table: Callable[..., str]) -> str:
    """The scaled and masked scores (T×S each) as overview cards, hidden until present mode reaches them.

    ``table(t, rows, cols, name)`` draws a table the way the overview draws its others.
    """
    shape = "×".join(str(n) for n in scaled.shape)
    return "".join(
        f"<div class='card p-extra' data-card='{name}'><div class='card-title'>{title} "
        f"<span class='shape'>{shape}</span></div>{table(t, rows, cols, name)}</div>"
        for name, title, t in (("scaled", "scaled", scaled), ("masked", "masked", masked))
    )
