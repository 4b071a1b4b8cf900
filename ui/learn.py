"""Learn by doing, on the workbench's live state: "Quiz me" (predict, then check) and "Pin and compare".

The math is in attention_core.quiz and attention_core.compare; this module converts, lays out and renders.
Handlers are module-level functions of their inputs; ``pg`` is the playground module (passed in, so this module
never imports playground, which runs as ``__main__``). Each page keeps only compact values in its STORE entry:

    "quiz"  {"seed", "index", "choice", "prompt", "answered", "right", "asked"}: the question is recomputed
            from (workbench state, seed, index) whenever it is needed, never stored as tensors
    "pin"   the pinned state as an explicit scenario JSON (values only; its trace is recomputed)
"""

from __future__ import annotations

import html
import json
import re
import secrets
from dataclasses import dataclass
from typing import Any

import gradio as gr
import torch
from torch import Tensor

import attention_core as ac
from attention_core import (
    MASKED,
    MOVED,
    SAME,
    UNMASKED,
    CompareError,
    Grade,
    Question,
    QuizError,
    Tally,
    diff,
    quiz,
    snapshot,
)
from ui.assets import HIDE_JS, drawn
from ui.pipeline import current_scenario, expired_message, explain_pick
from ui.render import heat
from ui.render import tables as vw
from ui.values import PageValues, scenario_from, shown_head
from ui.wiring import COMMON, Slot, bind, on

CHOICES = [
    ("any question", "any"),
    ("a raw score", "scores"),
    ("a scaled score", "scaled"),
    ("an attention weight", "weights"),
    ("an output cell", "output"),
    ("a combined (all heads) cell", "combine"),
    ("which keys a query sees (mask)", "mask"),
    ("which key gets the most weight", "argmax"),
]
NOTHING_PINNED = "<p>Nothing pinned. Pin a state, then edit: the changes show here.</p>"
# After each workbench update the comparison asks for its own refresh, and only while something is pinned (its
# summary or its message is on screen): with nothing pinned an edit costs no second request.
FOLLOW_JS = """document.addEventListener('pg-updated', () => {
  if (element.querySelector('.cmp-summary, .msg-error')) trigger('click', {});
});"""
RETRIES = 8  # "any question": draws that may be skipped when a drawn kind does not fit this state


# ---- the live state --------------------------------------------------------------------------


def live_state(vals: PageValues) -> tuple[ac.Scenario, ac.Trace, int]:
    """The workbench's on-screen values -> (scenario, trace, 0-based head shown). Raises ScenarioError."""
    s = ac.parse(scenario_from(vals))
    return s, ac.evaluate(s), shown_head(vals.view_head, s.heads)


# ---- quiz: predict, then check ----------------------------------------------------------------


def kind_step(choice: str | None) -> tuple[str | None, str | None]:
    """A CHOICES value -> (kind, step) for quiz.ask; "any" leaves both to the draw."""
    if choice in (None, "any"):
        return None, None
    if choice in ("mask", "argmax"):
        return choice, None
    if choice in quiz.NUMBER_STEPS:
        return "number", choice
    raise QuizError(f"question kind: {str(choice)[:30]!r} is not one of the choices")


def new_quiz(seed: int | None = None) -> dict[str, Any]:
    """A session's quiz: its own seed (never the global RNG), no question yet, nothing counted."""
    return {"seed": secrets.randbits(48) if seed is None else seed, "index": -1, "choice": "any",
            "prompt": "", "answered": True, "right": 0, "asked": 0}  # fmt: skip


def draw(s: ac.Scenario, tr: ac.Trace, qz: dict[str, Any], choice: str) -> tuple[Question, dict[str, Any]]:
    """The next question for this session (index + 1, more when "any" draws a kind this state lacks)."""
    kind, step = kind_step(choice)
    index = qz["index"]
    for attempt in range(RETRIES if kind is None else 1):
        index += 1
        try:
            q = quiz.ask(s, tr, qz["seed"], index, kind, step)
            break
        except QuizError:
            if kind is not None or attempt == RETRIES - 1:
                raise
    state = {**qz, "index": index, "choice": choice, "prompt": q.prompt, "answered": False}
    return q, state


def current_question(s: ac.Scenario, tr: ac.Trace, qz: dict[str, Any]) -> Question:
    """The session's open question, recomputed on the live state from (seed, index, choice)."""
    kind, step = kind_step(qz["choice"])
    return quiz.ask(s, tr, qz["seed"], qz["index"], kind, step)  # the same draw as when it was asked


