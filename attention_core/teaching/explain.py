"""Take one number of a trace apart: the arithmetic that produced it, with the live numbers.

``explain(tr, head, name, i, j)`` answers for any cell the app shows:
    q, k, v      x_i · (column j of the head's projection)
    scores       q_i · k_j term by term, then the scaling and the mask (scaled, masked: the same chain)
    weights      the softmax (or divide-by-sum) of row i: every exp, their sum, the division
    output       Σ_s weights[i, s] × v[s, j]
    combine      which head's output column it is (concat), or Σ concat[i, m] × W_o[m, j]
    alibi_bias   −m_h × |i − j| (ALiBi on)
    tiles        query row i's running max m (column 1) or sum l (column 2), tile by tile (tiles on)
    q_before, k_before   the projection before RoPE turns it (RoPE on)
    kv_row       KV-cache decoding, step i: token i's query reads the cached rows, key j's weight (decoding on)
    cache        the KV cache's size after step i (decoding on)
With RoPE on, a q or k cell adds its pair's turn; with kv heads, a k or v names the kv head it shares.

Returns a frozen :class:`Explanation` of plain-text lines; the UI only renders it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from torch import Tensor

from ..contract.steps import STEPS, Step
from ..ops.trace import Trace

NAMES = (
    *(t for step in STEPS for t in step.tables),
    "alibi_bias",
    "tiles",
    "q_before",
    "k_before",
    "kv_row",
    "cache",
)  # the notebook's tables, then the variants'
FILL_WORDS = {
    "-inf": "masked_fill(mask == 0, -inf) (000): the score becomes -inf",
    "-1e9": "masked_fill(block_mask, -1e9) (002): the score becomes -1e9",
    "additive": "+ M (004), M = -inf where masked: the score becomes -inf",
}


@dataclass(frozen=True)
class Explanation:
    """How one cell was computed: ``lines`` read top to bottom and end at ``value``."""

    title: str
    lines: tuple[str, ...]
    value: float
    step: Step | None = None  # the notebook step whose table holds the cell (None: a variant's table)


def num(v: float) -> str:
    """A number as the explanation writes it: 4 decimals, exponent when tiny or huge, -inf spelled out."""
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "-inf" if v < 0 else "inf"
    text = f"{v:.4f}" if v == 0 or 1e-3 <= abs(v) < 1e5 else f"{v:.3e}"
    return f"({text})" if v < 0 else text


def plain(v: float) -> str:
    """Like :func:`num` without the parentheses (for a result, not a factor)."""
    return num(v).strip("()")


def dot(a: list[float], b: list[float]) -> str:
    """'a1×b1 + a2×b2 + …' with every term written out, so the arithmetic can be checked (the panel scrolls)."""
    return " + ".join(f"{num(x)}×{num(y)}" for x, y in zip(a, b, strict=True))


def owner(tr: Trace, head: int, role: str) -> tuple[int, int]:
    """(the head whose W_role this head uses, how many such heads): a k or v of grouped-query heads is its kv
    head's (``head_map``), of G kv heads; otherwise the head itself, of H."""
    if role in ("k", "v") and tr.variants is not None:
        return tr.head_map[head], int(tr.k_kv.shape[-3])
    return head, tr.heads


def projection(tr: Trace, head: int, role: str) -> Tensor:
    """The (D, d) matrix that maps x to this head's q, k or v (x @ it), whatever the layout, mode and kv heads."""
    w = getattr(tr.params, f"W_{role}")
    mats = w.transpose(-2, -1) if tr.params.layout == "linear" else w  # (H, G or 1, D, d)
    hh, n = owner(tr, head, role)
    if tr.mode == "concat":
        return mats[hh]
    width = mats.shape[-1] // n
    return mats[0][:, hh * width : (hh + 1) * width]


def bias_of(tr: Trace, head: int, role: str, j: int) -> float | None:
    """This head's bias for column ``j`` of q, k or v, or None when the projection has no bias."""
    b = getattr(tr.params, f"b_{role}")
    if b is None:
        return None
    hh, n = owner(tr, head, role)
    if tr.mode == "concat":
        return float(b[hh, j])
    width = b.shape[-1] // n
    return float(b[0, hh * width + j])


