"""The workbench: topbar, toolbar and drawer, the editable grids beside the one-screen pipeline, the notebook
below, and their handlers (controls, structural changes, presets, explain clicks, the queued edit fallback)."""

from __future__ import annotations

import dataclasses
import html
import itertools
import json
from typing import Any

import gradio as gr

import attention_core as ac
from attention_core import EXPLAINABLE, MAX_HEADS, parse_int
from ui import present
from ui.assets import DRAWER_JS, EXPLAIN_JS, FIT_JS, GRID_JS, HEAT_JS, LANDED_STORED, PLAIN_JS, WATCH_JS, drawn
from ui.edits import edit_result, page_grids
from ui.live import live_edit
from ui.pipeline import compute_views, load_values, parse_pick, refused, restructure_values, state_message
from ui.render import tables as vw
from ui.share import build_share
from ui.values import (
    DEFAULT_PRESET,
    NAMES,
    SCALE_MODES,
    VARIANT_FIELDS,
    PageValues,
    labelled,
    page_seed,
    visibility,
)
from ui.wiring import COMMON, Page, bind, expired, on, whole_number

# controls whose change also redraws the input grids (labels, the shown head's weights, exactness)
REDRAW = ("tokens", "tokens_k", "view_head", "dtype")


LIVE = ("tokens", "tokens_k", "fill", "padding", "scale_mode", "temperature", "dtype", "normalize", "view_head",
        *(f for f in VARIANT_FIELDS if f != "kv_heads"))  # fmt: skip


STRUCTURAL = ("T", "S", "d_in", "d_out", "heads", "head_mode", "layout", "cross", "use_wo", "mask_kind", "kv_heads")

# live controls whose own answer shows or hides a box beside them (values.visibility says when)
SHOWS = {"positions": "rope_base", "scale_mode": "temperature"}


# the boxes a learner types into: each applies its value on Enter or on leaving the box (.submit, .blur), never per
# keystroke: typing 12 into T applied T=1 first, which drew row t2 afresh over the preset's, and a sentence typed at a
# person's speed raced its own half-typed words (issue 37)
TYPED = ("tokens", "tokens_k", "padding", "temperature", "view_head", "rope_base", "kv_heads", "window",
         "block_rows", "block_cols", "T", "S", "d_in", "d_out", "heads")  # fmt: skip

# Gradio's Dropdown fires .input on every blur as well as on a choice (js/dropdown/shared/Dropdown.svelte,
# handle_blur), and twice for a click on an option: a keyboard learner tabbing along the toolbar fired each one. A
# typed box fires .blur after its Enter's .submit. A value of these that equals the stored one therefore changes
# nothing (the preset picker's blur used to load the preset again, over the learner's edits, and any such answer
# could land after an edit made since). A refused value's control is set back to the stored one, so its blur, which
# follows, changes nothing either: the refusal's message stays until the next change or an Enter on the
# value in force (restated).
REPEATS = ("mask_kind", "fill", "scale_mode", "normalize", "dtype", "positions", *TYPED)


def triggers(component: Any, field: str) -> list[tuple[Any, bool]]:
    """The events that apply a control, each with whether it is an Enter: Enter and leaving the box for a typed one,
    else its own input."""
    return [(component.submit, True), (component.blur, False)] if field in TYPED else [(component.input, False)]


def unchanged(field: str | None, value: Any, vals: PageValues) -> bool:
    """Whether a control's event only repeats the stored value (a blur, an answer setting the box): then the
    handler answers nothing."""
    return field in REPEATS and field in NAMES and getattr(vals, field) == value


def restated(page: Page, field: str, value: Any, preset_id: str | None, vals: PageValues | None) -> dict[Any, Any]:
    """A typed box's Enter on the value in force: the message line said again for the values in force (their
    warnings, if any), else nothing (``{}``: not an Enter on the value in force).

    Such an Enter changes nothing, as its blur does (:func:`unchanged`), but it is the learner saying "this value": a
    refusal still in the message line (of a value typed before, the box since set back) is no longer about what the
    box shows. The blur that follows a refusal stays silent, so the refusal is still read once the box is left."""
    if vals is None or not (unchanged(field, value, vals) or (field == "seed" and value == vals.seed)):
        return {}
    return {page.views["message"]: state_message(preset_id, vals)}


