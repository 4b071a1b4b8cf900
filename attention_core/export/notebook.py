"""A state as files: the explicit JSON scenario, a runnable ``.py`` and a ``.ipynb`` (nbformat), torch alone.

The script does exactly the operations of :mod:`attention_core` in the same order (the same batched
matmuls, the same divisor tensor, the same fill), so its ``print`` output is the app's, character for
character. Every number is written as the shortest float literal that round-trips, so nothing is lost.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

import nbformat
import numpy as np
import torch
from torch import Tensor

from ..contract.scenario import BIASES, Scenario
from ..contract.steps import BY_KEY, STEPS, Step
from . import variants as xm

PY_HEADER = '''# {title}
"""Exported from Attention Playground. Runs with torch alone:  python {name}.py
Shapes: L queries, S keys, D = d_model, H heads, d per-head width. Layout "{layout}": {layout_words}.
"""
'''
LAYOUT_WORDS = {
    "linear": "nn.Linear weights, out×in, applied as x @ W.T",
    "matmul": "bare Parameter weights, in×out, applied as x @ W",
}


def title_comment(title: str) -> str:
    """The title as the text of one ``#`` comment line: printable text as it is, anything else as its repr.

    A comment ends only at a line break, so a title can neither close a string nor start code; ``repr`` writes line
    breaks, NUL and other unprintable characters as escapes (a NUL in a source file is a SyntaxError).
    """
    return title if title.isprintable() else repr(title)


CUSTOM_TITLE = "Attention Playground: custom state"


def export_title(preset_title: str | None, changed: Sequence[str] = ()) -> str:
    """The title an export carries: the preset's own while the state is that preset, ``"<title>, edited (changed:
    x, W_q)"`` after any edit of it, and a plain custom title when no preset was loaded."""
    if preset_title is None:
        return CUSTOM_TITLE
    return f"{preset_title}, edited (changed: {', '.join(changed)})" if changed else preset_title


def scenario_text(s: Scenario, preset: str | None = None, head_shown: int | None = None) -> str:
    """``json.dumps(scenario_json(s, preset, head_shown), separators=(",", ":"))``, character for character, with
    each large float32 tensor's text written once for its bytes (:func:`plain_text`): a page's address is this text
    (ui/share.py state_query), asked for after every edit, where an x edit leaves the weights as they were."""
    nonce = secrets.token_hex(8)  # (a token's own text cannot hold it)
    texts: list[str] = []

    def mark(t: Tensor) -> Any:
        if t.dtype != torch.float32 or t.numel() < PLAIN_KEPT_FROM:
            return plain(t)
        texts.append(plain_text(t))
        return f"\0{nonce}{len(texts) - 1}\0"

    out = json.dumps(scenario_json(s, preset, head_shown, write=mark), separators=(",", ":"))
    for i, text in enumerate(texts):
        out = out.replace(json.dumps(f"\0{nonce}{i}\0"), text, 1)
    return out


def scenario_json(
    s: Scenario, preset: str | None = None, head_shown: int | None = None, write: Callable[[Tensor], Any] | None = None
) -> dict[str, Any]:
    """The explicit scenario (every number written out) that ``compute`` and ``parse`` take back unchanged.

    ``head_shown`` (1-based, written only with several heads) is the app's view, which head the page shows in detail;
    ``compute`` ignores it, and a link or a loaded file opens on that head. ``write``: how each tensor of numbers is
    written (default :func:`plain`).
    """
    write = write or plain
    w = s.weights
    sc: dict[str, Any] = {"tokens": list(s.tokens)}
    if s.self_attention:
        sc["x"] = write(s.x_q)
    else:
        sc.update(x_q=write(s.x_q), x_k=write(s.x_k), x_v=write(s.x_v), tokens_k=list(s.tokens_k))
    sc.update(heads=s.heads, head_mode=s.head_mode, layout=w.layout, dtype=s.dtype, normalize=s.normalize)
    sc["weights"] = {n: write(getattr(w, n)) for n in ("W_q", "W_k", "W_v")}
    sc["weights"]["W_o"] = None if w.W_o is None else write(w.W_o)
    for n in BIASES:  # written only when present, so a bias-free state's JSON is as it always was
        if getattr(w, n) is not None:
            sc["weights"][n] = write(getattr(w, n))
    mask: dict[str, Any] = {"kind": s.mask_kind, "fill": s.fill}
    if s.mask_kind == "custom" and s.keep is not None:
        mask["keep"] = s.keep.int().tolist()
    if s.padding is not None:  # the flags as given (keep's last row also hides keys by causality when L < S)
        mask["padding"] = list(s.padding)
    sc["mask"] = mask
    sc["scale"] = s.scale
    if s.variants is not None:  # RoPE, ALiBi, kv heads, window, tiles, decoding: only the keys that are on
        sc.update(s.variants.as_json())
    if head_shown is not None and s.heads > 1:
        sc["head_shown"] = head_shown
    if preset:
        sc["preset"] = preset
    return sc


