"""Predict, then check: questions drawn from a live state, and their grading.

A question hides one fact of a parsed :class:`Scenario` and its :class:`Trace`:

    "number"  one cell of a step: ``scores``, ``scaled``, ``weights``, ``output`` (a head's) or ``combine``
              (the heads combined); the prompt names the query token and the key token(s) involved
    "mask"    which keys can query i see?  (asked only when the state has a mask)
    "argmax"  which key gets the most weight from query i?  (every key tied at the top is a right answer)

Indices are 0-based in the records and 1-based in every text, as the tables show them. Rows whose weights
are undefined (a fully masked row: softmax computes 0/0; a divide-by-sum row that sums to 0) are never asked
about as numbers. A number is right when ``|given − right| ≤ max(1% × |right|, 0.005)`` (:func:`tolerance`).

The draw uses a private ``torch.Generator`` seeded from (session seed, question index): the same seed and
index on the same state give the same question, and the global RNG is never touched.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import torch
from torch import Tensor

from ..contract.scenario import Scenario
from ..ops.trace import Trace

REL_TOL = 0.01  # 1% of the right answer ...
ABS_TOL = 0.005  # ... or this, whichever is larger
TIE_TOL = 5e-4  # argmax: keys within half the last printed digit (4 decimals) of the top weight all count
ANSWER_FIELD = "answer"  # the field bad answers are reported against
KINDS = ("number", "mask", "argmax")
NUMBER_STEPS = ("scores", "scaled", "weights", "output", "combine")  # the names explain.explain takes
KIND_ODDS = {"number": 3, "mask": 1, "argmax": 1}  # relative chance of each available kind
NONE_WORDS = ("none", "nothing", "no keys", "-", "∅")
ALL_WORDS = ("all", "every", "every key", "all keys", "*")


class QuizError(ValueError):
    """A question that cannot be asked of this state; the message says why."""


@dataclass(frozen=True)
class Question:
    """One question. ``answer``: a number, or the sorted 0-based key positions of a set answer.

    ``keys`` are the key labels a set answer is written with (positions 1..S work too).
    ``explain`` is (name, head, row, col) for ``explain.explain``, or None when no single cell answers it.
    """

    kind: str  # "number" | "mask" | "argmax"
    step: str  # a NUMBER_STEPS name, "mask" or "weights" (argmax)
    head: int  # 0-based; 0 for "combine", which mixes every head
    row: int  # query row, 0-based
    col: int | None  # key (scores, scaled, weights) or feature column (output, combine); None for sets
    prompt: str
    answer: float | tuple[int, ...]
    tolerance: float | None  # number questions only
    keys: tuple[str, ...]
    explain: tuple[str, int, int, int] | None


@dataclass(frozen=True)
class Grade:
    """The verdict on one answer. ``counted`` is False for answers that could not be read (no verdict)."""

    counted: bool
    correct: bool
    given: float | tuple[int, ...] | None
    right: float | tuple[int, ...]
    tolerance: float | None
    message: str


@dataclass(frozen=True)
class Tally:
    """Right answers out of counted answers, for "4 of 5 this session"."""

    right: int = 0
    asked: int = 0

    @property
    def text(self) -> str:
        return f"{self.right} of {self.asked} this session"


def record(tally: Tally, grade: Grade) -> Tally:
    """The tally after ``grade``; an uncounted (unreadable) answer leaves it as it was."""
    if not grade.counted:
        return tally
    return Tally(tally.right + int(grade.correct), tally.asked + 1)


def tolerance(right: float) -> float:
    """The half-width of the accepted band around ``right``: max(1% relative, 0.005 absolute)."""
    return max(REL_TOL * abs(right), ABS_TOL)


def labels(tokens: list[str]) -> tuple[str, ...]:
    """Token labels that name one position each: a repeated token gets its position, ``␣#4``."""
    return tuple(t if tokens.count(t) == 1 else f"{t}#{i + 1}" for i, t in enumerate(tokens))


def _generator(seed: int, index: int) -> torch.Generator:
    """A private generator for question ``index`` of session ``seed`` (a 64-bit mix of the two)."""
    mixed = (int(seed) * 0x9E3779B97F4A7C15 + int(index) * 0xBF58476D1CE4E5B9 + 1) % (2**63)
    return torch.Generator().manual_seed(mixed)


