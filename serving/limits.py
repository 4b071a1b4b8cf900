"""A request-body bound for every HTTP route, applied before anything parses the body (pure ASGI).

:class:`BodyLimit` wraps the whole app. A request that declares a ``Content-Length`` above
:data:`MAX_BODY_BYTES` is answered 413 at once, before a byte of its body is received. A body without a length
(``Transfer-Encoding: chunked``) is passed on chunk by chunk while its bytes are counted; the chunk that crosses the
bound is not passed on, the app is told the client went away, and whatever it would have answered is replaced by
the same 413. So nothing downstream ever holds more than :data:`MAX_BODY_BYTES` of one body.

After a 413 the connection is not closed at once: a client such as Python's own ``urllib`` sends its whole body
before it reads any answer, and a socket closed with its data unread resets the connection ("Connection reset by
peer", "Broken pipe") before the client can read the 413. So, as nginx's lingering close does, the answer is sent
whole first (at once, as before), then what the client still sends is read and dropped, a chunk at a time, up to
:data:`DRAIN_BYTES`, :data:`DRAIN_S` seconds, or :data:`DRAIN_IDLE_S` without a byte, and only then closed.

The bound is sized to the largest legitimate request (:func:`largest_compute_request`): cross-attention with
T = S = 64, d = 64, 8 concat heads with explicit W_q, W_k, W_v (8 × 64×64 each) and W_o (512×64): 143,360 numbers.
Written as float32's shortest round-trip text (at most 15 characters, e.g. ``-1.37983405e-27``) with
``json.dumps``' separators, ``{"data": [scenario]}`` is 2,459,991 bytes (2.35 MiB). A scenario file upload is at
most 1 MB plus a few hundred bytes of multipart framing. :data:`MAX_BODY_BYTES` is 3 MiB: the largest request plus
~28% headroom (e.g. for a client that writes more digits in some of the cells).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from starlette.middleware import Middleware

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

MAX_BODY_BYTES = 3 * 1024 * 1024
"""The largest HTTP request body any route accepts (see the module docstring for its derivation)."""

DRAIN_BYTES = 16 * 2**20
"""After a 413, at most this much more of the body is read (and dropped) before the connection is closed: a
client that writes its whole body first (urllib) can then read the answer; one that sends more gets a reset."""

DRAIN_S = 10.0
"""... and for at most this long (nginx's ``lingering_time`` is 30 s) ..."""

DRAIN_IDLE_S = 2.0
"""... and no longer than this without a byte (nginx's ``lingering_timeout`` is 5 s)."""

LONGEST_FLOAT32 = -1.37983405e-27  # a float32 whose shortest round-trip text is 15 characters, the most any has


def too_large_message(limit: int) -> bytes:
    """The 413 body: JSON that names the limit."""
    detail = f"request body too large: at most {limit:,} bytes ({limit / 2**20:g} MiB) are accepted"
    return json.dumps({"detail": detail, "limit_bytes": limit}).encode()


class BodyLimit:
    """ASGI middleware: refuse any HTTP request body above ``max_bytes`` (413, JSON naming the limit)."""

    def __init__(self, app: ASGIApp, max_bytes: int = MAX_BODY_BYTES, drain_bytes: int = DRAIN_BYTES) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.drain_bytes = drain_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared is not None and declared > self.max_bytes:
            await self.refuse(receive, send)  # the app never sees it; the answer goes before a byte is read
            return
        await self._counted(scope, receive, send)

    async def _counted(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass the body on while counting it; past the bound, cut it off and answer 413 instead of the app."""
        seen = 0
        over = False
        started = False

        async def counting_receive() -> Message:
            nonlocal seen, over
            if over:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    over = True
                    return {"type": "http.disconnect"}  # the app stops reading; this chunk goes nowhere
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal started
            if over and not started:
                return  # the app's answer to a cut-off body is replaced by the 413 below
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counting_receive, guarded_send)
        except Exception:
            if not over:
                raise
        if over and not started:
            await self.refuse(receive, send)

    async def refuse(self, receive: Receive, send: Send) -> None:
        """Send the whole 413, then read and drop what the client still sends (bounded), then end (close)."""
        body = too_large_message(self.max_bytes)
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"connection", b"close"),
        ]
        await send({"type": "http.response.start", "status": 413, "headers": headers})
        await send({"type": "http.response.body", "body": body, "more_body": True})  # on the wire now, complete
        await drain(receive, self.drain_bytes)
        await send({"type": "http.response.body", "body": b""})  # the response ends; the server closes


async def drain(receive: Receive, max_bytes: int, max_s: float = DRAIN_S, idle_s: float = DRAIN_IDLE_S) -> int:
    """Read and drop the rest of a request body: until its end, a disconnect, ``max_bytes``, ``max_s`` seconds or
    ``idle_s`` seconds without a message. Holds one chunk at a time; returns the bytes dropped."""
    dropped = 0
    deadline = time.monotonic() + max_s
    while dropped <= max_bytes:
        wait = min(idle_s, deadline - time.monotonic())
        if wait <= 0:
            break
        try:
            message = await asyncio.wait_for(receive(), wait)
        except TimeoutError:
            break
        if message["type"] != "http.request":
            break
        dropped += len(message.get("body", b""))
        if not message.get("more_body"):
            break
    return dropped


def _content_length(scope: Scope) -> int | None:
    """The declared body length; a malformed one counts as too large (the server then answers 413)."""
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return 2**63
    return None


def largest_compute_request() -> dict[str, Any]:
    """The largest scenario ``/compute`` accepts, every number at float32's longest shortest-repr (see above)."""
    t, d, heads = 64, 64, 8
    cell = LONGEST_FLOAT32

    def mat(rows: int, cols: int) -> list[list[float]]:
        return [[cell] * cols for _ in range(rows)]

    tokens = [f"token-{i:02d}".ljust(40, "x") for i in range(t)]  # labels are cut to 40 characters
    return {
        "x_q": mat(t, d),
        "x_k": mat(t, d),
        "x_v": mat(t, d),
        "tokens": tokens,
        "tokens_k": tokens,
        "heads": heads,
        "head_mode": "concat",
        "layout": "matmul",  # W_o is (H·d)×D = 512×64 (the linear layout's 64×512 is refused: ≤64 columns)
        "d_out": d,
        "weights": {
            **{n: [mat(d, d) for _ in range(heads)] for n in ("W_q", "W_k", "W_v")},
            "W_o": mat(heads * d, d),
        },
        "mask": {"kind": "custom", "keep": [[1] * t for _ in range(t)], "fill": "-inf"},
        "scale": True,
        "dtype": "float32",
        "normalize": "softmax",
    }


def app_kwargs() -> dict[str, Any]:
    """``FastAPI(**app_kwargs())``: the server (playground.make_app) with :class:`BodyLimit` in its middleware."""
    return {"middleware": [Middleware(BodyLimit, max_bytes=MAX_BODY_BYTES)]}
