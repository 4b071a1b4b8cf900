"""The mask lab (the three fill conventions side by side) and the scaling lab (seed 004's √d_k)."""

from __future__ import annotations

import html
from typing import Any

import gradio as gr

import attention_core as ac
from attention_core import MAX_DK, MIN_DK, compare_fills, compose_keep, parse_int, scaling_lab
from ui.assets import CHARTS_JS, LANDED_LAB, NEWEST_JS
from ui.pipeline import expired_message
from ui.render import mask_tables, scaling_plot
from ui.render import tables as vw
from ui.values import PageValues, cut, padding_flags, parse_seed, scenario_from, shown_head, slider_value
from ui.wiring import COMMON, Slot, on, whole_number


def lab_message(problem: str, back: str = "", shown: str = "still show the last valid masks") -> str:
    """The mask lab's own message line: the problem, its field named, what went back (``back``: "the box … is back
    to “1”", when its control was put back to the value in force) and what the tables show (``shown``)."""
    then = f" — {html.escape(back)}; the tables" if back else " — the tables"
    return f"<div class='msg-error'>{vw.ERROR_MARK} {html.escape(problem)}{then} below {shown}.</div>"


PAD_LABEL, ROWS_LABEL = "padded key positions", "hide every key from query rows"  # the boxes' labels
CAUSAL_LABEL = "causal mask"
# the lab's controls as the page opens, and the values its tables use (the session's "mask_lab" Slot: only values
# the tables were drawn from on the workbench's state, by the newest of the lab's calls: on(newest=, outdated_by=)):
# "said" is the message of a refusal that put a control back, which the .change that putting back fires must not wipe
LAB_KEPT: dict[str, Any] = {"causal": True, "pad": "", "rows": "", "said": ""}
CONTROLS = ("causal", "pad", "rows")
BOXES = {"mask lab padding": "pad", "mask lab rows": "rows"}  # a refused box's field -> its key in LAB_KEPT


def lab_flags(text: Any, n: int, field: str) -> list[bool]:
    """One of the lab's position boxes ("padding" or "rows") as flags per position; a bad one raises ScenarioError
    naming the field (``mask lab padding``, ``mask lab rows``) and the box as it is labelled."""
    try:
        return padding_flags(text, n)
    except ac.ScenarioError as e:
        # (rows are query positions: the words say so, not the quoted text: rows "monkey" is not "monquery")
        problem = e.problem if field == "padding" else e.problem.replace("not a key position", "not a query position")
        label = PAD_LABEL if field == "padding" else ROWS_LABEL
        raise ac.ScenarioError(f"mask lab {field}", f"{problem}, in the box “{label}”") from None


def mask_lab_parts(v: PageValues, causal: bool, padding: Any, rows: Any) -> tuple[str | None, str]:
    """The mask lab for the shown head of the on-screen state: (the masks labelled, then the three fills; "") or,
    for a bad box, (None, a message naming it), so the last good tables can stay on screen."""
    try:
        return lab_tables(v, causal, padding, rows), ""
    except ac.ScenarioError as e:
        return None, lab_message(str(e))


def lab_tables(v: PageValues, causal: bool, padding: Any, rows: Any) -> str:
    """The mask lab's tables (the masks labelled, then the three fills); a bad box raises ScenarioError naming it."""
    s = ac.parse(scenario_from(v))
    tr = ac.evaluate(s)
    h = shown_head(v.view_head, s.heads)
    n_q, n_k = len(s.tokens), len(s.tokens_k)
    pad = lab_flags(padding, n_k, "padding")
    hidden = [i for i, f in enumerate(lab_flags(rows, n_q, "rows")) if f]
    masks = compose_keep(n_q, n_k, bool(causal), pad, hidden)
    part = tr.head(h)
    traces = compare_fills(part["q"], part["k"], part["v"], masks["combined"], s.scale, s.normalize)
    return mask_tables.mask_lab_html(masks, traces, s.tokens, s.tokens_k, s.dtype)


def scaling_views(d_k: Any, seed: Any) -> tuple[Any, str]:
    """The scaling lab's figure and its sentence; a bad field gets a message naming it."""
    try:
        lab = scaling_lab(parse_int(d_k, "d_k", MIN_DK, MAX_DK), parse_seed(0 if seed is None else seed))
    except ac.ScenarioError as e:
        return gr.skip(), vw.message_html([], error=str(e))
    return scaling_plot.scaling_figure(lab), f"<p class='lab-words'>{html.escape(scaling_plot.scaling_words(lab))}</p>"