def _pick(n: int, g: torch.Generator) -> int:
    return int(torch.randint(0, n, (1,), generator=g))


def visible(s: Scenario) -> Tensor:
    """(L, S) bool: True where query i may see key j (all True without a mask)."""
    n_q, n_k = s.x_q.shape[0], s.x_k.shape[0]
    return torch.ones(n_q, n_k, dtype=torch.bool) if s.keep is None else s.keep


def defined_rows(tr: Trace, head: int | None) -> Tensor:
    """(L,) bool: rows whose weights are well defined in ``head`` (None: in every head).

    A row is undefined when its raw softmax / divide-by-sum is not finite, or when every key is masked
    (with -1e9 such a row is a uniform 1/S by accident of the fill, not attention).
    """
    raw = tr.weights_raw  # (H, L, S)
    ok = torch.isfinite(raw).all(dim=-1)  # (H, L)
    ok = ok.all(dim=0) if head is None else ok[head]
    for r in tr.fully_masked_rows:
        ok[r] = False
    return ok


def available_kinds(s: Scenario, tr: Trace) -> tuple[str, ...]:
    """The question kinds this state supports: no mask, no mask question; no row to rank, no argmax."""
    kinds = ["number"]
    if s.keep is not None:
        kinds.append("mask")
    if _argmax_rows(s, tr, None).numel():
        kinds.append("argmax")
    return tuple(kinds)


def number_steps(tr: Trace) -> tuple[str, ...]:
    """Steps a number can be asked from; "combine" only when it differs from the head output."""
    if tr.heads == 1 and tr.params.W_o is None:
        return NUMBER_STEPS[:-1]
    return NUMBER_STEPS


def _argmax_rows(s: Scenario, tr: Trace, head: int | None) -> Tensor:
    """Rows worth ranking: defined, with at least two visible keys."""
    ok = defined_rows(tr, head) & (visible(s).sum(dim=-1) >= 2)
    return torch.nonzero(ok).flatten()


def _cells(s: Scenario, tr: Trace, step: str, head: int) -> Tensor:
    """(n, 2) the (row, col) cells of ``step`` that may be asked about."""
    if step in ("scores", "scaled"):  # defined for every cell, masked or not
        ok = torch.ones(tr.scores.shape[-2:], dtype=torch.bool)
    elif step == "weights":  # a visible key of a defined row (a hidden key's 0 is the mask question)
        ok = visible(s) & defined_rows(tr, head).unsqueeze(-1)
    elif step == "output":
        ok = defined_rows(tr, head).unsqueeze(-1).expand(-1, tr.mixed.shape[-1])
    elif step == "combine":
        ok = defined_rows(tr, None).unsqueeze(-1).expand(-1, tr.output.shape[-1])
    else:
        raise QuizError(f"step {step!r} is not one of {', '.join(NUMBER_STEPS)}")
    return torch.nonzero(ok)


def ask(
    s: Scenario,
    tr: Trace,
    seed: int,
    index: int,
    kind: str | None = None,
    step: str | None = None,
    head: int | None = None,
) -> Question:
    """Question ``index`` of session ``seed`` about this state. ``kind``, ``step`` and ``head`` fix what
    they name and leave the rest to the draw. Raises QuizError when the state cannot answer that kind.
    """
    g = _generator(seed, index)
    kinds = available_kinds(s, tr)
    if kind is None:
        pool = [k for k in kinds for _ in range(KIND_ODDS[k])]
        kind = pool[_pick(len(pool), g)]
    elif kind not in KINDS:
        raise QuizError(f"kind {kind!r} is not one of {', '.join(KINDS)}")
    elif kind not in kinds:
        why = "this state has no mask: every query sees every key" if kind == "mask" else "no row has two visible keys"
        raise QuizError(f"no {kind} question: {why}")
    if head is None:
        head = _pick(tr.heads, g)
    elif not 0 <= head < tr.heads:
        raise QuizError(f"head {head + 1} does not exist: this state has {tr.heads} head(s)")
    if kind == "mask":
        return _mask_question(s, tr, head, g)
    if kind == "argmax":
        return _argmax_question(s, tr, head, g)
    return _number_question(s, tr, head, step, g)


