"""Quiz: every question kind on several presets against a plain-torch reference; grading edges; the draw."""

from __future__ import annotations

import math

import pytest
import torch
from torch import Tensor

import attention_core as ac
from attention_core.teaching import explain, quiz
from attention_core.teaching.quiz import Question, QuizError, Tally, ask, grade, record

PRESETS = ("statquest-masked", "encdec-masked", "qkv-split", "statquest-mha2", "numpy-masked", "llm-simplified-sum")


def state(preset: str) -> tuple[ac.Scenario, ac.Trace]:
    s = ac.parse(ac.get_preset(preset).scenario)
    return s, ac.evaluate(s)


def reference(s: ac.Scenario) -> dict[str, list[Tensor]]:
    """Every step per head with plain torch ops from the parsed inputs (not from the trace)."""
    w = s.weights

    def proj(x: Tensor, m: Tensor) -> Tensor:
        return x @ m.T if w.layout == "linear" else x @ m

    out: dict[str, list[Tensor]] = {n: [] for n in ("scores", "scaled", "weights", "output")}
    for h in range(s.heads):
        if s.head_mode == "concat":
            q, k, v = proj(s.x_q, w.W_q[h]), proj(s.x_k, w.W_k[h]), proj(s.x_v, w.W_v[h])
        else:
            cols = slice(h * s.x_q.shape[1] // s.heads, (h + 1) * s.x_q.shape[1] // s.heads)
            q, k, v = (proj(x, m[0])[:, cols] for x, m in ((s.x_q, w.W_q), (s.x_k, w.W_k), (s.x_v, w.W_v)))
        scores = q @ k.T
        div = math.sqrt(k.shape[1]) if s.scale is True else (1.0 if s.scale is False else float(s.scale))
        scaled = scores / div
        masked = scaled
        if s.keep is not None:
            masked = scaled.masked_fill(~s.keep, -1e9 if s.fill == "-1e9" else -math.inf)
        weights = masked.softmax(-1) if s.normalize == "softmax" else masked / masked.sum(-1, keepdim=True)
        weights = torch.nan_to_num(weights, nan=0.0)
        for n, t in (("scores", scores), ("scaled", scaled), ("weights", weights), ("output", weights @ v)):
            out[n].append(t)
    concat = torch.cat(out["output"], dim=-1)
    out["combine"] = [concat if w.W_o is None else proj(concat, w.W_o)]
    return out


def hand_state(x: list[list[float]], mask: dict | None = None) -> tuple[ac.Scenario, ac.Trace]:
    sc: dict = {"x": x, "weights": {"init": "identity"}, "scale": False}
    if mask is not None:
        sc["mask"] = mask
    s = ac.parse(sc)
    return s, ac.evaluate(s)


def number_q(answer: float) -> Question:
    return Question("number", "scores", 0, 0, 0, "?", answer, quiz.tolerance(answer), ("t1",), None)


# ---- grading ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("right", "tol"), [(2.0, 0.02), (-3.0, 0.03), (0.1, 0.005), (0.5, 0.005), (0.0, 0.005), (-0.2, 0.005)]
)
def test_tolerance_is_one_percent_or_half_a_hundredth(right: float, tol: float) -> None:
    assert quiz.tolerance(right) == pytest.approx(tol)
    q = number_q(right)
    for inside in (right + 0.99 * tol, right - 0.99 * tol, right):
        g = grade(q, repr(inside))
        assert g.counted and g.correct, g
        assert g.tolerance == pytest.approx(tol) and g.right == right and g.given == pytest.approx(inside)
    for outside in (right + 1.01 * tol, right - 1.01 * tol, right + 1):
        g = grade(q, repr(outside))
        assert g.counted and not g.correct, g
        assert f"{right:.4f}" in g.message and "Not quite" in g.message


