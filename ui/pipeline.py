"""From values to views: every view of the workbench for one state, and whole new states (a preset, a
structural change, a scenario from a file or a link). A refused state changes only the message.
"""

from __future__ import annotations

import dataclasses
import logging
import re
from collections.abc import Callable
from typing import Any

import gradio as gr
import torch

import attention_core as ac
from attention_core import EXPLAINABLE, MAX_HEADS, MAX_T, explain, parse_int, scenario_json, scenario_text
from attention_core import explain_sources as sources
from ui.render import code_lines, heat, match_badge, slots, step_cells
from ui.render import overview as ov
from ui.render import tables as vw
from ui.render import variants as md
from ui.values import (
    OFF_AT_ZERO,
    PageValues,
    current_keep,
    reshape_values,
    scenario_from,
    shape_of,
    shown_head,
    values_from_scenario,
)

log = logging.getLogger("playground")


def render(
    preset_id: str | None,
    s: ac.Scenario,
    tr: ac.Trace,
    view_head: int,
    pick: dict[str, Any] | None = None,
    first_screen: bool = False,
) -> dict[str, Any]:
    """Every view for one parsed scenario and its trace (one head shown in detail, ``pick`` explained).

    ``first_screen``: only the overview and the explanation, the views a scrub's requests answer with while the
    value is dragged (static/scrub.js); the notebook below follows when the scrub ends."""
    h = shown_head(view_head, s.heads)
    explained, valid = explain_pick(s, tr, h, pick)
    used = sources(pick["name"], pick["row"], pick["col"]) if pick and valid else {}

    def marks(name: str) -> dict[str, list[tuple[int | None, int | None]]]:
        picked = [(pick["row"], pick["col"])] if pick and valid and pick["name"] == name else []
        return {"pick": picked, "used": used.get(name, [])}

    head_note = f"head {h + 1} of {s.heads}" if s.heads > 1 else ""
    compact = combine_table(tr, h, s.dtype, s.tokens, marks("combine"), window=ov.window_for(tr), short=True)
    out = {"explain": explained, "overview": ov.overview_html(s, tr, h, marks, compact, head_note)}
    return out if first_screen else out | notebook_views(preset_id, s, tr, h, marks, head_note)


def notebook_views(
    preset_id: str | None, s: ac.Scenario, tr: ac.Trace, h: int, marks: Callable[[str], Any], head_note: str
) -> dict[str, Any]:
    """The notebook's steps (code, torch's print, exact tables) and the heatmaps, for head ``h`` (0-based)."""
    part = tr.head(h)
    fam = code_lines.family(preset_id)
    dt = s.dtype
    d_cols = [f"d{j + 1}" for j in range(part["q"].shape[-1])]
    v_cols = [f"d{j + 1}" for j in range(part["v"].shape[-1])]
    tables = {
        "qkv": vw.html_table(part["q"], dt, s.tokens, d_cols, "q", marks=marks("q"))
        + vw.html_table(part["k"], dt, s.tokens_k, d_cols, "k", marks=marks("k"))
        + vw.html_table(part["v"], dt, s.tokens_k, v_cols, "v", marks=marks("v")),
        "output": vw.html_table(part["output"], dt, s.tokens, v_cols, "output", marks=marks("output")),
        "combine": combine_table(tr, h, dt, s.tokens, marks("combine")),
        "weights": vw.html_table(part["weights"], dt, s.tokens, s.tokens_k, "weights", "prob", marks=marks("weights")),
    }
    for name in ("scores", "scaled", "masked"):
        tables[name] = vw.html_table(part[name], dt, s.tokens, s.tokens_k, name, marks=marks(name))
    prints = {
        "qkv": "\n".join(f"{n} = {vw.torch_print(part[n])}" for n in ("q", "k", "v")),
        **{n: vw.torch_print(part[n]) for n in ("scores", "scaled", "masked", "weights", "output")},
        "combine": vw.torch_print(tr.output),
    }
    w_o = tr.params.W_o
    combine_shapes = step_cells.combine_note(
        s.heads,
        s.head_mode,
        tuple(tr.mixed.shape),
        None if w_o is None else tuple(w_o.shape),
        s.weights.layout,
    )
    out: dict[str, Any] = {}
    for step in vw.STEPS:
        note = head_note if step != "combine" else combine_shapes
        heading = step_cells.step_heading(step, s, tr.divisor)  # follows scale, normalise and the mask
        cell = step_cells.step_html(code_lines.code_for(step, fam, s), prints[step], note, tables[step], heading)
        out[f"html_{step}"] = cell + md.notebook_extra(step, s, tr, h)  # today's steps that follow this one, if on
    # one head: the weights heatmap below already shows it, so the side-by-side figure hides (one Plotly render less)
    heads_fig = heat.every_head(tr.weights, s.tokens, s.tokens_k) if s.heads > 1 else None
    out["heads_fig"] = gr.update(value=heads_fig, visible=True) if heads_fig else gr.update(visible=False)
    out["fig"] = heat.pair(part["masked"], part["weights"], s.tokens, s.tokens_k, f"head {h + 1}")
    return out


