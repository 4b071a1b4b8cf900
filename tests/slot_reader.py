"""An independent reading of a drawn view's HTML (Python's own HTML parser): its slots as the page's nodes hold them,
and the HTML's nodes with other slots written in, as static/morph.js fill writes them. tests/test_slots.py checks
the renderers' data (ui/render/slots.py) against it; tests/test_journey_drawn.py makes its hand-written cases' data
with it."""

from __future__ import annotations

from html.parser import HTMLParser
from typing import Any

Event = tuple[Any, ...]
# a class sent as one character: its index in the answer's palette (written here as the page reads it)
CHARS = "".join(chr(c) for c in range(35, 127) if chr(c) != "\\")


class Events(HTMLParser):
    """What a parser reads from HTML: start and end tags with their attributes, and the texts between."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.seen: list[Event] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.seen.append(("<", tag, tuple(sorted((k, v or "") for k, v in attrs))))

    def handle_endtag(self, tag: str) -> None:
        self.seen.append((">", tag))

    def handle_data(self, data: str) -> None:
        if self.seen and self.seen[-1][0] == "text":
            self.seen[-1] = ("text", self.seen[-1][1] + data)
        else:
            self.seen.append(("text", data))


def parsed(text: str) -> list[Event]:
    """The events, with one newline right after <pre> dropped and CR LF read as LF, as a browser's parser does."""
    p = Events()
    p.feed(text)
    p.close()
    seen = p.seen
    for i, e in enumerate(seen):
        if e[0] == "text":
            t = e[1].replace("\r\n", "\n").replace("\r", "\n")
            if i and seen[i - 1][:2] == ("<", "pre") and t.startswith("\n"):
                t = t[1:]
            seen[i] = ("text", t)
    return [e for e in seen if e != ("text", "")]


def _attrs(e: Event) -> dict[str, str]:
    return dict(e[2])


def _end(events: list[Event], i: int, tag: str) -> int:
    """The index of the end tag closing the start tag at ``i`` (no nesting of ``tag`` inside it)."""
    j = i + 1
    while events[j] != (">", tag):
        j += 1
    return j


def slot_places(events: list[Event]) -> list[tuple[str, int, int]]:
    """Each slot as (kind, start, end) in ``events``: "num" (a cell with data-r of a table whose class is 'nt' alone),
    "pre" (a <pre> whose class is 'tensor' alone), "canvas" (every <canvas>), in the order of the HTML."""
    out: list[tuple[str, int, int]] = []
    in_nt = False
    for i, e in enumerate(events):
        if e[0] == "<" and e[1] == "table":
            in_nt = _attrs(e).get("class") == "nt"
        elif e == (">", "table"):
            in_nt = False
        elif e[0] == "<" and e[1] == "td" and in_nt and "data-r" in _attrs(e):
            out.append(("num", i, _end(events, i, "td")))
        elif e[0] == "<" and e[1] == "pre" and _attrs(e).get("class") == "tensor":
            out.append(("pre", i, _end(events, i, "pre")))
        elif e[0] == "<" and e[1] == "canvas":
            out.append(("canvas", i, i))
    return out


def _text(events: list[Event], start: int, end: int) -> str:
    inside = events[start + 1 : end]
    assert all(e[0] == "text" for e in inside), f"a slot holds a tag: {inside}"
    return "".join(e[1] for e in inside)


def read(html_text: str) -> dict[str, Any]:
    """The slots of ``html_text`` as the page's nodes hold them: [class, title or None, text] of each number cell,
    each print's text, [data-lo, data-hi, data-z] of each canvas."""
    events = parsed(html_text)
    out: dict[str, Any] = {"num": [], "pre": [], "canvas": []}
    for kind, i, j in slot_places(events):
        a = _attrs(events[i])
        if kind == "num":
            out["num"].append([a.get("class"), a.get("title"), _text(events, i, j)])
        elif kind == "pre":
            out["pre"].append(_text(events, i, j))
        else:
            out["canvas"].append([a.get("data-lo"), a.get("data-hi"), a.get("data-z")])
    return out


def as_data(got: dict[str, Any]) -> dict[str, Any]:
    """:func:`read`'s slots in the form the server sends them (ui/render/slots.py Drawn.data)."""
    classes = [c for c, _, _ in got["num"]]
    pal = list(dict.fromkeys(classes))
    return {"pal": pal, "cls": "".join(CHARS[pal.index(c)] for c in classes),
            "title": " ".join(t for _, t, _ in got["num"] if t is not None),
            "text": " ".join(x for _, _, x in got["num"]), "pre": got["pre"], "canvas": got["canvas"]}  # fmt: skip


def filled(old: str, data: dict[str, Any]) -> list[Event]:
    """``old``'s nodes with every slot holding ``data``'s, as fill writes them (a title only where a cell has one)."""
    events = parsed(old)
    titles, texts = iter(data["title"].split(" ")), iter(data["text"].split(" "))
    classes, pres, canvases = iter(data["cls"]), iter(data["pre"]), iter(data["canvas"])
    out: list[Event] = []
    at = 0
    for kind, i, j in slot_places(events):
        out += events[at:i]
        a = _attrs(events[i])
        if kind == "num":
            a["class"] = data["pal"][CHARS.index(next(classes))]
            if "title" in a:
                a["title"] = next(titles)
            text = next(texts)
            out += [("<", "td", tuple(sorted(a.items()))), *([("text", text)] if text else []), (">", "td")]
        elif kind == "pre":
            text = next(pres)
            out += [events[i], *([("text", text)] if text else []), (">", "pre")]
        else:
            a["data-lo"], a["data-hi"], a["data-z"] = next(canvases)
            out.append(("<", "canvas", tuple(sorted(a.items()))))
        at = j + 1
    return out + events[at:]


def skeleton(html_text: str) -> list[Event]:
    """``html_text``'s nodes with every slot emptied: two views of one skeleton differ only in their slots."""
    events = parsed(html_text)
    out: list[Event] = []
    at = 0
    for kind, i, j in slot_places(events):
        a = {k: ("" if k in ("class", "title", "data-lo", "data-hi", "data-z") else v) for k, v in events[i][2]}
        out += [*events[at:i], ("<", events[i][1], tuple(sorted(a.items())))]
        at = i + 1 if kind == "canvas" else j  # (a cell's or print's text dropped, its end tag kept)
    return out + events[at:]