@pytest.mark.parametrize("text", ["", "   ", "abc", "nan", "NaN", "inf", "-inf", "1e999", "0x10", "1,5", "1/3", "2 3"])
def test_bad_answers_are_named_and_not_counted(text: str) -> None:
    g = grade(number_q(0.25), text)
    assert not g.counted and not g.correct and g.given is None
    assert g.message.startswith("answer:"), g.message
    assert record(Tally(3, 4), g) == Tally(3, 4)


def test_number_answer_forms() -> None:
    q = number_q(-0.25)
    for text in ("-0.25", " -.25 ", "−0.25", "-2.5e-1", "-0.2500"):
        assert grade(q, text).correct, text


def test_tally_counts_only_read_answers() -> None:
    q = number_q(1.0)
    t = Tally()
    for text in ("1.0", "abc", "2", "1.005", ""):
        t = record(t, grade(q, text))
    assert (t.right, t.asked) == (2, 3)
    assert t.text == "2 of 3 this session"


# ---- every kind on several presets -----------------------------------------------------------------


@pytest.mark.parametrize("preset", PRESETS)
def test_number_questions_match_plain_torch(preset: str) -> None:
    s, tr = state(preset)
    ref = reference(s)
    steps = quiz.number_steps(tr)
    assert set(steps) >= {"scores", "scaled", "weights", "output"}
    for step in steps:
        for head in range(tr.heads):
            for index in range(3):
                q = ask(s, tr, 5, index, kind="number", step=step, head=head)
                h = 0 if step == "combine" else head
                want = float(ref[step][h][q.row, q.col])
                assert q.answer == pytest.approx(want, rel=1e-5, abs=1e-6), (step, q)
                assert q.tolerance == pytest.approx(max(0.01 * abs(want), 0.005))
                assert s.tokens[q.row] in q.prompt or quiz.labels(s.tokens)[q.row] in q.prompt
                if step in ("scores", "scaled", "weights"):
                    assert quiz.labels(s.tokens_k)[q.col] in q.prompt
                if step == "weights" and s.keep is not None:
                    assert bool(s.keep[q.row, q.col]), "a hidden key's weight is the mask question"
                # the explain panel opens on the same cell with the same number
                name, eh, ei, ej = q.explain
                assert explain.explain(tr, eh, name, ei, ej, {}).value == pytest.approx(want, rel=1e-5, abs=1e-6)
                assert grade(q, f"{want:.6f}").correct
                assert not grade(q, f"{want + 2 * q.tolerance + 0.01:.6f}").correct


@pytest.mark.parametrize("preset", ["statquest-masked", "encdec-masked", "qkv-masked", "numpy-masked"])
def test_mask_questions_list_the_causal_keys(preset: str) -> None:
    s, tr = state(preset)
    rows = set()
    for index in range(12):
        q = ask(s, tr, 3, index, kind="mask")
        rows.add(q.row)
        assert q.answer == tuple(range(q.row + 1))  # causal: query i sees keys 1..i
        keys = quiz.labels(s.tokens_k)
        assert grade(q, ", ".join(keys[: q.row + 1])).correct
        assert grade(q, " ".join(str(p + 1) for p in range(q.row + 1))).correct  # positions work too
        assert not grade(q, ", ".join(keys)).correct or q.row == len(keys) - 1
        assert not grade(q, "none").correct
    assert len(rows) > 1


@pytest.mark.parametrize("preset", PRESETS)
def test_argmax_questions_match_plain_torch(preset: str) -> None:
    s, tr = state(preset)
    ref = reference(s)
    for index in range(6):
        q = ask(s, tr, 9, index, kind="argmax")
        row = ref["weights"][q.head][q.row]
        assert int(row.argmax()) in q.answer
        assert all(float(row[p]) >= float(row.max()) - quiz.TIE_TOL for p in q.answer)
        keys = quiz.labels(s.tokens_k)
        assert grade(q, keys[q.answer[0]]).correct
        others = [p for p in range(len(keys)) if p not in q.answer]
        if others:
            assert not grade(q, keys[others[0]]).correct
            assert not grade(q, f"{keys[q.answer[0]]}, {keys[others[0]]}").correct


