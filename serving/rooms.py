"""Lesson rooms: a teacher's page drives, students' pages follow (ui/room.py serves them, static/room.js runs them).

A room is a 6-character code, a teacher secret, the teacher's current state (the same ``?preset=``/``?scenario=``
query a share link carries, ui/share.py, plus the tab and the present-mode stage), a version counter that every
change moves on, the students who joined (anonymous generated names) and the questions asked. Only a call that
carries the room's secret drives it (``RoomError.status`` 403 otherwise); the secret is never part of what
students are sent (:meth:`Room.public`).

Everything is in this process by default (one Space, one laptop). Followers wait for a change with
:meth:`RoomStore.wait`; a change is serialised once per version (:meth:`RoomStore.payload`), however many follow.

Bounds (stated, tested in tests/test_room_store.py):
* a room untouched by its teacher and its students for ``IDLE_S`` (3 h) expires; a closed room is kept
  ``CLOSED_S`` (10 min) so its students are told it closed, then dropped;
* at most ``MAX_ROOMS`` rooms in the process and ``MAX_ROOMS_PER_CLIENT`` open rooms per client address;
* at most ``MAX_STREAMS`` pages following one room on one server (ui/room.py refuses more with a 503), and
  ``MAX_STREAMS_PER_CLIENT`` of them from one address (429), so one script cannot take every seat;
* at most ``MAX_STUDENTS`` students per room and ``MAX_STUDENTS_PER_CLIENT`` of them from one address. A full room
  first takes back a seat of a student who never answered and has no page connected for ``RECLAIM_S``: scripted
  joins that never follow make room for real students, and a real student is never pushed out;
* wrong codes: ``MAX_WRONG`` a minute per client address (then a 429 for that address only); the table of
  addresses holds at most ``MAX_CLIENTS``, so a flood of 1,000 attempts a minute costs a bounded few KB;
* questions: ``MAX_QUESTIONS`` per room, an answer at most ``MAX_ANSWER`` characters, one per student per question
  (changeable until the question closes), a display name at most ``MAX_NAME`` characters.
"""

from __future__ import annotations

import asyncio
import io
import json
import math
import re
import secrets
import socket
import threading
import time
import unicodedata
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import segno

ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no look-alikes: no 0/O, 1/I/L
LOOK_ALIKES = {"O": "the letter O", "0": "the digit 0 (zero)", "I": "the letter I", "L": "the letter L",
               "1": "the digit 1 (one)"}  # fmt: skip  # what codes leave out, named for a student's message
CODE_LEN = 6
IDLE_S = 3 * 3600.0
CLOSED_S = 600.0
MAX_ROOMS = 500
MAX_ROOMS_PER_CLIENT = 5
MAX_STUDENTS = 400
MAX_STUDENTS_PER_CLIENT = 250  # a class behind one school NAT address still fits
MAX_STREAMS = 1_200  # pages following one room at once on one server (students' tabs, projectors); ~8 KB each
MAX_STREAMS_PER_CLIENT = 500  # of those from one address: a NAT'd class of 250, two tabs each; a script not all
RECLAIM_S = 20.0
MAX_WRONG = 30  # wrong codes a minute from one address
MAX_CLIENTS = 10_000
MAX_QUESTIONS = 100
MAX_ANSWER = 40
MAX_NAME = 24
REL_TOL = ABS_TOL = 0.01  # a prediction is right within 1% (or 0.01): math.isclose's rule, sent to pages as data
MAX_STATE = 20_000  # characters of the teacher's state (a share link holds at most 16,000)
KINDS = ("predict", "token", "choice")
TEACHER = "#teacher"  # the waiters' key of a room's teacher stream: code + TEACHER

ADJECTIVES = ("amber", "brave", "calm", "clever", "curious", "eager", "gentle", "happy", "keen", "lively", "lucky",
              "merry", "nimble", "quick", "quiet", "sharp", "steady", "sunny", "swift", "witty")  # fmt: skip
