"""Lesson rooms in Redis, for several replicas behind one address: every replica serves every room.

Chosen by ``AP_ROOMS_REDIS=redis://host:port/db`` (:func:`store_from_env`). The store's logic is
``serving.rooms.RoomStore``'s, unchanged; only where a room lives and how a change is told differ:

* one hash per room, ``ap:room:CODE``, with fields ``room`` (the room as JSON) and ``v`` (its version), and a TTL:
  ``IDLE_S`` from its last change (``CLOSED_S`` once closed), so Redis itself drops idle rooms;
* every store call holds one Redis lock (``ap:rooms:lock``, 5 s at most, polled every 2 ms) around its read,
  change and write, so two replicas never interleave a change (calls take about a millisecond: 200 answers in a
  second fit); a room read but not changed is not written back; the routes make these calls from worker threads
  (``blocking``), so a replica's event loop never waits on the lock;
* a change is published on ``ap:room:CODE`` (its version); each replica's listener thread wakes its own
  followers, which read the payload once per version (``v`` is read first: an unchanged room is not loaded).

What stays per replica: the wrong-code table (a flood is limited per address on each replica) and the teacher
pages' sessions (a teacher's page is served by one replica, as gradio's sessions are).
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import asdict, fields
from typing import Any

import redis

from serving import rooms as rm

PREFIX = "ap:room:"
KNOWN_S = 2.0  # a version told by pub/sub is trusted this long; then read again (a message lost to a restart)
LOCK = "ap:rooms:lock"


# Replicas are deployed one by one, so a room may be read by a replica older than the one that wrote it: each object's
# fields this replica does not know are kept in its ``extra`` and written back beside its own (a room holding a
# newer question's fields was refused by ``Question(**q)``, and written back, it would have lost them); a field it
# knows that an older replica did not write takes its default.
def flat(d: dict[str, Any]) -> dict[str, Any]:
    """One object of :func:`dataclasses.asdict`'s output with its ``extra`` fields back beside its own."""
    extra = d.pop("extra", None) or {}
    return {**extra, **d}


def made(cls: Any, d: dict[str, Any]) -> Any:
    """``cls`` from ``d``, the fields it does not know kept in its ``extra``."""
    names = {f.name for f in fields(cls)} - {"extra"}
    return cls(**{k: v for k, v in d.items() if k in names}, extra={k: v for k, v in d.items() if k not in names})


def to_json(room: rm.Room) -> str:
    d = flat(asdict(room))
    d["students"] = {t: flat(s) for t, s in d["students"].items()}
    d["questions"] = [flat(q) for q in d["questions"]]
    return json.dumps(d, separators=(",", ":"))


def from_json(text: str | bytes) -> rm.Room:
    d = json.loads(text)
    d["students"] = {t: made(rm.Student, s) for t, s in d["students"].items()}
    d["questions"] = [made(rm.Question, q) for q in d["questions"]]
    return made(rm.Room, d)


class RedisRooms:
    """The rooms as the store reads them (``get``, ``in``, ``[]=``, ``del``, ``values``, ``items``, ``len``), loaded
    from Redis once per store call and written back, with their TTL, when the call ends (:class:`RedisLock`)."""

    def __init__(self, r: redis.Redis) -> None:
        self.r = r
        self.loaded: dict[str, rm.Room | None] = {}
        self.texts: dict[str, bytes] = {}  # each room's JSON as loaded: a room read but not changed is not written
        self.versions: dict[str, tuple[int, int]] = {}  # each room's (version, teacher's version) when loaded
        self.dropped: set[str] = set()
        self.told: Any = None  # told(code, version, teacher's version) for each change written (the store's own)

    def get(self, code: str, default: Any = None) -> rm.Room | None:
        if code not in self.loaded:
            text = self.r.hget(PREFIX + code, "room")
            room = from_json(text) if text else None
            self.loaded[code] = room
            if room is not None:
                self.versions[code] = (room.version, room.tversion)
                self.texts[code] = text
        return self.loaded[code] or default

    def __contains__(self, code: str) -> bool:
        return self.get(code) is not None

    def __setitem__(self, code: str, room: rm.Room) -> None:
        self.loaded[code] = room
        self.dropped.discard(code)

    def __delitem__(self, code: str) -> None:
        self.loaded[code] = None
        self.dropped.add(code)

    def codes(self) -> list[str]:
        return [k.decode()[len(PREFIX) :] for k in self.r.scan_iter(match=PREFIX + "*", count=500)]

    def items(self) -> Iterator[tuple[str, rm.Room]]:
        for code in self.codes():
            room = self.get(code)
            if room is not None:
                yield code, room

    def values(self) -> Iterator[rm.Room]:
        return (room for _, room in self.items())

    def __len__(self) -> int:
        return len(self.codes())

    def flush(self) -> None:
        """Write back every room this call loaded or made, and tell the replicas of each one that changed."""
        pipe = self.r.pipeline()
        changed = []
        for code, room in self.loaded.items():
            if room is None:
                if code in self.dropped:
                    pipe.delete(PREFIX + code)
                    changed.append((code, "p:-1:-1"))
                continue
            text = to_json(room)
            if text.encode() == self.texts.get(code):
                continue  # read only (a follower's payload, a results download, another room's scan by open)
            ttl = rm.CLOSED_S if room.closed else rm.IDLE_S
            pipe.hset(PREFIX + code, mapping={"room": text, "v": room.version, "tv": room.tversion})
            pipe.expire(PREFIX + code, int(ttl) + 1)
            was = self.versions.get(code, (0, 0))
            if was[0] != room.version:  # the students' and the teacher's streams
                changed.append((code, f"p:{room.version}:{room.tversion}"))
            elif was[1] != room.tversion:  # the teacher's only
                changed.append((code, f"t:{room.version}:{room.tversion}"))
        for code, which in changed:
            pipe.publish(PREFIX + code, which)
            if self.told is not None:
                _, v, tv = which.split(":")
                self.told(code, int(v), int(tv))
        pipe.execute()
        self.loaded.clear()
        self.texts.clear()
        self.versions.clear()
        self.dropped.clear()