def tally_of(qz: dict[str, Any]) -> Tally:
    return Tally(qz["right"], qz["asked"])


ROW_STEPS = ("scores", "scaled", "masked", "weights")  # a query's row in these names its largest key and its mask
# the same number under a later step's name (scaled and masked are scores divided; one head's combine is its output)
SAME_VALUE = {"scores": ("scores", "scaled", "masked"), "scaled": ("scaled", "masked"), "masked": ("masked",),
              "output": ("output",), "combine": ("combine", "output")}  # fmt: skip


def hidden(kind: str, step: str, head: int, row: int, col: int | None) -> dict[str, Any]:
    """What gives a question's answer away on the workbench, as the page hides it while the question is open
    (static/hide.js): ``cells`` [table, row, col or None for the whole row] of the overview and the notebook,
    ``prints`` the notebook steps whose torch print shows them, ``heat`` [figure, row, col or None] of the heatmaps,
    ``explain`` [table, row]: rows whose explanation would print it, ``head`` the question's head (0-based; None for
    the heads combined): the page hides a per-head table's cells only while that head is shown. Plain data, no
    number: the workbench quiz (:func:`question_html`) and a lesson room's questions (ui/room.py) send it to the
    page.

    A number: its cell, and the same number where a later step shows it again (scaled and masked are scores
    divided; a single head's combine is its output). A weight: its query's whole row (1 − the rest of the row
    gives it), and that query's output and combine rows (weights · V gives them back). "Which key gets the most
    weight" and "which keys can it see": the query's row of scores, scaled, masked and weights (issue 37), and its
    output and combine rows (output t3 beside V t3 named the key with the most weight)."""
    figs = ["hm-masked", "hm-weights", f"hm-head{head + 1}"]
    if kind == "number" and step != "weights":
        names = SAME_VALUE.get(step, (step,))
        cells = [[n, row, col if n == step or step != "combine" else None] for n in names]
        if step == "output":
            cells.append(["combine", row, None])
        heat = [[f, row, col] for f in figs[:1]] if step in ("scores", "scaled", "masked") else []
        later = ["weights", "output", "combine"] if step in ("scores", "scaled", "masked") else ["combine"]
        return {"cells": cells, "prints": sorted({c[0] for c in cells}), "heat": heat,
                "explain": [[n, row] for n in later], "head": None if step == "combine" else head}  # fmt: skip
    names = ["weights", "output", "combine"] if kind == "number" else [*ROW_STEPS, "output", "combine"]
    heat = [[f, row, None] for f in (figs[1:] if kind == "number" else figs)]
    return {
        "cells": [[n, row, None] for n in names],
        "prints": names,
        "heat": heat,
        "explain": [[n, row] for n in ("output", "combine")],
        "head": head,  # (0-based: hide.js hides a per-head table's cells only while this head is shown)
    }


def question_hidden(q: Question) -> dict[str, Any]:
    """:func:`hidden` for one of the quiz's questions."""
    return hidden(q.kind, q.step, q.head, q.row, q.col)


def question_html(q: Question, qz: dict[str, Any], note: str = "") -> str:
    extra = f"<div class='quiz-note'>{html.escape(note)}</div>" if note else ""
    return (
        f"<div class='quiz-q' data-kind='{q.kind}' data-step='{q.step}' data-index='{qz['index']}' "
        f"data-hide='{html.escape(json.dumps(question_hidden(q)))}'>"
        f"{html.escape(q.prompt)}</div>{extra}<div class='quiz-tally'>{tally_of(qz).text}</div>"
    )


def quiz_message(problem: str, qz: dict[str, Any] | None = None) -> str:
    """A quiz message that says only what applies (the answer box, the question); with ``qz``, the tally below it
    (for when the question on screen no longer shows it)."""
    tally = f"<div class='quiz-tally'>{tally_of(qz).text}</div>" if isinstance(qz, dict) else ""
    return f"<div class='msg-error'>{vw.ERROR_MARK} {html.escape(problem)}</div>{tally}"


def feedback_html(g: Grade, qz: dict[str, Any], explained: str = "", keys: tuple[str, ...] = ()) -> str:
    """The verdict, the learner's answer beside the right one, and (when wrong) the cell's arithmetic.

    Keys are written as the learner names them, ``t2 (key 2)``, from the question's ``keys``.
    """
    cls = "quiz-right" if g.correct else "quiz-wrong"

    def shown(v: Any) -> str:
        if isinstance(v, float):
            return f"{v:.4f}"
        return html.escape(quiz.key_names(keys, tuple(v)) if isinstance(v, tuple) else str(v))

    pair = "" if g.correct else (
        f"<div class='quiz-pair'>your answer: <b data-given>{shown(g.given)}</b> · right answer: "
        f"<b data-right>{shown(g.right)}</b>{f' (±{g.tolerance:.4f})' if g.tolerance else ''}</div>"
    )  # fmt: skip
    return (
        f"<div class='{cls}' data-correct='{str(g.correct).lower()}'>{html.escape(g.message)}{pair}</div>"
        f"{explained}<div class='quiz-tally'>{tally_of(qz).text}</div>"
    )


