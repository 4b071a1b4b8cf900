"""Handlers of "Quiz me", "Pin and compare" and the Train tab (ui/learn.py, ui/train.py), without a browser."""

from __future__ import annotations

import html
import math
import re
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

import gradio as gr
import pytest
import torch

import attention_core as ac
from attention_core.teaching import quiz, train
from serving import api as api_app
from ui import learn as lu
from ui import pipeline, values, wiring
from ui import train as tu
from ui.render import grids

V = lu.QuizView(wiring.Slot("quiz"), "question", "feedback")
TV = tu.TrainView(wiring.Slot("train"), "status", "heat", "plot")
SEED = 1234


def vals_of(preset: str) -> dict[str, Any]:
    return pipeline.load_values(preset)[1]


def trace_of(vals: dict[str, Any]) -> tuple[ac.Scenario, ac.Trace]:
    s = ac.parse(values.scenario_from(vals))
    return s, ac.evaluate(s)


def asked(vals: dict[str, Any], choice: str = "any") -> tuple[dict[str, Any], quiz.Question]:
    """Ask a question through the handler; the question it asked, recomputed from its stored draw."""
    out = lu.on_quiz_new(V, choice, vals, lu.new_quiz(SEED))
    qz = out[V.slot]
    s, tr = trace_of(vals)
    kind, step = lu.kind_step(choice)
    q = quiz.ask(s, tr, SEED, qz["index"], kind, step)
    assert html.escape(q.prompt) in out[V.question]
    return qz, q


def exact(vals: dict[str, Any], q: quiz.Question) -> float:
    """The asked cell straight from the trace (combine: the heads combined; else the head's own step)."""
    _, tr = trace_of(vals)
    t = tr.output if q.step == "combine" else tr.head(q.head)[q.step]
    return float(t[q.row, q.col])


NUMBER_CASES = [
    (p, st)
    for p in ("statquest-self", "statquest-mha2", "qkv-split", "numpy-masked")
    for st in quiz.NUMBER_STEPS
    if st != "combine" or p in ("statquest-mha2", "qkv-split")
]  # one head, no W_o: combined is the output itself


@pytest.mark.parametrize(("preset", "step"), NUMBER_CASES)
def test_a_right_answer_counts_and_moves_on_a_wrong_one_shows_the_arithmetic(preset: str, step: str) -> None:
    vals = vals_of(preset)
    qz, q = asked(vals, step)
    right = exact(vals, q)
    out = lu.on_quiz_check(V, f"{right * 1.004 + 0.001:.6f}", vals, qz)  # inside max(1%, 0.005)
    assert "data-correct='true'" in out[V.feedback] and "1 of 1 this session" in out[V.feedback]
    assert out[V.slot]["index"] > qz["index"] and not out[V.slot]["answered"]  # the next question is open
    qz2 = out[V.slot]
    s, tr = trace_of(vals)
    q2 = quiz.ask(s, tr, SEED, qz2["index"], "number", step)
    wrong = exact(vals, q2) + max(0.02 * abs(exact(vals, q2)), 0.01)  # outside the band
    out = lu.on_quiz_check(V, str(wrong), vals, qz2)
    fb = html.unescape(out[V.feedback])
    assert "data-correct='false'" in fb and "1 of 2 this session" in fb
    assert f"your answer: <b data-given>{wrong:.4f}</b>" in fb
    assert f"right answer: <b data-right>{exact(vals, q2):.4f}</b>" in fb
    assert "class='ex-title'" in fb  # the explain panel's arithmetic for that cell
    again = lu.on_quiz_check(V, str(exact(vals, q2)), vals, out[V.slot])
    assert V.slot not in again and "press New question" in html.unescape(again[V.feedback])  # counted once


@pytest.mark.parametrize("text", ["", "   ", "abc", "nan", "NaN", "inf", "-inf", "1e999", "0.5.5", None])
def test_bad_answers_name_the_field_and_are_not_counted(text: Any) -> None:
    vals = vals_of("statquest-self")
    qz, _ = asked(vals, "weights")
    out = lu.on_quiz_check(V, text, vals, qz)
    assert V.slot not in out  # nothing stored: the tally and the open question stay
    assert "msg-error" in out[V.feedback] and "answer:" in html.unescape(out[V.feedback])