def on_control_entered(page: Page, field: str, value: Any, preset_id: str | None, vals: PageValues | None) -> Any:
    """:func:`on_control` for a typed box's Enter (:func:`restated`)."""
    return restated(page, field, value, preset_id, vals) or on_control(page, field, value, preset_id, vals)


def on_structure_entered(
    page: Page, action: str, field: str, value: Any, preset_id: str | None, shape: Any, vals: PageValues | None
) -> Any:
    """:func:`on_structure` for a typed box's Enter (:func:`restated`)."""
    again = restated(page, field, value, preset_id, vals) if shape is not None else {}
    return again or on_structure(page, action, field, value, preset_id, shape, vals)


TEXTS = ("tokens", "tokens_k", "padding")  # the typed boxes that take text; the others are gr.Number boxes


def emptied(page: Page, field: str | None, value: Any, vals: PageValues) -> dict[Any, Any] | None:
    """A number box left empty (a letter typed over its value: the browser's number input takes no letters, and
    gradio sends None): refused by name, the box back at the value in force. Stored, None turned the tiles, the
    window or kv heads off (or the RoPE base to its default) while drawer.js put the old number back in the box, so
    the box showed 2 for tiles that were off, and fill -1e9 was then taken (issue 37, the long random journey, seed
    5, step 154)."""
    if (field not in TYPED and field != "seed") or field in TEXTS or value not in (None, ""):
        return None  # (the seed: an init button's, which drew from seed 0 and stored None for an emptied box)
    label, kept = getattr(page.controls.get(field), "label", field), getattr(vals, field)
    return refusal(page, vals, refused(f"{label}: the box is empty; it keeps {kept}"), field, value)


def refusal(
    page: Page, vals: PageValues, got: dict[str, Any], field: str | None = None, value: Any = None
) -> dict[Any, Any]:
    """A refused control ``value``: the views say why, the values stay as they were, and the control goes back to the
    value in force, so that it never shows a value the views do not use (a refused KV-cache box stayed ticked). A
    typed box is put back by the page, and only while it still reads the refused value (:func:`put_back`)."""
    if field in TYPED or field == "seed":  # (the seed: refused through an init button)
        return page.view_updates({**got, "message": got["message"] + put_back(page, field, value, vals)})
    back = {page.controls[field]: getattr(vals, field)} if field in page.controls else {}
    return {**page.view_updates(got), **back}


PUT_BACKS = itertools.count(1)  # each refusal's mark its own: gradio redraws no view given the value it shows


def put_back(page: Page, field: str, value: Any, vals: PageValues) -> str:
    """A mark in the message line that the typed box ``field`` goes back to the value in force (static/putback.js):
    the box's elem_id, the value refused, the value in force, and a number of its own (the same refusal twice would
    otherwise be the same message, which gradio does not draw again, and the box would keep the second). The answer
    setting the box itself set it back over a value typed since: temperature -1 Enter, then 4 Enter, both on their
    way; -1's answer, drawn first, set the box to 1 while 4 was computed, or gradio's always_last then sent the 4 held
    back with the box's 1. The page puts it back only while it still reads ``value``."""
    box = page.controls[field].elem_id  # (every typed box has one: gradio labels no text box by aria-label)
    keeps, n = getattr(vals, field), next(PUT_BACKS)
    said = json.dumps({"box": box, "refused": value, "keeps": keeps, "n": n}, allow_nan=False)
    return f"<span hidden data-put-back='{html.escape(said, quote=True)}'></span>"


def on_cell(page: Page, preset_id: str | None, vals: PageValues | None, evt: gr.EventData) -> dict[Any, Any]:
    """One grid cell committed: ``{table, row, col, value}``. A refused value changes nothing and is named.

    (The page sends its edits by :func:`live_edit`; this queued event is its fallback and the handlers' tests.)
    """
    return page.edited(*edit_result("cell", preset_id, vals, getattr(evt, "_data", None)))


def on_paste(page: Page, preset_id: str | None, vals: PageValues | None, evt: gr.EventData) -> dict[Any, Any]:
    """A block pasted into a grid (spreadsheet cells, a nested list, or torch's print), checked whole."""
    return page.edited(*edit_result("paste", preset_id, vals, getattr(evt, "_data", None)))


