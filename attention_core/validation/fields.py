"""The parsers every field of the contract shares: numbers, matrices, whole numbers, choices, flags, object keys.

Each bad value raises :class:`ScenarioError` naming the field (rows and columns count from 1, as a table shows
them). Sizes are checked before any cell is read and before any tensor is built.
"""

from __future__ import annotations

import itertools
import math
import re
from typing import Any

import numpy as np

from .errors import ScenarioError

MAX_T = 64  # tokens per sequence (query or key side)
MAX_D = 64  # d_in (d_model) and d_out
MAX_HEADS = 8
MAX_ABS = 1e6  # largest |cell|; with the caps above no float32 intermediate can overflow
MAX_SEED = 2**63 - 1


def show(value: Any) -> str:
    """A short repr for messages (a pasted megabyte must not come back in an error)."""
    text = repr(value)
    return text if len(text) <= 24 else text[:20] + "…" + text[-1]


def parse_number(value: Any, where: str) -> float:
    """One cell as the browser or a script sends it: a number, a numeric string, or junk."""
    if isinstance(value, bool) or value is None or (isinstance(value, str) and not value.strip()):
        raise ScenarioError(where, "is blank" if not isinstance(value, bool) else "true/false is not a number")
    if isinstance(value, (int, float)):
        try:
            x = float(value)
        except OverflowError:  # an int beyond float range
            raise ScenarioError(where, f"is too large: |value| must be at most {MAX_ABS:g}") from None
    elif isinstance(value, str):
        try:
            x = float(value.strip())
        except ValueError:
            raise ScenarioError(where, f"{show(value)} is not a number") from None
    else:
        raise ScenarioError(where, f"a {type(value).__name__} is not a number")
    if not math.isfinite(x):
        raise ScenarioError(where, f"{show(value)} is not a finite number (masks are set with 'mask', not with -inf)")
    if abs(x) > MAX_ABS:
        raise ScenarioError(where, f"{show(value)} is too large: |value| must be at most {MAX_ABS:g}")
    return x


def parse_matrix(
    value: Any,
    field: str,
    rows: int | None = None,
    cols: int | None = None,
    max_rows: int = MAX_T,
    max_cols: int = MAX_D,
) -> list[list[float]]:
    """A rows×cols matrix of finite numbers. Sizes are checked before any cell is parsed."""
    return parse_array(value, field, rows, cols, max_rows, max_cols).tolist()


def parse_array(
    value: Any,
    field: str,
    rows: int | None = None,
    cols: int | None = None,
    max_rows: int = MAX_T,
    max_cols: int = MAX_D,
) -> np.ndarray:
    """:func:`parse_matrix` as a (rows, cols) float64 array: what tensors are made from (numpy reads the nested
    lists once, at C speed; ``torch.tensor`` of the same lists takes ~3x longer). ``value`` may also be such an
    array already (numbers read before: ui/values.py's weights), which is only checked; one that does not fit is
    read as its rows, so the messages are the same."""
    if isinstance(value, np.ndarray):
        if _fits(value, rows, cols, max_rows, max_cols):
            return value
        value = value.tolist()
    if not isinstance(value, list):
        raise ScenarioError(field, f"must be a list of rows, not {type(value).__name__}")
    if not value:
        raise ScenarioError(field, "is empty")
    if len(value) > max_rows:
        raise ScenarioError(field, f"has {len(value)} rows; at most {max_rows} are allowed")
    if rows is not None and len(value) != rows:
        raise ScenarioError(field, f"has {len(value)} rows; expected {rows}")
    for i, row in enumerate(value):
        if not isinstance(row, list):
            raise ScenarioError(f"{field} row {i + 1}", f"must be a list of numbers, not {type(row).__name__}")
    width = len(value[0]) if cols is None else cols
    if width == 0:
        raise ScenarioError(field, "has no columns")
    if width > max_cols:
        raise ScenarioError(field, f"has {width} columns; at most {max_cols} are allowed")
    for i, row in enumerate(value):
        if len(row) != width:
            raise ScenarioError(f"{field} row {i + 1}", f"has {len(row)} values; expected {width}")
    fast = _fast_matrix(value)
    if fast is not None:
        return fast
    return np.array(  # the slow path finds the first bad cell and names it
        [
            [parse_number(c, f"{field} row {i + 1}, column {j + 1}") for j, c in enumerate(r)]
            for i, r in enumerate(value)
        ],
        dtype=np.float64,
    )


