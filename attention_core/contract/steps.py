"""The notebook's steps, listed once: key, number, title, what each does in one plain phrase, the tables it shows
and the pipeline's numbered steps it covers (pipeline/layer.py).

The notebook view's headings (ui/render/step_cells.py), the exported .py and .ipynb's cells (export/notebook.py)
and the tables explain explains (teaching/explain.py's NAMES) are read from :data:`STEPS`.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Step:
    """One step of the notebook: its cells in the page and in the exports."""

    key: str  # the page's and the exports' name for it
    number: int  # from 1, as the notebook view and the exported script number them
    title: str
    does: str  # one plain phrase
    tables: tuple[str, ...]  # the per-head result keys it shows ("combine": the combined output), cell by cell
    layer: tuple[int, ...]  # the pipeline's numbered steps it covers

    @property
    def heading(self) -> str:
        return f"{self.number} · {self.title}"


STEPS: tuple[Step, ...] = (
    Step("qkv", 1, "Q, K, V", "project the encodings", ("q", "k", "v"), (1, 2, 3, 4)),
    Step("scores", 2, "QKᵀ (raw scores)", "every query dotted with every key", ("scores",), (5,)),
    Step("scaled", 3, "scaled", "the scores divided by √d_k (or the temperature), plus any bias", ("scaled",), (6, 7)),
    Step("masked", 4, "masked", "the hidden pairs filled by the notebook's convention", ("masked",), (8,)),
    Step("weights", 5, "weights", "each row normalised (softmax, or 003's divide-by-sum)", ("weights",), (9,)),
    Step("output", 6, "output", "the weights mix the value rows", ("output",), (10,)),
    Step("combine", 7, "heads combined", "the heads side by side, through W_o when on", ("combine",), (11,)),
)
BY_KEY = {s.key: s for s in STEPS}