def _head_tag(tr: Trace, head: int) -> str:
    return f"Head {head + 1}: " if tr.heads > 1 else ""


def _number_question(s: Scenario, tr: Trace, head: int, step: str | None, g: torch.Generator) -> Question:
    steps = number_steps(tr)
    if step is None:
        step = steps[_pick(len(steps), g)]
        if not _cells(s, tr, step, head).numel():  # e.g. every row fully masked: scores are always defined
            step = "scores"
    elif step not in steps:
        raise QuizError(f"step {step!r} is not one of {', '.join(steps)}")
    cells = _cells(s, tr, step, head)
    if not cells.numel():
        raise QuizError(f"no {step} cell is defined in this state (every row is fully masked)")
    i, j = (int(v) for v in cells[_pick(cells.shape[0], g)])
    if step == "combine":
        head = 0
        value = float(tr.output[i, j])
    else:
        value = float(tr.head(head)[step][i, j])
    return Question(
        kind="number",
        step=step,
        head=head,
        row=i,
        col=j,
        prompt=_number_prompt(s, tr, step, head, i, j),
        answer=value,
        tolerance=tolerance(value),
        keys=labels(s.tokens_k),
        explain=(step, head, i, j),
    )


def _number_prompt(s: Scenario, tr: Trace, step: str, head: int, i: int, j: int) -> str:
    q, k = labels(s.tokens), labels(s.tokens_k)
    seen = ", ".join(k[c] for c in torch.nonzero(visible(s)[i]).flatten().tolist())
    divisor = tr.divisor
    if step == "scores":
        text = f"the raw score of query {q[i]} against key {k[j]}: scores[{i + 1}, {j + 1}] = q_{q[i]} · k_{k[j]}"
    elif step == "scaled":
        by = "scaling is off, so it equals the raw score" if divisor is None else f"the raw score ÷ {_divisor_words(s)}"
        text = f"the scaled score of query {q[i]} against key {k[j]}: scaled[{i + 1}, {j + 1}] ({by})"
    elif step == "weights":
        text = f"the attention weight query {q[i]} gives key {k[j]}: weights[{i + 1}, {j + 1}]"
    elif step == "output":
        text = f"column {j + 1} of the output for query {q[i]}: output[{i + 1}, {j + 1}] = Σ weight × v over {seen}"
    else:
        how = "through W_o" if tr.params.W_o is not None else "side by side"
        text = f"column {j + 1} of the combined output for query {q[i]} (all heads {how}; keys {seen})"
    tag = _head_tag(tr, head) if step != "combine" else ""
    return f"{tag}What is {text}? (within ±{ABS_TOL:g} or {REL_TOL:.0%}, whichever is larger)"


def _divisor_words(s: Scenario) -> str:
    return "√d_k" if s.scale is True else f"the temperature {float(s.scale):g}"


def _mask_question(s: Scenario, tr: Trace, head: int, g: torch.Generator) -> Question:
    i = _pick(s.x_q.shape[0], g)
    seen = tuple(torch.nonzero(visible(s)[i]).flatten().tolist())
    q_lab, k_lab = labels(s.tokens), labels(s.tokens_k)
    return Question(
        kind="mask",
        step="mask",
        head=head,
        row=i,
        col=None,
        prompt=f"Which keys can query {q_lab[i]} see? Name them ({', '.join(k_lab)}), or answer 'none'.",
        answer=seen,
        tolerance=None,
        keys=k_lab,
        explain=None,
    )


def _argmax_question(s: Scenario, tr: Trace, head: int, g: torch.Generator) -> Question:
    rows = _argmax_rows(s, tr, head)
    if not rows.numel():  # this head has no rankable row; another head may: stay on this head's scores
        raise QuizError(f"no argmax question in head {head + 1}: no defined row has two visible keys")
    i = int(rows[_pick(rows.numel(), g)])
    w = tr.head(head)["weights"][i]  # (S,)
    top = torch.nonzero(w >= w.max() - TIE_TOL).flatten().tolist()
    q_lab, k_lab = labels(s.tokens), labels(s.tokens_k)
    return Question(
        kind="argmax",
        step="weights",
        head=head,
        row=i,
        col=None,
        prompt=f"{_head_tag(tr, head)}Which key gets the most weight from query {q_lab[i]}? "
        f"Name one key ({', '.join(k_lab)}).",
        answer=tuple(top),
        tolerance=None,
        keys=k_lab,
        explain=("weights", head, i, top[0]),
    )