def plain(t: Tensor) -> list[Any]:
    """``t`` as nested lists, each float32 value as the shortest decimal that reads back as the same float32 (1.16,
    as the page shows it, not 1.159999966621399, the float64 nearest to it); float64 values as Python's shortest
    repr. ``torch.tensor(plain(t), dtype=t.dtype)`` equals ``t`` bit for bit.

    A float32 tensor of :data:`PLAIN_KEPT_FROM` numbers or more is written once for its bytes (:data:`_PLAIN`): the
    page's address is asked for after every edit (ui/share.py state_query), and an x edit at T=64, d=64 with 8 heads'
    own weights wrote the same 131,072 weights again each time, ~0.2 s of the server's one process. Each call gets
    lists of its own."""
    if t.dtype != torch.float32:
        return t.tolist()
    a = t.detach().contiguous().numpy()
    if a.size < PLAIN_KEPT_FROM:
        return _plain32(a, t)
    return _copied(_kept(("lists", *_bytes_key(a)), lambda: _plain32(a, t)))


PLAIN_KEPT_FROM = 1024  # numbers from which a float32 tensor's text is kept (below: cheaper to write again)
PLAIN_KEEPS = 32  # tensors' lists and texts kept (the largest state's inputs and weights: 5 of each; a page beside)
_PLAIN: OrderedDict[tuple[Any, ...], Any] = OrderedDict()  # lists and texts, least recently used first
_PLAIN_LOCK = threading.Lock()


def plain_text(t: Tensor) -> str:
    """``json.dumps(plain(t), separators=(",", ":"))`` of a float32 tensor, kept as :func:`plain` keeps its lists
    (its bytes hashed once for both)."""
    a = t.detach().contiguous().numpy()
    key = _bytes_key(a)

    def text() -> str:
        lists = _kept(("lists", *key), lambda: _plain32(a, t))  # (dumped, never changed: no copy)
        return json.dumps(lists, separators=(",", ":"))

    return _kept(("text", *key), text)


def _bytes_key(a: np.ndarray) -> tuple[Any, ...]:
    """What a kept text or list is kept by: the array's dtype, shape and a digest of its bytes."""
    return a.dtype.str, a.shape, hashlib.blake2b(a.tobytes(), digest_size=16).digest()


def _kept(key: tuple[Any, ...], make: Callable[[], Any]) -> Any:
    """The value kept as ``key`` in :data:`_PLAIN`, else ``make()`` kept (the least recently used go past
    :data:`PLAIN_KEEPS`)."""
    with _PLAIN_LOCK:
        kept = _PLAIN.get(key)
        if kept is not None:
            _PLAIN.move_to_end(key)
            return kept
    kept = make()
    with _PLAIN_LOCK:
        _PLAIN[key] = kept
        while len(_PLAIN) > PLAIN_KEEPS:
            _PLAIN.popitem(last=False)
    return kept


def _plain32(a: np.ndarray, t: Tensor) -> list[Any]:
    """:func:`plain` of the float32 array ``a`` (``t``'s numbers), written out."""
    flat = [float(str(v)) for v in a.ravel()]  # (numpy's float32 repr: the shortest that round-trips)
    return torch.tensor(flat, dtype=torch.float64).reshape(t.shape).tolist() if flat else t.tolist()


def _copied(nested: list[Any]) -> list[Any]:
    """A copy of nested lists of numbers, list by list (the numbers are immutable)."""
    return [_copied(x) for x in nested] if nested and isinstance(nested[0], list) else nested[:]


def _lit(t: Tensor | list[Any]) -> str:
    """A nested list literal; floats as the shortest decimal of their dtype that round-trips (:func:`plain`)."""
    return json.dumps(plain(t) if isinstance(t, Tensor) else t).replace("true", "True").replace("false", "False")


