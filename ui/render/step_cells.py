"""The notebook's step cells: each step's numbered title, heading (formula and plain words, following
scale, normalise and the mask), the cell's frame (code, torch's print, tables) and the multi-head note.
"""

from __future__ import annotations

import html

import attention_core as ac

# each step's heading (title, formula as HTML, one plain sentence) for the current settings: :func:`step_heading`
STEP_WORDS = {
    "qkv": "Each token's encoding is multiplied by three weight matrices, giving its query (what it looks for), key "
    "(what it offers) and value (what it passes on).",
    "qkv-cross": "Each query token's encoding (x_q) is multiplied by W_q, giving its query (what it looks for); each "
    "source token's x_k and x_v by W_k and W_v, giving its key (what it offers) and value (what it passes on).",
    "scores": "Entry (i, j) is the dot product of query i with key j: how well token i's question matches token j.",
    "√d_k": "Dividing by √d_k keeps the scores' spread near 1 as d_k grows, so softmax does not saturate (seed 004's "
    "variance cell).",
    "off": "Scaling is off: the scores go on unchanged, and as d_k grows so does their spread, until softmax "
    "saturates (seed 004's variance cell). Switch the scale back on to compare.",
    "temperature": "A temperature τ divides every score: above 1 it flattens the weights, below 1 it sharpens them.",
    "softmax": "Each row becomes positive weights that sum to 1: how much token i attends to each token j.",
    "sum": "Each row is divided by its own sum (003's naive normalisation): the row sums to 1, but a negative score "
    "stays a negative weight, and a row whose sum is near 0 blows up. Choose softmax to compare.",
}


MASK_HOW = {
    "causal": "causal (look-ahead): query i sees keys 1..i; every later key is hidden",
    "padding": "padding: the padded keys ({pad}) are hidden from every query",
    "causal+padding": "causal and padding: a key is hidden when it comes after the query or is padded ({pad})",
    "custom": "custom: the pairs unticked in the mask grid are hidden",
}


WHERE = "S″<sub>ij</sub> = S′<sub>ij</sub> where allowed, {fill} where hidden"


FILL_HOW = {
    "-inf": (WHERE.format(fill="−∞"), "hidden pairs get −∞ (000's masked_fill)"),
    "-1e9": (WHERE.format(fill="−10<sup>9</sup>"), "hidden pairs get −1e9 (002)"),
    "additive": ("S″ = S′ + M, &nbsp;M<sub>ij</sub> ∈ {0, −∞}", "M (004) adds 0 where allowed and −∞ where hidden"),
}


FILL_EFFECT = {"softmax": "so softmax gives them weight 0", "sum": "and divide-by-sum takes only the visible scores"}


def step_heading(step: str, s: ac.Scenario, divisor: float | None) -> str:
    """The notebook step's heading for these settings: title, formula and sentence follow scale, normalise and
    mask (``divisor``: the trace's, None when scaling is off)."""
    title, formula, words = {
        "qkv": lambda: _qkv_heading(s),
        "scores": lambda: (TITLES["scores"], "S = Q·K<sup>T</sup>, &nbsp;S<sub>ij</sub> = q<sub>i</sub> · "
                           "k<sub>j</sub>", STEP_WORDS["scores"]),
        "scaled": lambda: _scaled_heading(s, divisor),
        "masked": lambda: _masked_heading(s),
        "weights": lambda: _weights_heading(s),
        "output": lambda: _output_heading(s),
        "combine": lambda: _combine_heading(s),
    }[step]()  # fmt: skip
    return (
        f"<div class='nb-head'><h3>{html.escape(title)}</h3><div class='nb-formula'>{formula}</div>"
        f"<p class='nb-words'>{html.escape(words)}</p></div>"
    )


def _qkv_heading(s: ac.Scenario) -> tuple[str, str, str]:
    if s.self_attention:
        formula = "Q = X·W<sub>q</sub>, &nbsp;K = X·W<sub>k</sub>, &nbsp;V = X·W<sub>v</sub>"
        return TITLES["qkv"], formula, STEP_WORDS["qkv"]
    formula = ", &nbsp;".join(f"{n} = x<sub>{r}</sub>·W<sub>{r}</sub>" for n, r in (("Q", "q"), ("K", "k"), ("V", "v")))
    return TITLES["qkv"], formula, STEP_WORDS["qkv-cross"]


