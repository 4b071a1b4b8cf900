"""Teaching layer over the workbench: present mode's stages, the guided tour's steps, and their HTML.

Present mode shows the overview one stage at a time (static/present.js); the tour walks a learner through the
preset that is loaded, in its own names and sizes (static/tour.js). Both are layers in the browser: classes and
data attributes on the overview's cards, state kept in JS, so they survive every re-render. This module only
writes their texts and the two extra overview cards (the scaled and masked scores) that present mode shows; pure,
tensors in, HTML out.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import NamedTuple

import gradio as gr

import attention_core as ac
from ui.assets import TEACH_JS
from ui.render.step_cells import JOINED, STEP, formula_html

LESSONS = Path(__file__).resolve().parent.parent / "lessons"  # the lesson plans shipped, one JSON file each
# what a stage's query may set: the state, the tab, the labs' settings (address.js: the scaling lab's d_k and seed, the
# mask lab's boxes, and the fill convention its stage shows: lesson.js) and the present stage
LESSON_KEYS = {"preset", "tab", "d_k", "lab_seed", "causal", "pad", "rows", "fill_shown", "present", "head_shown",
               "scenario", "seed"}  # fmt: skip


def lesson_plans() -> dict[str, dict]:
    """The shipped lesson plans by file name (``lessons/<name>.json``): {title, stages: [{title, query}]}, each
    stage's query a dict of LESSON_KEYS (the address that opens it); a bad file raises naming it and the field."""
    plans = {}
    for path in sorted(LESSONS.glob("*.json")):
        plan = json.loads(path.read_text())
        for i, st in enumerate(plan["stages"]):
            extra = set(st["query"]) - LESSON_KEYS
            if not st.get("title") or extra:
                raise ValueError(f"{path.name}: stage {i + 1} needs a title and only {sorted(LESSON_KEYS)}: {extra}")
        plans[path.stem] = plan
    return plans


# the data-card names each stage lights up: the inputs, then the notebook's steps (attention_core's NOTEBOOK_STEPS)
CARDS: dict[str, tuple[str, ...]] = {
    "inputs": ("x", "x_k", "x_v", "W_q", "W_k", "W_v"),
    "qkv": ("q", "k", "v"),  # (with RoPE on, q before and after it: the RoPE stage's)
    "scores": ("scores", "alibi_bias"),  # ALiBi's bias, when on
    "scaled": ("scaled",),
    "masked": ("masked", "keep"),
    "weights": ("weights", "tiles"),  # the tiles' m and l, when on
    "output": ("output", "cache"),  # the KV cache, when on
    "combine": ("combine", "W_o"),
}


# a stage's formula when none of its VARIANT_FORMULAS applies, where it is not the notebook step's: the heads joined
# without an output projection (W_o's card drawn: the step's own formula, ·W_o)
BASE_FORMULAS = {"combine": JOINED}

# (key, title, formula (HTML), one or two plain sentences, the data-card names it lights up): the inputs, then each
# step with the list's title, formula and sentence
STAGES: tuple[tuple[str, str, str, str, tuple[str, ...]], ...] = (
    (
        "inputs",
        "The inputs",
        "X (T×d<sub>model</sub>) and W<sub>q</sub>, W<sub>k</sub>, W<sub>v</sub>",
        "Each row of X is one token's encoding. The three weight matrices are what attention learns.",
        CARDS["inputs"],
    ),
    *(
        (
            st.key,
            st.title[0].upper() + st.title[1:],
            formula_html(BASE_FORMULAS.get(st.key, st.formula)),
            st.sentence,
            CARDS[st.key],
        )
        for st in ac.NOTEBOOK_STEPS
    ),
)