def cells(s: Scenario, title: str) -> list[tuple[str, str]]:
    """The export as (markdown, code) pairs, one per step; the script and the notebook are both made from it."""
    w, H = s.weights, s.heads
    data, bias = _data_lines(s)
    scaled, masked, norm = _scaled_line(s), _masked_lines(s), _norm_lines(s)
    out_w = "" if w.W_o is None else (" @ W_o.T" if w.layout == "linear" else " @ W_o") + bias["o"]
    combine = [
        BY_KEY["combine"].code,
        f"combined = concat{out_w}  # {'through W_o' if w.W_o is not None else 'no W_o'}",
    ]

    def show(names: str) -> list[str]:
        return [f"for h in range({H}):", *(f"    print('## head', h + 1, '{n}'); print({n}[h])" for n in names.split())]

    heading = title_comment(title)
    proj = [*_proj_lines(s, bias), *xm.rope_lines(s), *xm.share_lines(s)] if s.variants else _proj_lines(s, bias)
    extra = [(md, "\n".join(code)) for md, code in _variant_cells(s) if code]
    code = {  # each step's lines, by the key of its entry in contract/steps.py's STEPS
        "qkv": [*proj, *show("q k v")],
        "scores": [BY_KEY["scores"].code, *show("scores")],
        "scaled": [scaled, *xm.alibi_lines(s), *show("scaled")],
        "masked": [*masked, *show("masked")],
        "weights": [*norm, *show("weights")],
        "output": [BY_KEY["output"].code, *show("output")],
        "combine": [*combine, "print('## combined'); print(combined)"],
    }
    return [
        (f"# {heading}\nExported from Attention Playground; every number is the app's. Layout `{w.layout}`: "
         f"{LAYOUT_WORDS[w.layout]}.", "\n".join(data)),
        *((step_markdown(step), "\n".join(code[step.key])) for step in STEPS),
        *extra,
    ]  # fmt: skip


def step_markdown(step: Step) -> str:
    """A step's markdown cell: its heading and phrase (the script's comment is this first line), then its formula and
    sentence, as the list has them."""
    return f"## {step.heading}: {step.does}\n\n`{step.formula}`: {step.sentence}"


def _variant_cells(s: Scenario) -> list[tuple[str, list[str]]]:
    """The tiled online softmax and KV-cache decoding, each a cell of its own when on."""
    return [
        ("## 8 · the same attention tile by tile (FlashAttention's online softmax: running max m, sum l)",
         xm.tiles_lines(s)),
        ("## 9 · decoding token by token with a KV cache (each step's row is the causal row above)",
         xm.decode_lines(s)),
    ]  # fmt: skip


def _data_lines(s: Scenario) -> tuple[list[str], dict[str, str]]:
    """The tensors as literals, and the "+ b" each projection gets (q, k, v, o; empty without a bias)."""
    w, dt = s.weights, s.dtype
    L, S = len(s.tokens), len(s.tokens_k)  # the shape symbols
    lin = w.layout == "linear"
    data = [
        "import torch",
        "import torch.nn.functional as F",
        "",
        f"dtype = torch.{dt}",
        f"tokens = {s.tokens!r}  # L = {L} queries",
        f"tokens_k = {s.tokens_k!r}  # S = {S} keys" if not s.self_attention else "tokens_k = tokens",
        f"x_q = torch.tensor({_lit(s.x_q)}, dtype=dtype)  # (L, D)",
    ]
    if s.self_attention:
        data.append("x_k = x_v = x_q  # self-attention: one encoding for queries, keys and values")
    else:
        data += [f"x_k = torch.tensor({_lit(s.x_k)}, dtype=dtype)  # (S, D)",
                 f"x_v = torch.tensor({_lit(s.x_v)}, dtype=dtype)  # (S, D)"]  # fmt: skip
    shape = ("(H, d, D)" if lin else "(H, D, d)") if s.head_mode == "concat" else "(1, D, D)"
    for n in ("W_q", "W_k", "W_v"):
        data.append(f"{n} = torch.tensor({_lit(getattr(w, n))}, dtype=dtype)  # {shape}")
    wo = "None" if w.W_o is None else f"torch.tensor({_lit(w.W_o)}, dtype=dtype)"
    data.append(f"W_o = {wo}  # {'(D, H·d)' if lin else '(H·d, D)'} or None: heads are only concatenated")
    bias = {n: "" for n in ("q", "k", "v", "o")}  # the "+ b" each projection gets (nn.Linear(bias=True))
    for n in BIASES:
        if getattr(w, n) is not None:
            where = "(D,) added after W_o" if n == "b_o" else "(H, d) or (1, D): one vector per head, bias=True"
            data.append(f"{n} = torch.tensor({_lit(getattr(w, n))}, dtype=dtype)  # {where}")
            bias[n[-1]] = " + b_o" if n == "b_o" else f" + {n}.unsqueeze(-2)"
    keep = "None  # no mask" if s.keep is None else f"torch.tensor({_lit(s.keep)})  # (L, S) True = may look"
    data.append(f"keep = {keep}")
    return [*data, *xm.window_lines(s), *xm.sinusoidal_lines(s)], bias