def explanation(s: ac.Scenario, tr: ac.Trace, q: Question) -> str:
    """The explain panel's arithmetic for the question's cell (nothing for a mask question)."""
    if q.explain is None:
        return ""
    name, head, i, j = q.explain
    text, _ = explain_pick(s, tr, head, {"name": name, "row": i, "col": j})
    return re.sub(r"<button class='ex-close'.*?</button>", "", text)  # the quiz panel has no close button


@dataclass(frozen=True)
class QuizView:
    """The quiz's components: its state slot, the question, the feedback, the answer box, and the hidden number of
    the question on screen (sent with each answer, so an answer is graded only against the question it was for)."""

    slot: Any
    question: Any
    feedback: Any
    answer: Any = None
    asked: Any = None

    def fresh(self, qz: dict[str, Any]) -> dict[Any, Any]:
        """An empty answer box for the open question of ``qz`` (so an old answer is never sent again)."""
        return {c: v for c, v in ((self.answer, ""), (self.asked, str(qz["index"]))) if c is not None}


EXPIRED = "session: the server holds no state for this page; reload the page to go on with the quiz"


def on_quiz_new(v: QuizView, choice: Any, vals: PageValues | None, qz: Any) -> dict[Any, Any]:
    """The New question button: draw the next question of this session's sequence on the live state."""
    if vals is None:
        return {v.feedback: quiz_message(EXPIRED)}
    qz = qz if isinstance(qz, dict) else new_quiz()
    try:
        s, tr, _ = live_state(vals)
        q, qz = draw(s, tr, qz, str(choice or "any"))
    except (ac.ScenarioError, QuizError) as e:
        return {v.feedback: quiz_message(str(e))}
    return {v.slot: qz, v.question: question_html(q, qz), v.feedback: "", **v.fresh(qz)}


def on_quiz_check(v: QuizView, text: Any, vals: PageValues | None, qz: Any, asked: Any = None) -> dict[Any, Any]:
    """The Check button: grade the typed answer on the live state. Unreadable answers are named and not counted.

    ``asked`` is the number of the question the page showed when the answer was sent: an answer sent for an
    earlier question (a second press before the first was answered) is left ungraded and changes nothing.
    """
    if vals is None:
        return {v.feedback: quiz_message(EXPIRED)}
    if not isinstance(qz, dict) or qz["index"] < 0:
        return {v.feedback: quiz_message("answer: there is no question yet; press New question")}
    if asked not in (None, "") and str(asked) != str(qz["index"]):
        return {}  # this very submission was already graded (it was for the question before this one)
    if qz["answered"]:
        return {v.feedback: quiz_message("answer: this question is answered; press New question", qz)}
    try:
        s, tr, _ = live_state(vals)
        q = current_question(s, tr, qz)
    except (ac.ScenarioError, QuizError) as e:
        return {v.feedback: quiz_message(f"{e}; press New question")}
    if q.prompt != qz["prompt"]:  # the state changed shape under the question: ask it again, count nothing
        qz = {**qz, "prompt": q.prompt}
        note = "The workbench changed since this question was asked; here it is on the live state."
        return {v.slot: qz, v.question: question_html(q, qz, note), v.feedback: ""}
    g = quiz.grade(q, str(text) if text is not None else "")
    if not g.counted:
        return {v.feedback: quiz_message(g.message)}  # the question above still shows the tally
    return graded(v, g, q, {**qz, **vars(quiz.record(tally_of(qz), g)), "answered": True}, s, tr)


def graded(v: QuizView, g: Grade, q: Question, qz: dict[str, Any], s: ac.Scenario, tr: ac.Trace) -> dict:
    """A counted answer: right, the next question; wrong, the question revealed and that cell's arithmetic.
    Either way the answer box is emptied, so the same text is never graded again."""
    if not g.correct:  # reveal: the question without its hiding style, the arithmetic for that cell
        shown = f"<div class='quiz-q'>{html.escape(q.prompt)}</div>"
        fb = feedback_html(g, qz, explanation(s, tr, q), q.keys)
        return {v.slot: qz, v.question: shown, v.feedback: fb, **v.fresh(qz)}
    try:
        nxt, qz = draw(s, tr, qz, qz["choice"])
    except QuizError as e:
        return {v.slot: qz, v.feedback: feedback_html(g, qz, keys=q.keys) + quiz_message(str(e)), **v.fresh(qz)}
    return {v.slot: qz, v.question: question_html(nxt, qz), v.feedback: feedback_html(g, qz, keys=q.keys),
            **v.fresh(qz)}  # fmt: skip