class RedisLock:
    """The store's lock: this process's RLock, and around the outermost hold Redis's lock and the rooms' load
    and write-back (a store method calls others under the same lock: only the outermost one talks to Redis)."""

    def __init__(self, r: redis.Redis, rooms: RedisRooms) -> None:
        self.local = threading.RLock()
        self.rooms = rooms
        self.r = r
        self.depth = 0
        self.held: Any = None

    def __enter__(self) -> RedisLock:
        self.local.acquire()
        self.depth += 1
        if self.depth == 1:
            # (redis-py polls a held lock every 0.1 s by default: 200 answers at once waited 4.3 s in all)
            self.held = self.r.lock(LOCK, timeout=5, sleep=0.002, blocking_timeout=10)
            if not self.held.acquire():
                self.depth -= 1
                self.local.release()
                raise rm.RoomError(503, "rooms: the room store is busy; try again")
        return self

    def __exit__(self, *exc: Any) -> None:
        try:
            if self.depth == 1:
                try:
                    self.rooms.flush()  # (a refused call wrote nothing: its changes are written as they stand)
                finally:
                    self.held.release()
        finally:
            self.depth -= 1
            self.local.release()


class RedisRoomStore(rm.RoomStore):
    """``RoomStore`` on Redis (the module's docstring says how); wall-clock time, as replicas share it."""

    blocking = True  # each call waits on Redis and its lock: the routes call it from a worker thread (ui/room.py)

    def __init__(self, url: str) -> None:
        super().__init__(clock=time.time)
        self.r = redis.Redis.from_url(url)
        self._rooms = RedisRooms(self.r)  # type: ignore[assignment]
        self._lock = RedisLock(self.r, self._rooms)  # type: ignore[assignment]
        self._payloads_v: dict[tuple[str, bool], tuple[int, str]] = {}
        self._known: dict[str, tuple[int, int, float]] = {}  # code -> (version, teacher's, when told), by pub/sub
        self._rooms.told = lambda code, v, tv: self._known.__setitem__(code, (v, tv, time.monotonic()))
        self._listener = threading.Thread(target=self._listen, name="rooms-redis", daemon=True)
        self._listener.start()

    def _listen(self) -> None:
        """Wake this replica's followers of a room whenever any replica changed it."""
        while True:
            try:
                ps = self.r.pubsub(ignore_subscribe_messages=True)
                ps.psubscribe(PREFIX + "*")
                for msg in ps.listen():
                    channel = msg.get("channel")
                    if isinstance(channel, bytes):
                        code = channel.decode()[len(PREFIX) :]
                        which, v, tv = msg["data"].decode().split(":")
                        self._known[code] = (int(v), int(tv), time.monotonic())
                        if which == "p":
                            self.waiters.wake(code)
                        self.waiters.wake(code + rm.TEACHER)
            except redis.RedisError:
                time.sleep(1)  # Redis restarted: subscribe again

    def _changed(self, room: rm.Room, public: bool = True) -> int:
        room.version += public
        room.tversion += 1
        room.touched = self._clock()
        return room.version  # (the write-back publishes it: RedisRooms.flush)

    def _expire(self, now: float) -> None:
        pass  # Redis drops a room at its TTL

    def payload(self, code: str, teacher: bool = False) -> tuple[int, str]:
        """As RoomStore's, made once per version on this replica: only the version is read while it holds."""
        v = self.version(code, teacher)
        held = self._payloads_v.get((code, teacher))
        if v >= 0 and held is not None and held[0] == v:
            return held
        got = super().payload(code, teacher)
        self._payloads.pop((code, got[0], teacher), None)  # (kept here instead, one per room)
        if len(self._payloads_v) > 2 * rm.MAX_ROOMS:
            self._payloads_v.clear()
            self._known.clear()
        if got[0] >= 0:
            self._payloads_v[(code, teacher)] = got
        return got

    def version(self, code: str, teacher: bool = False) -> int:
        """The room's version (``teacher``: its teacher's) as the last change's message said, read from Redis only
        when none came for ``KNOWN_S``: 200 followers woken by one change make no call to Redis (each call from the
        event loop blocks it: with a read per follower, CPU per edit was 4.2× one follower's)."""
        known = self._known.get(code)
        if known is None or time.monotonic() - known[2] > KNOWN_S:
            v, tv = self.r.hmget(PREFIX + code, ["v", "tv"])
            known = (int(v) if v is not None else -1, int(tv) if tv is not None else -1, time.monotonic())
            self._known[code] = known
        return known[1] if teacher else known[0]


def store_from_env() -> rm.RoomStore:
    """The store this process uses: Redis when ``AP_ROOMS_REDIS`` names one, else the in-process one."""
    url = os.environ.get("AP_ROOMS_REDIS")
    return RedisRoomStore(url) if url else rm.RoomStore()