def on_control(page: Page, field: str, value: Any, preset_id: str | None, vals: PageValues | None) -> dict[Any, Any]:
    """A live control (fill, scale, dtype, tokens, head shown…): recompute every view."""
    if vals is None:
        return expired(page)
    if unchanged(field, value, vals):
        return {}
    if (empty := emptied(page, field, value, vals)) is not None:
        return empty
    old, vals = vals, dataclasses.replace(vals, **{field: value})
    problem = control_problem(field, value)
    past = None if problem or field != "view_head" else past_the_heads(value, vals.heads)
    if past:  # a head that is not there: the last head is shown, and the control and a message say so
        vals = dataclasses.replace(vals, view_head=int(vals.heads))
    got = refused(problem) if problem else compute_views(preset_id, vals)
    if got.get("refused"):  # the server keeps what it had; the control goes back to it, the message says why
        return refusal(page, old, got, field, value)
    if field in ("tokens", "tokens_k"):  # the grids' row labels say the accepted tokens too
        vals = labelled(vals)
    out = {page.vals_state: vals, **page.view_updates(got)}
    if past:
        out[page.views["message"]] = vw.message_html([past]) + got["message"]
        out[page.controls["view_head"]] = vals.view_head
    if field in SHOWS:  # the box this control shows or hides
        out[page.controls[SHOWS[field]]] = gr.update(visible=visibility(vals)[SHOWS[field]])
    if field in REDRAW and getattr(old, field) != value:
        try:
            out[page.inputs] = page_grids(vals)
        except ac.ScenarioError:
            pass  # the message already names the field; the grids stay as they are
    return out


def past_the_heads(value: Any, heads: Any) -> str | None:
    """The message for a "head shown" past the heads there are (None when it is one of them)."""
    n, h = parse_int(value, "head shown", 1, MAX_HEADS), int(heads)
    if n <= h:
        return None
    return f"head shown: {n} is more than the {h} head{'s' if h > 1 else ''} there are; showing head {h}."


MAX_TEXT = 2_000  # characters in a token-label or padding box


def control_problem(field: str, value: Any) -> str | None:
    """A live control's own value checked even while it does not apply, so a bad one is never stored."""
    try:
        if field == "temperature":
            if ac.parse_number(value, "temperature") <= 0:
                raise ac.ScenarioError("temperature", f"{value}: a temperature must be positive")
        elif field == "view_head":
            parse_int(value, "head shown", 1, MAX_HEADS)
        elif field in ("alibi", "decode"):
            if not isinstance(value, bool):
                raise ac.ScenarioError(field, "must be on or off")
        elif field in VARIANT_FIELDS and field != "positions":  # numbers; the core checks their range by name
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
                raise ac.ScenarioError(field, f"{str(value)[:20]!r} is not a number")
        elif not isinstance(value, str) or len(value) > MAX_TEXT:
            raise ac.ScenarioError(field, f"expected text of at most {MAX_TEXT} characters")
    except ac.ScenarioError as e:
        return str(e)
    return None


def on_structure(page: Page, action: str, field: str | None, *args: Any) -> dict[Any, Any]:
    """Sizes, heads, mode, layout, cross, W_o, mask kind, or an init button: new grids and views."""
    value, (preset_id, shape, vals) = (args[0], args[1:]) if field else (None, args)
    if vals is None or shape is None:
        return expired(page)
    if unchanged(field, value, vals):
        return {}
    if (empty := emptied(page, field, value, vals)) is not None:
        return empty
    old, vals = vals, (dataclasses.replace(vals, **{field: value}) if field else vals)
    new_shape, nv, got = restructure_values(action, preset_id, shape, vals)
    if nv is None or got.get("refused"):  # the server keeps what it had; the control goes back to it
        return refusal(page, old, got, field, value)
    out = page.answer(preset_id, new_shape, nv, got) | {page.preset: gr.skip()} | page.kept_controls(vals, nv)
    if field == "heads" and (past := past_the_heads(old.view_head, nv.heads)):  # head 4 shown, then 2 heads: the
        out[page.views["message"]] = vw.message_html([past]) + got["message"]  # last is shown, and said (it was not)
    return out


def on_load_preset(page: Page, preset_id: str | None) -> dict[Any, Any]:
    if preset_id not in ac.preset_ids():  # Reload while the picker is empty (a state of its own): nothing to load
        return {page.views["message"]: vw.message_html([], error="preset: pick a preset in the list to load it")}
    new_shape, nv, got = load_values(preset_id)
    return page.answer(preset_id, new_shape, nv, got)