def build_quiz() -> dict[str, Any]:
    """Quiz me: a question on the live workbench state, an answer box, the verdict and the running score."""
    with gr.Accordion("Quiz me: predict a number, then check", open=False, elem_id="quiz-box"):
        with gr.Row():
            choice = gr.Dropdown(CHOICES, value="any", label="ask about", elem_id="quiz-kind", scale=2)
            new = gr.Button("New question", elem_id="quiz-new", scale=1)
        question = gr.HTML("<div class='quiz-q'>Press <b>New question</b>.</div>", elem_id="quiz-q", js_on_load=HIDE_JS)
        with gr.Row():
            answer = gr.Textbox(label="your answer", elem_id="quiz-answer", scale=3)
            check = gr.Button("Check", variant="primary", elem_id="quiz-check", scale=1)
        asked = gr.Textbox("", visible=False, elem_id="quiz-asked")  # the number of the question on screen
        feedback = gr.HTML(elem_id="quiz-feedback")
    return {"choice": choice, "new": new, "question": question, "answer": answer, "check": check,
            "feedback": feedback, "asked": asked}  # fmt: skip


def wire_quiz(page: Any, c: dict[str, Any]) -> None:
    """New question and Check (the button or Enter); a press while the last one is still answered is dropped."""
    v = QuizView(Slot("quiz"), c["question"], c["feedback"], c["answer"], c["asked"])
    outs = [v.slot, v.question, v.feedback, v.answer, v.asked]
    on(c["new"].click, bind(on_quiz_new, v), [c["choice"], page.vals_state, v.slot], outs, reads=True, **COMMON)
    once = {**COMMON, "trigger_mode": "once"}
    for trigger in (c["check"].click, c["answer"].submit):
        on(trigger, bind(on_quiz_check, v), [c["answer"], page.vals_state, v.slot, v.asked], outs, **once)


# ---- pin and compare -------------------------------------------------------------------------


def diff_table(delta: Tensor, status: Tensor, rows: list[str], cols: list[str], name: str) -> str:
    """(R, C) changes as a table: moved cells signed on a diverging scale, unchanged cells a quiet dot."""
    moved = delta[status == MOVED]
    lim = float(moved.abs().max()) if moved.numel() else 1.0
    lim = lim or 1.0
    words = {MASKED: "masked", UNMASKED: "shown"}
    body = []
    for i in range(min(delta.shape[0], vw.WINDOW)):
        tds = []
        for j in range(min(delta.shape[1], vw.WINDOW)):
            st, d = int(status[i, j]), float(delta[i, j])
            if st == SAME:
                cls, text = "q0", "·"
            elif st == MOVED:
                cls, text = f"s{min(10, max(0, round(d / lim * 5) + 5))}", f"{d:+.3f}"
            else:
                cls, text = "m", words.get(st, "undef")
            tds.append(f"<td class='{cls}' data-r='{i}' data-c='{j}' data-st='{st}' title='{d:+.6g}'>{text}</td>")
        body.append(f"<tr><th scope='row'>{html.escape(rows[i])}</th>{''.join(tds)}</tr>")
    head = "".join(f"<th scope='col'>{html.escape(c)}</th>" for c in cols[: vw.WINDOW])
    return (f"<div class='nt-wrap'><div class='nt-name'>Δ {html.escape(name)}</div><table class='nt' "
            f"data-name='cmp-{name}'><tr><th></th>{head}</tr>{''.join(body)}</table></div>")  # fmt: skip


