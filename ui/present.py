"""Teaching layer over the workbench: present mode's stages, the guided tour's steps, and their HTML.

Present mode shows the overview one stage at a time (static/present.js); the tour walks a learner through the
default preset (static/tour.js). Both are layers in the browser: classes and data attributes on the overview's
cards, state kept in JS, so they survive every re-render. This module only writes their texts and the two
extra overview cards (the scaled and masked scores) that present mode shows; pure, tensors in, HTML out.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

import gradio as gr

STATIC = Path(__file__).resolve().parent / "static"
CSS = (STATIC / "present.css").read_text()
JS = "\n".join((STATIC / f).read_text() for f in ("present.js", "tour.js", "a11y.js"))

# (key, title, formula (HTML), one or two plain sentences, the data-card names it lights up)
STAGES: tuple[tuple[str, str, str, str, tuple[str, ...]], ...] = (
    (
        "inputs",
        "The inputs",
        "X (T×d<sub>model</sub>) and W<sub>q</sub>, W<sub>k</sub>, W<sub>v</sub>",
        "Each row of X is one token's encoding. The three weight matrices are what attention learns.",
        ("x", "x_k", "x_v", "W_q", "W_k", "W_v"),
    ),
    (
        "qkv",
        "Queries, keys, values",
        "Q = X·W<sub>q</sub> &nbsp; K = X·W<sub>k</sub> &nbsp; V = X·W<sub>v</sub>",
        "Every token asks a question (its query row), offers a key to be matched, and carries a value to hand on.",
        ("q", "k", "v"),
    ),
    (
        "scores",
        "Scores",
        "scores = Q·K<sup>T</sup>",
        "Row i, column j: how well token i's query matches token j's key, a dot product.",
        ("scores",),
    ),
    (
        "scaled",
        "Scaled",
        "scaled = scores ÷ √d<sub>k</sub>",
        "Dividing by √d_k keeps the scores from growing with the width, so softmax does not saturate.",
        ("scaled",),
    ),
    (
        "masked",
        "Masked",
        "masked = scaled where allowed, else −∞ (or the fill: −1e9, additive M)",
        "A mask hides keys a query may not look at, such as the future in a causal mask. With no mask, "
        "nothing changes.",
        ("masked", "keep"),
    ),
    (
        "weights",
        "Attention weights",
        "weights = softmax(masked), row by row",
        "Each row becomes positive numbers that sum to 1: how much each token attends to every other.",
        ("weights",),
    ),
    (
        "output",
        "Output",
        "output = weights·V",
        "Each token's output is the weighted average of the value rows, using its own row of weights.",
        ("output",),
    ),
    (
        "combine",
        "Heads combined",
        "MultiHead = concat(head<sub>1</sub>, …, head<sub>h</sub>)·W<sub>o</sub>",
        "Every head does the same with its own weights; their outputs are joined side by side (and mixed by "
        "W_o when it is on).",
        ("combine", "W_o"),
    ),
)

# the tour over the default preset: (target selector, what to look at, the action, the check's name)
# a check name is one of static/tour.js's CHECKS; "" means the learner presses Next
TOUR: tuple[tuple[str, str, str, str], ...] = (
    (
        "#inputs [data-card=x]",
        "This is X: one row per token (t1, t2, t3), one column per dimension. Every number here can be edited.",
        "Change x[t2, d1] (row t2, column d1) to 3: click it, type 3, press Enter.",
        "x_t2_d1_is_3",
    ),
    (
        "#overview [data-card=q]",
        "Q, K and V are X times W_q, W_k and W_v. Only row t2 of each changed: a row depends on its own token alone.",
        "",
        "",
    ),
    (
        "#overview [data-card=scores]",
        "The scores are Q·Kᵀ. Row t2 and column t2 moved, because t2's query and t2's key both changed.",
        "Click any score to see its arithmetic written out.",
        "explain_open",
    ),
    (
        "#explain",
        "The explanation writes q_i · k_j out term by term with the live numbers. It follows every edit.",
        "",
        "",
    ),
    (
        "#overview .arrow.op",
        "Between the scores and the weights the scores are divided by √d_k, then masked.",
        "Switch the scale to off in the toolbar: do the weights become sharper or flatter?",
        "scale_off",
    ),
    (
        "#overview [data-card=weights]",
        "Without the division the weights are sharper: the largest score takes more of each row.",
        "Now switch the mask to causal: which weights became 0?",
        "mask_causal",
    ),
    (
        "#overview [data-card=weights]",
        "Causal: a token may not look at later tokens, so everything above the diagonal is 0 and t1 attends "
        "only to itself. Each row still sums to 1.",
        "",
        "",
    ),
    (
        "#overview [data-card=output]",
        "The output is weights·V: each row is a weighted average of V's rows.",
        "Set heads to 2 in the toolbar and watch a second head appear.",
        "two_heads",
    ),
    (
        "#overview [data-card=combine]",
        "Two heads, each with its own W_q, W_k, W_v, and their outputs joined side by side. "
        "'head shown' picks which head's matrices the overview shows.",
        "",
        "",
    ),
    (
        "#present-btn",
        "Done. Present mode shows one stage at a time in large type, for a class; the notebook below has every "
        "step's formula, code and torch's print.",
        "",
        "",
    ),
)


def stages_json() -> str:
    """Present mode's stages as JSON for static/present.js (a list of {key, title, formula, words, cards})."""
    keys = ("key", "title", "formula", "words", "cards")
    return json.dumps([dict(zip(keys, st, strict=True)) for st in STAGES])


def tour_json() -> str:
    """The tour's steps as JSON for static/tour.js (a list of {target, look, act, check})."""
    keys = ("target", "look", "act", "check")
    return json.dumps([dict(zip(keys, st, strict=True)) for st in TOUR])


def teach_html() -> str:
    """The two buttons (Present, Tour) with the stages and steps the scripts read, in the top bar."""
    return (
        f"<div class='teach' data-stages='{html.escape(stages_json())}' data-tour='{html.escape(tour_json())}'>"
        "<button id='present-btn' type='button' title='one stage at a time, large type (or ?present=1)'>"
        "Present</button><button id='tour-btn' type='button' title='a guided tour of the default preset'>"
        "Tour</button></div>"
    )


def build_teach() -> gr.HTML:
    """The Present and Tour buttons (in the top bar); their scripts add the panel and the tour card to the page."""
    return gr.HTML(teach_html(), elem_id="teach", js_on_load=JS, min_width=0, scale=0, apply_default_css=False)