def rotation(tr: Trace, head: int, name: str, i: int, j: int) -> tuple[str, ...]:
    """RoPE's turn of cell (i, j) of q or k: its pair (j, j ± E/2), the angle i·θ and the two products."""
    r = tr.rope
    before = r.q[head] if name == "q" else r.k[owner(tr, head, "k")[0]]  # (L|S, E) before the rotation
    half = before.shape[-1] // 2
    pair = j % half
    other = j + half if j < half else j - half
    angle = float((r.angles_q if name == "q" else r.angles_k)[i, pair])
    a, b = float(before[i, j]), float(before[i, other])
    c, s = math.cos(angle), math.sin(angle)
    sign, value = ("−", a * c - b * s) if j < half else ("+", a * c + b * s)
    return (
        f"RoPE turns dims {j + 1} and {other + 1} (pair {pair + 1}) of row {i + 1} (position {i}) by "
        f"{i} × θ_{pair + 1} = {i} × {plain(float(r.theta[pair]))} = {plain(angle)} rad:",
        f"{name}′ = {num(a)} × cos {plain(angle)} {sign} {num(b)} × sin {plain(angle)} = {num(a)}×{num(c)} {sign} "
        f"{num(b)}×{num(s)} = {plain(value)}",
    )


STEP_OF = {table: step for step in STEPS for table in step.tables}  # the notebook step that shows each table


def explain(tr: Trace, head: int, name: str, i: int, j: int, x: dict[str, Tensor]) -> Explanation:
    """Explain cell (i, j) of ``name`` for head ``head`` (0-based). ``x``: {"q","k","v"} inputs (L|S, D).

    The explanation carries the notebook step of its table (``step``, None for the variants' tables), whose heading
    and formula the panel shows. Raises IndexError for a cell outside the tensor and KeyError for an unknown name.
    """
    e = _explain(tr, head, name, i, j, x)
    return replace(e, step=STEP_OF.get(name))


def _explain(tr: Trace, head: int, name: str, i: int, j: int, x: dict[str, Tensor]) -> Explanation:
    """:func:`explain` without the step's heading."""
    a = tr
    part = tr.head(head)
    tag = f" (head {head + 1})" if tr.heads > 1 and name != "combine" else ""
    if name in ("q", "k", "v"):
        p = tr.variants
        w = projection(tr, head, name)
        row = (x[name] if p is None else {"q": tr.x_q, "k": tr.x_k, "v": tr.x_v}[name])[i].tolist()  # x + PE if on
        col = w[:, j].tolist()
        turned = tr.rope is not None and name in ("q", "k")
        got = float(part[name][i, j])
        if turned:
            lines = _projected(tr, head, name, i, j, row, col, float(tr.rope.q[head][i, j] if name == "q" else
                               tr.rope.k[owner(tr, head, "k")[0]][i, j]))  # fmt: skip
            lines = (*lines, *rotation(tr, head, name, i, j), f"= {plain(got)}")
            return Explanation(f"{name}[{i + 1}, {j + 1}]{tag}", lines, got)
        if p is not None:
            return Explanation(f"{name}[{i + 1}, {j + 1}]{tag}", _projected(tr, head, name, i, j, row, col, got), got)
        layout = f"row {j + 1} of W (nn.Linear, out×in)" if tr.params.layout == "linear" else f"column {j + 1} of W"
        b = bias_of(tr, head, name, j)
        if b is None:
            lines = (f"{name}_{i + 1} = x_{i + 1} projected by W_{name}; this cell is x_{i + 1} · ({layout})",
                     f"= {dot(row, col)}", f"= {plain(got)}")  # fmt: skip
        else:
            bare = sum(r * c for r, c in zip(row, col, strict=True))
            lines = (f"{name}_{i + 1} = x_{i + 1} projected by W_{name} plus the bias b_{name}; "
                     f"this cell is x_{i + 1} · ({layout}) + b_{name}[{j + 1}]",
                     f"= {dot(row, col)} + b_{name}[{j + 1}]", f"= {plain(bare)} + {num(b)}",
                     f"= {plain(got)}")  # fmt: skip
        return Explanation(f"{name}[{i + 1}, {j + 1}]{tag}", lines, got)
    if name in ("scores", "scaled", "masked"):
        return _score(tr, part, head, i, j, tag, name)
    if name == "weights":
        seen = None if a.keep is None else a.keep[i].tolist()
        return _weight(a.normalize, a.fill, part, i, j, tag, i in a.fully_masked_rows, seen)
    if name == "output":
        w, v = part["weights"][i].tolist(), part["v"][:, j].tolist()
        got = float(part["output"][i, j])
        return Explanation(
            f"output[{i + 1}, {j + 1}]{tag}",
            (f"output_{i + 1} = Σ_s weights[{i + 1}, s] × v_s; column {j + 1}:",
             f"= {dot(w, v)}", f"= {plain(got)}"),
            got,
        )  # fmt: skip
    if name == "combine":
        return _combine(tr, i, j)
    if name == "alibi_bias" and tr.alibi is not None:
        return _alibi_term(tr, head, i, j, tag)
    if name == "tiles" and tr.tiled is not None:
        return _tile_state(tr, head, i, j, tag)
    if name in ("q_before", "k_before") and tr.rope is not None:
        return _before_rope(tr, head, name[0], i, j, tag)
    if name == "kv_row" and tr.decoding is not None:
        return _decode_step(tr, head, i, j, tag)
    if name == "cache" and tr.decoding is not None:
        return _cache_size(tr, i, j)
    raise KeyError(name)