def on_choose_preset(page: Page, preset_id: str | None, loaded: str | None) -> dict[Any, Any]:
    """The picker's .input: another preset than the one loaded is loaded. The picker's blur repeats the one shown,
    which changes nothing (Reload, or a click on that preset in the list, loads it again on purpose)."""
    if preset_id is None or preset_id == loaded:  # (None: the empty picker of a state of its own, blurred)
        return {}
    return on_load_preset(page, preset_id)


def on_reselect_preset(page: Page, preset_id: str | None, loaded: str | None) -> dict[Any, Any]:
    """The picker's .select (a click on an option in the list): the preset already loaded is loaded again, as the
    learner asked; another one is left to .input, which the same click fires."""
    return on_load_preset(page, preset_id) if preset_id is not None and preset_id == loaded else {}


def on_pick(page: Page, preset_id: str | None, vals: PageValues | None, evt: gr.EventData) -> dict[Any, Any]:
    if vals is None:
        return expired(page)
    data = getattr(evt, "_data", None)
    chosen = parse_pick(data)
    name = data.get("name") if isinstance(data, dict) else None
    if isinstance(name, str) and name not in EXPLAINABLE and not name.startswith("hm-"):  # a table not explained:
        # say so, and forget the pick (the page reopens the card, which showed an earlier, unrelated explanation)
        said = (f"{name[:30]}: this table has no step-by-step explanation; click a number of q, k, v, the scores, "
                "the weights or the output")  # fmt: skip
        return {
            page.vals_state: dataclasses.replace(vals, pick=None),
            page.views["explain"]: vw.explain_html("", (), error=said),
        }
    if chosen is None or chosen == vals.pick:  # a click between cells, or a double event
        return {}
    vals = dataclasses.replace(vals, pick=chosen)
    got = compute_views(preset_id, vals)
    return page.view_updates(got) if got.get("refused") else {page.vals_state: vals, **page.view_updates(got)}


def on_seed(page: Page, value: Any, preset_id: str | None, vals: PageValues | None) -> dict[Any, Any]:
    """The seed box's Enter or blur: stored once it is a seed (the init buttons draw from it), and the message line
    no longer says a refusal of one; a bad one is named and the box goes back to the seed in force. (It answered a
    plain dict, which stored nothing: issue 37.)"""
    if vals is None:
        return {page.views["message"]: expired(page)[page.views["message"]]}
    if value == vals.seed:
        return {}
    if value is None or value == "":  # (emptied, as letters empty a number box: said as every box says it, where
        said = f"seed: the box is empty; it keeps {vals.seed}"  # it said "seed: None is not a whole number")
        return refusal(page, vals, {"message": vw.message_html([], error=said)}, "seed", value)
    try:
        seed = page_seed(value)
    except ac.ScenarioError as e:
        return refusal(page, vals, {"message": vw.message_html([], error=str(e))}, "seed", value)
    vals = dataclasses.replace(vals, seed=seed)
    return {page.vals_state: vals, page.views["message"]: state_message(preset_id, vals)}


def on_seed_entered(page: Page, value: Any, preset_id: str | None, vals: PageValues | None) -> dict[Any, Any]:
    """:func:`on_seed` for the box's Enter (:func:`restated`)."""
    return restated(page, "seed", value, preset_id, vals) or on_seed(page, value, preset_id, vals)


def build_topbar() -> tuple[Any, Any, Any]:
    """Title, preset picker (and its reload button) and the one-line match badge."""
    with gr.Row(elem_id="topbar"):
        gr.HTML("<h1>Attention Playground</h1>", elem_id="title", min_width=200, scale=0, apply_default_css=False)
        preset = gr.Dropdown(
            [(p.title, p.id) for p in (*ac.all_presets(), *ac.decoder_presets())],
            value=DEFAULT_PRESET,
            label="Preset (notebook example)",
            elem_id="preset",
            scale=1,
            min_width=280,
        )
        load_btn = gr.Button("Reload", size="sm", scale=0, min_width=70, elem_id="reload")
        badge = gr.HTML(elem_id="badge", js_on_load=PLAIN_JS, apply_default_css=False, scale=2, min_width=300)
        present.build_teach()
        gr.HTML(TEXT_SIZE, elem_id="text-size", js_on_load=FIT_JS, min_width=0, scale=0, apply_default_css=False)
    return preset, badge, load_btn