class Step(NamedTuple):
    """One tour step: the element it outlines (a CSS selector), what to look at, the action it asks for (or ""),
    the name of static/tour.js's check that notices the action ("" = the learner presses Next), the control the
    action needs (outlined too, never covered), and variants for other presets and states.

    The texts are templates that tour.js fills from the page as it is when the step begins: {X} (X, or x_q under
    cross-attention), {x} (x, or x_q), {tokens} and {keys} (the query and key tokens), {dims}, {t1}, {t2}, {k1},
    {d1}, {v} (the value to type), {mask} (the mask's kind), {Hs} ("2 heads"), {h_other} (a head not shown).
    ``alt`` holds (when, set) pairs: every pair whose ``when`` flags all hold (tour.js's ``flags``: cross, masked,
    causal, scaled, sum, multi, edited, explained, combined, grouped) overrides the fields in ``set``, in order.
    """

    target: str
    look: str
    act: str
    check: str
    also: str = ""
    alt: tuple[tuple[dict[str, bool], dict[str, str]], ...] = ()


def when(flags: str, **fields: str) -> tuple[dict[str, bool], dict[str, str]]:
    """A step's variant: ``when("cross !edited", look=...)`` applies while cross holds and edited does not."""
    return {f.lstrip("!"): not f.startswith("!") for f in flags.split()}, fields


