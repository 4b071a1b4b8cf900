"""Heatmaps as one byte per cell, painted on a <canvas> by static/heat.js: the whole matrix at any size.

Plotly cost ~50 ms per edit at 3×3 and ~250 ms at 64×64 in the browser; a canvas of T×S pixels scaled up costs
well under a millisecond. Each cell travels as one byte (base64): 0–254 along the colour scale, 255 for a masked
(-inf) cell. The exact numbers live in the tables; a hover shows the value to the scale's resolution.
Pure: tensors in, HTML out.
"""

from __future__ import annotations

import base64
import html
import json

import numpy as np
import torch
from torch import Tensor

from ui.render import slots

MASKED = 255
SIGNED = "signed"  # diverging blue–white–red over [-max|v|, +max|v|]
PROB = "prob"  # white → dark blue over [0, 1]
MAX_LABELS = 16  # token labels are drawn beside a heatmap up to this many rows/columns


def codes(t: Tensor, kind: str) -> tuple[str, float, float]:
    """(L, S) values -> (base64 bytes, lo, hi): byte = round((v - lo) / (hi - lo) * 254), 255 where not finite."""
    t = t.detach().double()
    finite = torch.isfinite(t)
    if kind == PROB:
        lo, hi = 0.0, 1.0
    else:
        lim = float(t[finite].abs().max()) if bool(finite.any()) else 1.0
        lo, hi = -(lim or 1.0), lim or 1.0
    # numpy rounds (half to even, as torch does): torch's round splits a 64×64 table across its threads, and
    # with both cores busy (a class editing) that cost 0.3-1.5 ms a call instead of microseconds
    scaled = np.rint(((t.nan_to_num(0.0, 0.0, 0.0) - lo) / (hi - lo) * 254).clamp(0, 254).numpy())
    b = np.where(finite.numpy(), scaled, MASKED).astype(np.uint8)
    return base64.b64encode(b.tobytes()).decode(), lo, hi


def heatmap(t: Tensor, kind: str, title: str, rows: list[str], cols: list[str], name: str) -> str:
    """One labelled heatmap: a figure with a caption and a canvas the painter fills."""
    z, lo, hi = codes(t, kind)
    n_r, n_c = t.shape
    labels = n_r <= MAX_LABELS and n_c <= MAX_LABELS
    meta = {"rows": rows, "cols": cols} if labels else {"rows": [str(i + 1) for i in range(n_r)]}
    aria = f"{title}: heatmap of {n_r} rows by {n_c} columns; the exact numbers are in the tables"
    row_labels = "".join(f"<span>{html.escape(r)}</span>" for r in rows) if labels else ""
    col_labels = "".join(f"<span>{html.escape(c)}</span>" for c in cols) if labels else ""
    return (
        f"<figure class='hm' data-name='{name}'><figcaption>{html.escape(title)}"
        f"{'' if labels else f' <small>(rows: queries 1–{n_r}, columns: keys 1–{n_c})</small>'}</figcaption>"
        f"<div class='hm-grid' style='--r:{n_r};--c:{n_c}'><div class='hm-rows'>{row_labels}</div>"
        + slots.canvas(
            f"<canvas width='{n_c}' height='{n_r}' role='img' aria-label='{html.escape(aria)}' data-kind='{kind}' ",
            f"{lo:.6g}",
            f"{hi:.6g}",
            z,
        )
        + f" data-meta='{html.escape(json.dumps(meta))}'></canvas>"
        f"<div></div><div class='hm-cols'>{col_labels}</div></div></figure>"
    )


def pair(masked: Tensor, weights: Tensor, tokens: list[str], tokens_k: list[str], head: str) -> str:
    """The shown head: scores after the mask (diverging) beside the softmax weights (0..1)."""
    rows = [f"{i + 1}:{q}" for i, q in enumerate(tokens)]
    cols = [f"{j + 1}:{k}" for j, k in enumerate(tokens_k)]
    return (
        f"<div class='hms' data-head='{html.escape(head)}'>"
        f"{heatmap(masked, SIGNED, f'scores after mask ({head})', rows, cols, 'hm-masked')}"
        f"{heatmap(weights, PROB, f'softmax weights ({head})', rows, cols, 'hm-weights')}</div>"
    )


def every_head(weights: Tensor, tokens: list[str], tokens_k: list[str]) -> str:
    """(H, L, S) weights: one heatmap per head, side by side."""
    rows = [f"{i + 1}:{q}" for i, q in enumerate(tokens)]
    cols = [f"{j + 1}:{k}" for j, k in enumerate(tokens_k)]
    maps = "".join(
        heatmap(weights[h], PROB, f"head {h + 1}", rows, cols, f"hm-head{h + 1}") for h in range(len(weights))
    )
    return f"<div class='hms heads'>{maps}</div>"
