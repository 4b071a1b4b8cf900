"""The notebook's step cells: each step's numbered title, heading (formula and plain words, following
scale, normalise and the mask), the cell's frame (code, torch's print, tables) and the multi-head note.
"""

from __future__ import annotations

import html
import re

import attention_core as ac
from ui.render import slots

STEP = {step.key: step for step in ac.NOTEBOOK_STEPS}  # the list's steps: title, formula, sentence (contract/steps.py)


# the heading's words where the settings differ from the list's (√d_k, -inf, softmax): :func:`step_heading`
OTHER_WORDS = {
    "qkv-cross": "Each query token's encoding (x_q) is multiplied by W_q, giving its query (what it looks for); each "
    "source token's x_k and x_v by W_k and W_v, giving its key (what it offers) and value (what it passes on).",
    "off": "Scaling is off: the scores go on unchanged, and as d_k grows so does their spread, until softmax "
    "saturates (seed 004's variance cell). Switch the scale back on to compare.",
    "temperature": "A temperature τ divides every score: above 1 it flattens the weights, below 1 it sharpens them.",
    "sum": "Each row is divided by its own sum (003's naive normalisation): the row sums to 1, but a negative score "
    "stays a negative weight, and a row whose sum is near 0 blows up. Choose softmax to compare.",
}


MASK_HOW = {
    "causal": "causal (look-ahead): query i sees keys 1..i; every later key is hidden",
    "padding": "padding: the padded keys ({pad}) are hidden from every query",
    "causal+padding": "causal and padding: a key is hidden when it comes after the query or is padded ({pad})",
    "custom": "custom: the pairs unticked in the mask grid are hidden",
}


# the masked step's formula for each fill (the list's is -inf's) and how the fill hides a pair
FILL_HOW = {
    "-inf": (STEP["masked"].formula, "hidden pairs get −∞ (000's masked_fill)"),
    "-1e9": ("masked = scaled where allowed, −10⁹ where hidden", "hidden pairs get −1e9 (002)"),
    "additive": ("masked = scaled + M,  M_ij ∈ {0, −∞}", "M (004) adds 0 where allowed and −∞ where hidden"),
}


FILL_EFFECT = {"softmax": "so softmax gives them weight 0", "sum": "and divide-by-sum takes only the visible scores"}


JOINED = "combined = concat(head_1, …, head_h)"  # the heads combined without W_o (present mode too)


def formula_html(formula: str) -> str:
    """A formula of the list (plain text) as HTML: ``_x`` a subscript, two spaces a wider gap."""
    text = re.sub(r"_(\w+|\{[^}]*\})", lambda m: f"<sub>{m.group(1).strip('{}')}</sub>", html.escape(formula))
    return text.replace("  ", " &nbsp;")


def step_heading(step: str, s: ac.Scenario, divisor: float | None) -> str:
    """The notebook step's heading for these settings: the list's title, formula and sentence, followed by what the
    settings change (scale, normalise, the mask; ``divisor``: the trace's, None when scaling is off)."""
    title, formula, words = {
        "qkv": lambda: _qkv_heading(s),
        "scaled": lambda: _scaled_heading(s, divisor),
        "masked": lambda: _masked_heading(s),
        "weights": lambda: _weights_heading(s),
        "output": lambda: _output_heading(s),
        "combine": lambda: _combine_heading(s),
    }.get(step, lambda: (TITLES[step], STEP[step].formula, STEP[step].sentence))()
    return (
        f"<div class='nb-head'><h3>{html.escape(title)}</h3><div class='nb-formula'>{formula_html(formula)}</div>"
        f"<p class='nb-words'>{html.escape(words)}</p></div>"
    )


def _qkv_heading(s: ac.Scenario) -> tuple[str, str, str]:
    if s.self_attention:
        return TITLES["qkv"], STEP["qkv"].formula, STEP["qkv"].sentence
    formula = ",  ".join(f"{n} = x_{r}·W_{r}" for n, r in (("Q", "q"), ("K", "k"), ("V", "v")))
    return TITLES["qkv"], formula, OTHER_WORDS["qkv-cross"]