def _proj_lines(s: Scenario, bias: dict[str, str]) -> list[str]:
    """Q, K, V for every head: concatenated heads, or one projection split into heads."""
    wt = ".transpose(-2, -1)" if s.weights.layout == "linear" else ""
    H, G = s.heads, xm.kv_count(s)
    kv = "H" if G == H else "G"  # grouped-query: W_k and W_v have G kv heads
    if s.head_mode == "concat":
        lines = BY_KEY["qkv"].code.splitlines()  # the list's lines (nn.Linear, no bias), in this layout with any bias
        proj = [
            ln.replace(f"W_{r}.transpose(-2, -1)", f"W_{r}{wt}{bias[r]}") for r, ln in zip("qkv", lines, strict=True)
        ]
        proj.insert(0, f"# H = {H}: a W_q, W_k and W_v per head (concatenated heads)")
    else:
        proj = [f"H = {H}", *([f"G = {G}  # kv heads"] if G != H else []),
                f"q = (x_q.unsqueeze(-3) @ W_q{wt}{bias['q']}).squeeze(-3)  # (L, D)",
                "q = q.reshape(len(tokens), H, -1).transpose(-3, -2)  # split: (L, H, D/H) -> (H, L, D/H)",
                f"k = (x_k.unsqueeze(-3) @ W_k{wt}{bias['k']}).squeeze(-3)",
                f"k = k.reshape(len(tokens_k), {kv}, -1).transpose(-3, -2)  # ({kv}, S, D/H)",
                f"v = (x_v.unsqueeze(-3) @ W_v{wt}{bias['v']}).squeeze(-3)",
                f"v = v.reshape(len(tokens_k), {kv}, -1).transpose(-3, -2)  # ({kv}, S, D/H)"]  # fmt: skip
    return proj


def _scaled_line(s: Scenario) -> str:
    if s.scale is True:
        scaled = BY_KEY["scaled"].code
    elif s.scale is False:
        scaled = "scaled = scores  # scaling off"
    else:  # a temperature (1.0 is a number here, not True)
        scaled = f"scaled = scores / torch.tensor({float(s.scale)!r}, dtype=dtype)  # ÷ temperature"
    return scaled


def _masked_lines(s: Scenario) -> list[str]:
    src = "biased" if xm.on(s, "alibi") else "scaled"  # ALiBi's bias comes before the mask
    if not xm.keeps(s):
        masked = [f"masked = {src}  # no mask"]
    elif s.fill == "-inf":
        masked = [BY_KEY["masked"].code.replace("masked = scaled.", f"masked = {src}.")]
    elif s.fill == "-1e9":
        masked = [f"masked = {src}.masked_fill(~keep, -1e9)  # 002's block mask (True = blocked), filled with -1e9"]
    else:
        masked = ["M = torch.zeros(keep.shape, dtype=dtype).masked_fill(~keep, float('-inf'))  # 004's additive M",
                  f"masked = {src} + M"]  # fmt: skip
    return masked


def _norm_lines(s: Scenario) -> list[str]:
    if s.normalize == "softmax":
        norm = [BY_KEY["weights"].code]
    else:
        hide = "masked" if not xm.keeps(s) else "masked.masked_fill(~keep, 0.0)  # hidden keys take no part"
        norm = [f"visible = {hide}",
                "weights = visible / visible.sum(dim=-1, keepdim=True)  # 003's divide-by-sum"]  # fmt: skip
    if xm.keeps(s) and (s.fill != "-1e9" or s.normalize == "sum"):
        norm += ["dead = ~keep.any(dim=-1)  # query rows that see no key: 0/0 = NaN there",
                 "weights = weights.masked_fill(dead.unsqueeze(-1), 0.0)  # defined as 0, like SDPA"]  # fmt: skip
    if s.normalize == "sum":
        norm += ["if not torch.isfinite(weights).all():  # a row summing to 0: undefined, shown as 0",
                 "    weights = torch.nan_to_num(weights, nan=0.0, posinf=0.0, neginf=0.0)"]  # fmt: skip
    return norm


def to_script(s: Scenario, title: str, name: str = "attention") -> str:
    """A runnable ``.py`` that prints every intermediate, head by head, exactly as the app shows it."""
    header = PY_HEADER.format(
        title=title_comment(title), name=name, layout=s.weights.layout, layout_words=LAYOUT_WORDS[s.weights.layout]
    )
    body = "\n\n".join(f"# {md.splitlines()[0].lstrip('# ')}\n{code}" for md, code in cells(s, title)[1:])
    return f"{header}\n{cells(s, title)[0][1]}\n\n{body}\n"


def to_notebook(s: Scenario, title: str) -> str:
    """The same code as :func:`to_script`, one notebook cell per step, as .ipynb JSON (nbformat v4)."""
    nb = nbformat.v4.new_notebook()
    for md, code in cells(s, title):
        nb.cells += [nbformat.v4.new_markdown_cell(md), nbformat.v4.new_code_cell(code)]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.validate(nb)
    return nbformat.writes(nb)
