"""A drawn view's numbers as data: what a live edit sends a page that already shows the view's shape.

A drawn view (the overview, the notebook's steps, the heatmaps: ``static/live.js`` drawnView) is HTML that the
renderers (``ui/render/``) build. Between two values of one shape only its *slots* differ: each number cell's colour
class, exact value (title) and text, the text of torch's prints and of the plain table cells, and each heatmap's
bytes and scale. :func:`split` cuts a view's HTML into its *skeleton* (every slot emptied), named by a short key,
and the slots' contents as JSON. A page that shows the skeleton with that key (it says so in its edit: ``shown``)
is sent the slots only, and writes them into the nodes it has (``static/morph.js`` fill); any other page gets the
HTML, with its key, once.

The slots are found in the renderers' own output (``tables.html_table``'s number cells, ``<pre class='tensor'>``,
``heat.heatmap``'s canvas), on the server that wrote it: :func:`split` checks that it found every cell, print and
canvas the HTML holds, and that the skeleton and slots give the HTML back (:func:`join`), else it answers None and
the view goes as HTML. tests/test_cells.py checks both on every preset's views.
"""

from __future__ import annotations

import hashlib
import html
import re
from typing import Any

# the slots, in the renderers' own quoting: a number cell (class, optional title, text), a plain cell's text, a
# print's text, a heatmap canvas's scale and bytes
SLOT = re.compile(  # ("<" first, outside the alternatives: the search then stops only at tags)
    r"<(?:td class='(?P<cls>[^'<]*)'(?P<rc> data-r='\d+' data-c='\d+')(?: title='(?P<title>[^'<]*)')?>"
    r"(?P<text>[^<]*)</td>"
    r"|td>(?P<td>[^<]*)</td>"
    r"|pre class='tensor'>(?P<pre>[^<]*)</pre>"
    r"|(?P<cv>canvas [^>]*?)data-lo='(?P<lo>[^']*)' data-hi='(?P<hi>[^']*)' data-z='(?P<z>[^']*)')"
)
GROUPS = SLOT.groups + 1  # SLOT.split's stride: the text before a slot, then its groups
CELL_MARKS = ("<td class='", "<td>", "<pre class='tensor'", "<canvas ")  # each must be a slot (else: HTML)
PALETTE = "".join(chr(c) for c in range(35, 127) if chr(c) != "\\")  # a class's index as one JSON-safe character


def _text(escaped: str, pre: bool = False) -> str:
    """A slot's text as the browser's parser gives it: entities decoded, CR LF as LF, and in a <pre> one newline
    right after the tag dropped."""
    text = html.unescape(escaped) if "&" in escaped else escaped
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text[1:] if pre and text.startswith("\n") else text


def _attr(escaped: str) -> str:
    """An attribute's value as the browser's parser gives it."""
    return html.unescape(escaped) if "&" in escaped else escaped


def _joined(escaped: list[str], read: Any) -> str | None:
    """``escaped`` as ``read`` gives each, joined by single spaces (read one by one only where one needs it), or None
    when one holds a space (the page splits them at spaces). One join and one count: no scan per text."""
    whole = " ".join(escaped)
    if whole.count(" ") != max(0, len(escaped) - 1):
        return None
    if "&" not in whole and "\r" not in whole:
        return whole
    read_all = list(map(read, escaped))
    return None if any(" " in t for t in read_all) else " ".join(read_all)


def split(view: str) -> tuple[str, dict[str, Any]] | None:
    """``view``'s HTML -> (its skeleton's key, its slots as JSON data), or None when a slot could not be told apart.

    The data: ``pal`` (the number cells' classes) and ``cls`` (one character per number cell, its class's index in
    ``pal``), ``title`` and ``text`` (the number cells' titles, for the cells that have one, and texts, joined by
    single spaces: numbers hold none), ``td`` (the plain cells' texts), ``pre`` (the prints' texts), ``canvas``
    ([data-lo, data-hi, data-z] of each heatmap), each in the order of the HTML.

    Column by column over ``SLOT.split``'s flat list (the texts between slots, then each slot's groups), so that
    the work per cell is done by comprehensions and joins: 4096-cell tables are sent at every edit at T=64."""
    parts = SLOT.split(view)
    col = [parts[i::GROUPS] for i in range(1, GROUPS)]  # one list per group, one entry per slot
    c, rc, title, text, td, pre, cv, lo, hi, z = col
    nums = [i for i, r in enumerate(rc) if r is not None]
    texts = _joined([text[i] for i in nums], _text)
    titles = _joined([title[i] for i in nums if title[i] is not None], _attr)
    if texts is None or titles is None:
        return None
    classes = [c[i] for i in nums]
    if any("&" in k for k in dict.fromkeys(classes)):  # (the renderers' classes hold no entity)
        classes = list(map(_attr, classes))
    distinct = dict.fromkeys(classes)
    if len(distinct) > len(PALETTE):
        return None  # (one character a class: more than the palette holds go as HTML)
    pal = {k: PALETTE[i] for i, k in enumerate(distinct)}
    skeleton: list[str] = [""] * (2 * len(rc) + 1)
    skeleton[::2] = parts[::GROUPS]
    skeleton[1::2] = [
        (f"<td{rc[i]} title>" if title[i] is not None else f"<td{rc[i]}>") if rc[i] is not None
        else "<td>" if td[i] is not None else "<pre>" if pre[i] is not None else f"<{cv[i]}<canvas>"
        for i in range(len(rc))
    ]  # fmt: skip
    out = {
        "td": [_text(t) for t in td if t is not None],
        "pre": [_text(t, pre=True) for t in pre if t is not None],
        "canvas": [[_attr(lo[i]), _attr(hi[i]), _attr(z[i])] for i in range(len(rc)) if lo[i] is not None],
    }
    found = len(nums) + sum(len(v) for v in out.values())
    if found != sum(view.count(mark) for mark in CELL_MARKS):
        return None  # a cell, print or canvas in another form: the view goes as HTML
    key = hashlib.sha1("\0".join(skeleton).encode()).hexdigest()[:16]
    data = {
        "pal": list(pal),
        "cls": "".join(map(pal.__getitem__, classes)),
        "title": titles,
        "text": texts,
        **out,
    }
    return key, data


def keyed(view: Any) -> dict[str, Any]:
    """A drawn view's answer for a page that shows another skeleton, or none: its HTML, and its key if it has one."""
    got = split(view) if isinstance(view, str) else None
    return {"value": view} if got is None else {"value": view, "key": got[0]}


def answer(view: Any, shown: str | None) -> dict[str, Any]:
    """A drawn view's answer: only its slots (``{"key", "cells"}``) for a page showing its skeleton (``shown``, the
    key the page holds), else its HTML (:func:`keyed`)."""
    got = split(view) if isinstance(view, str) and shown else None
    if got is not None and got[0] == shown:
        return {"key": got[0], "cells": got[1]}
    return keyed(view)