ANIMALS = ("badger", "crane", "dolphin", "falcon", "fox", "heron", "koala", "lynx", "marten", "otter", "owl",
           "panda", "puffin", "raven", "robin", "seal", "stoat", "tiger", "wren", "yak")  # fmt: skip


class RoomError(Exception):
    """A refused room call: ``status`` is the HTTP status to answer (403, 404, 410, 429, 400, 503)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def normal_code(text: Any) -> str:
    """A typed code as the store keys it: upper case, spaces and dashes dropped; a 404 names what is wrong.

    Look-alikes are refused, not mapped: the alphabet leaves out both sides of each pair (O and 0, I, L and 1), so
    a typed O stands for no one character of a code, and the message says which characters codes never use."""
    if not isinstance(text, str):
        raise RoomError(404, "room code: type the 6 characters shown on the teacher's screen")
    code = text.strip().upper().replace(" ", "").replace("-", "")
    unused = [LOOK_ALIKES[c] for c in dict.fromkeys(code) if c in LOOK_ALIKES]
    if unused:  # (the likely slip: a letter read as a look-alike digit, or the other way round)
        said = ", ".join(unused[:-1]) + " or " + unused[-1] if len(unused) > 1 else unused[0]
        raise RoomError(404, f"room code: {text[:12]!r} is not a room code: codes never use {said}. "
                             "They leave out O, 0, I, L and 1, which look alike; look again at the teacher's "
                             "screen")  # fmt: skip
    other = "".join(dict.fromkeys(c for c in code if c not in ALPHABET))
    if other:
        raise RoomError(404, f"room code: {text[:12]!r} is not a room code: codes hold only the letters A "
                             f"to Z and the digits 2 to 9, not {other[:6]!r}")  # fmt: skip
    if len(code) != CODE_LEN:
        raise RoomError(404, f"room code: {text[:12]!r} is not a room code: a code is {CODE_LEN} letters and "
                             f"digits, as on the teacher's screen; this is {len(code)}")  # fmt: skip
    return code


@dataclass
class Student:
    name: str  # generated, anonymous
    client: str
    joined: float
    seen: float
    display: str = ""  # an optional name the student gave
    streams: int = 0  # pages of this student following now
    # the first question put to this student: the one open as they joined, else the next (the results have no row
    # for a question asked before they came: a late joiner's blank rows read as questions left unanswered)
    first_question: int = 0
    extra: dict[str, Any] = field(default_factory=dict)  # fields a newer replica wrote (rooms_redis.from_json)


DECIMAL_COMMA = re.compile(r"[+-]?\d*,\d+")  # a prediction written with a decimal comma ("0,32")


@dataclass
class Question:
    kind: str  # "predict" (a number), "token" (a key token), "choice" (one of options)
    prompt: str
    right: str  # the right answer, as text; sent to students only once revealed
    options: list[str] = field(default_factory=list)
    closed: bool = False
    revealed: bool = False
    answers: dict[str, str] = field(default_factory=dict)  # student token -> answer text
    hide: dict[str, Any] = field(default_factory=dict)  # what every page hides till the reveal (ui/learn.py hidden)
    head: int = 0  # the head it is about, 1-based (0: every head, or a one-head state)
    mark: list[list[Any]] = field(default_factory=list)  # [table, row, col] the reveal outlines, in ``head`` only
    asked: dict[str, Any] = field(default_factory=dict)  # the state it was asked on (its query) and how ({"body"})
    moved: bool = False  # the teacher's state has moved since, so that its answer now reads otherwise on screen
    extra: dict[str, Any] = field(default_factory=dict)  # fields a newer replica wrote (rooms_redis.from_json)

    def public(self, qid: int) -> dict[str, Any]:
        out = {"id": qid, "kind": self.kind, "prompt": self.prompt, "options": self.options, "closed": self.closed,
               "revealed": self.revealed, "head": self.head, "moved": self.moved}  # fmt: skip
        if self.revealed:
            out["right"] = self.right
            if self.kind == "predict":  # the rule the page grades by: the server's own (static/room.js right)
                out["tol"] = {"rel": REL_TOL, "abs": ABS_TOL}
            out["mark"] = {"mark": self.mark, "head": self.head - 1 if self.head else None}  # (a hide.js spec)
        else:
            out["hide"] = self.hide
        return out

    def correct(self, answer: str) -> bool:
        if self.kind != "predict":
            return answer == self.right
        try:  # a prediction is right within 1% (or 0.01 absolute): what a person reads off two decimals
            a, r = float(answer), float(self.right)
        except ValueError:
            return False
        return math.isclose(a, r, rel_tol=REL_TOL, abs_tol=ABS_TOL)  # |a − r| ≤ max(rel·max(|a|, |r|), abs)


@dataclass
class Room:
    code: str
    secret: str
    client: str
    created: float
    touched: float
    state: dict[str, Any] = field(default_factory=dict)  # {"query": {...}, "tab": str, "stage": str | None}
    version: int = 1  # moved on by what students see (the state, a question, the close)
    tversion: int = 1  # moved on by that and by what only the teacher sees (joins, answers, refusals)
    closed: bool = False
    students: dict[str, Student] = field(default_factory=dict)  # student token -> Student
    questions: list[Question] = field(default_factory=list)
    refused: int = 0  # joins refused because the room was full (the teacher's screen says so)
    extra: dict[str, Any] = field(default_factory=dict)  # fields a newer replica wrote (rooms_redis.from_json)

    def public(self) -> dict[str, Any]:
        """What every follower is sent: no secret, no student's token or answer, nothing that changes as students
        join or answer (200 answers would otherwise each be sent to 200 pages)."""
        q = self.questions[-1].public(len(self.questions) - 1) if self.questions else None
        return {"code": self.code, "v": self.version, "closed": self.closed, "state": self.state, "question": q}

    def for_teacher(self) -> dict[str, Any]:
        """The public view plus what only the teacher's screen shows: the question's answers and its right answer,
        and how many joins a cap refused."""
        out = {**self.public(), "tv": self.tversion, "students": len(self.students), "refused": self.refused}
        if self.questions:
            q = self.questions[-1]
            out["question"] = {**q.public(len(self.questions) - 1), "right": q.right, "count": len(q.answers),
                               "answers": sorted(q.answers.values())}  # fmt: skip
        return out


class Waiters:
    """Followers waiting for a room's next version, woken from any thread (a change is made in gradio's worker
    threads; the streams wait on the server's event loop)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._events: dict[str, tuple[asyncio.AbstractEventLoop, asyncio.Event]] = {}

    def event(self, code: str) -> asyncio.Event:
        loop = asyncio.get_running_loop()
        with self._lock:
            held = self._events.get(code)
            if held is None or held[0] is not loop:
                held = (loop, asyncio.Event())
                self._events[code] = held
            return held[1]

    def wake(self, code: str) -> None:
        with self._lock:
            held = self._events.pop(code, None)  # the next wait makes a new event
        if held is not None:
            loop, ev = held
            try:
                loop.call_soon_threadsafe(ev.set)
            except RuntimeError:  # (that loop has closed)
                pass