LAB_START = {"d_k": 64, "seed": 0}  # the lab's d_k and seed as the page opens


def on_scaling(d_k: Any, seed: Any, kept: Any) -> tuple[Any, Any, Any, Any, Any]:
    """The lab's d_k (its slider moved, or its box left or Entered) or seed (Enter or leaving the box): (figure,
    words, d_k box, seed box, what is now in force). Typed boxes apply only then (typing 1000 applied 1, 10, 100:
    gradio's red toast for the 1, naming no field); a d_k past the slider's ends is set to the end and the words
    say so; a bad seed or an emptied box is named and the box shows the value in force again."""
    kept = kept if isinstance(kept, dict) else LAB_START
    dk, said = slider_value(d_k, "d_k", MIN_DK, MAX_DK, kept["d_k"])
    try:
        sd = parse_seed(seed)
    except ac.ScenarioError as e:
        sd, said = kept["seed"], said or f"{e}; it keeps {kept['seed']}"
    if {"d_k": dk, "seed": sd} == kept and said is None:
        return gr.skip(), gr.skip(), gr.skip(), gr.skip(), gr.skip()
    fig, words = scaling_views(dk, sd)
    if said:  # (it says what is in force: "set to 512", "it keeps 0"; a clamped d_k is drawn, not the last state)
        words = vw.message_html([], error=said, after="") + words
    return (fig, words, dk if dk != d_k else gr.skip(), sd if sd != seed else gr.skip(), {"d_k": dk, "seed": sd})


def build_mask_lab(vals_state: Any) -> Any:
    with gr.Tab("Mask lab", id="mask-lab") as tab:
        gr.Markdown(
            "The same scaled scores (head shown, from the workbench's state) under the three fill conventions. "
            "Build masks here: padding hides key columns, causal hides the future, and a row mask hides every key "
            "from a query, so you can watch -inf give NaN where -1e9 gives uniform weights.",
            elem_id="mask-intro",
        )
        # the min widths let a phone stack the three instead of squeezing the checkbox's label (a lesson's lab stage
        # hides the row: C brings it back)
        with gr.Row(elem_id="mask-controls"):
            # (their elem_ids: static/address.js keeps them in the address, ?tab=mask&causal=0&pad=3&rows=1)
            causal = gr.Checkbox(True, label="causal mask", min_width=150, elem_id="mask-causal")
            pad = gr.Textbox("", label=f"{PAD_LABEL} (e.g. 3)", min_width=200, elem_id="mask-pad")
            rows = gr.Textbox("", label=f"{ROWS_LABEL} (e.g. 1)", min_width=200, elem_id="mask-rows")  # plain causal
        # drawn by static/newest.js (an empty template: gradio keeps the value and draws nothing), so that an answer
        # to an older call than the one drawn, come late, is not drawn; gradio's own CSS for HTML, as before
        msg, out = (newest_view(e) for e in ("mask-lab-msg", "mask-lab-out"))
        stamp = gr.Number(None, visible=False)  # each call's number (ui/wiring.py Newest): the newest is drawn
    kept = Slot("mask_lab")  # the values the tables use (LAB_KEPT), held by the server, never a refused one
    lab_in = [vals_state, kept, causal, pad, rows]  # (rows last: the race journeys hold a call by its last input)
    whole = [out, msg, causal, pad, rows, kept]
    # one stamp numbers every call of the lab's: a keystroke's call, come late, neither is drawn nor stores its values
    # over a newer commit's (the checkbox's: it stored causal on over causal off), and a commit (or the tab's opening)
    # is outdated by a newer commit only, never by a keystroke's call (the last key's call can be numbered after the
    # Enter that follows it on a loaded page: the Enter's put-back was then dropped, the refused text left in the box)
    lab = {"stamp": stamp, "newest": "mask-lab-commit", **COMMON}
    typed = {**lab, "newest": "mask-lab-typed", "outdated_by": ["mask-lab-commit"]}
    # .change, not .input: deleting characters in a Textbox fires no input event in gradio 6.31; the boxes as typed:
    # at once, the newest call drawn (static/newest.js)
    for trigger in (pad.change, rows.change):
        on(trigger, on_mask_typed, lab_in, [out, msg, kept], **typed)
    # the tab opened: after every event on its way (a workbench box's blur, its value not yet stored, when the tab was
    # clicked); the boxes' values taken as a commit takes them, on the workbench's state as it now is; a box's Enter or
    # leaving it, and the checkbox, commit: a refused value puts the controls back to the values the tables use (a
    # typed refusal is left in its box while typing: putting it back mid-word fights the keys)
    on(tab.select, on_mask_opened, lab_in, whole, reads=True, landed=LANDED_LAB, **lab)
    for trigger in (pad.submit, pad.blur, rows.submit, rows.blur, causal.input):
        on(trigger, on_mask_commit, lab_in, whole, landed=LANDED_LAB, **lab)
    return tab