CROSS_QKV = "Q is x_q times W_q; K and V are x_k times W_k and x_v times W_v."
TOUR: tuple[Step, ...] = (
    Step(
        "#inputs [data-card=x]",
        "This is {X}: one row per token ({tokens}), one column per dimension ({dims}). Every number here can be "
        "edited.",
        "Change {x}[{t2}, {d1}] (row {t2}, column {d1}) to {v}: click it, type {v}, press Enter.",
        "x_cell",
        alt=(
            when(
                "cross",
                look="This is x_q, where the queries come from: one row per query token ({tokens}), "
                "one column per dimension ({dims}). Beside it, x_k and x_v hold the keys' and the values' tokens "
                "({keys}). Every number here can be edited.",
            ),
        ),
    ),
    Step(
        "#overview [data-card=q]",
        "Q, K and V are X times W_q, W_k and W_v. Only row {t2} of each changed: a row depends on its own token alone.",
        "",
        "",
        alt=(
            when(
                "!edited",
                look="Q, K and V are X times W_q, W_k and W_v: an edit of one row of X moves that "
                "row of each, because a row depends on its own token alone.",
            ),
            when("cross", look=CROSS_QKV + " Only row {t2} of Q changed: K and V do not read x_q at all."),
            when("cross !edited", look=CROSS_QKV + " An edit of x_q moves one row of Q and nothing in K or V."),
        ),
    ),
    Step(
        "#overview [data-card=scores]",
        "The scores are Q·Kᵀ. Row {t2} and column {t2} moved, because {t2}'s query and {t2}'s key both changed.",
        "Click any score to see its arithmetic written out.",
        "explain_open",
        alt=(
            when(
                "!edited",
                look="The scores are Q·Kᵀ: entry (i, j) is token i's query times token j's key, a dot product.",
            ),
            when(
                "cross",
                look="The scores are Q·Kᵀ: a row per query ({tokens}), a column per key ({keys}). "
                "Only row {t2} moved, because only {t2}'s query changed.",
            ),
            when(
                "cross !edited",
                look="The scores are Q·Kᵀ: a row per query ({tokens}), a column "
                "per key ({keys}); entry (i, j) is query i's dot product with key j.",
            ),
        ),
    ),
    Step(
        "#explain",
        "The explanation writes q_i · k_j out term by term with the live numbers. It follows every edit.",
        "",
        "",
        alt=(
            when(
                "!explained",
                target="#overview [data-card=scores]",
                look="Click any number of any table "
                "and a card opens with its arithmetic written out (q_i · k_j term by term, with the live numbers); "
                "it follows every edit.",
            ),
        ),
    ),
    Step(
        "#overview .arrow.op",
        "Between the scores and the weights the scores are divided by √d_k, then masked.",
        "Switch the scale to off in the toolbar: do the weights become sharper or flatter?",
        "scale_off",
        "#tb-scale",
        alt=(
            when(
                "masked",
                look="Between the scores and the weights the scores are divided by √d_k, then the "
                "{mask} mask hides some of them.",
            ),
            when(
                "!scaled",
                look="Between the scores and the weights the scores could be divided by √d_k, "
                "but the scale is off here.",
                act="Switch the scale to √d_k in the toolbar: do the weights become flatter or sharper?",
                check="scale_on",
            ),
            when("sum scaled", act="Switch the scale to off in the toolbar: do the weights change at all?"),
            when("sum !scaled", act="Switch the scale to √d_k in the toolbar: do the weights change at all?"),
            when(
                "!scaled masked",
                look="Between the scores and the weights the scores could be "
                "divided by √d_k, but the scale is off here; then the {mask} mask hides some of them.",
            ),
        ),
    ),
    Step(
        "#overview [data-card=weights]",
        "Without the division the weights are sharper: the largest score takes more of each row.",
        "Now switch the mask to causal: which weights became 0?",
        "mask_causal",
        "#tb-mask",
        alt=(
            when(
                "scaled",
                look="With the division the weights are flatter: the scores shrink before the "
                "softmax, so the largest one takes less of each row.",
            ),
            when(
                "sum",
                look="With ÷ row sum instead of softmax, dividing every score by the same number "
                "changes nothing: the weights stay as they were. Scaling matters for softmax.",
            ),
            when(
                "masked", act="Now switch the mask from {mask} to none: which weights stop being 0?", check="mask_none"
            ),
        ),
    ),
    Step(
        "#overview [data-card=weights]",
        "Causal: a token may not look at later tokens, so everything above the diagonal is 0 and {t1} attends "
        "only to itself. Each row still sums to 1.",
        "",
        "",
        alt=(
            when(
                "cross",
                look="Causal: query i may not look at keys after position i, so everything above "
                "the diagonal is 0 and {t1} sees only {k1}. Each row still sums to 1.",
            ),
            when("!causal", look="The {mask} mask hides some keys: their weights are 0. Each row still sums to 1."),
            when(
                "!masked",
                look="No mask: every query sees every key, so no weight is forced to 0. Each row still sums to 1.",
            ),
        ),
    ),
    Step(
        "#overview [data-card=output]",
        "The output is weights·V: each row is a weighted average of V's rows.",
        "Set heads to 2 in the toolbar and watch a second head appear.",
        "heads_more",
        "#tb-heads",
        alt=(
            when(
                "sum",
                look="The output is weights·V: each row is a weighted sum of V's rows (its weights "
                "sum to 1 but may be negative).",
            ),
            when(
                "multi",
                act="Set 'head shown' to {h_other} in the toolbar: Q, K, V, the scores and the "
                "weights become head {h_other}'s.",
                check="head_other",
                also="#tb-view-head",
            ),
            when(
                "multi grouped",
                act="Set 'head shown' to {h_other} in the toolbar: Q, the scores and the weights become head "
                "{h_other}'s, but K and V stay: heads 1 and 2 read the same kv head.",
            ),
        ),
    ),
    Step(
        "#overview [data-card=combine]",
        "{Hs}, each with its own W_q, W_k, W_v, and their outputs joined side by side. 'head shown' picks which "
        "head's matrices the overview shows.",
        "",
        "",
        alt=(
            when(
                "grouped",
                look="{Hs}, each with its own W_q, but sharing K and V: grouped-query attention, as in Llama, gives "
                "a group of query heads one W_k and W_v ('kv heads' in More settings). Their outputs are joined side "
                "by side; 'head shown' picks which head's matrices the overview shows.",
            ),
            when(
                "!combined",
                target="#overview [data-card=output]",
                look="With several heads, each has "
                "its own W_q, W_k, W_v, and a last card, 'heads combined', joins their outputs side by side; 'head "
                "shown' picks which head the overview shows.",
            ),
        ),
    ),
    Step(
        "#present-btn",
        "Done. Present mode shows one stage at a time in large type, for a class; the notebook below has every "
        "step's formula, code and torch's print.",
        "",
        "",
    ),
)