# the teacher's text size for a projector: every text of the page grows, remembered by the browser (fit.js)
TEXT_SIZE = (
    "<div class='ts' role='group' aria-label='text size'>"
    "<button type='button' data-ts='-1' aria-label='smaller text' title='smaller text'>A−</button>"
    "<button type='button' data-ts='1' aria-label='larger text' title='larger text, for a projector'>A+</button>"
    "<button type='button' class='projector' title='the projector: text size 150% and present mode'>Projector</button>"
    "</div>"
)


def build_toolbar(first: PageValues) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """The controls used most in one compact row, the rest in drawers: (controls, init buttons, share)."""
    c: dict[str, Any] = {}
    # (no number box has a minimum or maximum: gradio's own range check names no field, "Value 9 is greater than
    # maximum value 8", and logs a traceback; the handlers name the field and its limits, and set the box back)
    drop = {"container": True, "min_width": 96}
    with gr.Row(elem_id="toolbar"):
        c["mask_kind"] = gr.Dropdown(
            list(ac.MASK_KINDS), value=first.mask_kind, label="mask", elem_id="tb-mask", **drop
        )
        # right by the mask, shown while the mask pads (choosing padding fills in the last key: values.py)
        c["padding"] = gr.Textbox(
            first.padding, label="padded key positions (e.g. 3 or 2, 3)", visible=visibility(first)["padding"],
            elem_id="tb-padding", placeholder="key numbers, e.g. 3", **drop,
        )  # fmt: skip
        c["fill"] = gr.Dropdown(
            [("-inf", "-inf"), ("-1e9", "-1e9"), ("additive mask M", "additive")],
            value=first.fill,
            label="fill",
            elem_id="tb-fill",
            **drop,
        )
        c["heads"] = whole_number(first.heads, label="heads", elem_id="tb-heads", **drop)
        c["view_head"] = whole_number(1, label="head shown", elem_id="tb-view-head", **drop)
        c["scale_mode"] = gr.Dropdown(
            list(SCALE_MODES), value=first.scale_mode, label="scale", elem_id="tb-scale", **drop
        )
        # right by the scale, shown while it divides by a temperature: dragging it sideways (static/scrub.js) leaves
        # the pipeline it changes in sight (in the drawer, the drawer covered it)
        c["temperature"] = gr.Number(
            first.temperature, label="temperature (divide by)", visible=visibility(first)["temperature"],
            elem_id="tb-temperature", **drop,
        )  # fmt: skip
        c["normalize"] = gr.Dropdown(
            ["softmax", "sum"], value=first.normalize, label="normalise", elem_id="tb-normalize", **drop
        )
        c["dtype"] = gr.Dropdown(["float32", "float64"], value=first.dtype, label="dtype", **drop)
        # (outside the drawer: gradio draws a closed accordion's blocks once it opens, and drawer.js's typed boxes
        # are also the toolbar's and sentence mode's)
        gr.HTML("", elem_id="more-keys", js_on_load=DRAWER_JS, min_width=0, apply_default_css=False)
        with gr.Accordion("More settings", open=False, elem_id="more"):
            buttons = build_drawer(c, first)
        share = build_share()
    return c, buttons, share


def build_drawer(c: dict[str, Any], first: PageValues) -> dict[str, Any]:
    """The settings used less often, in the toolbar's drawer: it opens over the page (app.css), so the pipeline
    stays where it is, and Escape closes it (static/drawer.js)."""
    with gr.Row():
        c["T"] = whole_number(first.T, label="T (query tokens)", elem_id="dr-t")
        c["d_in"] = whole_number(first.d_in, label="d_model", elem_id="dr-d-in")
        c["S"] = whole_number(first.S, label="S (key tokens)", visible=visibility(first)["S"], elem_id="dr-s")
        c["d_out"] = whole_number(first.d_out, label="d_out per head", elem_id="dr-d-out")
        c["head_mode"] = gr.Radio(["concat", "split"], value=first.head_mode, label="head mode")
        c["layout"] = gr.Radio(
            [("Linear out×in (x @ W.T)", "linear"), ("matmul in×out (x @ W)", "matmul")],
            value=first.layout,
            label="weight layout",
        )
    with gr.Row():
        c["cross"] = gr.Checkbox(first.cross, label="cross-attention (separate K/V source)")
        c["use_wo"] = gr.Checkbox(first.use_wo, label="output projection W_o")
        c["seed"] = whole_number(42, label="seed", elem_id="wb-seed")
        init_linear = gr.Button("Init weights: nn.Linear (seed)", size="sm")
        init_rand = gr.Button("Init weights: torch.rand (seed)", size="sm")
    with gr.Row():
        c["tokens"] = gr.Textbox(first.tokens, label="token labels (comma-separated)", elem_id="dr-tokens")
        c["tokens_k"] = gr.Textbox(
            first.tokens_k, label="key/value token labels", visible=visibility(first)["tokens_k"], elem_id="dr-tokens-k"
        )
    build_variants(c, first)
    return {"init_linear": init_linear, "init_rand": init_rand}