def _projected(
    tr: Trace, head: int, name: str, i: int, j: int, row: list[float], col: list[float], got: float
) -> tuple[str, ...]:
    """x_i (with PE when on) projected by the column of W that this head (or its kv head) uses, plus any bias."""
    layout = f"row {j + 1} of W (nn.Linear, out×in)" if tr.params.layout == "linear" else f"column {j + 1} of W"
    x_name = f"(x + PE)_{i + 1}" if tr.pe_q is not None else f"x_{i + 1}"
    g, n = owner(tr, head, name)
    whose = f" of kv head {g + 1}, shared by its group" if name in ("k", "v") and n != tr.heads else ""
    b = bias_of(tr, head, name, j)
    plus = "" if b is None else f" + b_{name}[{j + 1}]"
    lines = [f"{name}_{i + 1} = {x_name} · ({layout}{whose}){plus}", f"= {dot(row, col)}{plus}"]
    if b is not None:
        lines.append(f"= {plain(sum(r * c for r, c in zip(row, col, strict=True)))} + {num(b)}")
    return (*lines, f"= {plain(got)}")


def _variant_score_lines(tr: Trace, head: int, i: int, j: int) -> list[str]:
    """ALiBi's bias term of score (i, j), when on."""
    if tr.alibi is None:
        return []
    m, b = float(tr.alibi.slopes[head]), float(tr.alibi.bias[head, i, j])
    biased = float(tr.biased[head, i, j])
    return [f"+ ALiBi bias −m_{head + 1}·|{i + 1} − {j + 1}| = −{plain(m)} × {abs(i - j)} = {plain(b)}  →  "
            f"scaled + b = {plain(biased)}"]  # fmt: skip


def _hidden_why(tr: Trace, i: int, j: int) -> str:
    """' (outside the window of w)' when the sliding window is what hides key j from query i."""
    if tr.window_keep is None or bool(tr.window_keep[i, j]):
        return ""
    return f" (outside the sliding window of {tr.variants.window})"


def _score(tr: Trace, part: dict[str, Tensor], head: int, i: int, j: int, tag: str, name: str) -> Explanation:
    a = tr
    q, k = part["q"][i].tolist(), part["k"][j].tolist()
    raw, scaled, masked = (float(part[n][i, j]) for n in ("scores", "scaled", "masked"))
    lines = [f"scores[{i + 1}, {j + 1}] = q_{i + 1} · k_{j + 1} = {dot(q, k)}", f"= {plain(raw)}"]
    with_bias = [f"{r}_{n} = x_{n} W_{r}ᵀ + b_{r}" for r, n in (("q", i + 1), ("k", j + 1))
                 if bias_of(tr, head, r, 0) is not None]  # fmt: skip
    if with_bias:  # the dot product is of biased vectors: say so, so the bias is not forgotten
        lines.insert(0, f"with the bias terms: {' and '.join(with_bias)} (nn.Linear(bias=True); click a q or k)")
    if a.divisor is None:
        lines.append("scaling is off: scaled = scores")
    else:
        how = f"√d_k = √{len(q)}" if math.isclose(a.divisor, math.sqrt(len(q))) else "the temperature"
        lines.append(f"÷ {how} = {plain(a.divisor)}  →  scaled = {plain(scaled)}")
    lines += _variant_score_lines(tr, head, i, j)
    before = "scaled" if a.biased is None else "scaled + b"
    if a.keep is None:
        lines.append(f"no mask: masked = {before}")
    elif bool(a.keep[i, j]):
        lines.append(f"key {j + 1} is visible to query {i + 1}: masked = {before} = {plain(masked)}")
    else:
        hidden = f"key {j + 1} is hidden from query {i + 1}{_hidden_why(tr, i, j)}"
        lines.append(f"{hidden}: {FILL_WORDS[a.fill]}  →  masked = {plain(masked)}")
    value = {"scores": raw, "scaled": scaled, "masked": masked}[name]
    return Explanation(f"{name}[{i + 1}, {j + 1}]{tag}", tuple(lines), value)