class RoomStore:
    """The process's rooms, bounded (the module's docstring states the bounds); thread-safe."""

    blocking = False  # its calls wait on nothing but this process (a store on the network says True)

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.RLock()
        self._rooms: dict[str, Room] = {}
        self._wrong: OrderedDict[str, list[float]] = OrderedDict()  # client -> times of its recent wrong codes
        self._payloads: dict[tuple[str, int, bool], str] = {}  # (code, version, teacher) -> JSON, the latest only
        self.waiters = Waiters()

    # ---- the teacher ----------------------------------------------------------------------------------------

    def open(self, client: str, state: dict[str, Any]) -> Room:
        """A new room showing ``state``; its secret goes to the teacher's page only."""
        now = self._clock()
        with self._lock:
            self._expire(now)
            mine = [r for r in self._rooms.values() if r.client == client and not r.closed]
            if len(mine) >= MAX_ROOMS_PER_CLIENT:
                raise RoomError(429, f"rooms: this address has {len(mine)} open; close one first "
                                     f"(at most {MAX_ROOMS_PER_CLIENT})")  # fmt: skip
            if len(self._rooms) >= MAX_ROOMS:
                raise RoomError(503, f"rooms: the server holds {MAX_ROOMS} rooms, its most; try again later")
            code = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LEN))
            while code in self._rooms:
                code = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LEN))
            room = Room(code, secrets.token_urlsafe(24), client, now, now, state=check_state(state))
            self._rooms[code] = room
            return room

    def drive(self, code: str, secret: Any, client: str | None = None) -> Room:
        """The room ``code`` if ``secret`` is its teacher's (403 otherwise); touches it. A wrong code counts against
        ``client`` as in :meth:`get`: a route that answers 404 or 403 tells a guesser which codes are open."""
        with self._lock:
            room = self.get(code, client)
            if not isinstance(secret, str) or not secrets.compare_digest(secret.encode(), room.secret.encode()):
                raise RoomError(403, "room: only the teacher's page can drive this room")
            room.touched = self._clock()
            return room

    def set_state(self, code: str, secret: Any, state: dict[str, Any]) -> int:
        """The teacher's state merged with ``state`` (``query``, ``tab``, ``stage``); returns the new version.
        A change that changes nothing keeps the version (followers are not woken)."""
        with self._lock:
            room = self.drive(code, secret)
            if room.closed:
                raise RoomError(410, "room: this room is closed")
            merged = check_state({**room.state, **state})
            if merged == room.state:
                return room.version
            room.state = merged
            return self._changed(room)

    def close(self, code: str, secret: Any) -> None:
        """The room closed, and its open question with it (its answers stand; no more come)."""
        with self._lock:
            room = self.drive(code, secret)
            room.closed = True
            for q in room.questions:
                q.closed = True
            self._changed(room)

    # ---- students ---------------------------------------------------------------------------------------------

    def get(self, code: Any, client: str | None = None) -> Room:
        """The room a code names; a wrong code counts against ``client`` (429 past ``MAX_WRONG`` a minute)."""
        now = self._clock()
        with self._lock:
            if client is not None:
                self._check_wrong(client, now)
            try:
                room = self._rooms.get(normal_code(code))
                if room is None or self._gone(room, now):
                    raise RoomError(404, f"room code: no room {str(code)[:12]!r} is open (it may have ended); "
                                         "check the code on the teacher's screen")  # fmt: skip
            except RoomError:
                if client is not None:
                    self._note_wrong(client, now)
                raise
            return room

    def join(self, code: Any, client: str, token: Any = None) -> tuple[str, Student]:
        """A student in room ``code``: the same one again for the token it was given (a reload, a phone back from
        sleep), else a new one with a generated name. Returns (token, student); a full room is a 503."""
        now = self._clock()
        with self._lock:
            room = self.get(code, client)
            if room.closed:
                raise RoomError(410, "room: the teacher has closed this room")
            if isinstance(token, str) and token in room.students:
                st = room.students[token]
                st.seen = now
                return token, st
            self._make_seat(room, client, now)
            token = secrets.token_urlsafe(16)
            taken = {s.name for s in room.students.values()}
            name = generated_name(taken)
            open_q = bool(room.questions) and not room.questions[-1].closed
            room.students[token] = Student(name, client, now, now, first_question=len(room.questions) - open_q)
            room.touched = now
            self._changed(room, public=False)
            return token, room.students[token]

    def name(self, code: str, token: Any, display: Any) -> str:
        """A student's optional display name (at most ``MAX_NAME`` characters, printable)."""
        with self._lock:
            st = self._student(code, token)
            text = " ".join(str(display or "").split())
            if len(text) > MAX_NAME:
                raise RoomError(400, f"name: at most {MAX_NAME} characters")
            hidden = next((c for c in text if unicodedata.category(c).startswith("C")), None)
            if hidden is not None:  # control, format (bidi overrides, zero width), unassigned
                raise RoomError(400, f"name: no control or invisible characters (U+{ord(hidden):04X})")
            st.display = text
            return text

    def follow(self, code: str, token: Any, delta: int) -> None:
        """A student's page started (+1) or stopped (-1) following."""
        with self._lock:
            room = self._rooms.get(code)
            st = room.students.get(token) if room and isinstance(token, str) else None
            if st is not None:
                st.streams = max(0, st.streams + delta)
                st.seen = room.touched = self._clock()

    # ---- questions --------------------------------------------------------------------------------------------

    def ask(self, code: str, secret: Any, kind: str, prompt: str, right: str, options: list[str] | None = None,
            hide: dict[str, Any] | None = None, about: dict[str, Any] | None = None) -> int:  # fmt: skip
        """A new question to the class (the one before it closes); returns its id. ``hide``: what gives its answer
        away on the workbench, which every page hides until the reveal (plain data, never a number). ``about``:
        ``head`` (1-based), ``mark`` (the cells the reveal outlines) and ``asked`` (the state it is asked on: its
        right answer is that state's, whatever the teacher shows later, :meth:`moved`)."""
        with self._lock:
            return self._ask(self.drive(code, secret), kind, prompt, right, options, hide, about)

    def ask_drawn(self, code: str, secret: Any, draw: Callable[[int, list[str]], tuple[Any, ...]]) -> int:
        """:meth:`ask` for the question ``draw`` makes from the room's question count and the prompts asked so far
        (its arguments after ``secret``), read under the store's lock: two asks at once, from a double click or two
        replicas, read one count outside it and drew the same quiz question twice (the Redis store's rooms are
        copies, read per call)."""
        with self._lock:
            room = self.drive(code, secret)
            return self._ask(room, *draw(len(room.questions), [q.prompt for q in room.questions]))

    def _ask(self, room: Room, kind: str, prompt: str, right: str, options: list[str] | None = None,
             hide: dict[str, Any] | None = None, about: dict[str, Any] | None = None) -> int:  # fmt: skip
        """:meth:`ask`'s work on ``room``, driven by its secret, under the store's lock."""
        if room.closed:  # (a second tab of the teacher's, its room closed in the first)
            raise RoomError(410, "room: this room is closed")
        if kind not in KINDS:
            raise RoomError(400, f"question kind: {str(kind)[:20]!r} is not one of {', '.join(KINDS)}")
        if len(room.questions) >= MAX_QUESTIONS:
            raise RoomError(429, f"questions: this room has asked {MAX_QUESTIONS}, its most")
        for q in room.questions:
            q.closed = True
            q.asked = {}  # (only the last question follows the teacher's state: a room's JSON stays small)
        opts = [str(o)[:MAX_ANSWER] for o in (options or [])][:12]
        q = Question(kind, str(prompt)[:300], str(right)[:MAX_ANSWER], opts, hide=dict(hide or {}),
                     head=int((about or {}).get("head") or 0), mark=list((about or {}).get("mark") or []),
                     asked=dict((about or {}).get("asked") or {}))  # fmt: skip
        room.questions.append(q)
        self._changed(room)
        return len(room.questions) - 1

    def answer(self, code: str, token: Any, qid: Any, value: Any) -> None:
        """A student's answer to the open question ``qid`` (replacing their earlier one)."""
        with self._lock:
            room = self._rooms.get(code)
            st = self._student(code, token)
            if not isinstance(qid, int) or not room or not 0 <= qid < len(room.questions):
                raise RoomError(404, "question: no such question in this room")
            if room.closed:
                raise RoomError(410, "room: the teacher has closed this room")
            q = room.questions[qid]
            if q.closed:
                raise RoomError(410, "question: answers are closed")
            text = str(value if value is not None else "").strip()
            if not text or len(text) > MAX_ANSWER:
                raise RoomError(400, f"answer: between 1 and {MAX_ANSWER} characters")
            if q.kind == "predict":
                try:
                    number = float(text)
                except ValueError:  # (a decimal comma, as half of Europe writes 0,32: the fix said)
                    comma = DECIMAL_COMMA.fullmatch(text)
                    hint = f"; write {text.replace(',', '.')}, with a point" if comma else ""
                    raise RoomError(400, f"answer: {text!r} is not a number{hint}") from None
                if not math.isfinite(number):
                    raise RoomError(400, "answer: a finite number, please")
            elif text not in q.options:
                raise RoomError(400, "answer: not one of the choices")
            q.answers[token] = text
            st.seen = self._clock()
            self._changed(room, public=False)

    def own_answers(self, code: str, token: Any) -> dict[str, str]:
        """A student's own answers, {question id (as text, a JSON key): answer}: a reloaded page shows them again."""
        with self._lock:
            self._student(code, token)
            room = self._rooms.get(code)
            return {str(i): q.answers[token] for i, q in enumerate(room.questions) if token in q.answers}

    def moved(self, code: str, secret: Any, qid: int, moved: bool) -> None:
        """Whether the teacher's state has moved away from the one question ``qid`` was asked on (its answer would
        now read otherwise): every page says so, and grading stays against the state asked (students answered it)."""
        with self._lock:
            room = self.drive(code, secret)
            if 0 <= qid < len(room.questions) and qid == len(room.questions) - 1:
                q = room.questions[qid]
                if q.moved != moved:
                    q.moved = moved
                    self._changed(room)

    def end_question(self, code: str, secret: Any, reveal: bool) -> None:
        """Close the current question's answers (``reveal``: and show everyone the right one)."""
        with self._lock:
            room = self.drive(code, secret)
            if not room.questions:
                raise RoomError(404, "question: none asked yet")
            q = room.questions[-1]
            q.closed = True
            q.revealed = q.revealed or reveal
            self._changed(room)

    def results(self, code: str, secret: Any) -> list[dict[str, Any]]:
        """One row per student and question put to them (asked while they were in the room): the teacher's CSV
        (ui/room.py writes it with pandas)."""
        with self._lock:
            room = self.drive(code, secret)
            rows = []
            for qid, q in enumerate(room.questions):
                for token, st in room.students.items():
                    a = q.answers.get(token)
                    if qid < st.first_question and a is None:
                        continue
                    rows.append({"question": qid + 1, "kind": q.kind, "prompt": q.prompt, "student": st.name,
                                 "display_name": st.display, "answer": a, "right_answer": q.right,
                                 "correct": None if a is None else q.correct(a)})  # fmt: skip
            return rows

    # ---- what followers get -----------------------------------------------------------------------------------

    def payload(self, code: str, teacher: bool = False) -> tuple[int, str]:
        """The room's current version and its JSON for followers (``teacher``: the teacher's view), made once per
        version however many ask."""
        with self._lock:
            room = self._rooms.get(code)
            if room is None:
                return -1, json.dumps({"code": code, "gone": True})
            v = room.tversion if teacher else room.version
            key = (code, v, teacher)
            text = self._payloads.get(key)
            if text is None:
                text = json.dumps(room.for_teacher() if teacher else room.public(), separators=(",", ":"))
                self._payloads[key] = text
            return v, text

    async def wait(self, code: str, seen: int, timeout: float, teacher: bool = False) -> int:
        """Wait until room ``code`` is past version ``seen`` (``teacher``: its teacher's version) or ``timeout`` s;
        returns that version now."""
        ev = self.waiters.event(code + TEACHER if teacher else code)
        if self.version(code, teacher) != seen:
            return self.version(code, teacher)
        try:
            await asyncio.wait_for(ev.wait(), timeout)
        except TimeoutError:
            pass
        return self.version(code, teacher)

    def version(self, code: str, teacher: bool = False) -> int:
        with self._lock:
            room = self._rooms.get(code)
            return -1 if room is None else room.tversion if teacher else room.version

    def counts(self) -> dict[str, int]:
        with self._lock:
            return {"rooms": len(self._rooms), "students": sum(len(r.students) for r in self._rooms.values()),
                    "clients": len(self._wrong)}  # fmt: skip

    # ---- inside ----------------------------------------------------------------------------------------------

    def _changed(self, room: Room, public: bool = True) -> int:
        """A change of ``room``: the teacher's version moves on, and (``public``) the students' version too."""
        room.version += public
        room.tversion += 1
        room.touched = self._clock()
        for key in [k for k in self._payloads if k[0] == room.code]:
            del self._payloads[key]
        if public:
            self.waiters.wake(room.code)
        self.waiters.wake(room.code + TEACHER)
        return room.version

    def _student(self, code: str, token: Any) -> Student:
        room = self._rooms.get(code)
        st = room.students.get(token) if room is not None and isinstance(token, str) else None
        if st is None:
            raise RoomError(403, "student: this page has not joined the room")
        return st

    def _make_seat(self, room: Room, client: str, now: float) -> None:
        """Room for one more student from ``client``, or a RoomError (503) the teacher's screen counts."""
        same = sum(1 for s in room.students.values() if s.client == client)
        if same >= MAX_STUDENTS_PER_CLIENT or len(room.students) >= MAX_STUDENTS:
            answered = {t for q in room.questions for t in q.answers}
            idle = [t for t, s in room.students.items()
                    if s.streams == 0 and now - s.seen >= RECLAIM_S and t not in answered
                    and (same < MAX_STUDENTS_PER_CLIENT or s.client == client)]  # fmt: skip
            if not idle:
                room.refused += 1
                self._changed(room, public=False)
                which = "from this address" if same >= MAX_STUDENTS_PER_CLIENT else "in all"
                cap = MAX_STUDENTS_PER_CLIENT if same >= MAX_STUDENTS_PER_CLIENT else MAX_STUDENTS
                raise RoomError(503, f"room: full ({cap} students {which}); ask the teacher")
            del room.students[min(idle, key=lambda t: room.students[t].seen)]

    def _gone(self, room: Room, now: float) -> bool:
        return now - room.touched > (CLOSED_S if room.closed else IDLE_S)

    def _expire(self, now: float) -> None:
        for code in [c for c, r in self._rooms.items() if self._gone(r, now)]:
            del self._rooms[code]
            for key in [k for k in self._payloads if k[0] == code]:
                del self._payloads[key]
            self.waiters.wake(code)
            self.waiters.wake(code + TEACHER)

    def _check_wrong(self, client: str, now: float) -> None:
        recent = [t for t in self._wrong.get(client, ()) if now - t < 60]
        if len(recent) >= MAX_WRONG:
            raise RoomError(429, f"room code: {MAX_WRONG} wrong codes from this address in a minute; wait a minute")

    def _note_wrong(self, client: str, now: float) -> None:
        recent = [t for t in self._wrong.pop(client, ()) if now - t < 60][-MAX_WRONG:]
        self._wrong[client] = [*recent, now]
        while len(self._wrong) > MAX_CLIENTS:
            self._wrong.popitem(last=False)