def build_variants(c: dict[str, Any], first: PageValues) -> None:
    """Today's attention (RoPE, ALiBi, grouped-query, sliding window, tiles, KV cache), in the drawer: each control
    travels in links and exports like every other (attention_core/contract/variants.py)."""
    num = {"min_width": 96}  # no minimum: the core names a bad value, gradio would not
    gr.HTML(
        "<b>Modern attention</b> (Llama, Mistral, FlashAttention): 0 turns a number off", elem_id="modern-title",
        apply_default_css=False, min_height=0,
    )  # fmt: skip
    with gr.Row(elem_id="modern"):
        c["positions"] = gr.Dropdown(
            [("none", "none"), ("sinusoidal (added to x)", "sinusoidal"), ("RoPE (turns q, k)", "rope")],
            value=first.positions, label="positions", elem_id="md-positions", min_width=150,
        )  # fmt: skip
        c["rope_base"] = gr.Number(
            first.rope_base, label="RoPE base", elem_id="md-rope-base", visible=visibility(first)["rope_base"],
            min_width=96,
        )  # fmt: skip
        c["alibi"] = gr.Checkbox(first.alibi, label="ALiBi bias", elem_id="md-alibi", min_width=96)
        c["kv_heads"] = whole_number(first.kv_heads, label="kv heads (K, V shared)", elem_id="md-kv-heads", **num)
        c["window"] = whole_number(first.window, label="window (0 = off)", elem_id="md-window", **num)
        c["block_rows"] = whole_number(first.block_rows, label="tile B_r", elem_id="md-block-rows", **num)
        c["block_cols"] = whole_number(first.block_cols, label="tile B_c", elem_id="md-block-cols", **num)
        c["decode"] = gr.Checkbox(first.decode, label="KV-cache decoding", elem_id="md-decode", min_width=96)


def build_pipeline(first_inputs: str) -> tuple[Any, Any, Any, Any]:
    """The message line, the grids beside the overview, and the explain card: (message, inputs, overview, explain)."""
    message = gr.HTML(elem_id="message", js_on_load=PLAIN_JS)
    inputs, overview = build_bench(first_inputs)
    explain_panel = gr.HTML(vw.explain_html("", ()), elem_id="explain", js_on_load=EXPLAIN_JS, apply_default_css=False)
    return message, inputs, overview, explain_panel


def build_bench(first_inputs: str) -> tuple[Any, Any]:
    """The pipeline on one screen: editable X and W grids, then Q, K, V → scores → weights → output."""
    with gr.Row(elem_id="bench", equal_height=False):
        inputs = gr.HTML(
            first_inputs, elem_id="inputs", js_on_load=GRID_JS, min_width=0, apply_default_css=False,
            server_functions=[live_edit],
        )  # fmt: skip
        overview = drawn(WATCH_JS, elem_id="overview", min_width=0)
    return inputs, overview


def build_notebook() -> dict[str, Any]:
    """Below the overview, each step keeps its notebook cell: formula, words, code, torch's print, tables."""
    o: dict[str, Any] = {}
    gr.Markdown("## The notebook, step by step\nEvery step of the overview above, as the notebooks write it.")
    for step in vw.STEPS:
        # the overview's card titles link here; the heading itself is in the view, so that it follows the controls
        gr.HTML("<span></span>", elem_id=f"step-{step}", elem_classes=["nb-anchor"], apply_default_css=False)
        o[f"html_{step}"] = drawn(WATCH_JS, elem_id=f"html-{step}", elem_classes=["nb-view"])
        if step == "combine":
            o["heads_fig"] = drawn(HEAT_JS, elem_id="heads-fig", visible=False)
        if step == "weights":
            o["fig"] = drawn(HEAT_JS, elem_id="weights-fig")
    return o