def _weight(
    normalize: str,
    fill: str,
    part: dict[str, Tensor],
    i: int,
    j: int,
    tag: str,
    fully_masked: bool,
    seen: list[bool] | None = None,
) -> Explanation:
    row = part["masked"][i].tolist()
    got = float(part["weights"][i, j])
    title = f"weights[{i + 1}, {j + 1}]{tag}"
    if normalize == "sum":
        return _sum_weight(title, part["scaled"][i].tolist(), j, i, got, seen)
    if fully_masked and fill != "-1e9":
        return Explanation(title, (
            f"every key is masked in row {i + 1}: softmax would compute exp(-inf) / Σ exp(-inf) = 0 / 0 = NaN",
            "the app (like torch's scaled_dot_product_attention) defines the row as all zeros instead",
            f"= {plain(got)}",
        ), got)  # fmt: skip
    lines = []
    top = max(row)
    shift = top if top > 20 or top < -20 else 0.0  # what torch does to stay finite; the ratio is unchanged
    exps = [math.exp(v - shift) for v in row]
    total = sum(exps)
    arg = (lambda v: f"{plain(v)} − {num(shift)}") if shift else plain
    note = f" (shifted by the row max {plain(shift)}, as torch does; the ratio is unchanged)" if shift else ""
    lines.append(f"weights_{i + 1} = softmax(masked_{i + 1}): exp of each masked score, divided by their sum{note}")
    for s, (v, e) in enumerate(zip(row, exps, strict=True)):  # every key: the sum below can be checked
        lines.append(f"key {s + 1}: exp({arg(v)}) = {plain(e)}" + ("  ◀ this cell" if s == j else ""))
    lines.append(f"sum = {plain(total)}")
    if fully_masked:
        lines.append("every key is masked with -1e9 (002): all exps are equal, so the row is uniform, not NaN")
    lines.append(f"{plain(exps[j])} / {plain(total)} = {plain(got)}")
    return Explanation(title, tuple(lines), got)


def _sum_weight(title: str, scaled: list[float], j: int, i: int, got: float, seen: list[bool] | None) -> Explanation:
    """003's divide-by-sum over the keys row i may see: hidden keys take no part, whatever the fill."""
    seen = seen or [True] * len(scaled)
    keys = [s for s, ok in enumerate(seen) if ok]
    hidden = [str(s + 1) for s, ok in enumerate(seen) if not ok]
    lines = [f"weights_{i + 1} = scores_{i + 1} / Σ scores_{i + 1} over the keys query {i + 1} may see "
             "(divide by the sum, no exp)"]  # fmt: skip
    if hidden:
        lines.append(f"key(s) {', '.join(hidden)} hidden: they take no part in the sum and get weight 0")
    if not keys:
        lines += [f"every key is masked in row {i + 1}: there is no visible score to divide, so the row is "
                  "defined as all zeros", f"= {plain(got)}"]  # fmt: skip
        return Explanation(title, tuple(lines), got)
    total = sum(scaled[s] for s in keys)
    terms = " + ".join(num(scaled[s]) for s in keys)
    lines.append(f"Σ = {terms} = {plain(total)}")
    if not seen[j]:
        lines.append(f"key {j + 1} is hidden from query {i + 1}: weight = {plain(got)}")
    elif total == 0:
        lines.append(f"the visible scores sum to 0: divide-by-sum is undefined, shown as {plain(got)}")
    else:
        lines.append(f"{num(scaled[j])} / {num(total)} = {plain(got)}  ◀ key {j + 1}")
    return Explanation(title, tuple(lines), got)