def test_mask_and_argmax_questions_are_graded_by_key_names() -> None:
    vals = vals_of("statquest-masked")
    qz, q = asked(vals, "mask")
    s, _ = trace_of(vals)
    seen = [quiz.labels(s.tokens_k)[j] for j in range(len(s.tokens_k)) if bool(s.keep[q.row, j])]  # causal: j ≤ row
    assert len(seen) == q.row + 1
    out = lu.on_quiz_check(V, ", ".join(seen) if seen else "none", vals, qz)
    assert "data-correct='true'" in out[V.feedback]
    qz, q = asked(vals, "argmax")
    _, tr = trace_of(vals)
    w = tr.head(q.head)["weights"][q.row]
    top = quiz.labels(s.tokens_k)[int(w.argmax())]
    assert "data-correct='true'" in lu.on_quiz_check(V, top, vals, qz)[V.feedback]


def test_the_draw_is_per_session_seed_and_leaves_the_global_rng_alone() -> None:
    vals = vals_of("statquest-mha2")
    torch.manual_seed(7)
    before = torch.get_rng_state()
    a = [lu.on_quiz_new(V, "any", vals, {**lu.new_quiz(99), "index": i})[V.question] for i in range(6)]
    b = [lu.on_quiz_new(V, "any", vals, {**lu.new_quiz(99), "index": i})[V.question] for i in range(6)]
    c = [lu.on_quiz_new(V, "any", vals, {**lu.new_quiz(100), "index": i})[V.question] for i in range(6)]
    assert a == b and a != c
    assert torch.equal(torch.get_rng_state(), before)


def test_a_question_the_state_cannot_ask_or_an_expired_page_get_a_message() -> None:
    vals = vals_of("statquest-self")  # no mask
    out = lu.on_quiz_new(V, "mask", vals, None)
    assert V.slot not in out and "no mask" in html.unescape(out[V.feedback])
    out = lu.on_quiz_new(V, "combine", vals, None)  # one head, no W_o
    assert V.slot not in out and "'combine' is not one of" in html.unescape(out[V.feedback])
    assert "session" in html.unescape(lu.on_quiz_new(V, "any", None, None)[V.feedback])
    out = lu.on_quiz_check(V, "0.5", vals, lu.new_quiz(1))
    assert "no question yet" in html.unescape(out[V.feedback])


def test_a_resize_under_an_open_question_asks_it_again_uncounted() -> None:
    vals = vals_of("statquest-self")
    qz, _ = asked(vals, "scores")
    bigger = pipeline.restructure_values("resize", None, values.shape_of(vals, "linear"), replace(vals, T=5))[1]
    out = lu.on_quiz_check(V, "0.1", bigger, qz)
    assert "changed since" in out[V.question] and out[V.slot]["asked"] == 0 and not out[V.slot]["answered"]


# ---- pin and compare -------------------------------------------------------------------------


def cells(view: str, name: str) -> dict[tuple[int, int], str]:
    seg = view.split(f"data-name='cmp-{name}'")[1].split("</table>", maxsplit=1)[0]
    return {(int(r), int(c)): t for r, c, t in re.findall(r"data-r='(\d+)' data-c='(\d+)'[^>]*>([^<]*)</td>", seg)}


def test_pin_then_edit_shows_the_traces_subtracted_and_the_summary() -> None:
    vals = vals_of("statquest-masked")
    pinned = lu.on_pin("view", None, vals)
    sc = pinned[wiring.Slot("pin")]
    assert "nothing moved" in html.unescape(pinned["view"])
    s0, tr0 = trace_of(vals)
    edited = replace(vals, x=grids.with_cell(vals.x, 1, 0, float(s0.x_q[1, 0]) + 0.5))
    view = html.unescape(lu.on_compare(edited, sc))
    _, tr1 = trace_of(edited)
    assert "x[" in view and "+0.50 →" in view  # the cause is named
    moved_w = int((~torch.isclose(tr1.head(0)["weights"], tr0.head(0)["weights"], atol=1e-6, rtol=1e-5)).sum())
    assert f"{moved_w} of {tr1.head(0)['weights'].numel()} weights" in view
    for name in ("scores", "weights", "output"):
        d = tr1.head(0)[name].double() - tr0.head(0)[name].double()
        for (r, c), text in cells(view, name).items():
            if not math.isfinite(float(d[r, c])) or abs(float(d[r, c])) <= 1e-6 + 1e-5 * abs(
                float(tr1.head(0)[name][r, c])
            ):
                assert text in ("·",), (name, r, c, text)
            else:
                assert text == f"{float(d[r, c]):+.3f}", (name, r, c, text)


