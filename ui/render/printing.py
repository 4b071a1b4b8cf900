"""``print(t)``'s text for the notebooks' tensors, written from their values by torch's own rules.

torch's ``str(t)`` makes about twenty tensor calls (masks, minimum and maximum, one ``ceil`` a value) before it writes
a number: 0.25 ms for a 3×3 tensor, nine of them an edit at the default size, a third of an edit's time. A plain
float tensor is written here from ``t.tolist()`` by the same rules (``torch/_tensor_str.py``: ``_Formatter``,
``_vector_str``, ``_tensor_str_with_formatter``, ``_add_suffixes``), at torch's default print options; anything else
(other dtypes, gradients, options changed) is ``str(t)`` itself. Past ``threshold`` numbers torch prints a summary,
the first and last ``edgeitems`` along each longer axis with ``...`` between (T=64: every print of an edit, 1.5 ms
each through ``str(t)``); it is written here the same way, from those numbers only.
tests/test_printing.py holds the two to the same text over thousands of tensors of every scale.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor
from torch._tensor_str import PRINT_OPTS

INDENT = len("tensor(")
DEFAULTS = {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80, "sci_mode": None}
EDGE = DEFAULTS["edgeitems"]


def torch_str(t: Tensor) -> str:
    """Exactly ``str(t)`` (any shape); written here for a plain CPU float32/float64 tensor of 1-3 dims."""
    if not _plain(t):
        return str(t)
    shape = tuple(t.shape)
    summary = t.numel() > DEFAULTS["threshold"]
    if summary:  # torch's get_summarized_data: only the numbers the summary shows (they set the format)
        for d, n in enumerate(shape):
            if n > 2 * EDGE:
                t = t.index_select(d, torch.tensor([*range(EDGE), *range(n - EDGE, n)]))
    vals = t.tolist()
    flat = vals
    for _ in range(t.dim() - 1):
        flat = [v for row in flat for v in row]
    text = "tensor(" + _nested(vals, shape, summary, INDENT, _formatter(flat))
    suffixes = [] if t.dtype == torch.get_default_dtype() else [f"dtype={t.dtype}"]
    return _add_suffixes(text, suffixes)


def _plain(t: Tensor) -> bool:
    """Whether ``str(t)`` is the plain case written here: a CPU strided float32/float64 tensor, 1-3 dims, no
    gradient, torch's default print options and default dtype."""
    return (
        type(t) is Tensor
        and t.dtype in (torch.float32, torch.float64)
        and t.layout == torch.strided
        and t.device.type == "cpu"
        and 1 <= t.dim() <= 3
        and t.numel() > 0
        and not t.requires_grad  # (so no grad_fn either)
        and not t.is_neg()
        and torch.get_default_dtype() == torch.float32
        and torch._C._get_default_device() == "cpu"
        and all(getattr(PRINT_OPTS, k) == v for k, v in DEFAULTS.items())
    )


def _formatter(flat: list[float]) -> tuple[int, bool, bool]:
    """torch's ``_Formatter`` for these values: (width, sci_mode, int_mode)."""
    nonzero = [v for v in flat if v != 0 and math.isfinite(v)]
    if not nonzero:
        return 1, False, True
    mags = [abs(v) for v in nonzero]
    lo, hi = min(mags), max(mags)
    int_mode = all(v == math.ceil(v) for v in nonzero)
    sci = hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4
    if sci:
        width = max(len(f"{v:.4e}") for v in nonzero)
    elif int_mode:
        width = max(len(f"{v:.0f}") + 1 for v in nonzero)
    else:
        width = max(len(f"{v:.4f}") for v in nonzero)
    return width, sci, int_mode


def sci_mode(t: Tensor) -> bool:
    """Whether torch's print writes ``t`` in scientific notation (``_Formatter``'s rule for its range: its largest
    finite nonzero |value| over its smallest above 1000, the largest above 1e8 or the smallest below 1e-4)."""
    a = t[torch.isfinite(t) & (t != 0)].abs()  # (as _formatter's rule, without writing a number)
    if not a.numel():
        return False
    lo, hi = float(a.min()), float(a.max())
    return hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4


def _number(v: float, fmt: tuple[int, bool, bool]) -> str:
    """``_Formatter.format``: one number, right-aligned to the width."""
    width, sci, int_mode = fmt
    if sci:
        text = f"{v:{width}.4e}"
    elif int_mode:
        text = f"{v:.0f}" + ("" if math.isinf(v) or math.isnan(v) else ".")
    else:
        text = f"{v:.4f}"
    return (width - len(text)) * " " + text


def _nested(vals: list, shape: tuple[int, ...], summary: bool, indent: int, fmt: tuple[int, bool, bool]) -> str:
    """``_tensor_str_with_formatter``: rows of ``_vector_str`` lines, wrapped at the line width. ``shape``: the
    tensor's (for a summary, ``vals`` hold only the numbers it shows: an axis longer than 2·EDGE then shows ``...``
    between its ends)."""
    cut = summary and shape[0] > 2 * EDGE
    if len(shape) == 1:
        per_line = max(1, math.floor((PRINT_OPTS.linewidth - indent) / (fmt[0] + 2)))
        data = [_number(v, fmt) for v in vals]
        if cut:
            data[EDGE:EDGE] = [" ..."]
        lines = [", ".join(data[i : i + per_line]) for i in range(0, len(data), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    slices = [_nested(v, shape[1:], summary, indent + 1, fmt) for v in vals]
    if cut:
        slices[EDGE:EDGE] = ["..."]
    return "[" + ("," + "\n" * (len(shape) - 1) + " " * (indent + 1)).join(slices) + "]"


def _add_suffixes(text: str, suffixes: list[str]) -> str:
    """torch's ``_add_suffixes``: ``, dtype=…`` on the last line, or on a line of its own past the line width."""
    parts = [text]
    last = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last + len(suffix) + 2 > PRINT_OPTS.linewidth:
            parts.append(",\n" + " " * INDENT + suffix)
            last = INDENT + len(suffix)
        else:
            parts.append(", " + suffix)
            last += len(suffix) + 2
    return "".join(parts) + ")"