def _combine(tr: Trace, i: int, j: int) -> Explanation:
    got = float(tr.output[i, j])
    title = f"combined output[{i + 1}, {j + 1}]"
    d = tr.concat.shape[-1] // tr.heads
    if tr.heads == 1 and tr.params.W_o is None:
        return Explanation(title, ("one head and no W_o: the combined output is the head's output", plain(got)), got)
    if tr.params.W_o is None:
        h, c = divmod(j, d)
        how = "concatenated" if tr.mode == "concat" else "merged (split heads put back side by side)"
        return Explanation(title, (
            f"the {tr.heads} head outputs are {how}: columns {h * d + 1}–{(h + 1) * d} come from head {h + 1}",
            f"= head {h + 1} output[{i + 1}, {c + 1}] = {plain(got)}",
        ), got)  # fmt: skip
    w_o = tr.params.W_o
    col = (w_o[j] if tr.params.layout == "linear" else w_o[:, j]).tolist()
    b_o = tr.params.b_o
    plus = "" if b_o is None else f" + b_o[{j + 1}]"
    lines = [f"concat_{i + 1} (all {tr.heads} heads side by side, width {tr.concat.shape[-1]}) @ W_o{plus}, "
             f"column {j + 1}:", f"= {dot(tr.concat[i].tolist(), col)}{plus}"]  # fmt: skip
    if b_o is not None:
        bare = sum(a * c for a, c in zip(tr.concat[i].tolist(), col, strict=True))
        lines.append(f"= {plain(bare)} + {num(float(b_o[j]))}")
    return Explanation(title, (*lines, f"= {plain(got)}"), got)


def _alibi_term(tr: Trace, head: int, i: int, j: int, tag: str) -> Explanation:
    """ALiBi's bias of pair (i, j): this head's slope times the distance, negated."""
    m, b = float(tr.alibi.slopes[head]), float(tr.alibi.bias[head, i, j])
    lines = (
        f"ALiBi: b = −m_{head + 1} × |{i + 1} − {j + 1}|, m_{head + 1} = {plain(m)} (this head's slope)",
        f"= −{plain(m)} × {abs(i - j)} = {plain(b)}",
        "added to the scaled score, before the mask",
    )
    return Explanation(f"ALiBi bias[{i + 1}, {j + 1}]{tag}", lines, b)


def _tile_state(tr: Trace, head: int, i: int, j: int, tag: str) -> Explanation:
    """Query row i's running max m (j = 0) or running sum l (j = 1), updated tile by tile, left to right."""
    t = tr.tiled
    if j not in (0, 1):
        raise IndexError(j)
    lines = [f"row {i + 1} sweeps the key blocks left to right, keeping its running max m and sum l:"]
    l_prev = 0.0
    for x in (x for x in t.tiles if x.rows[0] <= i < x.rows[1]):  # this row's block, key block by key block
        r = i - x.rows[0]
        row = x.scores[head, r].tolist()
        m_prev, m, alpha, l_new = (float(getattr(x, n)[head, r]) for n in ("m_prev", "m", "alpha", "l"))
        keys = f"key {x.cols[1]}" if x.cols[1] - x.cols[0] == 1 else f"keys {x.cols[0] + 1}–{x.cols[1]}"
        lines += [
            f"{keys}: scores {', '.join(plain(v) for v in row)}; m = max({plain(m_prev)}, {plain(max(row))}) = "
            f"{plain(m)}",
            f"  α = e^({plain(m_prev)} − {plain(m)}) = {plain(alpha)}; l = α × {plain(l_prev)} + "
            f"Σ e^(s − {plain(m)}) = {plain(l_new)}",
        ]
        l_prev = l_new
    value = float((t.m if j == 0 else t.l)[head, i])
    lines.append(f"{'m' if j == 0 else 'l'} = {plain(value)}: the full row's max and Σ e^(s − max), never seen whole")
    return Explanation(f"tiles {'m' if j == 0 else 'l'}[{i + 1}]{tag}", tuple(lines), value)


