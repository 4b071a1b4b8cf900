"""The mask lab (the three fill conventions side by side) and the scaling lab (seed 004's √d_k)."""

from __future__ import annotations

import html
from typing import Any

import gradio as gr

import attention_core as ac
from attention_core.scaling import MAX_DK, MIN_DK, scaling_lab
from attention_core.scenario import MAX_SEED, parse_int
from attention_core.sdpa import compare_fills, compose_keep
from ui.pipeline import expired_message
from ui.render import tables as vw
from ui.values import padding_flags, scenario_from, shown_head
from ui.wiring import COMMON, on


def mask_lab_views(v: dict[str, Any], causal: bool, padding: Any, rows: Any) -> str:
    """The mask lab for the shown head of the on-screen state: masks labelled, then the three fills."""
    try:
        s = ac.parse(scenario_from(v))
        tr = ac.evaluate(s)
        h = shown_head(v["view_head"], s.heads)
        n_q, n_k = len(s.tokens), len(s.tokens_k)
        try:
            pad = padding_flags(padding, n_k)
        except ac.ScenarioError as e:
            raise ac.ScenarioError("mask lab padding", e.problem) from None
        try:
            hidden = [i - 1 for i, f in enumerate(padding_flags(rows, n_q), start=1) if f]
        except ac.ScenarioError as e:
            raise ac.ScenarioError("mask lab rows", e.problem.replace("key", "query")) from None
        masks = compose_keep(n_q, n_k, bool(causal), pad, hidden)
        part = tr.head(h)
        traces = compare_fills(part["q"], part["k"], part["v"], masks["combined"], s.scale, s.normalize)
    except ac.ScenarioError as e:
        return vw.message_html([], error=str(e))
    return vw.mask_lab_html(masks, traces, s.tokens, s.tokens_k, s.dtype)


def scaling_views(d_k: Any, seed: Any) -> tuple[Any, str]:
    """The scaling lab's figure and its sentence; a bad field gets a message naming it."""
    try:
        lab = scaling_lab(parse_int(d_k, "d_k", MIN_DK, MAX_DK), parse_int(seed or 0, "lab seed", 0, MAX_SEED))
    except ac.ScenarioError as e:
        return gr.skip(), vw.message_html([], error=str(e))
    return vw.scaling_figure(lab), f"<p class='lab-words'>{html.escape(vw.scaling_words(lab))}</p>"


def build_mask_lab(vals_state: Any) -> Any:
    with gr.Tab("Mask lab", id="mask-lab") as tab:
        gr.Markdown(
            "The same scaled scores (head shown, from the workbench's state) under the three fill conventions. "
            "Build masks here: padding hides key columns, causal hides the future, and a row mask hides every key "
            "from a query, so you can watch -inf give NaN where -1e9 gives uniform weights."
        )
        with gr.Row():
            causal = gr.Checkbox(True, label="causal mask")
            pad = gr.Textbox("", label="padded key positions (e.g. 3)")
            rows = gr.Textbox("1", label="hide every key from query rows (e.g. 1)")
        out = gr.HTML(elem_id="mask-lab-out")
    lab_in = [vals_state, causal, pad, rows]
    # .change, not .input: deleting characters in a Textbox fires no input event in gradio 6.31
    for trigger in (tab.select, causal.input, pad.change, rows.change):
        on(trigger, mask_lab, lab_in, [out], **COMMON)
    return tab


def mask_lab(vals: dict[str, Any] | None, causal: bool, pad: Any, rows: Any) -> str:
    return expired_message() if vals is None else mask_lab_views(vals, causal, pad, rows)


def build_scaling_lab() -> Any:
    with gr.Tab("Scaling lab", id="scaling-lab") as tab:
        gr.Markdown("Why 004 divides by √d_k: q and k are N(0, 1) draws (32 × d_k, float64) from the seed below.")
        with gr.Row():
            d_k = gr.Slider(MIN_DK, MAX_DK, value=64, step=1, label="d_k", elem_id="lab-dk")
            seed = gr.Number(0, precision=0, minimum=0, label="seed")
        fig = gr.Plot(elem_id="scaling-fig", label="scaling")
        words = gr.HTML(elem_id="scaling-words")
    for trigger in (tab.select, d_k.input, seed.input):
        trigger(scaling_views, [d_k, seed], [fig, words], **COMMON)
    return tab