def parse_number_answer(text: str) -> float:
    """The learner's number, or QuizError naming the answer field (blank, not a number, NaN, ±inf)."""
    t = str(text).strip()
    if not t:
        raise QuizError(f"{ANSWER_FIELD}: is blank; type a number such as 0.25")
    if not re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", t.replace("−", "-")):
        shown = t if len(t) <= 24 else t[:20] + "…"
        raise QuizError(f"{ANSWER_FIELD}: {shown!r} is not a number; type a number such as 0.25")
    x = float(t.replace("−", "-"))
    if not math.isfinite(x):
        raise QuizError(f"{ANSWER_FIELD}: {t!r} is not a finite number")
    return x


def parse_keys_answer(text: str, keys: tuple[str, ...]) -> tuple[int, ...]:
    """The learner's set of keys as sorted 0-based positions: labels, 1-based positions, 'none' or 'all'."""
    t = str(text).strip()
    if not t:
        raise QuizError(f"{ANSWER_FIELD}: is blank; name keys such as {', '.join(keys[:2])}, or 'none'")
    if t.lower() in NONE_WORDS:
        return ()
    if t.lower() in ALL_WORDS:
        return tuple(range(len(keys)))
    out: set[int] = set()
    lower = [k.lower() for k in keys]
    for item in (p for p in re.split(r"[,;\s]+|\band\b", t) if p):
        if item in keys:
            out.add(keys.index(item))
        elif lower.count(item.lower()) == 1:
            out.add(lower.index(item.lower()))
        elif item.isdigit() and 1 <= int(item) <= len(keys):
            out.add(int(item) - 1)
        else:
            shown = item if len(item) <= 24 else item[:20] + "…"
            raise QuizError(
                f"{ANSWER_FIELD}: {shown!r} is not a key; the keys are {', '.join(keys)} (or positions 1–{len(keys)})"
            )
    return tuple(sorted(out))


def key_names(keys: tuple[str, ...], positions: tuple[int, ...]) -> str:
    """Key positions (0-based) as the learner names them and the tables number them: ``t2 (key 2), t3 (key 3)``."""
    return ", ".join(f"{keys[p]} (key {p + 1})" for p in positions) if positions else "no key"


def _names(q: Question, positions: tuple[int, ...]) -> str:
    return key_names(q.keys, positions)


def grade(q: Question, answer_text: str) -> Grade:
    """Grade the learner's typed answer against the exact value. Unreadable answers are not counted."""
    try:
        given = parse_number_answer(answer_text) if q.kind == "number" else parse_keys_answer(answer_text, q.keys)
    except QuizError as e:
        return Grade(False, False, None, q.answer, q.tolerance, str(e))
    if isinstance(given, float):
        right = float(q.answer)  # type: ignore[arg-type]
        tol = tolerance(right)
        ok = abs(given - right) <= tol
        verdict = "Right" if ok else "Not quite"
        msg = f"{verdict}: the exact value is {right:.4f}; you said {given:g} (off by {abs(given - right):.4f}, "
        return Grade(True, ok, given, right, tol, msg + f"tolerance ±{tol:.4f}).")
    right_set = tuple(q.answer)  # type: ignore[arg-type]
    if q.kind == "mask":
        ok = given == right_set
        msg = f"query {q.row + 1} sees {_names(q, right_set)}; you said {_names(q, given)}."
    else:
        ok = bool(given) and set(given) <= set(right_set)
        top = "ties at the top: " if len(right_set) > 1 else "the most weight goes to "
        msg = f"{top}{_names(q, right_set)}; you said {_names(q, given)}."
    return Grade(True, ok, given, right_set, None, ("Right: " if ok else "Not quite: ") + msg)