def _fits(a: np.ndarray, rows: int | None, cols: int | None, max_rows: int, max_cols: int) -> bool:
    """Whether a given array is a matrix :func:`parse_array` takes as it is: (R, C) float64, the sizes asked for,
    every number finite and within MAX_ABS."""
    if a.ndim != 2 or a.dtype != np.float64 or not (0 < a.shape[0] <= max_rows and 0 < a.shape[1] <= max_cols):
        return False
    if rows not in (None, a.shape[0]) or cols not in (None, a.shape[1]):
        return False
    return bool(np.isfinite(a).all()) and float(np.abs(a).max()) <= MAX_ABS


def _fast_matrix(rows: list[list[Any]]) -> np.ndarray | None:
    """All cells fine (numbers or numeric strings, finite, within MAX_ABS) -> their float64 array; else None.

    About 10x faster than parse_number per cell; anything unusual falls back to the naming slow path.
    """
    if set(map(type, itertools.chain.from_iterable(rows))) <= {float}:  # what the app stores: read at C speed
        t = np.array(rows, dtype=np.float64)
    else:
        try:
            t = np.array([[float(c) if type(c) in (int, float, str) else math.nan for c in r] for r in rows])
        except (ValueError, OverflowError):
            return None
    if not bool(np.isfinite(t).all()) or float(np.abs(t).max()) > MAX_ABS:
        return None
    return t


def parse_int(value: Any, field: str, lo: int, hi: int) -> int:
    """``value`` as a whole number in ``lo..hi``, or a ScenarioError naming ``field``. An int, or a string of
    one, is taken exactly (through a float, seed 9007199254740993 was drawn from as 9007199254740992); a float or a
    string such as '3.0' or '1e3' only when it is whole."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ScenarioError(field, f"{show(value)} is not a whole number")
    exact = value if isinstance(value, int) else None
    digits = value.strip() if isinstance(value, str) else ""
    if re.fullmatch(r"[+-]?[0-9]+", digits):
        if len(digits.lstrip("+-")) > 40:  # (no seed or size has: named by its first 20, not the float it rounds to)
            raise ScenarioError(field, f"{digits[:20]!r}… is out of range {lo}..{hi}")
        exact = int(digits)
    if exact is not None:
        if not lo <= exact <= hi:
            raise ScenarioError(field, f"{exact} is out of range {lo}..{hi}")
        return exact
    try:
        f = float(value)
    except (ValueError, OverflowError):
        raise ScenarioError(field, f"{str(value)[:20]!r} is not a whole number in range {lo}..{hi}") from None
    if not math.isfinite(f) or f != int(f):
        raise ScenarioError(field, f"{show(value)} is not a whole number")
    if not lo <= int(f) <= hi:
        raise ScenarioError(field, f"{int(f)} is out of range {lo}..{hi}")
    return int(f)


def parse_choice(value: Any, field: str, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise ScenarioError(field, f"{show(value)} is not one of {', '.join(choices)}")
    return value


def check_keys(obj: dict, field: str, allowed: set[str]) -> None:
    unknown = sorted(set(obj) - allowed, key=str)
    if unknown:  # "mask.shape: unknown key"; an odd key (empty, long, symbols) is named by its container instead
        key = unknown[0]
        plain = isinstance(key, str) and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,30}", key)
        where = f"{field}{key}" if plain else f"{field.rstrip('.') or 'scenario'} key {show(key)}"
        raise ScenarioError(where, f"unknown key; allowed keys are {', '.join(sorted(allowed))}")


def parse_flag(v: Any, field: str) -> bool:
    if isinstance(v, bool):
        return v
    if v in (0, 1):
        return bool(v)
    if isinstance(v, str) and v.strip().lower() in ("true", "false", "0", "1"):
        return v.strip().lower() in ("true", "1")
    raise ScenarioError(field, f"{show(v)} is not true/false")


def parse_vector(value: Any, field: str, n: int) -> list[float]:
    """A list of exactly ``n`` finite numbers; the length is checked before any item is read."""
    if not isinstance(value, list):
        raise ScenarioError(field, f"must be a list of {n} numbers, not {type(value).__name__}")
    if len(value) != n:
        raise ScenarioError(field, f"expected {n} numbers, got {len(value)}")
    return [parse_number(c, f"{field}, item {j + 1}") for j, c in enumerate(value)]