def check_state(state: Any) -> dict[str, Any]:
    """The teacher's state as a room keeps it: a dict of JSON, at most ``MAX_STATE`` characters (400 otherwise)."""
    if not isinstance(state, dict):
        raise RoomError(400, "state: a JSON object is expected")
    try:
        size = len(json.dumps(state))
    except (TypeError, ValueError):
        raise RoomError(400, "state: not JSON") from None
    if size > MAX_STATE:
        raise RoomError(400, f"state: {size} characters; at most {MAX_STATE}")
    return state


def generated_name(taken: set[str]) -> str:
    """An anonymous name ("quick otter 7") not yet taken in the room."""
    while True:
        name = f"{secrets.choice(ADJECTIVES)} {secrets.choice(ANIMALS)} {secrets.randbelow(90) + 10}"
        if name not in taken:
            return name


def lan_address() -> str:
    """This machine's address on its local network (the interface its default route leaves by; no packet is
    sent: a UDP socket's connect only picks the route), or 127.0.0.1 without a network."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("10.255.255.255", 1))
            return str(s.getsockname()[0])
        except OSError:
            return "127.0.0.1"


def classroom_banner(url: str) -> str:
    """What ``playground.py --classroom`` prints: the join address and its QR code, drawn in the terminal."""
    out = io.StringIO()
    segno.make(url, error="m").terminal(out, compact=True, border=2)
    return f"Classroom: students join at {url}  (scan, or type the address; the room's code follows)\n{out.getvalue()}"