def test_a_shape_change_is_refused_by_name_and_nothing_pinned_does_nothing() -> None:
    vals = vals_of("statquest-self")
    sc = lu.on_pin("view", None, vals)[wiring.Slot("pin")]
    bigger = pipeline.restructure_values("resize", None, values.shape_of(vals, "linear"), replace(vals, T=5))[1]
    view = html.unescape(lu.on_compare(bigger, sc))
    assert "cannot compare cell by cell: T changed 3 → 5" in view
    assert isinstance(lu.on_compare(vals, None), type(gr.skip()))
    assert lu.on_unpin("view")[wiring.Slot("pin")] is None


# ---- train -----------------------------------------------------------------------------------


def test_run_streams_bounded_updates_equal_to_the_core_and_pause_stops_it() -> None:
    saved: dict[str, Any] = {}

    def live(_: str) -> Any:
        return saved.get("train")

    ups = []
    for up in tu.on_train_run(TV, "previous", 0, 20, None, None, live, pace_s=0.0):
        saved["train"] = up[TV.slot]
        ups.append(up)
    want = train.train_steps(train.start("previous", 0), 20)
    assert 2 <= len(ups) <= tu.MAX_UPDATES + 1
    got = tu.unpack(ups[-1][TV.slot])
    assert got.step == 20 and got.losses == want.losses and torch.equal(got.W_q, want.W_q)
    assert "data-step='20'" in ups[-1][TV.heat]
    saved.clear()
    run = tu.on_train_run(TV, "match", 0, 50, None, None, live, pace_s=0.0)
    saved["train"] = next(run)[TV.slot]
    saved["train"] = next(run)[TV.slot]
    before = tu.unpack(saved["train"]).step
    paused = tu.on_train_pause(TV, saved["train"])
    assert set(paused) == {TV.slot}  # Pause itself shows nothing (on() hands gradio skip() for the status)
    saved["train"] = paused[TV.slot]
    last = [next(run)]
    saved["train"] = last[0][TV.slot]  # as wiring.stream stores it
    assert list(run) == [] and "paused" in last[0][TV.status]  # one last update, then nothing
    st = tu.unpack(last[0][TV.slot])
    assert before < st.step < 50 and f"data-step='{st.step}'" in last[0][TV.heat]  # the steps it finished
    assert tu.run_of(last[0][TV.slot]) == tu.run_of(paused[TV.slot])  # written with the pause's counter
    assert tu.on_train_pause(TV, paused[TV.slot])[TV.slot]["paused"] == paused[TV.slot]["paused"]  # a 2nd Pause
    reset = tu.on_train_run(TV, "match", 0, 50, None, None, lambda _: {"run": 7}, pace_s=0.0)
    assert list(reset)[1:] == []  # reset: none


def test_packed_state_continues_bit_for_bit_and_bad_fields_are_named() -> None:
    s = train.train_steps(train.start("match", 3), 7)
    cont = train.train_steps(tu.unpack(tu.pack(s, 0)), 5)
    whole = train.train_steps(train.start("match", 3), 12)
    assert cont.losses == whole.losses and torch.equal(cont.W_k, whole.W_k)
    # (each named as the tab labels its box: "seed", "N steps")
    for task, seed, n, field in (("copy", 0, 5, "task"), ("previous", "x", 5, "seed: x"),
                                 ("previous", -1, 5, "seed: -1 is below 0"), ("previous", 0, 9999, "N steps:"),
                                 ("previous", 0, "nan", "N steps:")):  # fmt: skip
        out = list(tu.on_train_run(TV, task, seed, n, None, None, lambda _: None, pace_s=0.0))
        assert len(out) == 1 and TV.slot not in out[0] and field in html.unescape(out[0][TV.status])