# today's attention: a sentence present mode adds to a stage while the variant is on, by the stage's key and
# what shows it is on (a card's name, or "window" while the mask step's arrow names a sliding window)
VARIANT_WORDS: dict[str, tuple[tuple[str, str], ...]] = {
    "qkv": (("q_before", "With RoPE on, q and k are turned pair by pair by an angle that grows with the position, "
                         "so a query and a key meet at an angle that depends on how far apart they are."),),
    "scores": (("alibi_bias", "With ALiBi on, each head adds −m·(i−j) to the scores: the farther back a key, "
                              "the larger the penalty, with a different slope m for every head."),),
    "masked": (("window", "The sliding window also hides every key more than w − 1 positions back, so each "
                          "query looks at its last w tokens only."),),
    "weights": (("tiles", "FlashAttention gets the same weights a tile at a time: each row keeps a running max m "
                          "and sum l, and rescales what it has when a larger score arrives."),),
    "output": (("cache", "Decoding with a KV cache, each new token appends its k and v and its query reads the "
                         "cache: the same rows as the full causal computation."),),
}  # fmt: skip


# a stage's formula while a variant is on (by the stage's key: what shows it is on, as in VARIANT_WORDS; the formula):
# with RoPE the Q and K cards of the Q, K, V stage show q and k turned, as their titles say; under cross-attention
# each projection has its own source, as its card's title says (the panel said "K = X·W_k" beside "K = x_k·W_k")
VARIANT_FORMULAS: dict[str, tuple[tuple[str, str], ...]] = {
    "qkv": (
        ("q_before", formula_html("Q = RoPE(X·W_q),  K = RoPE(X·W_k),  V = X·W_v")),
        ("x_k", formula_html("Q = x_q·W_q,  K = x_k·W_k,  V = x_v·W_v")),
    ),  # (cross-attention: three sources)
    "combine": (("W_o", formula_html(STEP["combine"].formula)),),
}


# the cards each stage is computed from, kept on screen beside it in present mode (so "output = weights·V" can be
# pointed at): the stage's direct inputs, by the stage's key
USES: dict[str, tuple[str, ...]] = {
    "qkv": ("x", "x_k", "x_v", "W_q", "W_k", "W_v"),
    "scores": ("q", "k"),
    "scaled": ("scores",),
    "masked": ("scaled",),
    "weights": ("masked",),
    "output": ("weights", "v"),
    "combine": ("head_output",),  # every head's output, in the order they are joined (ui/render/stages.py)
}
# the cards a stage is computed from when none of its USES is drawn: the heads combined stage of one head (through
# W_o) or of more heads than a projector shows side by side shows the shown head's output
INSTEAD: dict[str, tuple[str, ...]] = {"combine": ("output",)}


# present mode's stages for today's attention, each shown only while its card is drawn (ui/render/stages.py draws
# it only while its step is on), so a state without RoPE, grouped heads, a window, decoding or several heads skips
# it: (the stage it follows, key, title, formula, sentence, its cards, the cards it is computed from)
MORE_STAGES: tuple[tuple[str, str, str, str, str, tuple[str, ...], tuple[str, ...]], ...] = (
    (
        "qkv",
        "rope",
        "RoPE turns q",
        "q′ = (q<sub>1</sub> cos tθ − q<sub>2</sub> sin tθ, &nbsp;q<sub>2</sub> cos tθ + q<sub>1</sub> sin tθ), "
        "&nbsp;θ = base<sup>−2i/E</sup>",
        "Each pair of q's dimensions turns by an angle t·θ that grows with the token's position t (the first token "
        "at t = 0), so a query and a key meet at an angle set by how far apart they are. Here: pair 1, before and "
        "after.",
        ("rope_pair",),
        (),  # (the card holds q before and after)
    ),
    (
        "rope",
        "kv_heads",
        "Grouped-query heads",
        "K<sub>h</sub> = K<sub>kv(h)</sub>, &nbsp;V<sub>h</sub> = V<sub>kv(h)</sub>",
        "Every query head has its own W_q, but a group of query heads reads one shared K and V: fewer kv heads, a "
        "smaller cache.",
        ("kv_map",),
        ("k", "v"),
    ),
    (
        "masked",
        "window",
        "The sliding window",
        "keep<sub>ij</sub> = (i − w &lt; j ≤ i)",
        "Each query sees itself and the w − 1 tokens before it, nothing older, even where the causal mask allows it.",
        ("window_keep",),
        ("masked",),
    ),
    (
        "output",
        "kv_cache",
        "The KV cache, token by token",
        "o<sub>t</sub> = softmax(q<sub>t</sub>·K<sub>cache</sub><sup>T</sup> / √d<sub>k</sub>)·V<sub>cache</sub>",
        "Decoding: token t appends its k and v to the cache, and its query reads only the cache. → steps t; its "
        "row equals the full causal attention's row t.",
        ("kv_step",),
        (),
    ),
    (
        "kv_cache",
        "heads",
        "Every head",
        "head<sub>h</sub> = softmax(Q<sub>h</sub>K<sub>h</sub><sup>T</sup> / √d<sub>k</sub>)",
        "Each head has its own weights: every head's, side by side.",
        ("head_weights",),
        (),
    ),
)


