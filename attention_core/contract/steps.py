"""The notebook's steps, listed once: key, number, title, what each does in one plain phrase, its formula, a plain
sentence, its torch line, the tables it shows and the pipeline's numbered steps it covers (pipeline/layer.py).

Every reader takes its words from :data:`STEPS` and writes none of its own for a step at these settings:

- the notebook view's headings (ui/render/step_cells.py: title, formula, sentence);
- the exported .py and .ipynb (export/notebook.py: the cells' headings, the formula and sentence in the notebook's
  markdown, each step's torch line);
- explain (teaching/explain.py: the tables it explains, and the step's heading and formula over each explanation);
- present mode (ui/present.py's stages: title, formula, sentence).

A formula is plain text: ``_x`` is a subscript (``W_q``, ``√d_k``), which the page draws as one
(ui/render/step_cells.formula_html). ``code`` is the export's line(s) at the list's settings (nn.Linear layout,
heads concatenated, no bias, ÷ √d_k, the ``-inf`` fill, softmax); the export writes its own line only for other
settings (another layout, a bias, a temperature, another fill, divide-by-sum), as the notebook view does its heading.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Step:
    """One step of the notebook: its cells in the page, in the exports, in explain and in present mode."""

    key: str  # the page's and the exports' name for it
    number: int  # from 1, as the notebook view and the exported script number them
    title: str
    does: str  # one plain phrase
    formula: str  # plain text, "_x" a subscript: "scores = Q·Kᵀ"
    sentence: str  # one plain sentence, what the step means
    code: str  # the exported script's torch line(s) for the step, at the list's settings
    tables: tuple[str, ...]  # the per-head result keys it shows ("combine": the combined output), cell by cell
    layer: tuple[int, ...]  # the pipeline's numbered steps it covers

    @property
    def heading(self) -> str:
        return f"{self.number} · {self.title}"


STEPS: tuple[Step, ...] = (
    Step(
        "qkv", 1, "Q, K, V", "project the encodings",
        "Q = X·W_q,  K = X·W_k,  V = X·W_v",
        "Each token's encoding is multiplied by three weight matrices, giving its query (what it looks for), key "
        "(what it offers) and value (what it passes on).",
        "q = x_q.unsqueeze(-3) @ W_q.transpose(-2, -1)  # (1, L, D) x (H, D, d) -> (H, L, d)\n"
        "k = x_k.unsqueeze(-3) @ W_k.transpose(-2, -1)  # -> (H, S, d)\n"
        "v = x_v.unsqueeze(-3) @ W_v.transpose(-2, -1)  # -> (H, S, d)",
        ("q", "k", "v"), (1, 2, 3, 4),
    ),
    Step(
        "scores", 2, "QKᵀ (raw scores)", "every query dotted with every key",
        "scores = Q·Kᵀ",
        "Entry (i, j) is the dot product of query i with key j: how well token i's question matches token j.",
        "scores = q @ k.transpose(-2, -1)  # (H, L, d) x (H, d, S) -> (H, L, S)",
        ("scores",), (5,),
    ),
    Step(
        "scaled", 3, "scaled", "the scores divided by √d_k (or the temperature), plus any bias",
        "scaled = scores ÷ √d_k",
        "Dividing by √d_k keeps the scores' spread near 1 as d_k grows, so softmax does not saturate (seed 004's "
        "variance cell).",
        "scaled = scores / torch.tensor(k.size(-1) ** 0.5, dtype=dtype)  # ÷ √d_k",
        ("scaled",), (6, 7),
    ),
    Step(
        "masked", 4, "masked", "the hidden pairs filled by the notebook's convention",
        "masked = scaled where allowed, −∞ where hidden",
        "A mask hides the keys a query may not look at, such as the future in a causal mask; with no mask, nothing "
        "changes.",
        "masked = scaled.masked_fill(keep == 0, float('-inf'))  # 000's convention",
        ("masked",), (8,),
    ),
    Step(
        "weights", 5, "weights", "each row normalised (softmax, or 003's divide-by-sum)",
        "weights = softmax(masked), row by row",
        "Each row becomes positive weights that sum to 1: how much token i attends to each token j.",
        "weights = F.softmax(masked, dim=-1)",
        ("weights",), (9,),
    ),
    Step(
        "output", 6, "output", "the weights mix the value rows",
        "output = weights·V",
        "Each output row is the weighted average of the value rows, using that row's attention weights.",
        "output = weights @ v  # (H, L, S) x (H, S, d) -> (H, L, d)",
        ("output",), (10,),
    ),
    Step(
        "combine", 7, "heads combined", "the heads side by side, through W_o when on",
        "combined = concat(head_1, …, head_h)·W_o",
        "Every head does the same with its own weights; their outputs are joined side by side (and mixed by W_o "
        "when it is on).",
        "concat = output.transpose(-3, -2).reshape(len(tokens), -1)  # (H, L, d) -> (L, H·d)",
        ("combine",), (11,),
    ),
)  # fmt: skip
BY_KEY = {s.key: s for s in STEPS}