def test_train_api_is_bounded_and_equals_the_core() -> None:
    got = api_app.train_api({"task": "previous", "seed": 2, "steps": 15})
    want = train.train_steps(train.start("previous", 2), 15)
    assert got["losses"] == list(want.losses) and got["weights"] == train.weights_matrix(want).tolist()
    with pytest.raises(gr.Error, match="steps"):
        api_app.train_api({"task": "previous", "seed": 0, "steps": train.MAX_STEPS_PER_CALL + 1})
    with pytest.raises(gr.Error, match="request"):
        api_app.train_api("previous")  # type: ignore[arg-type]


def pause_in_store(key: str) -> None:
    """A Pause of the session ``key``, as the page's on() wrapper stores it."""
    wiring.STORE.put(key, {"train": tu.on_train_pause(TV, wiring.STORE.get(key)["train"])[TV.slot]}, used=True)


def streamed(run: Callable[..., Any], key: str) -> Iterator[Any]:
    """``run`` wired through wiring.stream (as Run is) and started for session ``key``: 50 steps of "match"."""
    wired = {}

    def trigger(fn: Any, *_: Any, **__: Any) -> str:
        wired["handler"] = fn
        return "event"

    wiring.stream(trigger, run, ["task", "seed", "steps", TV.slot, "clicks"], [TV.slot, TV.status, TV.heat])
    return wired["handler"]("match", 0, 50, None, type("Request", (), {"session_hash": key})())


def test_a_pause_landing_between_the_runs_check_and_its_write_is_kept() -> None:
    """A run checks its counter, builds an update, and only then does the stream wrapper (wiring.stream) write it:
    a pause stored in between must not be written over (the run would go on and the pause be lost); the run's
    next look then sends its last, "paused" update."""
    key = "pause-race"

    def run_paused_midway(*args: Any) -> Any:
        inner = tu.on_train_run(TV, *args, pace_s=0.0)
        yield next(inner)
        update = next(inner)  # built after the run's own check of its counter
        pause_in_store(key)
        yield update
        yield from inner

    try:
        sent = streamed(run_paused_midway, key)
        next(sent)
        first = wiring.STORE.get(key)["train"]
        rest = list(sent)
        assert len(rest) == 1 and "paused" in rest[0][TV.status]  # the update built before the pause is not sent
        kept = wiring.STORE.get(key)["train"]
        assert tu.run_of(kept) == tu.run_of(first) + 1 and "paused" not in kept  # the pause's counter, the run's state
        step = tu.unpack(kept).step
        assert step > tu.unpack(first).step and f"data-step='{step}'" in rest[0][TV.heat]
    finally:
        wiring.STORE.drop(key)


@pytest.mark.parametrize("second_pause", [False, True])
def test_a_pause_after_the_runs_last_check_or_a_second_pause_still_ends_on_paused(second_pause: bool) -> None:
    """A pause stored after the run built its final "done" update (then not written), and a second Pause stored
    after the run built its "paused" update: the last update sent is "paused", under the newest counter."""
    key, paused_twice = "pause-late", []

    def run_paused_late(*args: Any) -> Any:
        for up in tu.on_train_run(TV, *args, pace_s=0.0):
            if "data-running='0'" in up[TV.status] and "paused" not in up[TV.status]:
                pause_in_store(key)  # after the last check: this "done" update is not written
            elif "paused" in up[TV.status] and second_pause and not paused_twice:
                paused_twice.append(True)
                pause_in_store(key)  # a double click: this "paused" update is not written either
            yield up

    try:
        sent = list(streamed(run_paused_late, key))
        kept = wiring.STORE.get(key)["train"]
        assert "paused" in sent[-1][TV.status] and "paused" not in kept, sent[-1][TV.status]
        assert tu.run_of(kept) == 1 + (2 if second_pause else 1) and tu.unpack(kept).step == 50
    finally:
        wiring.STORE.drop(key)


@pytest.mark.parametrize("kind", ["argmax", "mask"])
def test_a_which_key_question_hides_its_querys_output_row_too(kind: str) -> None:
    """Output t3 = weights t3 · V sat beside V t3 and named the key with the most weight (issue 37's walk): the asked
    query's output and combine rows are hidden with its scores and weights, in cells, prints and explanations."""
    spec = lu.hidden(kind, "weights", 1, 2, None)
    for name in ("scores", "scaled", "masked", "weights", "output", "combine"):
        assert [name, 2, None] in spec["cells"] and name in spec["prints"], (name, spec)
    assert ["output", 2] in spec["explain"] and ["combine", 2] in spec["explain"]
    assert all(c[1] == 2 for c in spec["cells"])  # (the other queries' rows stay)