def _more_json(st: tuple[str, str, str, str, str, tuple[str, ...], tuple[str, ...]]) -> dict:
    after, key, title, formula, words, cards, uses = st
    return {"key": key, "title": title, "formula": formula, "words": words, "cards": cards, "uses": uses,
            "extra": (), "only": True, "after": after}  # fmt: skip


def with_more(stages: list[dict]) -> list[dict]:
    """``stages`` with MORE_STAGES each put after the stage it follows (at the end when that one is absent)."""
    out = list(stages)
    for st in map(_more_json, MORE_STAGES):
        keys = [x["key"] for x in out]
        out.insert(keys.index(st["after"]) + 1 if st["after"] in keys else len(out), st)
    return out


def stages_json() -> str:
    """Present mode's stages as JSON for static/present.js (a list of {key, title, formula, words, cards, uses,
    instead, extra, formulas}; uses: the cards it is computed from (USES), instead: those when none of them is drawn
    (INSTEAD); extra: [when, sentence] pairs for today's attention, see VARIANT_WORDS; formulas: [when, formula]
    pairs, VARIANT_FORMULAS)."""
    keys = ("key", "title", "formula", "words", "cards")
    return json.dumps(
        with_more(
            [
                {
                    **dict(zip(keys, st, strict=True)),
                    "uses": USES.get(st[0], ()),
                    "instead": INSTEAD.get(st[0], ()),
                    "extra": VARIANT_WORDS.get(st[0], ()),
                    "formulas": VARIANT_FORMULAS.get(st[0], ()),
                }
                for st in STAGES
            ]
        )
    )


def tour_json() -> str:
    """The tour's steps as JSON for static/tour.js (a list of {target, look, act, check, also, alt}; each alt
    is {when, set})."""
    return json.dumps([{**st._asdict(), "alt": [{"when": w, "set": v} for w, v in st.alt]} for st in TOUR])


def teach_html() -> str:
    """The two buttons (Present, Tour) with the stages and steps the scripts read, in the top bar."""
    return (
        f"<div class='teach' data-stages='{html.escape(stages_json())}' data-tour='{html.escape(tour_json())}' "
        f"data-lessons='{html.escape(json.dumps(lesson_plans()))}'>"
        "<button id='present-btn' type='button' title='one stage at a time, large type (or ?present=1)'>"
        "Present</button><button id='tour-btn' type='button' title='a guided tour of the preset that is loaded'>"
        "Tour</button><button id='lesson-btn' type='button' aria-expanded='false' "
        "title='a lesson plan: views stepped in order with the stage keys'>Lesson</button></div>"
    )


def build_teach() -> gr.HTML:
    """The Present and Tour buttons (in the top bar); their scripts add the panel and the tour card to the page."""
    return gr.HTML(teach_html(), elem_id="teach", js_on_load=TEACH_JS, min_width=0, scale=0, apply_default_css=False)