def compare_html(pinned: dict[str, Any], s: ac.Scenario, tr: ac.Trace, h: int) -> str:
    """The change from the pinned state to the live one: the summary, then every step of head ``h``."""
    try:
        comp = diff(snapshot(ac.parse(pinned)), snapshot(s, tr))
    except CompareError as e:
        return vw.message_html([], error=f"{e}. Pin this state to compare from here.")
    except ac.ScenarioError as e:
        return vw.message_html([], error=f"pinned state: {e}")
    part = comp.head(h)
    tk, tq = list(quiz.labels(s.tokens_k)), list(quiz.labels(s.tokens))
    d_cols = [f"d{j + 1}" for j in range(part["q"].delta.shape[-1])]
    v_cols = [f"d{j + 1}" for j in range(part["v"].delta.shape[-1])]
    spec = [("q", tq, d_cols), ("k", tk, d_cols), ("v", tk, v_cols), ("scores", tq, tk), ("scaled", tq, tk),
            ("masked", tq, tk), ("weights", tq, tk), ("output", tq, v_cols)]  # fmt: skip
    tables = [diff_table(part[n].delta, part[n].status, r, c, n) for n, r, c in spec]
    comb = comp.steps["combined"]
    tables.append(diff_table(comb.delta, comb.status, tq, [f"o{j + 1}" for j in range(comb.delta.shape[-1])],
                             "combined"))  # fmt: skip
    w = part["weights"]
    quiet = torch.where(w.status == SAME, torch.zeros_like(w.delta), w.delta)
    rows, cols = [f"{i + 1}:{t}" for i, t in enumerate(tq)], [f"{j + 1}:{t}" for j, t in enumerate(tk)]
    fig = heat.heatmap(
        quiet,
        heat.SIGNED,
        "weights change (grey: a key masked in one state and shown in the other)",
        rows,
        cols,
        "cmp-hm",
    )
    tag = f" (head {h + 1} of {s.heads})" if s.heads > 1 else ""
    return (f"<div class='cmp-summary' data-moved='{comp.steps['weights'].moved}'>{html.escape(comp.summary)}</div>"
            f"<small>live − pinned{tag}; unchanged cells are a grey dot</small>"
            f"<div class='cmp-tables'>{''.join(tables)}{fig}</div>")  # fmt: skip


def on_pin(view: Any, preset_id: str | None, vals: PageValues | None) -> dict[Any, Any]:
    """The Pin this state button: keep the on-screen state as explicit scenario values."""
    if vals is None:
        return {view: expired_message()}
    try:
        s, sc = current_scenario(preset_id, vals)
        sc.pop("preset", None)
        h = shown_head(vals.view_head, s.heads)
        shown = compare_html(sc, s, ac.evaluate(s), h)
    except ac.ScenarioError as e:
        return {view: vw.message_html([], error=f"pin: {e}")}
    return {Slot("pin"): sc, view: shown}


def on_unpin(view: Any) -> dict[Any, Any]:
    return {Slot("pin"): None, view: NOTHING_PINNED}


def on_compare(vals: PageValues | None, pinned: Any) -> Any:
    """After any workbench update: the change from the pinned state (nothing to do when nothing is pinned)."""
    if vals is None:
        return expired_message()
    if not isinstance(pinned, dict):
        return gr.skip()
    try:
        s, tr, h = live_state(vals)
    except ac.ScenarioError:
        return gr.skip()  # the workbench's message names the field; the comparison keeps the last valid state
    return compare_html(pinned, s, tr, h)


def build_compare(heat_js: str) -> dict[str, Any]:
    """Pin and compare: pin the state, then every edit shows what moved, cell by cell, in its own view."""
    with gr.Accordion("Pin and compare", open=False, elem_id="compare-box"):
        with gr.Row():
            pin = gr.Button("Pin this state", elem_id="pin-btn")
            unpin = gr.Button("Unpin", elem_id="unpin-btn")
        view = drawn(heat_js + "\n" + FOLLOW_JS, NOTHING_PINNED, elem_id="compare")
    return {"pin": pin, "unpin": unpin, "view": view}


def wire_compare(page: Any, c: dict[str, Any]) -> None:
    """Pin and unpin; after every workbench update the comparison follows (FOLLOW_JS asks, only while pinned)."""
    slot, view = Slot("pin"), c["view"]
    st = [page.preset_state, page.vals_state]
    on(c["pin"].click, bind(on_pin, view), st, [slot, view], reads=True, **COMMON)  # (the state the page shows)
    on(c["unpin"].click, bind(on_unpin, view), [], [slot, view], **COMMON)
    on(view.click, on_compare, [page.vals_state, slot], [view], **COMMON)


def build_learn(heat_js: str) -> dict[str, Any]:
    """Both workbench boxes (inside the Workbench tab, below the explain panel)."""
    return {"quiz": build_quiz(), "compare": build_compare(heat_js)}


def wire_learn(page: Any, parts: dict[str, Any]) -> None:
    wire_quiz(page, parts["quiz"])
    wire_compare(page, parts["compare"])


# ---- a generator handler whose Slots live in the session's STORE entry ------------------------
