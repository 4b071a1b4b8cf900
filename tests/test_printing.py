"""ui/render/printing.py writes ``print(t)``'s text from a tensor's values: the same text as torch's ``str(t)``."""

from __future__ import annotations

import torch

from ui.render import printing
from ui.render import tables as vw

SHAPES = [(1,), (3,), (7,), (40,), (1, 1), (3, 2), (3, 3), (2, 30), (6, 17), (2, 3, 4), (1, 2, 1), (4, 1, 25)]
# past torch's threshold (1,000 numbers) a print is a summary: the first and last 3 along each longer axis
SUMMARIES = [(1001,), (64, 64), (40, 30), (7, 200), (200, 6), (2, 3, 400), (8, 8, 16), (64, 8, 8)]


def cases() -> list[torch.Tensor]:
    """Tensors of every scale and shape the notebooks print, and the edge cases of torch's rules: integer
    values, a ratio over 1000, values past 1e8 or under 1e-4, zeros, -0.0, nan and ±inf, lines that wrap, and
    summaries (whose format only the numbers shown set: the holes below fall both there and in the hidden middle)."""
    g = torch.Generator().manual_seed(11)
    out = []
    for shape in SHAPES + SUMMARIES:
        for exp in range(-12, 13, 2):
            for dtype in (torch.float32, torch.float64):
                t = (torch.randn(shape, generator=g, dtype=torch.float64) * 10.0**exp).to(dtype)
                out += [t, t.round(), t.abs()]
                spread = t * 10 ** torch.randint(-3, 4, shape, generator=g).to(dtype)
                out.append(spread)
                holes = t.clone().reshape(-1)
                holes[:: max(1, holes.numel() // 3)] = torch.tensor(
                    [float("nan"), float("inf"), float("-inf"), -0.0, 0.0][exp % 5], dtype=dtype
                )
                out.append(holes.reshape(shape))
    for dtype in (torch.float32, torch.float64):
        out += [torch.zeros(3, 3, dtype=dtype), torch.full((2, 2), float("nan"), dtype=dtype),
                torch.tensor([[1e8, 1.0], [2.0, 3.0]], dtype=dtype), torch.tensor([1e-4, 0.5], dtype=dtype),
                torch.tensor([0.1, 100.0], dtype=dtype), torch.tensor([0.1, 100.1], dtype=dtype),
                torch.tensor([-0.0, 2.0], dtype=dtype), torch.tensor([[0.5, float("-inf")]], dtype=dtype),
                torch.softmax(torch.randn(5, 5, generator=g, dtype=dtype), -1)]  # fmt: skip
    return out


def test_every_plain_tensor_prints_as_torch_prints_it() -> None:
    tensors = cases()
    assert len(tensors) > 2500
    plain, summaries = 0, 0
    for t in tensors:
        plain += printing._plain(t)
        text = printing.torch_str(t)
        summaries += "..." in text
        assert text == str(t), (t.dtype, tuple(t.shape), t.reshape(-1)[:4].tolist())
    assert plain == len(tensors)  # each went through the rules written here, not torch's own str
    assert summaries == 130 * len(SUMMARIES)


def test_what_is_not_plain_is_torchs_own_print() -> None:
    others = [torch.arange(6).reshape(2, 3), torch.ones(3, requires_grad=True),
              torch.randn(2, 2, 2, 2), torch.tensor(1.5), torch.empty(0, 3), torch.ones(2, dtype=torch.float16),
              torch.nn.Parameter(torch.ones(2))]  # fmt: skip
    for t in others:
        assert not printing._plain(t)
        assert printing.torch_str(t) == str(t)
    torch.set_printoptions(precision=2)
    try:
        t = torch.tensor([0.123456, 2.0])
        assert not printing._plain(t)
        assert printing.torch_str(t) == str(t) == "tensor([0.12, 2.00])"
    finally:
        torch.set_printoptions(profile="default")
    assert printing._plain(t)


def test_the_notebooks_print_is_the_fast_one() -> None:
    t = torch.tensor([[1.2345, -0.5], [3.0, 1e-5]], dtype=torch.float64)
    assert vw.torch_print(t) == str(t)
    assert (
        vw.torch_print(t)
        == "tensor([[ 1.2345e+00, -5.0000e-01],\n        [ 3.0000e+00,  1.0000e-05]], dtype=torch.float64)"
    )
    wide = torch.arange(1.0, 19.0, dtype=torch.float64).reshape(1, 18) / 7  # the dtype on a line of its own
    assert vw.torch_print(wide) == str(wide) and str(wide).endswith(",\n       dtype=torch.float64)")
