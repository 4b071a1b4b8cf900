"""The mask lab's tables: the masks labelled, then the same scores under the three fill conventions."""

from __future__ import annotations

import html
from typing import Any

import torch
from torch import Tensor

from attention_core import fill_verdicts
from ui.render.tables import html_table

FILL_TITLES = {"-inf": "-inf (000: masked_fill(mask == 0, -inf))", "-1e9": "-1e9 (002: masked_fill(block, -1e9))",
               "additive": "additive M (004: scaled + M, M ∈ {0, -inf})"}  # fmt: skip


MASK_WORDS = {
    "padding": "padding mask: hides the padded key columns from every query",
    "causal": "causal (look-ahead) mask: query i sees keys 1..i only (the upper triangle is hidden)",
    "rows": "row mask: hides every key from the chosen query rows (builds a fully masked row on purpose)",
    "combined": "combined = causal ∧ padding ∧ rows: a key is visible only where every mask shows 1",
}


def mask_lab_html(
    masks: dict[str, Tensor], traces: dict[str, Any], tokens: list[str], tokens_k: list[str], dtype: str
) -> str:
    """Masks side by side, then the same scores under the three fills: masked, raw softmax, what the app shows."""
    parts = ["<div class='lab'><h3>The masks (1 = may look, 0 = hidden)</h3><div class='tables'>"]
    for name in ("padding", "causal", "rows", "combined"):
        t = masks[name].to(torch.float64)
        table = html_table(t, "mask", tokens, tokens_k, f"mask-{name}", "prob", title=f"{name} mask")
        parts.append(f"<div><p class='lab-note'>{html.escape(MASK_WORDS[name])}</p>{table}</div>")
    parts.append("</div><h3>The same scaled scores under each fill convention</h3><div class='lab-cols'>")
    verdicts = fill_verdicts(traces)
    for fill, tr in traces.items():
        verdict = verdicts[fill]
        parts.append(
            f"<div class='lab-col'><h4>{html.escape(FILL_TITLES[fill])}</h4>"
            f"{html_table(tr.masked, dtype, tokens, tokens_k, f'lab-masked{fill}', title='masked scores')}"
            f"<p class='lab-note'>softmax as torch returns it:</p>"
            f"{html_table(tr.weights_raw, dtype, tokens, tokens_k, f'lab-raw{fill}', 'prob', title='softmax (raw)')}"
            f"<p class='lab-note'>what the app shows: {html.escape(verdict)}</p>"
            f"{html_table(tr.weights, dtype, tokens, tokens_k, f'lab-weights{fill}', 'prob', title='weights shown')}"
            "</div>"
        )
    parts.append("</div></div>")
    return "".join(parts)
