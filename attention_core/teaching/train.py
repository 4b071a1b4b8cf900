"""Watch attention learn: one head learns a toy task with torch autograd and Adam.

Tasks (T = L = S tokens, T in 4..8; D = d_model = d_k = T):
    "previous"  attend to the previous token. x_i is position i as a one-hot row (the words are labels only),
                a causal mask hides later keys; target: query i → key i−1, and query 1 → itself (it sees nothing else).
    "match"     find the token that matches this one. Cross-attention: queries A, B, C, ... in order; the keys
                carry the same tokens in another order (odd positions first); x is each token's one-hot row.
                Target: each query → the key with the same token.

The head is exactly the workbench's: :func:`attention_core.multihead.multi_head` with one concat head,
nn.Linear layout (out×in), ÷√d_k and the "-inf" fill. W_q and W_k start from the seeded nn.Linear init
(``init_weights("linear", seed, ...)``, a private generator) and are trained; W_v keeps its init (the loss
reads only the attention weights). The loss is :data:`LOSS_LATEX`.

A :class:`TrainState` is immutable: :func:`train_steps` returns a new state after at most
MAX_STEPS_PER_CALL updates and touches no global state (no global RNG, no module-level optimiser). The Adam
moments travel in the state, so 40 steps in one call equal 15 + 25 in two, bit for bit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
import torch.nn.functional as F
from torch import Tensor
from torch.optim.adam import adam

from ..ops.masks import causal_keep
from ..ops.projections import Weights, init_weights
from ..pipeline.layer import Trace, multi_head
from ..validation.errors import ScenarioError
from ..validation.fields import parse_int

TASKS = ("previous", "match")
TITLES = {"previous": "attend to the previous token", "match": "find the token that matches this one"}
MIN_T, MAX_T = 4, 8
DEFAULT_T = 6
DEFAULT_LR = 0.02
MAX_LR = 1.0
ADAM_OPTIONS = {  # torch.optim.Adam's defaults, single-tensor CPU path
    "beta1": 0.9,
    "beta2": 0.999,
    "eps": 1e-8,
    "weight_decay": 0.0,
    "amsgrad": False,
    "maximize": False,
    "foreach": False,
    "capturable": False,
    "differentiable": False,
    "fused": None,
    "grad_scale": None,
    "found_inf": None,
    "has_complex": False,
}
MAX_SEED = 2**63 - 1
MAX_STEPS_PER_CALL = 500  # one request's work is bounded
MAX_TOTAL_STEPS = 5000  # one session's history is bounded
WORDS = ("a", "cat", "sat", "on", "my", "mat", "and", "slept")
LETTERS = ("A", "B", "C", "D", "E", "F", "G", "H")
LOSS_LATEX = (
    r"\mathcal{L} = -\frac{1}{L}\sum_{i=1}^{L}\sum_{j=1}^{S} T_{ij}\,\log A_{ij}"
    r" = -\frac{1}{L}\sum_{i=1}^{L}\log A_{i,\,t(i)},\qquad"
    r" A = \operatorname{softmax}\!\left(\operatorname{mask}\!\left("
    r"\frac{(X_q W_q^{\top})(X_k W_k^{\top})^{\top}}{\sqrt{d_k}}\right)\right)"
)
LOSS_TEXT = (
    "cross-entropy between each attention row A_i and its target row T_i (1 on the target key t(i), 0 elsewhere), "
    "averaged over the L queries; 0 when every query puts all its weight on its target key"
)


class TrainError(ScenarioError):
    """A training request that cannot run; the message starts with the field (ScenarioError's form)."""


@dataclass(frozen=True)
class Task:
    """A toy task: inputs, mask and the target key of every query."""

    id: str
    title: str
    tokens: tuple[str, ...]  # (L,) query labels
    tokens_k: tuple[str, ...]  # (S,) key labels
    x_q: Tensor  # (L, D) float32
    x_k: Tensor  # (S, D) float32; also the values
    keep: Tensor | None  # (L, S) bool, True = visible; None = no mask
    target: Tensor  # (L,) long: the key each query should attend to

    @property
    def self_attention(self) -> bool:
        return self.id == "previous"

    def target_rows(self) -> Tensor:
        """(L, S) float32: the target attention pattern, one-hot rows."""
        return F.one_hot(self.target, self.x_k.shape[0]).float()


def make_task(task: str, size: int = DEFAULT_T) -> Task:
    """The task ``task`` ("previous" | "match") with ``size`` tokens (4..8)."""
    if task not in TASKS:
        raise TrainError("task", f"{task!r} is not one of {', '.join(TASKS)}")
    if isinstance(size, bool) or not isinstance(size, int) or not MIN_T <= size <= MAX_T:
        raise TrainError("size", f"{size!r} is not a whole number of tokens in {MIN_T}..{MAX_T}")
    eye = torch.eye(size)
    if task == "previous":
        target = (torch.arange(size) - 1).clamp(min=0)  # query 0 sees only itself
        words = WORDS[:size]
        return Task(task, TITLES[task], words, words, eye, eye, causal_keep(size, size), target)
    order = [*range(1, size, 2), *range(0, size, 2)]  # keys: B, D, F, A, C, E for size 6
    tokens = LETTERS[:size]
    target = torch.tensor([order.index(i) for i in range(size)])
    return Task(task, TITLES[task], tokens, tuple(tokens[i] for i in order), eye, eye[order], None, target)


@dataclass(frozen=True)
class TrainState:
    """One moment of training. Weights are (d_k, D) in nn.Linear layout (out×in), float32.

    ``losses[i]`` is the loss after i updates, so ``len(losses) == step + 1``. ``adam`` holds the
    optimiser's moments (exp_avg W_q, exp_avg W_k, exp_avg_sq W_q, exp_avg_sq W_k).
    """

    task: Task
    seed: int
    lr: float
    step: int
    W_q: Tensor
    W_k: Tensor
    W_v: Tensor
    adam: tuple[Tensor, Tensor, Tensor, Tensor]
    losses: tuple[float, ...]

    @property
    def loss(self) -> float:
        return self.losses[-1]


def trace_of(task: Task, w_q: Tensor, w_k: Tensor, w_v: Tensor) -> Trace:
    """The head on the task's inputs, through the workbench's own multi_head (differentiable)."""
    weights = Weights(w_q.unsqueeze(0), w_k.unsqueeze(0), w_v.unsqueeze(0), None, "linear")
    return multi_head(task.x_q, task.x_k, task.x_k, weights, 1, "concat", keep=task.keep, scale=True, fill="-inf")


def loss_of(task: Task, tr: Trace) -> Tensor:
    """LOSS_LATEX: cross-entropy of the masked scaled scores (1, L, S) against the target keys (L,)."""
    return F.cross_entropy(tr.masked[0], task.target)


def start(task: str = "previous", seed: int = 0, lr: float = DEFAULT_LR, size: int = DEFAULT_T) -> TrainState:
    """Step 0: the seeded nn.Linear init (W_q, W_k, W_v drawn in that order from ``seed``)."""
    t = make_task(task, size)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise TrainError("seed", f"{seed!r} is not a whole number in 0..{MAX_SEED}")
    if isinstance(lr, bool) or not isinstance(lr, (int, float)) or not 0 < lr <= MAX_LR:
        raise TrainError("lr", f"{lr!r} is not a learning rate in (0, {MAX_LR:g}]")
    d = t.x_q.shape[1]
    w = init_weights("linear", seed, d, d, 1, "concat", "linear")
    zeros = torch.zeros(d, d)
    with torch.no_grad():
        first = float(loss_of(t, trace_of(t, w.W_q[0], w.W_k[0], w.W_v[0])))
    return TrainState(t, seed, float(lr), 0, w.W_q[0], w.W_k[0], w.W_v[0], (zeros,) * 4, (first,))


def adam_update(params: list[Tensor], grads: list[Tensor], moments: list[Tensor], step: int, lr: float) -> None:
    """One Adam update in place (torch's own ``torch.optim.adam.adam``, the function ``Adam.step`` runs).

    ``moments``: exp_avg of each param, then exp_avg_sq of each (updated in place); ``step``: updates so far.
    Called functionally, so no optimiser object (and no torch._dynamo import) is needed.
    """
    n = len(params)
    steps = [torch.tensor(float(step)) for _ in range(n)]
    with torch.no_grad():
        adam(params, grads, moments[:n], moments[n:], [], steps, lr=lr, **ADAM_OPTIONS)


def train_steps(state: TrainState, n: int) -> TrainState:
    """``n`` Adam updates (0..MAX_STEPS_PER_CALL) from ``state``; returns a new state, ``state`` is untouched."""
    if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= MAX_STEPS_PER_CALL:
        raise TrainError("n", f"{n!r} is not a number of steps in 0..{MAX_STEPS_PER_CALL}")
    if state.step + n > MAX_TOTAL_STEPS:
        raise TrainError("n", f"{n} more steps would pass {MAX_TOTAL_STEPS} in all; reset to train again")
    if n == 0:
        return state
    w_q, w_k = state.W_q.clone().requires_grad_(True), state.W_k.clone().requires_grad_(True)
    moments = [m.clone() for m in state.adam]  # the input state's tensors are never written
    losses = list(state.losses)
    for k in range(n):
        loss = loss_of(state.task, trace_of(state.task, w_q, w_k, state.W_v))
        if k:
            losses.append(float(loss.detach()))  # the loss after k updates of this call
        g_q, g_k = torch.autograd.grad(loss, [w_q, w_k])
        adam_update([w_q, w_k], [g_q, g_k], moments, state.step + k, state.lr)
    with torch.no_grad():
        losses.append(float(loss_of(state.task, trace_of(state.task, w_q, w_k, state.W_v))))
    adam_moments = (moments[0], moments[1], moments[2], moments[3])
    return TrainState(
        state.task,
        state.seed,
        state.lr,
        state.step + n,
        w_q.detach(),
        w_k.detach(),
        state.W_v,
        adam_moments,
        tuple(losses),
    )


def weights_matrix(state: TrainState) -> Tensor:
    """(L, S) the head's attention weights now, as the workbench shows them."""
    with torch.no_grad():
        return trace_of(state.task, state.W_q, state.W_k, state.W_v).weights[0]


def matches(state: TrainState) -> Tensor:
    """(L,) bool: does each query's largest weight sit on its target key?"""
    return weights_matrix(state).argmax(dim=-1) == state.task.target


def handoff(state: TrainState) -> dict[str, Any]:
    """The trained head as an explicit-weights scenario: ``compute`` reproduces :func:`weights_matrix`."""
    t = state.task
    sc: dict[str, Any] = {"title": f"Trained head: {t.title} (seed {state.seed}, step {state.step})"}
    if t.self_attention:
        sc.update(x=t.x_q.tolist(), tokens=list(t.tokens))
    else:
        sc.update(x_q=t.x_q.tolist(), x_k=t.x_k.tolist(), x_v=t.x_k.tolist())
        sc.update(tokens=list(t.tokens), tokens_k=list(t.tokens_k))
    sc.update(heads=1, head_mode="concat", layout="linear", d_out=int(state.W_q.shape[0]))
    sc["weights"] = {"W_q": [state.W_q.tolist()], "W_k": [state.W_k.tolist()], "W_v": [state.W_v.tolist()]}
    sc["weights"]["W_o"] = None
    sc["mask"] = {"kind": "causal", "fill": "-inf"} if t.keep is not None else {"kind": "none", "fill": "-inf"}
    sc.update(scale=True, dtype="float32", normalize="softmax")
    return sc


def choose(task: Any, seed: Any) -> tuple[str, int]:
    """The task and seed boxes, checked; errors name the field."""
    if task not in TASKS:
        raise TrainError("task", f"{str(task)[:30]!r} is not one of {', '.join(TASKS)}")
    return task, parse_int(seed if seed not in (None, "") else 0, "train seed", 0, MAX_SEED)
