"""Pin and compare: what one change did to every step, cell by cell.

``diff(pinned, current)`` subtracts two :class:`Snapshot`s (a parsed Scenario and its trace) step by step:
current − pinned, in float64. Shapes (H heads, L queries, S keys, D = d_model, d per-head width):

    x (self-attention) or x_q, x_k, x_v     (L|S, D)
    W_q, W_k, W_v                            (H or 1, d, D)   always out×in, whatever either layout
    W_o                                      (D, H·d)         out×in; only when both states have one
    q, k, v, scores, scaled, masked,         (H, L|S, ·)      one slice per head
    weights, output
    concat (L, H·d) and combined (L, D)      the heads side by side, and after W_o

Each step's :class:`StepDiff` carries ``delta`` and a per-cell ``status``:
    SAME       within ATOL + RTOL·max(|a|, |b|), the same non-finite value (-inf → -inf is unchanged), or
               (the masked step) a cell hidden in both states, whatever the fill wrote there (-inf → -1e9)
    MOVED      a finite change; ``delta`` is the difference
    MASKED     the cell became masked (the key became hidden from that query, or finite → -inf)
    UNMASKED   the reverse
    UNDEFINED  any other change to or from a non-finite value
``delta`` is exactly current − pinned where both are finite and the cell is not a mask transition, 0 for the
same non-finite value and for a cell still masked, and NaN for MASKED / UNMASKED / UNDEFINED (no number
describes "became masked").

Mask, fill, scale, dtype, normalisation and layout may differ; a change of shape (T, S, d_model, heads,
head mode, per-head width, output width) raises :class:`CompareError` naming what changed.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from ..contract.scenario import Scenario, evaluate
from ..ops.projections import Weights
from ..ops.trace import Trace
from .quiz import labels

ATOL = 1e-6
RTOL = 1e-5  # float32 round-off (a layout flip, float32 → float64) stays SAME
SAME, MOVED, MASKED, UNMASKED, UNDEFINED = 0, 1, 2, 3, 4
HEAD_STEPS = ("q", "k", "v", "scores", "scaled", "masked", "weights", "output")
WEIGHT_STEPS = ("W_q", "W_k", "W_v", "W_o")


class CompareError(ValueError):
    """Two states that cannot be compared cell by cell; ``field`` names what changed shape."""

    def __init__(self, field: str, before: object, after: object) -> None:
        self.field = field
        super().__init__(f"cannot compare cell by cell: {field} changed {before} → {after}")


@dataclass(frozen=True)
class Snapshot:
    """One state: the parsed scenario and its trace (pin one, then compare the live one to it)."""

    scenario: Scenario
    trace: Trace


def snapshot(s: Scenario, tr: Trace | None = None) -> Snapshot:
    """Pin ``s`` (evaluating it when no trace is given)."""
    return Snapshot(s, evaluate(s) if tr is None else tr)


@dataclass(frozen=True)
class StepDiff:
    """One step's change. ``delta`` float64 and ``status`` int8 have the step's shape."""

    name: str
    delta: Tensor
    status: Tensor

    @property
    def moved(self) -> int:
        """Cells whose status is not SAME."""
        return int((self.status != SAME).sum())

    @property
    def cells(self) -> int:
        return self.status.numel()

    def largest(self) -> tuple[float, tuple[int, ...]] | None:
        """(signed delta, index) of the largest finite move, or None when no cell moved by a number."""
        d = torch.where(self.status == MOVED, self.delta.abs(), torch.full_like(self.delta, -1.0))
        if not self.delta.numel() or float(d.max()) < 0:
            return None
        flat = int(d.flatten().argmax())
        idx = tuple(int(i) for i in torch.unravel_index(torch.tensor(flat), d.shape))
        return float(self.delta[idx]), idx


@dataclass(frozen=True)
class Comparison:
    """Every step's change, the settings that changed in words, and a one-line summary."""

    steps: dict[str, StepDiff]
    changes: tuple[str, ...]  # settings and inputs that changed, e.g. "x[t2,d1] +0.50", "fill -inf → -1e9"
    summary: str

    def head(self, h: int) -> dict[str, StepDiff]:
        """The per-head steps of head ``h`` as (L|S, ·) diffs, as the tables of one head show them."""
        return {n: StepDiff(n, self.steps[n].delta[h], self.steps[n].status[h]) for n in HEAD_STEPS}


