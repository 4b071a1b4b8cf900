"""A drawn view's numbers as data, from the renderers themselves: what a live edit sends a page that already shows
the view's shape.

A drawn view (the overview, the notebook's steps, the heatmaps: ``static/live.js`` drawnView) is HTML. Between two
values of one shape only its *slots* differ: each exact-number cell's colour class, exact value (title) and text
(``tables.html_table``), the text of torch's prints (:func:`pre`) and each heatmap's scale and bytes
(:func:`canvas`). Everything else is the view's *skeleton*, named by a short key.

While :func:`collecting` is on (``pipeline.compute_views`` for a live edit), each renderer of a slot puts the slot
in the collection and writes a placeholder where its HTML goes; the view's text around the placeholders is its
skeleton. :class:`Drawn` holds one view that way: its key (the skeleton's text and each slot's own skeleton,
hashed), its slots' contents as JSON data (:meth:`Drawn.data`) and its HTML (:meth:`Drawn.html`, written only when
asked: for a page that shows another skeleton). Outside :func:`collecting` each renderer writes its HTML at once,
as before. No HTML is parsed on the way: tests/test_slots.py reads the HTML with an independent parser and checks
that the data is what the page's nodes must hold.

The data (``static/morph.js`` fill writes it into the nodes in this order): ``pal`` (the number cells' classes) and
``cls`` (one character per number cell, its class's index in ``pal``), ``title`` and ``text`` (the number cells'
titles, for the tables that have them, and texts, joined by single spaces: numbers hold none), ``pre`` (the prints'
texts, as the browser's parser reads them), ``canvas`` ([data-lo, data-hi, data-z] of each heatmap).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import html
import secrets
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

STR_BYTES = 50  # a short str object's own bytes, past its characters (CPython: 49 for ASCII)
PALETTE = "".join(chr(c) for c in range(35, 127) if chr(c) != "\\")  # a class's index as one JSON-safe character


@dataclasses.dataclass(frozen=True, slots=True)
class Table:
    """One exact-number table (``tables.html_table``): ``start`` (its HTML up to the first body row: the window's
    note, caption, the table's tag and its header row), ``heads`` (each body row's opening and row header), ``row0``
    (the full tensor's row of the first row shown), ``cols`` (each column's data-c), ``classes`` and ``texts`` (R, C)
    (each cell's class and text), ``titles`` (R, C) (each cell's exact value, or None: the table writes no
    titles), ``end`` (its closing HTML)."""

    start: str
    heads: list[str]
    row0: int
    cols: list[str]
    classes: list[list[str]]
    texts: list[list[str]]
    titles: list[list[str]] | None
    end: str

    def skeleton(self) -> str:
        return "\x01".join((self.start, "".join(self.heads), str(self.row0), " ".join(self.cols),
                            "t" if self.titles is not None else "", self.end))  # fmt: skip

    def html(self) -> str:
        body = []
        titled = self.titles is not None
        for i, head in enumerate(self.heads):
            mid = f"' data-r='{self.row0 + i}' data-c='"  # one string per row, each cell's own parts in one f-string
            cells = zip(self.classes[i], self.cols, self.texts[i], strict=True)
            if titled:
                tds = "".join([f"<td class='{c}{mid}{j}' title='{t}'>{n}</td>"
                               for (c, j, n), t in zip(cells, self.titles[i], strict=True)])  # fmt: skip
            else:
                tds = "".join([f"<td class='{c}{mid}{j}'>{n}</td>" for c, j, n in cells])
            body.append(f"{head}{tds}</tr>")
        return f"{self.start}{''.join(body)}{self.end}"


@dataclasses.dataclass(frozen=True, slots=True)
class Pre:
    """One print of torch's (``<pre class='tensor'>``): its text, unescaped."""

    text: str

    def skeleton(self) -> str:
        return "pre"

    def html(self) -> str:
        return f"<pre class='tensor'>{html.escape(self.text)}</pre>"

    def read(self) -> str:
        """The text as the browser's parser gives the <pre>'s node: CR LF as LF, one newline right after the tag
        dropped."""
        text = self.text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in self.text else self.text
        return text[1:] if text.startswith("\n") else text


@dataclasses.dataclass(frozen=True, slots=True)
class Canvas:
    """One heatmap's canvas tag up to its painted bytes: ``start`` (``<canvas`` and the attributes before them),
    its scale (``lo``, ``hi``, as written) and bytes (``z``, base64); the rest of the tag follows in the view."""

    start: str
    lo: str
    hi: str
    z: str

    def skeleton(self) -> str:
        return self.start

    def html(self) -> str:
        return f"{self.start}data-lo='{self.lo}' data-hi='{self.hi}' data-z='{self.z}'"


Slot = Table | Pre | Canvas


@dataclasses.dataclass(frozen=True)
class Collection:
    """The slots put while :func:`collecting`, and the mark their placeholders start with: a NUL and 16 random hex
    digits of this collection's own (``{mark}{index}\x00``), so that no text a learner typed (a token may hold a NUL,
    which the browser shows as �) is ever read as a placeholder."""

    slots: list[Slot] = dataclasses.field(default_factory=list)
    mark: str = dataclasses.field(default_factory=lambda: f"\x00{secrets.token_hex(8)}")


