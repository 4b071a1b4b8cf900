"""The workbench's per-session state, held by the app itself rather than in gradio's session table.

Why not ``gr.State``: gradio keeps ``state_session_capacity`` sessions, least recently used dropped first, and every
REST call without a session hash is a new session. A script sending anonymous ``/compute`` calls therefore evicted
the state of a learner who had paused (issue #12). Here the key is the page's own session hash, and an entry is
written only by a handler of a page that loaded (its load event, a preset, a file, an edit that parsed), so API
calls never create one and cannot push one out.

Bounds, in entries and in an estimate of bytes, hold against a script that drives the page's own events too:
* entries a page has edited ("used") are dropped only after every entry that was merely loaded, and only when the
  bounds are reached, least recently used first;
* nothing expires by idle time short of ``IDLE_S``, so a learner back from a 30-minute break goes on where they
  stopped.

The store is process state on purpose (it is the server's session table); each entry is one session's, reached
only through that session's hash, and every value stored is a new object (a page's values are a frozen PageValues,
ui/values.py; handlers never mutate what they read).
"""

from __future__ import annotations

import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

IDLE_S = 24 * 3600.0  # an entry untouched this long is dropped at the next write
MAX_ENTRIES = 2_000
MAX_BYTES = 400 * 2**20  # estimated; a default-preset session is ~5 KB, the largest legal state ~4 MB
CELL_BYTES = 40  # a table cell held as a Python float or short string, with its list slot
BASE_BYTES = 4_096  # the dict, its keys and the small values


Sizes = dict[int, tuple[Any, int]]  # id(table) -> (the table, its size): the table held, so its id stays its own


def estimate_bytes(values: dict[str, Any], known: Sizes | None = None) -> tuple[int, Sizes]:
    """Rough size of one session's values: a fixed part plus CELL_BYTES per table cell or character; and the sizes
    of the tables in it. ``known``: the sizes of the entry's tables before, reused for a table that is the very same
    object (values are never mutated: an edit makes a new table and keeps the others, so an edit at T=64 weighs
    the one table it changed, not all 16,000 cells: 0.1 ms instead of 12)."""
    memo: Sizes = {}
    total = BASE_BYTES + sum(_size(v, known or {}, memo) for v in values.values())
    return total, memo


def _size(v: Any, known: Sizes, memo: Sizes) -> int:
    if isinstance(v, str):
        return len(v)
    told = getattr(v, "approx_bytes", None)  # (a view that says its size: ui/render/slots.py Drawn, a look's)
    if isinstance(told, int):
        return told
    names = None if isinstance(v, type) else getattr(v, "__dataclass_fields__", None)  # ui/values.py's PageValues
    if names is None and not isinstance(v, (dict, list)):
        return 0
    if id(v) in memo and memo[id(v)][0] is v:
        return 0  # counted already in this pass (one table held twice, e.g. by a look ahead's values)
    hit = known.get(id(v))
    if hit is not None and hit[0] is v:
        memo[id(v)] = hit
        return hit[1]
    if names is not None:  # (its fields, as a dict's values)
        n = sum(_size(getattr(v, name), known, memo) for name in names)
    elif isinstance(v, dict):
        n = sum(_size(x, known, memo) for x in v.values())
    else:
        n = CELL_BYTES * len(v) + sum(_size(x, known, memo) for x in v if isinstance(x, (list, dict, str)))
    if len(names if names is not None else v) >= 8:  # (small ones are cheaper to count again than to remember)
        memo[id(v)] = (v, n)
    return n


@dataclass
class Entry:
    values: dict[str, Any]
    size: int
    touched: float
    used: bool = False  # written by an edit, not only by loading
    sizes: Sizes = field(default_factory=dict)  # its tables' sizes (estimate_bytes)


@dataclass
class SessionStore:
    """Session hash -> that page's values (``{"preset": …, "shape": …, "vals": …}``), bounded; thread-safe."""

    max_entries: int = MAX_ENTRIES
    max_bytes: int = MAX_BYTES
    idle_s: float = IDLE_S
    clock: Callable[[], float] = time.monotonic
    _entries: OrderedDict[str, Entry] = field(default_factory=OrderedDict)
    _bytes: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _locks: weakref.WeakValueDictionary[str, threading.Lock] = field(default_factory=weakref.WeakValueDictionary)

    def lock(self, key: str | None) -> threading.Lock:
        """This session's own lock for a read-compute-write: its queued events and its live edits (two ways in)
        never interleave, so neither writes over the other's values. Kept while someone holds it."""
        with self._lock:
            lk = self._locks.get(key or "")
            if lk is None:
                lk = self._locks[key or ""] = threading.Lock()
            return lk

    def get(self, key: str | None) -> dict[str, Any] | None:
        """This session's values, or None when it has none (never loaded, or dropped). Marks it recently used."""
        if not key:
            return None
        with self._lock:
            e = self._entries.get(key)
            if e is None:
                return None
            e.touched = self.clock()
            self._entries.move_to_end(key)
            return e.values

    def put(self, key: str | None, values: dict[str, Any], used: bool) -> None:
        """Merge ``values`` into the session's entry (made if absent), then hold the bounds."""
        if not key:
            return
        with self._lock:
            old = self._entries.pop(key, None)
            merged = {**(old.values if old else {}), **values}
            size, sizes = estimate_bytes(merged, old.sizes if old else None)
            entry = Entry(merged, size, self.clock(), used or bool(old and old.used), sizes)
            self._bytes += entry.size - (old.size if old else 0)
            self._entries[key] = entry
            self._evict(keep=key)

    def drop(self, key: str) -> None:
        with self._lock:
            e = self._entries.pop(key, None)
            self._bytes -= e.size if e else 0

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def bytes(self) -> int:
        return self._bytes

    def _evict(self, keep: str) -> None:
        now = self.clock()
        while self._entries:  # least recently used first: stop at the first one touched within idle_s
            k, e = next(iter(self._entries.items()))
            if k == keep or now - e.touched <= self.idle_s:
                break
            self._bytes -= self._entries.pop(k).size
        for used in (False, True):  # merely loaded pages go first
            if len(self._entries) <= self.max_entries and self._bytes <= self.max_bytes:
                return
            for k in [k for k, e in self._entries.items() if e.used is used and k != keep]:
                if len(self._entries) <= self.max_entries and self._bytes <= self.max_bytes:
                    return
                self._bytes -= self._entries.pop(k).size