HELD = tu.TrainView(wiring.Slot("train"), "status", "heat", "plot", held=wiring.Slot("train_held"))


def ran(state: dict[str, Any], clicked: Any, n: int = 50) -> list[dict[Any, Any]]:
    """Every update of a run of ``n`` steps of "match", each written to ``state`` as wiring.stream stores it."""
    ups = []
    for up in tu.on_train_run(HELD, "match", 0, n, state.get("train"), clicked, state.get, pace_s=0.0):
        state["train"] = up[HELD.slot]
        ups.append(up)
    return ups


def test_a_pause_taken_before_the_run_it_follows_began_stops_that_run_and_no_later_one() -> None:
    """Run N clicked (the page's 1st), then Pause (sent with the count 1), and Pause reached the server first: it
    found no run going. The run, when it begins, sends one "paused" update at step 0 and trains nothing; the page's
    2nd Run runs. A Pause sent with no count (an old page) stops no run that has not begun."""
    state: dict[str, Any] = {}
    paused = tu.on_train_pause(HELD, None, 1.0, None)
    assert paused == {HELD.held: 1}  # (no run yet: nothing else)
    state.update({"train_held": 1})
    first = ran(state, 1.0)
    assert len(first) == 1 and "paused" in first[0][HELD.status] and "data-step='0'" in first[0][HELD.status]
    second = ran(state, 2.0)
    assert "data-step='50'" in second[-1][HELD.status] and "paused" not in second[-1][HELD.status]
    assert tu.on_train_pause(HELD, None, 1.0, 3)[HELD.held] == 3  # (an older count never lowers it)
    assert tu.on_train_pause(HELD, None, None, 3) == {} and tu.on_train_pause(HELD, None, "x", None) == {}
    assert "data-step='55'" in ran(state, None, 5)[-1][HELD.status]


def test_a_pause_taken_between_the_runs_start_and_its_first_write_stops_it() -> None:
    """The run read the session before the Pause was stored, and its first update wrote over the Pause's counter:
    the run still stops at its next look, and its last update says "paused" with the steps it finished."""
    state: dict[str, Any] = {}
    run = tu.on_train_run(HELD, "match", 0, 50, None, 1.0, state.get, pace_s=0.0)
    state["train"] = next(run)[HELD.slot]  # its first update, "running", written after the Pause's counter
    state["train_held"] = 1  # the Pause's count, stored meanwhile
    rest = list(run)
    assert len(rest) == 1 and "paused" in rest[0][HELD.status]
    assert 0 < tu.unpack(rest[0][HELD.slot]).step < 50


def test_a_pause_with_a_run_going_moves_its_counter_and_keeps_the_count_and_a_one_step_run_is_told() -> None:
    """Pause with a saved state: the counter moves on with its mark, and the count is kept (never lowered). A one-step
    run whose first update wrote over the Pause's counter still ends on "paused", not "running · 0 of 1"."""
    saved = tu.pack(train.start("match", 0), 4)
    out = tu.on_train_pause(HELD, saved, 2.0, 5)
    assert tu.run_of(out[HELD.slot]) == 5 and out[HELD.slot]["paused"] == 4 and out[HELD.held] == 5
    state: dict[str, Any] = {}
    run = tu.on_train_run(HELD, "match", 0, 1, None, 1.0, state.get, pace_s=0.0)
    state["train"] = next(run)[HELD.slot]
    state["train_held"] = 1
    rest = list(run)
    assert len(rest) == 1 and "paused" in rest[0][HELD.status] and "data-running='0'" in rest[0][HELD.status]


@pytest.mark.parametrize("sent", [float("nan"), float("inf"), -1.0, 1.5, True, "2", [1], None, 10**400, -(10**400)])
def test_a_count_the_page_sends_is_a_whole_number_or_nothing(sent: Any) -> None:
    """The hidden count's value is the client's to send: anything but a whole number 0 or more is no count (a Pause
    with it stores none, a Run with it is stopped by no count), and a huge int is taken as it is, with no error."""
    want = 10**400 if sent == 10**400 else None
    assert tu.count_of(sent) == want
    assert tu.on_train_pause(HELD, None, sent, None) == ({} if want is None else {HELD.held: want})
