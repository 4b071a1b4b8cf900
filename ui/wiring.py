"""How handlers meet gradio: per-page Slots in the session store, ``on()``, ``stream()`` and ``Page``.

Why this exists: each page's state (preset, shape, values, quiz, pin, training) lives in ``STORE``
(serving/sessions.py), keyed by the page's session hash, not in ``gr.State``: gradio's own session table is small
and least-recently-used, and any script can make session hashes, so a learner's state would be evicted. ``on``
rewrites a handler's signature with ``inspect`` so that gradio passes only real components and the request,
fills the handler's Slots from the page's entry, and stores what it answers for them under the page's lock.
Without it every handler would take and return ``gr.State`` values that gradio keeps (and drops) itself.
"""

from __future__ import annotations

import functools
import inspect
import math
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import gradio as gr

from serving.sessions import SessionStore
from ui.assets import (
    AFTER_EVENTS,
    AFTER_LIVE_EDITS,
    AFTER_QUEUED,
    LANDED,
    LANDED_WRITER,
    NEWEST_JS,
    STAMPED,
    STAMPED_AFTER_EVENTS,
    WRITER,
    control_js,
    control_landed,
    in_turn,
)
from ui.edits import page_grids
from ui.pipeline import VIEW_KEYS, expired_got
from ui.values import FIELDS, PageValues, shown

COMMON = {"trigger_mode": "always_last", "show_progress": "hidden", "api_visibility": "private"}


WHOLE_BOXES: weakref.WeakSet[gr.Number] = weakref.WeakSet()  # the boxes whole_number made (on() reads them)


def whole_number(value: Any, **kwargs: Any) -> gr.Number:
    """A box for a whole-number setting (T, d_model, heads, a seed, a window …), whose typed value reaches the
    handler as typed: 2.5 as 2.5, 3 as the int 3 (gradio hands a box without a precision its value as a float:
    :func:`on` and :func:`stream` turn a whole one back into an int). gradio's own
    precision=0 rounded it before any handler saw it, half to even and unseen: T 2.5 computed 2 tokens, heads 1.5
    two heads, seed 7.5 seed 8's weights, under boxes still reading 2.5, 1.5 and 7.5. The handler's parse
    (attention_core parse_int) now names it ("T: 2.5 is not a whole number") and the box goes back to the value in
    force, as for any refused value. (Not a gr.Number subclass: gradio writes a .pyi file beside the module of every
    component class defined outside it; not a wrapped preprocess: gradio redraws an updated box from its class.)"""
    box = gr.Number(value, **kwargs)
    WHOLE_BOXES.add(box)
    return box