def newest_view(elem_id: str) -> gr.HTML:
    return gr.HTML(None, html_template="", js_on_load=NEWEST_JS, elem_id=elem_id)


def mask_lab(vals: PageValues | None, causal: bool, pad: Any, rows: Any) -> tuple[Any, str]:
    """(tables, message) for the lab's boxes on the workbench's state; an expired page keeps its tables."""
    if vals is None:
        return gr.skip(), expired_message()
    tables, message = mask_lab_parts(vals, causal, pad, rows)
    return (gr.skip() if tables is None else tables), message


def lab_kept(kept: Any) -> dict[str, Any]:
    """The session's accepted lab values (LAB_KEPT as the page opens: nothing stored yet)."""
    return {**LAB_KEPT, **kept} if isinstance(kept, dict) else dict(LAB_KEPT)


def lab_now(causal: Any, pad: Any, rows: Any) -> dict[str, Any]:
    """The lab's controls as sent, in LAB_KEPT's form (a box emptied by gradio comes as None)."""
    return {"causal": bool(causal), "pad": "" if pad is None else str(pad), "rows": "" if rows is None else str(rows)}


def controls_of(kept: dict[str, Any]) -> dict[str, Any]:
    """The controls' values in ``kept`` (LAB_KEPT's form), without its message."""
    return {k: kept[k] for k in CONTROLS}


def set_back(tables: str | None, said: str, back: dict[str, Any], now: dict[str, Any]) -> tuple[Any, ...]:
    """A commit's answer: (tables, message, causal, pad box, rows box, kept), each control set only where the value
    the tables use (``back``) is not what it shows (``now``); ``tables`` None: the tables shown stay."""
    skip = gr.skip()
    boxes = (back[k] if back[k] != now[k] else skip for k in CONTROLS)
    return (skip if tables is None else tables), said, *boxes, {**back, "said": said}


def on_mask_opened(vals: PageValues | None, kept: Any, causal: Any, pad: Any, rows: Any) -> tuple[Any, ...]:
    """The lab's tab opened: (tables, message, causal, pad box, rows box, kept), the boxes taken as a commit takes
    them (:func:`settle`) on the workbench's state as it now is, the tables always drawn (it may have changed since:
    padding 4 kept on 4 keys, then a preset of 3 keys, empties the padding box and says so)."""
    if vals is None:
        return gr.skip(), expired_message(), *(gr.skip(),) * 4
    now = lab_now(causal, pad, rows)
    return set_back(*settle(vals, controls_of(lab_kept(kept)), now), now)


def on_mask_typed(vals: PageValues | None, kept: Any, causal: Any, pad: Any, rows: Any) -> tuple[Any, str, Any]:
    """A lab box's text as typed: (tables, message, what the tables now use).

    A refused text stays in its box while it is typed, named by the message, and is stored nowhere; only an accepted
    one is kept. The .change that a refusal's putting back fires (the box now reads the value in force) keeps that
    refusal's message, which it would otherwise wipe at once; so does a refused text typed and deleted again (what
    the message says is still so).
    """
    old, now = lab_kept(kept), lab_now(causal, pad, rows)
    if vals is not None and old["said"] and now == controls_of(old):
        return gr.skip(), old["said"], gr.skip()
    tables, message = mask_lab(vals, now["causal"], now["pad"], now["rows"])
    return tables, message, ({**now, "said": ""} if isinstance(tables, str) else gr.skip())


def put_back(back: dict[str, Any], now: dict[str, Any], field: str) -> str:
    """What a refusal of ``field`` (``mask lab padding``, ``mask lab rows``) puts back, in words: each control whose
    value is not the one the tables use (``back``); the refused box, already named by the message, is "it"."""
    words = []
    for key, name, label in (("pad", "mask lab padding", PAD_LABEL), ("rows", "mask lab rows", ROWS_LABEL)):
        if now[key] != back[key]:
            box = "it" if name == field else f"the box “{label}”"
            words.append(f"{box} is back to “{cut(back[key])}”" if back[key] else f"{box} is emptied")
    if now["causal"] != back["causal"]:
        words.append(f"“{CAUSAL_LABEL}” is {'ticked' if back['causal'] else 'unticked'} again")
    return "; ".join(words)