def cell_diff(
    name: str, before: Tensor, after: Tensor, hidden_before: Tensor | None = None, hidden_after: Tensor | None = None
) -> StepDiff:
    """Compare two same-shape tensors cell by cell. ``hidden_*``: bool, True where the mask hides the cell."""
    a, b = before.double(), after.double()
    fa, fb = torch.isfinite(a), torch.isfinite(b)
    both = fa & fb
    same_nonfinite = ~fa & ~fb & ((a == b) | (a.isnan() & b.isnan()))
    close = both & ((b - a).abs() <= ATOL + RTOL * torch.maximum(a.abs(), b.abs()))
    masked = fa & b.isneginf()
    unmasked = a.isneginf() & fb
    if hidden_before is not None and hidden_after is not None:
        masked |= ~hidden_before & hidden_after
        unmasked |= hidden_before & ~hidden_after
        still = hidden_before & hidden_after  # still masked, whatever the fill wrote there (-inf → -1e9)
        same_nonfinite = same_nonfinite | still
        masked, unmasked = masked & ~still, unmasked & ~still
    status = torch.full(a.shape, UNDEFINED, dtype=torch.int8)
    status[both] = MOVED
    status[close | same_nonfinite] = SAME
    status[unmasked] = UNMASKED
    status[masked] = MASKED
    delta = torch.where(both, b - a, torch.full_like(a, float("nan")))
    delta = delta.masked_fill(same_nonfinite, 0.0).masked_fill(masked | unmasked, float("nan"))
    return StepDiff(name, delta, status)


def out_by_in(w: Weights) -> dict[str, Tensor]:
    """The projections as out×in (linear layout), whatever layout they are stored in."""
    t = (lambda m: m) if w.layout == "linear" else (lambda m: m.transpose(-2, -1))
    mats = {n: t(getattr(w, n)) for n in ("W_q", "W_k", "W_v")}
    return mats if w.W_o is None else mats | {"W_o": t(w.W_o)}


def _shape_facts(snap: Snapshot) -> list[tuple[str, object]]:
    s, tr = snap.scenario, snap.trace
    return [
        ("L", s.x_q.shape[0]),
        ("S", s.x_k.shape[0]),
        ("d_model", s.x_q.shape[1]),
        ("heads", tr.heads),
        ("kv_heads", tr.heads if tr.variants is None else int(tr.k_kv.shape[-3])),  # W_k, W_v's heads
        ("head_mode", tr.mode),
        ("d_k", tr.q.shape[-1]),
        ("d_v", tr.v.shape[-1]),
        ("output width", tr.output.shape[-1]),
    ]


def check_shapes(pinned: Snapshot, current: Snapshot) -> None:
    """Raise CompareError naming the first size that differs: T (L, S in cross-attention), d_model, heads, ..."""
    self_both = pinned.scenario.self_attention and current.scenario.self_attention
    for (field, b), (_, a) in zip(_shape_facts(pinned), _shape_facts(current), strict=True):
        if b != a:
            raise CompareError("T" if self_both and field in ("L", "S") else field, b, a)


def _tensors(snap: Snapshot) -> dict[str, Tensor]:
    s, tr = snap.scenario, snap.trace
    xs = {"x": s.x_q} if s.self_attention else {"x_q": s.x_q, "x_k": s.x_k, "x_v": s.x_v}
    heads = {n: tr.per_head()[n] for n in HEAD_STEPS}
    return xs | out_by_in(tr.params) | heads | {"concat": tr.concat, "combined": tr.output}


def _hidden(snap: Snapshot) -> Tensor:
    s, keep = snap.scenario, snap.trace.keep  # the mask as applied (with a sliding window, ∧ the window)
    if keep is None:
        return torch.zeros(s.x_q.shape[0], s.x_k.shape[0], dtype=torch.bool)
    return ~keep


def diff(pinned: Snapshot, current: Snapshot) -> Comparison:
    """current − pinned for every step both states have. Raises CompareError on a change of shape."""
    check_shapes(pinned, current)
    before, after = _tensors(pinned), _tensors(current)
    if pinned.scenario.self_attention != current.scenario.self_attention:  # compare x_q, x_k, x_v
        for t, s in ((before, pinned.scenario), (after, current.scenario)):
            t.pop("x", None)
            t.update(x_q=s.x_q, x_k=s.x_k, x_v=s.x_v)
    hidden = (_hidden(pinned), _hidden(current))
    steps = {}
    for name in (n for n in after if n in before):
        extra = hidden if name == "masked" else (None, None)
        steps[name] = cell_diff(name, before[name], after[name], *extra)
    changes = (*_setting_changes(pinned.scenario, current.scenario), *_input_changes(steps, current))
    return Comparison(steps, changes, _summary(steps, changes, current))