def _before_rope(tr: Trace, head: int, name: str, i: int, j: int, tag: str) -> Explanation:
    """Cell (i, j) of q or k before RoPE turns it: the row projected by this head's (or kv head's) W."""
    g = head if name == "q" else owner(tr, head, "k")[0]
    got = float((tr.rope.q if name == "q" else tr.rope.k)[g][i, j])
    row = (tr.x_q if name == "q" else tr.x_k)[i].tolist()
    lines = _projected(tr, head, name, i, j, row, projection(tr, head, name)[:, j].tolist(), got)
    turned = f"RoPE then turns this row by its position's angles: {name}[{i + 1}, {j + 1}] is the cell after it"
    return Explanation(f"{name} before RoPE[{i + 1}, {j + 1}]{tag}", (*lines, turned), got)


def _decode_step(tr: Trace, head: int, t: int, j: int, tag: str) -> Explanation:
    """KV-cache decoding, step t (one token a step): token t's query reads the cached K and V rows; key j's weight,
    and the full causal attention's row t, which it equals."""
    d = tr.decoding
    st = d.steps[t]  # (IndexError past the last token)
    if not 0 <= j < d.weights.shape[-1]:
        raise IndexError(j)
    held = [int(p) for p in st.positions.tolist()]
    rows = f"rows {held[0] + 1}..{held[-1] + 1}" if len(held) > 1 else f"row {held[0] + 1}"
    got = float(d.weights[head][t, j])
    full = float(tr.weights[head][t, j])
    gone = f"; the rolling buffer dropped row {', '.join(str(e + 1) for e in st.evicted)}" if st.evicted else ""
    lines = [
        f"decode step {t + 1}: token {t + 1} comes; its k and v join the cache as one more row, so the cache grows "
        f"to {st.cache_size} rows ({rows}){gone}",
        f"token {t + 1}'s query q_{t + 1} reads only the cached K and V {rows}: weights = softmax(q_{t + 1} · "
        "K_cacheᵀ / s); no causal mask is needed, the later tokens are not in the cache yet",
    ]
    if j in held:
        lines.append(f"key {j + 1} (cached): weight {plain(got)}")
    else:
        lines.append(f"key {j + 1} is not in the cache at this step: weight 0")
    lines.append(
        f"the full causal attention's row {t + 1}, column {j + 1} is {plain(full)}: the same row, "
        f"{'equal' if abs(got - full) <= 1e-6 else f'off by {abs(got - full):.1e}'}"
    )
    return Explanation(f"KV-cache decode step {t + 1}, key {j + 1}{tag}", tuple(lines), got)


def _rows(n: int) -> str:
    """'1 row', '3 rows'."""
    return f"{n} row" if n == 1 else f"{n} rows"


def _tokens(held: list[int]) -> str:
    """Cached positions (0-based, ascending) as words: 'token 1', 'tokens 1, 2', 'tokens 1 … 3' (a run of 3 or more)."""
    shown = [str(p + 1) for p in held]
    if len(held) == 1:
        return f"token {shown[0]}"
    if len(held) >= 3 and held == list(range(held[0], held[-1] + 1)):
        return f"tokens {shown[0]} … {shown[-1]}"
    return f"tokens {', '.join(shown)}"


def _cache_size(tr: Trace, t: int, j: int) -> Explanation:
    """The KV cache's size after step t: one row per token so far (at most the window's with a rolling buffer)."""
    d = tr.decoding
    st = d.steps[t]
    if j != 0:
        raise IndexError(j)
    held = [int(p) for p in st.positions.tolist()]
    cap = f", at most {d.window} (a rolling buffer)" if d.window else ""
    lines = (
        f"after decode step {t + 1} the cache holds the K and V rows of {_tokens(held)}",
        f"it grows by one row per token{cap}: {_rows(st.cache_size)}",
    )
    return Explanation(f"KV cache size after step {t + 1}", lines, float(st.cache_size))


def sources(name: str, i: int, j: int) -> dict[str, list[tuple[int | None, int | None]]]:
    """The cells an explained cell came from, per table: (row, col), None = the whole row or column."""
    score_chain = {"q": [(i, None)], "k": [(j, None)], "scores": [(i, j)], "scaled": [(i, j)], "masked": [(i, j)]}
    return {
        "scores": score_chain,
        "scaled": score_chain,
        "masked": score_chain,
        "weights": {"masked": [(i, None)], "weights": [(i, None)]},
        "output": {"weights": [(i, None)], "v": [(None, j)]},
    }.get(name, {})