def settle(vals: PageValues, old: dict[str, Any], now: dict[str, Any]) -> tuple[str | None, str, dict[str, Any]]:
    """The lab's controls ``now`` as a commit takes them on ``vals``: (tables, message, the values the tables use).

    Accepted: ``now``'s tables and no message. Refused: the values the tables used (``old``) come back, as the
    workbench's controls do (ui/workbench.py refusal), and the message names the field, the refused text and what
    went back; a box of those that this state refuses too (the workbench changed since: padding 4 kept on 4 keys,
    then 3 keys) is emptied, so that no control shows a value the tables do not use. (None, message, ``old``) when
    even empty boxes are refused (the workbench's own state: its message)."""
    try:
        return lab_tables(vals, now["causal"], now["pad"], now["rows"]), "", now
    except ac.ScenarioError as e:
        first = e
    back = dict(old)
    for _ in CONTROLS:  # (each box emptied once at most)
        try:
            tables = lab_tables(vals, back["causal"], back["pad"], back["rows"])
        except ac.ScenarioError as e:
            box = BOXES.get(e.field)
            if box is None or not back[box]:
                break  # (not a box of the lab's, or already empty: nothing more to put back)
            back[box] = ""
            continue
        shown = "still show the last valid masks" if back == old else "show the masks of the boxes as they now read"
        return tables, lab_message(str(first), put_back(back, now, first.field), shown), back
    return None, lab_message(str(first)), old


def on_mask_commit(vals: PageValues | None, kept: Any, causal: Any, pad: Any, rows: Any) -> tuple[Any, ...]:
    """A box's Enter or leaving it, or the checkbox clicked: (tables, message, causal, pad box, rows box, kept).

    Accepted: the tables follow and the values are kept. Refused: :func:`settle`: the tables stay (or follow a box
    emptied), every control goes back to the values the tables use, and the message says what and why.
    """
    if vals is None:
        return gr.skip(), expired_message(), *(gr.skip(),) * 4
    before, now = controls_of(lab_kept(kept)), lab_now(causal, pad, rows)
    if now == before:  # (the .change as typed has drawn it already: an Enter, then leaving)
        return (gr.skip(),) * 6
    tables, said, back = settle(vals, before, now)
    return set_back(None if said and back == before else tables, said, back, now)  # (None: back's tables are shown)


def build_scaling_lab() -> Any:
    with gr.Tab("Scaling lab", id="scaling-lab") as tab:
        gr.Markdown(
            "Why 004 divides by √d_k: q and k are N(0, 1) draws (32 × d_k, float64) from the seed below.",
            elem_id="scaling-intro",
        )
        with gr.Row(elem_id="scaling-controls"):  # (a lesson's lab stage hides these: C brings them back)
            # typed-slider: its box applies on Enter or leaving it (static/sliders.js); no range check of gradio's
            d_k = gr.Slider(MIN_DK, MAX_DK, value=LAB_START["d_k"], step=1, label="d_k", elem_id="lab-dk",
                            elem_classes=["typed-slider"])  # fmt: skip
            seed = whole_number(LAB_START["seed"], label="seed", elem_id="lab-seed")
        fig = gr.Plot(elem_id="scaling-fig", label="scaling")
        words = gr.HTML(elem_id="scaling-words")
        gr.HTML("", js_on_load=CHARTS_JS, min_width=0, apply_default_css=False, padding=False)
        kept = gr.State(LAB_START)
        stamp = gr.Number(None, visible=False)  # each call's number (ui/wiring.py Newest)
    # one stamp numbers every call of the lab's, and the server answers only the newest: the tab's own first call (for
    # the d_k its box held when it was opened) came in after a link's asked d_k 512, set as the tab opened, had been
    # answered, and its words said d_k = 64 under a box reading 512 (a projector journey, under load)
    lab = {"stamp": stamp, "newest": "scaling-lab", **COMMON}
    # the tab's opening stores nothing: it is outdated by a newer call of the boxes', never one of theirs by it (their
    # call, dropped, took its d_k in force with it: a d_k dragged back to 64 then answered nothing over 512's figure)
    opening = {**lab, "newest": "scaling-lab-open", "outdated_by": ["scaling-lab"]}
    on(tab.select, scaling_views, [d_k, seed], [fig, words], **opening)
    # unprocessed: gradio's own range check refuses with a red toast naming no field, and logs a traceback
    for trigger in (d_k.input, d_k.release, seed.submit, seed.blur):
        on(trigger, on_scaling, [d_k, seed, kept], [fig, words, d_k, seed, kept], preprocess=False, **lab)
    return tab