def test_argmax_ties_accept_any_tied_key() -> None:
    s, tr = hand_state([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])  # scores row 1 = [1, 1, 0]: t1 and t2 tie
    q = next(q for i in range(50) if (q := ask(s, tr, 0, i, kind="argmax")).row == 0)
    assert q.answer == (0, 1)
    for text in ("t1", "t2", "t1, t2", "1 and 2"):
        assert grade(q, text).correct, text
    for text in ("t3", "t1, t3", "none"):
        assert not grade(q, text).correct, text
    assert "ties" in grade(q, "t3").message


def test_no_mask_no_mask_question() -> None:
    s, tr = state("statquest-self")
    assert "mask" not in quiz.available_kinds(s, tr)
    with pytest.raises(QuizError, match="no mask"):
        ask(s, tr, 0, 0, kind="mask")
    assert all(ask(s, tr, 1, i).kind != "mask" for i in range(100))


@pytest.mark.parametrize("fill", ["-inf", "-1e9", "additive"])
def test_fully_masked_row_is_never_a_number_question(fill: str) -> None:
    keep = [[1, 0, 0], [0, 0, 0], [1, 1, 1]]
    s, tr = hand_state([[1.0, 0.5], [0.2, 1.0], [1.0, 1.0]], {"kind": "custom", "keep": keep, "fill": fill})
    assert tr.fully_masked_rows == (1,)
    kinds = set()
    for i in range(150):
        q = ask(s, tr, 2, i)
        kinds.add(q.kind)
        assert math.isfinite(q.answer) if q.kind == "number" else True
        if q.kind == "number" and q.step in ("weights", "output", "combine"):
            assert q.row != 1, q
        if q.kind == "argmax":
            assert q.row == 2  # row 1 sees one key, row 2 none: only row 3 can be ranked
        if q.kind == "mask" and q.row == 1:
            assert q.answer == ()
            assert grade(q, "none").correct and not grade(q, "t1").correct
    assert kinds == {"number", "mask", "argmax"}


def test_key_answers_name_repeated_tokens_by_position() -> None:
    s, tr = state("llm-simplified")
    keys = quiz.labels(s.tokens_k)
    assert keys[1] == "␣#2" and keys[0] == "The" and len(set(keys)) == len(keys)
    q = ask(s, tr, 4, 0, kind="argmax")
    right = keys[q.answer[0]]
    assert grade(q, right).correct and grade(q, str(q.answer[0] + 1)).correct
    g = grade(q, "zebra")
    assert not g.counted and g.message.startswith("answer: 'zebra' is not a key")
    assert not grade(q, "").counted and not grade(q, "99").counted


# ---- the draw ---------------------------------------------------------------------------------------


def test_draw_is_reproducible_per_seed_and_leaves_the_global_rng_alone() -> None:
    s, tr = state("statquest-masked")
    torch.manual_seed(1234)
    before = torch.get_rng_state()
    first = [ask(s, tr, 7, i) for i in range(30)]
    assert torch.equal(torch.get_rng_state(), before)
    again = [ask(s, tr, 7, i) for i in range(30)]
    other = [ask(s, tr, 8, i) for i in range(30)]
    assert first == again
    assert first != other
    assert len({(q.kind, q.step, q.row, q.col) for q in first}) > 5  # questions vary within a session
    expected = torch.Generator().manual_seed(1234)
    assert torch.equal(torch.rand(3), torch.rand(3, generator=expected))


def test_bad_requests_are_refused_by_name() -> None:
    s, tr = state("statquest-self")
    with pytest.raises(QuizError, match="kind"):
        ask(s, tr, 0, 0, kind="essay")
    with pytest.raises(QuizError, match="step"):
        ask(s, tr, 0, 0, kind="number", step="combine")  # one head, no W_o: combine is the head output
    with pytest.raises(QuizError, match="head 3"):
        ask(s, tr, 0, 0, head=2)