_COLLECTING: ContextVar[Collection | None] = ContextVar("slots", default=None)


def put(slot: Slot) -> str:
    """``slot``'s place in a view: its placeholder while :func:`collecting`, else its HTML."""
    held = _COLLECTING.get()
    if held is None:
        return slot.html()
    held.slots.append(slot)
    return f"{held.mark}{len(held.slots) - 1}\x00"


def pre(text: str) -> str:
    """A print of torch's as a view holds it (:class:`Pre`)."""
    return put(Pre(text))


def canvas(start: str, lo: str, hi: str, z: str) -> str:
    """A heatmap canvas's tag up to its bytes as a view holds it (:class:`Canvas`)."""
    return put(Canvas(start, lo, hi, z))


@contextlib.contextmanager
def collecting() -> Iterator[Collection]:
    """Slots put while this is on go into the collection it yields (views then hold placeholders: :class:`Drawn`)."""
    held = Collection()
    token = _COLLECTING.set(held)
    try:
        yield held
    finally:
        _COLLECTING.reset(token)


class Drawn:
    """One drawn view made while :func:`collecting`: its text with placeholders and the collection they index.

    ``key``: the skeleton's name (its text around the slots and each slot's own skeleton, hashed); ``html()``: the
    view's HTML; ``data()``: its slots as JSON data (the module's docstring), or None when they cannot go as data
    (more distinct classes than the palette holds, or a number's text holding a space: then the view goes as HTML).
    """

    __slots__ = ("_bytes", "_key", "_parts", "_slots")

    def __init__(self, text: str, collected: Collection) -> None:
        first, *rest = text.split(collected.mark)  # each part after the first: a slot's index, a NUL, the text after it
        cut = [part.split("\x00", 1) for part in rest]
        self._parts = [first, *(after for _, after in cut)]
        self._slots = [collected.slots[int(i)] for i, _ in cut]
        self._key: str | None = None
        self._bytes: int | None = None

    @property
    def key(self) -> str:
        """The skeleton's name, hashed when first asked (a view only written out as HTML never needs it)."""
        if self._key is None:
            whole = "\x02".join(["\x02".join(self._parts), *(s.skeleton() for s in self._slots)])
            self._key = hashlib.sha1(whole.encode()).hexdigest()[:16]
        return self._key

    @property
    def approx_bytes(self) -> int:
        """About how many bytes the view holds (serving/sessions.py counts a look ahead's views by it): its
        characters, and for each number cell its text's and title's own string objects (STR_BYTES each) and the
        list slots that hold them and its class (a class's string is shared)."""
        if self._bytes is None:
            n = sum(map(len, self._parts))
            for s in self._slots:
                if isinstance(s, Table):
                    own = [*s.texts, *(s.titles or [])]
                    cells = sum(map(len, s.classes))
                    n += len(s.start) + len(s.end) + sum(map(len, s.heads)) + sum(len("".join(r)) for r in own)
                    n += (STR_BYTES * (2 if s.titles is not None else 1) + 8 * 3) * cells
                else:
                    n += len(s.text) if isinstance(s, Pre) else len(s.start) + len(s.z)
            self._bytes = n
        return self._bytes

    def html(self) -> str:
        out = [self._parts[0]]
        for slot, after in zip(self._slots, self._parts[1:], strict=True):
            out += (slot.html(), after)
        return "".join(out)

    def data(self) -> dict[str, Any] | None:
        classes: list[str] = []
        texts: list[str] = []
        titles: list[str] = []
        pres: list[str] = []
        canvases: list[list[str]] = []
        for s in self._slots:
            if isinstance(s, Table):
                for row in s.classes:
                    classes += row
                for row in s.texts:
                    texts += row
                if s.titles is not None:
                    for row in s.titles:
                        titles += row
            elif isinstance(s, Pre):
                pres.append(s.read())
            else:
                canvases.append([s.lo, s.hi, s.z])
        text, title = " ".join(texts), " ".join(titles)
        if text.count(" ") != max(0, len(texts) - 1) or title.count(" ") != max(0, len(titles) - 1):
            return None  # (the page splits them at spaces)
        distinct = dict.fromkeys(classes)
        if len(distinct) > len(PALETTE):
            return None  # (one character a class)
        pal = {k: PALETTE[i] for i, k in enumerate(distinct)}
        return {"pal": list(pal), "cls": "".join(map(pal.__getitem__, classes)), "title": title, "text": text,
                "pre": pres, "canvas": canvases}  # fmt: skip


def expand(text: str, collected: Collection) -> str:
    """A text made while :func:`collecting` as HTML (its placeholders written out)."""
    return Drawn(text, collected).html() if collected.mark in text else text


def keyed(view: Any) -> dict[str, Any]:
    """A view's answer for a page that shows another skeleton, or none: its HTML, and its key if it is drawn."""
    return {"value": view.html(), "key": view.key} if isinstance(view, Drawn) else {"value": view}


def answer(view: Any, shown: str | None) -> dict[str, Any]:
    """A view's answer to a live edit: only its slots (``{"key", "cells"}``) for a page showing its skeleton
    (``shown``, the key the page holds), else its HTML (:func:`keyed`)."""
    if isinstance(view, Drawn) and shown == view.key:
        got = view.data()
        if got is not None:
            return {"key": view.key, "cells": got}
    return keyed(view)