def whole(value: Any) -> Any:
    """A whole box's value as its handler takes it: a whole float as an int (3.0 -> 3), anything else as it came."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def arguments(inputs: list[Any], wholes: list[bool], entry: dict[str, Any], given: list[Any]) -> list[Any]:
    """A handler's ``inputs`` as :func:`on` and :func:`stream` pass them: a Slot's value from the page's STORE
    ``entry``, a component's as gradio ``given`` it in order, a whole box's whole float as an int (``wholes``, by
    position: whether each input is one of whole_number's boxes)."""
    it = iter(given)
    return [
        entry.get(c.name) if isinstance(c, Slot) else whole(next(it)) if w else next(it)
        for c, w in zip(inputs, wholes, strict=True)
    ]


def bind(fn: Callable[..., Any], *bound: Any) -> Callable[..., Any]:
    """``functools.partial`` that Gradio can read: the remaining parameters keep their names and annotations,
    so ``gr.Request`` and ``gr.EventData`` are still recognised."""

    @functools.wraps(fn)
    def handler(*args: Any) -> Any:
        return fn(*bound, *args)

    params = list(inspect.signature(fn).parameters.values())[len(bound) :]
    handler.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    return handler


@dataclass(frozen=True)
class Slot:
    """A per-session value held in ``STORE`` (not a gradio component): "preset", "shape" or "vals".

    Handlers read and write Slots as if they were components; ``on`` fills them from this session's entry and
    stores what the handler returns for them, so gradio neither sees nor keeps them.
    """

    name: str


STORE = SessionStore()  # the server's table of pages' state: one entry per session hash (see sessions.py)


# called as f(session hash, its entry) after a handler or a live edit stored a page's values: a lesson room's
# teacher page publishes its state (ui/room.py); each must be cheap for every other page (a dict lookup)
AFTER_WRITE: list[Callable[[str | None, dict[str, Any]], None]] = []


def wrote(key: str | None) -> None:
    """Tell AFTER_WRITE that ``key``'s values were stored (called under that page's lock)."""
    if AFTER_WRITE:
        entry = STORE.get(key) or {}
        for f in AFTER_WRITE:
            f(key, entry)


class Newest:
    """The newest call the page made of each stamped handler (``on(..., stamp=...)``), by the number the page gave it
    as it left (page.js stamp). gradio's client can send two calls of one event at once (a key typed while the
    previous key's call is still being sent: its ``always_last`` holds back only calls made once that one is on its
    way), and the server may then take them in either order; an older call's answer, drawn last, showed '1ab' for a
    box holding '1abc'. A handler numbered ``by_value`` is outdated only by a newer call that carries other values
    (a box's blur right after its Enter, with the same value, leaves the Enter's answer be). Bounded: the least
    recently stamped pages' numbers go first (a forgotten page's next call is simply the newest)."""

    SIZE = 16384  # (a page numbers up to ~30 handlers: the workbench's controls, the labs)

    def __init__(self) -> None:
        self.seen: OrderedDict[tuple[str | None, str], tuple[float, int | None]] = OrderedDict()
        self.guard = threading.Lock()

    def arrived(self, key: str | None, name: str, n: Any, said: int | None = None) -> None:
        """A call numbered ``n`` (None: unnumbered, never dropped) of handler ``name`` for page ``key`` came in,
        carrying values whose hash is ``said`` (None: its values are not compared)."""
        if not isinstance(n, int | float):
            return
        with self.guard:
            k = (key, name)
            if k not in self.seen or n > self.seen[k][0]:
                self.seen[k] = (n, said)
            self.seen.move_to_end(k)
            while len(self.seen) > self.SIZE:
                self.seen.popitem(last=False)

    def outdated(self, key: str | None, name: str, n: Any, said: int | None = None) -> bool:
        """Whether a later call than ``n`` of handler ``name`` for page ``key`` has come in (one carrying other values
        than ``said``, if given): ``n``'s answer would be drawn over that one's (or before it, for nothing)."""
        if not isinstance(n, int | float):
            return False  # (an unstamped handler's every call: no lock taken)
        with self.guard:
            newest, its = self.seen.get((key, name), (n, said))
            return newest > n and (said is None or its != said)


NEWEST = Newest()


def call_number(n: Any) -> float | None:
    """A call's number as the page sent it (page.js stamp), or None: a call not numbered, answered and never dropped
    (anything but a finite number, which only a script sends: ±Infinity made :func:`numbered` raise, and NaN would
    compare as neither older nor newer)."""
    return n if isinstance(n, int | float) and not isinstance(n, bool) and math.isfinite(n) else None


def handler_name(fn: Callable[..., Any], outputs: list[Any]) -> str:
    """A handler's name for :data:`NEWEST`: its function's, and its outputs' (bind() gives every binding of one
    function its name)."""
    return f"{getattr(fn, '__module__', '')}.{getattr(fn, '__qualname__', repr(fn))}:{[id(c) for c in outputs]}"


def on(trigger: Callable[..., Any], fn: Callable[..., Any], inputs: list[Any], outputs: list[Any], **kw: Any) -> None:
    """``trigger(fn, inputs, outputs)`` where Slots in ``inputs``/``outputs`` live in this session's STORE entry.

    ``fn``'s parameters are ``inputs`` in order, then any gr.EventData / gr.Request it asks for. ``kw`` may hold
    ``loads=True`` (the page's load event: its entry does not count as used, see sessions.py), ``reads=True`` (an
    event that reads the stored state: it leaves once every event on its way has landed, ui/assets.py AFTER_EVENTS),
    ``landed`` (the ``js`` run once it has landed: LANDED, LANDED_STORED or LANDED_LAB), ``before`` (the ``js`` run
    before it leaves, in place of AFTER_LIVE_EDITS: it must wait as that does), ``newest`` (a stamped handler's name
    for :data:`NEWEST`: handlers given one name outdate each other's older calls), ``outdated_by`` (the names of
    other handlers, numbered by the same ``stamp``, whose newer calls outdate this one's too, not the other way round:
    the mask lab's keystrokes are outdated by a newer commit, never a commit by a keystroke), ``by_value`` (a call is
    outdated only by a newer one carrying other values, :class:`Newest`: True compares the shown inputs' values as
    given, a function of them says what a call asks, as a str), ``writes`` and ``echo`` (:func:`event_js`) and
    gradio's own event options.
    """
    loads = kw.pop("loads", False)
    reads = kw.pop("reads", False)  # (an event that only reads the stored state: AFTER_EVENTS)
    stamp = kw.pop("stamp", None)
    sets, echo = kw.pop("writes", False), kw.pop("echo", False)  # (its answer sets the controls; a control's call)
    landed = kw.pop("landed", LANDED_WRITER if sets else LANDED)  # (or LANDED_STORED, LANDED_LAB)
    newest = kw.pop("newest", None)
    outdated_by = tuple(kw.pop("outdated_by", ()))
    by_value = kw.pop("by_value", False)
    before = kw.pop("before", None)  # (the js before it leaves, in place of AFTER_LIVE_EDITS: the Train tab's Pause)
    shown_in = [c for c in inputs if not isinstance(c, Slot)]
    shown_out = [c for c in outputs if not isinstance(c, Slot)]
    params = list(inspect.signature(fn).parameters.values())
    extra = params[len(inputs) :]  # gradio fills these by annotation (EventData, Request)
    name = newest or handler_name(fn, shown_out)
    skipped = gr.skip() if len(shown_out) == 1 else [gr.skip()] * len(shown_out)
    wholes = [c in WHOLE_BOXES for c in inputs]  # (read once: see arguments)

    def handler(*args: Any) -> Any:
        *given, request = args
        key = getattr(request, "session_hash", None)
        n = call_number(given.pop(0)) if stamp is not None else None
        n, waited = (-n, True) if echo and n is not None and n < 0 else (n, False)  # (control_js)
        said = asked(by_value, given[: len(shown_in)])
        NEWEST.arrived(key, name, n, said)

        def late() -> bool:
            return any(NEWEST.outdated(key, k, n, said) for k in (name, *outdated_by))

        with STORE.lock(key):  # (live edits of the same page wait, see live_edit)
            if late():
                return skipped  # a later call is on its way: its answer is the one to draw
            entry = STORE.get(key) or {}
            full = arguments(inputs, wholes, entry, given[: len(shown_in)])
            out = fn(*full, *given[len(shown_in) :])
            if late():
                return skipped
            writes, rest = split_slots(out, outputs)
            rest = numbered(rest, n, shown_out)
            rest = echoed(rest, shown_in[0], given[0]) if waited and writes else rest  # (taken: stored)
            if writes:  # (a look ahead computed on the old values goes with them: ui/live.py)
                STORE.put(key, {**writes, "ahead": None} if "vals" in writes else writes, used=not loads)
                if "vals" in writes or "preset" in writes:
                    wrote(key)
        return rest

    positional = inspect.Parameter.POSITIONAL_OR_KEYWORD
    stamped = [inspect.Parameter("stamp", positional)] if stamp is not None else []
    sig = inspect.Signature(
        stamped
        + [inspect.Parameter(f"in{i}", positional) for i in range(len(shown_in))]
        + [p.replace(annotation=gr.EventData if "EventData" in str(p.annotation) else gr.Request) for p in extra]
        + [inspect.Parameter("session_request", positional, annotation=gr.Request)]
    )
    handler.__signature__ = sig  # type: ignore[attr-defined]
    handler.__annotations__ = {p.name: p.annotation for p in sig.parameters.values() if p.annotation is not p.empty}
    handler.__name__ = getattr(fn, "__name__", "handler")
    handler.reads = tuple(c.name for c in inputs if isinstance(c, Slot))  # type: ignore[attr-defined]
    js = control_js(name, sets) if echo else event_js(loads, reads, stamp is not None, sets, before)
    event = trigger(handler, ([stamp] if stamp is not None else []) + shown_in, shown_out, js=js, **kw)
    if not loads:  # it has landed, or failed: the page's live edits wait for it (static/page.js eventsLanded).
        # (gradio's cancel() would run both: no event of on()'s is cancelled, as on() returns none to cancel)
        js_after = in_turn(landed, control_landed(name)) if echo else landed  # (a control's call: no longer on its
        for after in (event.then, event.failure):  # way, page.js controlLanded)
            after(None, js=js_after, show_progress="hidden", api_visibility="private")


def event_js(loads: bool, reads: bool, stamped: bool, writes: bool, before: str | None) -> str | None:
    """The ``js`` an event of :func:`on` runs before it leaves, from its options (as :func:`on` says them), for any
    but a control's own call (``echo``: assets control_js). ``writes``: its answer sets the workbench's controls (a
    preset loaded, a size changed), and a control's call made while it is on its way waits for it (page.js
    controlLeaves); such a call leaves numbered negatively, and its answer, when the call was taken, sets the
    control to the value it carried (``echo``, :func:`echoed`)."""
    if before is not None and (reads or stamped or loads or writes):
        raise ValueError(
            "on(): before= replaces AFTER_LIVE_EDITS only; a reads=, stamp=, writes= or loads= event has its own js"
        )
    if loads:
        return None  # (the load event sends at once: the live edits wait for its answer, static/grid.js)
    if reads:
        return STAMPED_AFTER_EVENTS if stamped else AFTER_EVENTS
    if stamped:
        return STAMPED
    return WRITER if writes else before or AFTER_LIVE_EDITS


def echoed(rest: Any, box: Any, value: Any) -> Any:
    """The answer (``rest``) of a control's call that was taken setting its ``box`` to the ``value`` it carried,
    unless the answer sets it itself (a head past the heads to the last one): the call waited for an answer that set
    the controls (a preset loaded), drawn before this one, so the box may show that answer's value instead. (A
    refused call stores nothing and is not echoed: its box is put back as any refusal's, ui/workbench.py put_back.)"""
    if isinstance(rest, dict) and "__type__" not in rest:
        u = rest.get(box)
        if u is not None and not (isinstance(u, dict) and "value" not in u):
            return rest
        return {**rest, box: {**(u or {}), "__type__": "update", "value": value}}
    return {box: value} if rest == gr.skip() else rest  # (an answer of nothing: gr.skip(), split_slots)


def asked(by_value: Any, values: list[Any]) -> int | None:
    """What a call asks, for :class:`Newest` (``on(by_value=)``): None (its values not compared), the hash of the
    values as given (True), or of what the function ``by_value`` says they ask."""
    if not by_value:
        return None
    return hash(by_value(values) if callable(by_value) else repr(values))


def numbered(rest: Any, n: Any, outputs: list[Any]) -> Any:
    """A stamped call's answer (``rest``, for the components ``outputs``) with the value (a str) of each view drawn
    by static/newest.js first saying the call's number ``n``, ``<!--call n-->``: such a view draws no answer to an
    older call than the one it shows, should two answers reach it out of order (the server drops a call only once a
    newer one has come in). Updates (gr.skip, gr.update) and other components' values are left as they are (the
    workbench's views, drawn by watch.js, take an answer's HTML as it is)."""
    if not isinstance(n, int | float):
        return rest
    mark = f"<!--call {int(n)}-->"

    def one(c: Any, v: Any) -> Any:
        return mark + v if getattr(c, "js_on_load", None) == NEWEST_JS and isinstance(v, str) else v

    if isinstance(rest, dict) and "__type__" not in rest:  # {component: value}
        return {c: one(c, v) for c, v in rest.items()}
    if isinstance(rest, tuple | list) and len(outputs) > 1:
        return type(rest)(one(c, v) for c, v in zip(outputs, rest, strict=False))
    return one(outputs[0], rest) if len(outputs) == 1 else rest


def split_slots(out: Any, outputs: list[Any]) -> tuple[dict[str, Any], Any]:
    """A handler's answer split into (Slot name -> value to store, what gradio gets for the real outputs)."""
    skip = gr.skip()
    if isinstance(out, dict) and "__type__" not in out:  # {component: value}
        writes = {c.name: v for c, v in out.items() if isinstance(c, Slot) and v != skip}
        rest = {c: v for c, v in out.items() if not isinstance(c, Slot)}
        if not rest and any(not isinstance(c, Slot) for c in outputs):
            # gradio takes an empty dict as the value of a lone output (and refuses it for several): show nothing
            return writes, skip
        return writes, rest
    values = list(out) if len(outputs) > 1 else [out]
    writes = {c.name: v for c, v in zip(outputs, values, strict=True) if isinstance(c, Slot) and v != skip}
    rest = [v for c, v in zip(outputs, values, strict=True) if not isinstance(c, Slot)]
    return writes, (rest[0] if len(rest) == 1 else rest or None)


PICKER_LABEL, PICKER_FREE = "Preset (notebook example)", "Preset: none loaded (free play)"


@dataclass
class Page:
    """Every component a handler reads or writes, so handlers can answer with {component: value}."""

    preset: Any
    preset_state: Slot
    shape_state: Slot
    vals_state: Slot
    controls: dict[str, Any]
    inputs: Any
    views: dict[str, Any]  # VIEW_KEYS -> component

    def view_updates(self, got: dict[str, Any]) -> dict[Any, Any]:
        return {self.views[k]: got[k] for k in VIEW_KEYS if k in got}

    def edited(self, nv: PageValues | None, got: dict[str, Any], grid: str | None) -> dict[Any, Any]:
        """:func:`edit_result` as component updates (the values stored only when the edit was taken)."""
        out = self.view_updates(got)
        if nv is not None:
            out[self.vals_state] = nv
        if grid is not None:
            out[self.inputs] = grid
        return out

    def value_updates(self, nv: PageValues) -> dict[Any, Any]:
        """The controls and the input grids showing ``nv`` (controls that do not apply hidden)."""
        out = {self.controls[f]: u for f, u in zip(FIELDS, shown(nv), strict=True) if f in self.controls}
        out[self.inputs] = page_grids(nv)
        return out

    def kept_controls(self, old: PageValues, nv: PageValues) -> dict[Any, Any]:
        """The controls a structural change left as they were (``old`` → ``nv``): only their visibility is sent.
        The page already shows their value, and an answer that arrives late must not put back a value the
        learner has typed since (a "head shown" typed right after "heads" was lost that way under load)."""
        out: dict[Any, Any] = {}
        for f, u in zip(FIELDS, shown(nv), strict=True):
            if f in self.controls and getattr(old, f) == getattr(nv, f):
                out[self.controls[f]] = gr.update(visible=u["visible"]) if isinstance(u, dict) else gr.skip()
        return out

    def everything(self) -> list[Any]:
        return [
            self.preset,
            self.preset_state,
            self.shape_state,
            self.vals_state,
            *self.controls.values(),
            self.inputs,
            *self.views.values(),
        ]

    def answer(self, preset_id: str | None, shape: Any, nv: PageValues, got: dict[str, Any]) -> dict[Any, Any]:
        """A whole new state: preset, states, controls, grids and views (a state that is no preset clears the
        picker, so the picker and the badge's "Free play" agree)."""
        return {
            self.preset: gr.update(value=preset_id, label=PICKER_LABEL if preset_id else PICKER_FREE),
            self.preset_state: preset_id,
            self.shape_state: shape,
            self.vals_state: nv,
            **self.value_updates(nv),
            **self.view_updates(got),
        }


def expired(page: Page) -> dict[Any, Any]:
    return page.view_updates(expired_got())


def superseded(stored: dict[str, Any], writes: dict[str, Any]) -> bool:
    """Whether a stream's ``writes`` are older than what is stored: a Slot value that is a dict with a ``"run"``
    counter is a run's own; another event (pause, reset, a step) stores it with a higher counter, and a run must
    not write its lower one back over it (the run would go on and the pause be lost)."""
    for name, new in writes.items():
        old = stored.get(name)
        if isinstance(new, dict) and isinstance(old, dict) and "run" in new and "run" in old:
            if int(old["run"]) > int(new["run"]):
                return True
    return False


def stream(
    trigger: Callable[..., Any], fn: Callable[..., Iterator[Any]], inputs: list[Any],
    outputs: list[Any], **kw: Any,
) -> Any:  # fmt: skip
    """Like ``playground.on`` for a generator: each yield's Slot values are stored before it is sent.

    ``fn`` gets ``inputs`` in order, then ``live(name)``: that Slot's value now (another event may change it
    while this one runs, e.g. pause). Each yield's Slot values are written only if no other event has moved
    their run counter on meanwhile (``superseded``); if one has, that update is neither stored nor sent, and
    ``fn`` sees the moved counter at its next look (a pause then gets its last "paused" update, see ui/train.py).
    It leaves the page once every queued event on its way has landed (ui/assets.py AFTER_QUEUED: a Reset clicked
    just before Run is taken before the run begins; a ``js`` in ``kw`` replaces it and must wait as it does, as
    RUN_COUNTED does). Returns the event, for ``cancels=``.
    """
    shown_in = [c for c in inputs if not isinstance(c, Slot)]
    shown_out = [c for c in outputs if not isinstance(c, Slot)]
    wholes = [c in WHOLE_BOXES for c in inputs]  # (read once: see arguments)

    def handler(*args: Any) -> Iterator[Any]:
        *given, request = args
        key = getattr(request, "session_hash", None)
        entry = STORE.get(key) or {}
        full = arguments(inputs, wholes, entry, given)

        def live(name: str) -> Any:
            return (STORE.get(key) or {}).get(name)

        for out in fn(*full, live):
            writes, rest = split_slots(out, outputs)
            with STORE.lock(key):  # the check and the write as one step against pause, reset, step
                if superseded(STORE.get(key) or {}, writes):
                    continue  # another event moved the run on after fn's own check: this update is not sent
                if writes:
                    STORE.put(key, writes, used=True)
            yield rest

    positional = inspect.Parameter.POSITIONAL_OR_KEYWORD
    sig = inspect.Signature(
        [inspect.Parameter(f"in{i}", positional) for i in range(len(shown_in))]
        + [inspect.Parameter("session_request", positional, annotation=gr.Request)]
    )
    handler.__signature__ = sig  # type: ignore[attr-defined]
    handler.__annotations__ = {"session_request": gr.Request}
    handler.__name__ = getattr(fn, "__name__", "stream")
    return trigger(handler, shown_in, shown_out, js=kw.pop("js", AFTER_QUEUED), **kw)