def _scaled_heading(s: ac.Scenario, divisor: float | None) -> tuple[str, str, str]:
    same = (" With ÷ row sum instead of softmax, dividing every score by the same number leaves the weights as "
            "they are.") if s.normalize == "sum" else ""  # fmt: skip
    if divisor is None:
        return f"{TITLES['scaled']}: off", "scaled = scores  (no scaling)", OTHER_WORDS["off"]
    if s.scale is True:
        d_k = round(divisor**2)
        formula = f"{STEP['scaled'].formula} = scores ÷ √{d_k} = scores ÷ {divisor:.4g}"
        return f"{TITLES['scaled']}: ÷ √d_k", formula, STEP["scaled"].sentence + same
    return (
        f"{TITLES['scaled']}: ÷ temperature",
        f"scaled = scores ÷ τ = scores ÷ {divisor:g}",
        OTHER_WORDS["temperature"] + same,
    )


def _masked_heading(s: ac.Scenario) -> tuple[str, str, str]:
    if s.keep is None:
        return f"{TITLES['masked']}: no mask", "masked = scaled  (no mask)", STEP["masked"].sentence
    padded = [t for t, p in zip(s.tokens_k, s.padding or (), strict=False) if p]
    how = MASK_HOW[s.mask_kind].format(pad=", ".join(padded) or "none yet")
    formula, fill = FILL_HOW[s.fill]
    words = f"{STEP['masked'].sentence} Here the mask is {how}; {fill}, {FILL_EFFECT[s.normalize]}."
    return f"{TITLES['masked']}: {s.mask_kind}", formula, words


def _weights_heading(s: ac.Scenario) -> tuple[str, str, str]:
    if s.normalize == "sum":
        return f"{TITLES['weights']}: ÷ row sum", "weights = masked ÷ Σ_j masked_ij, row by row", OTHER_WORDS["sum"]
    return f"{TITLES['weights']}: softmax", STEP["weights"].formula, STEP["weights"].sentence


def _output_heading(s: ac.Scenario) -> tuple[str, str, str]:
    if s.normalize == "sum":
        words = ("Each output row is a weighted sum of the value rows, using that row's weights (they sum to 1 but "
                 "may be negative, so it is not an average).")  # fmt: skip
    else:
        words = STEP["output"].sentence
    return TITLES["output"], STEP["output"].formula, words


def _combine_heading(s: ac.Scenario) -> tuple[str, str, str]:
    w_o = s.weights.W_o is not None
    if s.head_mode == "split":
        formula = "combined = (H, L, D/H) → transpose, reshape → (L, D)" + (" → ·W_o" if w_o else "")
    else:
        formula = STEP["combine"].formula if w_o else JOINED
    if s.heads == 1:
        here = "Here: one head, so its output is the result" + (", mixed by W_o." if w_o else "; set heads to 2 to "
                                                                 "compare.")  # fmt: skip
    else:
        here = f"Here: {s.heads} heads" + (", W_o mixing them back to d_model." if w_o else ", and W_o is off (in "
                                           "More settings).")  # fmt: skip
    return TITLES["combine"], formula, f"{STEP['combine'].sentence} {here}"


TITLES = {step.key: step.heading for step in ac.NOTEBOOK_STEPS}  # "1 · Q, K, V" … "7 · heads combined", as exported


def step_html(code: str, printed: str, note: str, tables: str = "", heading: str = "") -> str:
    """One notebook cell: its heading (:func:`step_heading`), the code that computes the step, torch's print of
    the live tensor, exact tables."""
    return (
        f"{heading}<div class='step'><pre class='code'>{html.escape(code)}</pre>"
        f"{slots.pre(printed)}<small>{html.escape(note)}</small>"
        f"<div class='tables'>{tables}</div></div>"
    )


def combine_note(heads: int, mode: str, head_out: tuple[int, ...], w_o: tuple[int, ...] | None, layout: str) -> str:
    """The combination step with its shapes: concat, or split heads merged back, then W_o if there is one."""
    _, length, d = head_out  # (H, L, d)
    if mode == "concat":
        text = f"{heads} head(s) × (L, d) = ({length}, {d}) each → torch.cat(dim=-1) → "
        text += f"(L, H·d) = ({length}, {heads * d})"
    else:
        text = (f"split heads (H, L, D/H) = ({heads}, {length}, {d}) → transpose(1, 2) → (L, H, D/H) → "
                f"reshape → (L, D) = ({length}, {heads * d})")  # fmt: skip
    if w_o is not None:
        out = w_o[0] if layout == "linear" else w_o[1]
        text += f" → @ W_o{'.T' if layout == 'linear' else ''} (W_o stored {w_o[0]}×{w_o[1]}) → ({length}, {out})"
    return text