def combine_table(
    tr: ac.Trace,
    h: int,
    dtype: str,
    tokens: list[str],
    marks: dict[str, Any] | None = None,
    window: int = vw.WINDOW,
    short: bool = False,
) -> str:
    """The combined output; when wider than the table window, starting at the shown head's block."""
    width = tr.output.shape[-1]
    lo = h * (width // tr.heads) if width > window and tr.params.W_o is None else 0
    cols = [f"o{j + 1}" for j in range(lo, width)]
    return vw.html_table(
        tr.output[..., lo:], dtype, tokens, cols, "combine", col0=lo, marks=marks, window=window, short=short,
        title="" if short else None,
    )  # fmt: skip


def explain_pick(s: ac.Scenario, tr: ac.Trace, h: int, pick: dict[str, Any] | None) -> tuple[str, bool]:
    """The explain panel for the picked cell of head ``h`` (0-based), recomputed from the live trace,
    and whether the pick is a cell of this state (so it can be outlined)."""
    if not pick:
        return vw.explain_html("", ()), False
    try:
        e = explain(tr, h, pick["name"], pick["row"], pick["col"], {"q": s.x_q, "k": s.x_k, "v": s.x_v})
    except (IndexError, KeyError):  # the picked cell left the tensor (a resize): say so, do not guess
        where = f"{pick.get('name')}[{pick.get('row', 0) + 1}, {pick.get('col', 0) + 1}]"
        return vw.explain_html("", (), error=f"{where} is no longer in the tensor; click another number."), False
    i, j, name = pick["row"], pick["col"], pick["name"]
    rows = s.tokens_k if name in ("k", "v", "k_before") else s.tokens
    who = f"row {i + 1} is token '{rows[i]}'"
    if name in ("scores", "scaled", "masked", "weights", "alibi_bias", "kv_row"):
        who = f"query {i + 1} is '{s.tokens[i]}', key {j + 1} is '{s.tokens_k[j]}'"
    return vw.explain_html(e.title, (who, *e.lines), step=e.step), True


def parse_pick(data: Any) -> dict[str, Any] | None:
    """A click from a table (``{name, row, col}`` as the browser sent it) -> a pick, or None when malformed."""
    if not isinstance(data, dict) or data.get("name") not in EXPLAINABLE:
        return None
    r, c = data.get("row"), data.get("col")
    if not all(isinstance(n, int) and not isinstance(n, bool) and 0 <= n < MAX_T * MAX_HEADS * 8 for n in (r, c)):
        return None
    return {"name": data["name"], "row": r, "col": c}


VIEW_KEYS = ("badge", "message", "overview", *(f"html_{s}" for s in vw.STEPS), "fig", "heads_fig", "explain")


DRAWN_KEYS = frozenset(("overview", *(f"html_{s}" for s in vw.STEPS), "fig", "heads_fig"))  # static/live.js drawnView


def compute_views(
    preset_id: str | None, v: PageValues, first_screen: bool = False, drawn: bool = False
) -> dict[str, Any]:
    """All views for the on-screen values, or the message plus gr.skip() for everything else.

    ``first_screen``: only the badge, the message, the overview and the explanation (a scrub's request, see
    :func:`render`); the others are left out, not skipped, so they keep what they show. ``drawn``: the drawn views
    (:data:`DRAWN_KEYS`) as ``slots.Drawn`` (their skeleton's key and their cells as data, the HTML written only if
    asked: a live edit's answer, ui/live.py), else every view as HTML."""
    try:
        s = ac.parse(scenario_from(v))
        tr = ac.evaluate(s)
        with slots.collecting() as collected:
            out = render(preset_id, s, tr, v.view_head, v.pick, first_screen)
        out["badge"] = match_badge.badge(preset_id, s, tr)
        out["message"] = warnings_html(preset_id, s, tr)
        return {k: _written(u, collected, drawn and k in DRAWN_KEYS) for k, u in out.items()}
    except Exception as e:
        return failed(e)


def _written(view: Any, collected: slots.Collection, drawn: bool) -> Any:
    """A view rendered while slots were collected: a ``slots.Drawn`` (``drawn``), else its HTML; in a gr.update
    (the every-head figure's), its value so."""
    if isinstance(view, dict):
        return {**view, "value": _written(view["value"], collected, drawn)} if "value" in view else view
    if not isinstance(view, str):
        return view
    return slots.Drawn(view, collected) if drawn else slots.expand(view, collected)


def state_message(preset_id: str | None, v: PageValues) -> str:
    """The message line :func:`compute_views` gives ``v``, drawing no view (an Enter on a box's value in force, a seed
    taken: the views stay as they are)."""
    try:
        s = ac.parse(scenario_from(v))
        return warnings_html(preset_id, s, ac.evaluate(s))
    except Exception as e:
        return failed(e)["message"]


def warnings_html(preset_id: str | None, s: ac.Scenario, tr: ac.Trace) -> str:
    """The message line of a computed state: its warnings, if any."""
    return vw.message_html([*tr.warnings, *sum_warning(preset_id, s, tr)])


def failed(e: Exception) -> dict[str, Any]:
    """The views for a state that could not be computed (called while ``e`` is handled): a refusal names its field
    in the message line only (a toast per refusal stacked over the badge); anything else is never a traceback in the
    browser, and the server log keeps it."""
    if isinstance(e, ac.ScenarioError):
        return refused(str(e))
    log.exception("render failed")
    return refused("Something went wrong while computing this state; your edits are kept. Please report it.")


def sum_warning(preset_id: str | None, s: ac.Scenario, tr: ac.Trace) -> list[str]:
    """Divide-by-sum's warning when a weight is negative or undefined (sentence mode gave it; the workbench showed
    weights of −0.0944 and 1.0476 without a word). Not on 003's own divide-by-sum preset, which shows it on purpose
    (its badge and notebook say so) and keeps its pipeline on the first screen."""
    w = tr.weights  # (H, T, S)
    if s.normalize != "sum" or (bool(torch.isfinite(w).all()) and not bool((w < 0).any())):
        return []
    if preset_id and not match_badge.same_scenario(s, match_badge.preset_scenario(preset_id)):
        return []
    return ["divide-by-sum gives negative (or undefined) weights here: dot products can be negative, so the weights "
            "are no probabilities, which is why the notebooks move on to softmax"]  # fmt: skip


# the core names a field by its scenario key (the JSON's: kv_heads, mask.kind, tokens); the page names it as its
# control is labelled (issue 37: "decode: … set mask.kind to causal", "tokens: must be a list of 3 labels")
LABELS = {
    "tokens": "token labels", "tokens_k": "key/value token labels", "decode": "KV-cache decoding",
    "kv_heads": "kv heads", "rope_base": "RoPE base", "block_rows": "tile B_r", "block_cols": "tile B_c",
    "mask.kind": "mask", "mask.padding": "padded key positions", "mask.fill": "fill", "normalize": "normalise",
    "d_in": "d_model", "d_out": "d_out per head", "head_mode": "head mode", "weights.layout": "weight layout",
    "layout": "weight layout", "alibi": "ALiBi bias", "positions": "positions",
}  # fmt: skip
IN_WORDS = ((re.compile(r"^KV-cache decoding is causal"), "decoding is causal"),
            (re.compile(r"\bset mask\.kind to\b"), "set the mask to"), (re.compile(r"\bmask\.kind\b"), "the mask"),
            (re.compile(r"\b(kv_heads|heads|d_model)=(\d+)"), lambda m: f"{LABELS.get(m[1], m[1])} {m[2]}"),
            (re.compile(r"\bhead_mode\b"), "head mode"), (re.compile(r"\bkv_heads\b"), "kv heads"))  # fmt: skip


# the scenario's range of a key whose page box is off at 0 (window, tiles): the box's range says 0 is taken
OFF_RANGE = re.compile(r"^(-?\d+) is out of range 1\.\.(\d+)$")


def worded(problem: str) -> str:
    """A refusal as the page says it: its field named by the control's label, not the scenario's key, and the keys
    it mentions in words ("kv heads 3 does not divide heads 2", "set the mask to causal"); the range of a box that is
    off at 0 as the box takes it ("window: -1 is out of range 0..64 (0 is off)", not the scenario's 1..64)."""
    field, sep, rest = problem.partition(": ")
    if field in OFF_AT_ZERO and (m := OFF_RANGE.match(rest)):
        rest = f"{m[1]} is out of range 0..{m[2]} (0 is off)"
    if sep and field in LABELS:
        field = LABELS[field]
    elif sep and (key := next((k for k in LABELS if field.startswith(f"{k} ")), None)):  # "mask.padding item 2"
        if not field.startswith(LABELS[key]):  # (named by its label already: "d_out per head", not "… per head")
            field = LABELS[key] + field[len(key) :]
    for pattern, words in IN_WORDS:
        rest = pattern.sub(words, rest)
    return f"{field}{sep}{rest}"


def refused(problem: str) -> dict[str, Any]:
    """Views for a state that was refused: only the message changes; ``"refused"`` tells handlers not to store it."""
    message = vw.message_html([], error=worded(problem))
    return {k: gr.skip() for k in VIEW_KEYS} | {"message": message, "refused": True}


def expired_views() -> list[Any]:
    """Views for an edit whose session the server no longer holds: say so, keep everything on screen."""
    problem = (
        "session: the server holds no state for this page (it was never loaded here, or the server restarted or "
        "dropped it). Reload the page, or open your copy link, to go on; nothing was changed."
    )
    gr.Warning(problem)
    return [vw.message_html([], error=problem) if k == "message" else gr.skip() for k in VIEW_KEYS]


def expired_message() -> str:
    """Just the message of :func:`expired_views`, for handlers that answer in one panel."""
    return expired_views()[VIEW_KEYS.index("message")]


def expired_got() -> dict[str, Any]:
    """:func:`expired_views` by view key, as :func:`compute_views` answers."""
    return dict(zip(VIEW_KEYS, expired_views(), strict=True))


def current_scenario(preset_id: str | None, v: PageValues) -> tuple[ac.Scenario, dict[str, Any]]:
    """The on-screen state as a parsed scenario and its explicit JSON, the head shown included (raises
    ScenarioError naming the field)."""
    s = ac.parse(scenario_from(v))
    return s, scenario_json(s, preset_id, shown_head(v.view_head, s.heads) + 1)


def current_text(preset_id: str | None, v: PageValues) -> tuple[ac.Scenario, int, str]:
    """The on-screen state as a parsed scenario, the head shown (1-based) and :func:`current_scenario`'s JSON as
    compact text (``attention_core.scenario_text``: large tensors' texts kept for their bytes)."""
    s = ac.parse(scenario_from(v))
    head = shown_head(v.view_head, s.heads) + 1
    return s, head, scenario_text(s, preset_id, head)


def restructure_values(
    action: str, preset_id: str | None, shape: dict[str, Any], v: PageValues
) -> tuple[dict[str, Any], PageValues | None, dict[str, Any]]:
    """A structural edit (sizes, heads, mode, layout, cross, W_o, mask kind, or an init button).

    Returns (new shape, new editable values or None when refused, views).
    """
    try:
        recipe = {"init_linear": "linear", "init_rand": "rand"}.get(action)
        if v.mask_kind == "custom" and shape.get("mask_kind", "custom") != "custom":
            v = dataclasses.replace(v, keep=current_keep(v, shape["mask_kind"]))
        nv = reshape_values(v, shape, recipe)
    except ac.ScenarioError as e:  # (named in the message line, as every refusal)
        return shape, None, refused(str(e))
    return shape_of(nv, recipe or shape.get("recipe", "linear")), nv, compute_views(preset_id, nv)


def load_values(preset_id: str) -> tuple[dict[str, Any], PageValues, dict[str, Any]]:
    """Everything on screen for one preset: its exact tensors in its own layout and names."""
    p = ac.get_preset(preset_id)
    init = p.scenario.get("weights", {})
    nv = values_from_scenario(ac.parse(p.scenario), seed=init.get("seed", 42))
    recipe = init.get("init", "linear") if init.get("init") in ("linear", "rand") else "linear"
    return shape_of(nv, recipe), nv, compute_views(preset_id, nv)


def scenario_values(sc: dict[str, Any]) -> tuple[str | None, dict[str, Any], PageValues, dict[str, Any]]:
    """A scenario dict (file or link) -> (preset id it names, shape, editable values, views)."""
    s = ac.parse(sc)
    preset_id = sc.get("preset") if sc.get("preset") in ac.preset_ids() else None
    w = sc.get("weights") if isinstance(sc.get("weights"), dict) else {}
    head = parse_int(sc.get("head_shown", 1), "head_shown", 1, s.heads)  # the head it showed
    nv = values_from_scenario(s, head, w.get("seed", 42))
    recipe = w.get("init") if w.get("init") in ("linear", "rand") else "linear"  # what a resize draws new cells from
    return preset_id, shape_of(nv, recipe), nv, compute_views(preset_id, nv)