def _scaled_heading(s: ac.Scenario, divisor: float | None) -> tuple[str, str, str]:
    same = (" With ÷ row sum instead of softmax, dividing every score by the same number leaves the weights as "
            "they are.") if s.normalize == "sum" else ""  # fmt: skip
    if divisor is None:
        return f"{TITLES['scaled']}: off", "S′ = S &nbsp;(no scaling)", STEP_WORDS["off"]
    if s.scale is True:
        d_k = round(divisor**2)
        formula = f"S′ = S ÷ √d<sub>k</sub> = S ÷ √{d_k} = S ÷ {divisor:.4g}"
        return f"{TITLES['scaled']}: ÷ √d_k", formula, STEP_WORDS["√d_k"] + same
    return f"{TITLES['scaled']}: ÷ temperature", f"S′ = S ÷ τ = S ÷ {divisor:g}", STEP_WORDS["temperature"] + same


def _masked_heading(s: ac.Scenario) -> tuple[str, str, str]:
    if s.keep is None:
        words = "No mask: every query may look at every key, so nothing changes here."
        return "4 · masked: no mask", "S″ = S′ &nbsp;(no mask)", words
    padded = [t for t, p in zip(s.tokens_k, s.padding or (), strict=False) if p]
    how = MASK_HOW[s.mask_kind].format(pad=", ".join(padded) or "none yet")
    formula, fill = FILL_HOW[s.fill]
    return f"{TITLES['masked']}: {s.mask_kind}", formula, f"The mask is {how}; {fill}, {FILL_EFFECT[s.normalize]}."


def _weights_heading(s: ac.Scenario) -> tuple[str, str, str]:
    if s.normalize == "sum":
        formula = "A<sub>ij</sub> = S″<sub>ij</sub> ÷ Σ<sub>j</sub> S″<sub>ij</sub> &nbsp;row by row"
        return f"{NUMBERS['weights']} · weights: ÷ row sum", formula, STEP_WORDS["sum"]
    formula = ("A = softmax(S″) row by row, &nbsp;A<sub>ij</sub> = e<sup>S″<sub>ij</sub></sup> ÷ "
               "Σ<sub>j</sub> e<sup>S″<sub>ij</sub></sup>")  # fmt: skip
    return f"{NUMBERS['weights']} · softmax weights", formula, STEP_WORDS["softmax"]


def _output_heading(s: ac.Scenario) -> tuple[str, str, str]:
    formula = "O = A·V, &nbsp;o<sub>i</sub> = Σ<sub>j</sub> A<sub>ij</sub> v<sub>j</sub>"
    if s.normalize == "sum":
        words = ("Each output row is a weighted sum of the value rows, using that row's weights (they sum to 1 but "
                 "may be negative, so it is not an average).")  # fmt: skip
    else:
        words = "Each output row is the weighted average of the value rows, using that row's attention weights."
    return TITLES["output"], formula, words


def _combine_heading(s: ac.Scenario) -> tuple[str, str, str]:
    w_o = s.weights.W_o is not None
    if s.head_mode == "split":
        formula = "(H, L, D/H) → transpose, reshape → (L, D)" + (" → ·W<sub>O</sub>" if w_o else "")
    else:
        formula = "MultiHead = Concat(O<sub>1</sub>, …, O<sub>h</sub>)" + (" · W<sub>O</sub>" if w_o else "")
    if s.heads == 1:
        words = "One head: its output is the result" + (", mixed by W_O." if w_o else ". Set heads to 2 to compare.")
    else:
        words = f"The {s.heads} heads' outputs sit side by side" + (
            "; W_O mixes them back to d_model." if w_o else " (W_O is off, in More settings)."
        )
    return TITLES["combine"], formula, words


TITLES = {step.key: step.heading for step in ac.NOTEBOOK_STEPS}  # "1 · Q, K, V" … "7 · heads combined", as exported
NUMBERS = {step.key: step.number for step in ac.NOTEBOOK_STEPS}


def step_html(code: str, printed: str, note: str, tables: str = "", heading: str = "") -> str:
    """One notebook cell: its heading (:func:`step_heading`), the code that computes the step, torch's print of
    the live tensor, exact tables."""
    return (
        f"{heading}<div class='step'><pre class='code'>{html.escape(code)}</pre>"
        f"<pre class='tensor'>{html.escape(printed)}</pre><small>{html.escape(note)}</small>"
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