def _scale_words(scale: bool | float) -> str:
    if scale is True:
        return "÷√d_k"
    return "off" if scale is False else f"÷{float(scale):g}"


def _setting_changes(p: Scenario, c: Scenario) -> list[str]:
    out = []
    if p.self_attention != c.self_attention:
        words = {True: "self-attention", False: "cross-attention"}
        out.append(f"{words[p.self_attention]} → {words[c.self_attention]}")
    if p.mask_kind != c.mask_kind:
        out.append(f"mask {p.mask_kind} → {c.mask_kind}")
    elif p.keep is not None and c.keep is not None and not torch.equal(p.keep, c.keep):
        out.append(f"mask: {int((~p.keep).sum())} → {int((~c.keep).sum())} hidden cells")
    pairs = [
        ("fill", p.fill, c.fill),
        ("scale", _scale_words(p.scale), _scale_words(c.scale)),
        ("dtype", p.dtype, c.dtype),
        ("normalize", p.normalize, c.normalize),
        ("layout", p.weights.layout, c.weights.layout),
    ]
    out += [f"{name} {b} → {a}" for name, b, a in pairs if b != a]
    if (p.weights.W_o is None) != (c.weights.W_o is None):
        out.append("W_o added" if p.weights.W_o is None else "W_o removed")
    return out


def _signed(v: float) -> str:
    return f"{v:+.2f}" if abs(v) >= 0.005 else f"{v:+.1e}"


def _cell_name(name: str, idx: tuple[int, ...], snap: Snapshot) -> str:
    """A changed input cell as the tables name it: x[t2,d1], W_q[2,1] in the current layout, per head."""
    s = snap.scenario
    if name.startswith("x"):
        rows = labels(s.tokens if name in ("x", "x_q") else s.tokens_k)
        return f"{name}[{rows[idx[0]]},d{idx[1] + 1}]"
    r, c = idx[-2:]
    if s.weights.layout == "matmul":
        r, c = c, r
    tag = f" head {idx[0] + 1}" if name != "W_o" and snap.trace.mode == "concat" and snap.trace.heads > 1 else ""
    return f"{name}{tag}[{r + 1},{c + 1}]"


def _input_changes(steps: dict[str, StepDiff], current: Snapshot) -> list[str]:
    out = []
    for name in ("x", "x_q", "x_k", "x_v", *WEIGHT_STEPS):
        step = steps.get(name)
        if step is None or not step.moved:
            continue
        top = step.largest()
        if top is None:
            out.append(f"{name}: {step.moved} cells changed")
        elif step.moved == 1:
            out.append(f"{_cell_name(name, top[1], current)} {_signed(top[0])}")
        else:
            where = _cell_name(name, top[1], current)
            out.append(f"{name}: {step.moved} cells changed (largest {_signed(top[0])} at {where})")
    return out


def _rows_moved(step: StepDiff) -> tuple[int, int]:
    """(moved, total) rows of a (..., T, ·) step; a row moved when any of its cells did."""
    rows = (step.status != SAME).any(dim=-1)
    return int(rows.sum()), rows.numel()


def _summary(steps: dict[str, StepDiff], changes: tuple[str, ...], current: Snapshot) -> str:
    """'x[t2,d1] +0.50 → 1 of 3 q rows, ..., 3 of 9 weights moved; largest weight change +0.21 at t2→t3'."""
    cause = "; ".join(changes) if changes else "no input or setting changed"
    parts = []
    for name in ("q", "k", "v"):
        moved, total = _rows_moved(steps[name])
        if moved:
            parts.append(f"{moved} of {total} {name} rows")
    parts += [f"{steps[n].moved} of {steps[n].cells} {n}" for n in ("scores", "weights")]
    moved, total = _rows_moved(steps["combined"])
    parts.append(f"{moved} of {total} output rows")
    if not any(steps[n].moved for n in steps):
        return f"{cause} → nothing moved"
    line = f"{cause} → {', '.join(parts)} moved"
    newly = int((steps["masked"].status == MASKED).sum())
    if newly:
        line += f"; {newly} score cells became masked"
    top = steps["weights"].largest()
    if top is not None:
        (h, i, j), s = top[1], current.scenario
        tag = f" (head {h + 1})" if current.trace.heads > 1 else ""
        line += f"; largest weight change {_signed(top[0])} at {labels(s.tokens)[i]}→{labels(s.tokens_k)[j]}{tag}"
    return line