def wire_workbench(page: Page, buttons: dict[str, Any], load_btn: Any) -> None:
    """Every workbench event. Edits send only what changed; every other value lives in the session's state."""
    c, st = page.controls, [page.preset_state, page.vals_state]
    outs = page.everything()
    # an edit lists only what it can change: Gradio's frontend snapshots every listed output per status update
    views = [page.vals_state, *page.views.values()]
    # each control's calls are numbered as they leave (page.js stamp), and the server answers only a control's newest
    # (ui/wiring.py Newest; a box's Enter and blur are one control): gradio's client sends two calls of one event at
    # once when the second is made before the first is on its way (always_last holds back only later ones), and the
    # server took them in either order: a temperature dragged to 2 (each step an Enter) ended on 1.98 under a box
    # reading 2 (CI, stop 53). Two controls' calls never outdate each other: each stores only its own field; nor does
    # a newer call carrying the same value (a blur right after its Enter: the Enter's answer stands, by_value).
    # A control changed while an answer that sets the controls is on its way (a preset loaded, a size changed: writes)
    # waits for it and is then answered with its box set to the value it carried (on(echo=True)): else that answer,
    # drawn first, set the box back while the server took the control after it (the views for head 2 under a box
    # reading 1).
    stamp = gr.Number(None, visible=False)
    counted = {"stamp": stamp, "by_value": True, "echo": True}
    for f in LIVE:
        own = [c[f], *([c[SHOWS[f]]] if f in SHOWS else [])]  # (set back when refused; RoPE's base, the temperature)
        for trigger, enter in triggers(c[f], f):
            fn = on_control_entered if enter else on_control
            to = [*views, page.inputs, *own]
            on(trigger, bind(fn, page, f), [c[f], *st], to, newest=f"control-{f}", **counted, **COMMON)
    for f in STRUCTURAL:
        three = [c[f], page.preset_state, page.shape_state, page.vals_state]
        for trigger, enter in triggers(c[f], f):
            fn = on_structure_entered if enter else on_structure
            sized = {"newest": f"control-{f}", "writes": True, **counted}
            on(trigger, bind(fn, page, "resize", f), three, outs, **sized, **COMMON)
    seed_outs = [page.vals_state, page.views["message"], c["seed"]]
    for trigger, fn in ((c["seed"].submit, on_seed_entered), (c["seed"].blur, on_seed)):
        seed_in = [c["seed"], page.preset_state, page.vals_state]
        seeded = {"newest": "control-seed", "landed": LANDED_STORED, **counted}
        on(trigger, bind(fn, page), seed_in, seed_outs, **seeded, **COMMON)
    for action, btn in buttons.items():  # the seed as the box shows it: its blur and this click race
        four = [c["seed"], page.preset_state, page.shape_state, page.vals_state]
        on(btn.click, bind(on_structure, page, action, "seed"), four, outs, writes=True, **COMMON)
    # one click on an option fires .select, then .input (twice): one after another, in that order, so only one loads
    picked = {**COMMON, "concurrency_id": "preset", "concurrency_limit": 1, "writes": True}
    on(page.preset.select, bind(on_reselect_preset, page), [page.preset, page.preset_state], outs, **picked)
    on(page.preset.input, bind(on_choose_preset, page), [page.preset, page.preset_state], outs, **picked)
    on(load_btn.click, bind(on_load_preset, page), [page.preset], outs, writes=True, **COMMON)
    # (multiple: an edit made while the last one is on its way is sent, with its own data; always_last sent it again
    # later with the first edit's data, and the second edit never reached the server)
    edits = {**COMMON, "trigger_mode": "multiple"}
    on(page.inputs.edit, bind(on_cell, page), st, views, **edits)
    on(page.inputs.submit, bind(on_paste, page), st, [*views, page.inputs], **edits)
    # a click on a number: gradio's always_last sends a click made while the last one is on its way again later, with
    # the first click's data (the second number was marked, the first one explained beside it), so every click is
    # sent, numbered, and the server answers only the newest
    picks = {**COMMON, "trigger_mode": "multiple", "stamp": stamp, "newest": "pick"}
    for k in ("overview", *(f"html_{s}" for s in vw.STEPS)):
        on(page.views[k].click, bind(on_pick, page), st, views, **picks)
