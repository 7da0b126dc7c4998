"""A small Python client for cordon: submit code, await its result, stream violation events.

Speaks cordon's wire protocol (subjects ``cordon.v1.*``, MessagePack envelopes with named
fields) over NATS with nats-py. See the project's README for the result document.

Every client has a name (``client``): it submits on ``cordon.v1.exec.submit.<client>`` and
reads ``cordon.v1.exec.result.<client>.<request_id>`` and its own violation events. On a
permissioned server (``deploy/nats/cordon.conf``) the name is the NATS user, the replies
come to a private inbox (``_INBOX_<user>``), and nothing else is allowed.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from dataclasses import dataclass
from typing import Any, AsyncIterator, Optional

import msgpack
import nats
from nats.js.errors import NotFoundError

API = "cordon.v1"
SCHEMA_VERSION = 1
RESULTS_STREAM = "CORDON_RESULTS"
DEFAULT_CLIENT = "anonymous"

_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def submit_subject(client: str) -> str:
    """The subject client ``client`` submits on."""
    return f"{API}.exec.submit.{client}"


def result_subject(client: str, request_id: str) -> str:
    """The subject the result of ``client``'s request is published on."""
    return f"{API}.exec.result.{client}.{request_id}"


def violation_subject(client: str) -> str:
    """The subject ``client``'s violation events are published on."""
    return f"{API}.events.violation.{client}"


def new_request_id() -> str:
    """A fresh ULID (time-ordered, 26 characters), as cordon uses."""
    value = (int(time.time() * 1000) << 80) | secrets.randbits(80)
    return "".join(_CROCKFORD[(value >> shift) & 31] for shift in range(125, -1, -5))


def encode(request_id: str, body: dict[str, Any]) -> bytes:
    """Wraps a body in cordon's versioned envelope as MessagePack."""
    now = int(time.time() * 1000)
    envelope = {
        "schema": SCHEMA_VERSION,
        "request_id": request_id,
        "submitted_at_ms": now,
        "sent_at_ms": now,
        "body": body,
    }
    return msgpack.packb(envelope, use_bin_type=True)


def decode(payload: bytes) -> dict[str, Any]:
    """Unwraps an envelope; raises ValueError for another schema version."""
    envelope = msgpack.unpackb(payload, raw=False)
    if envelope.get("schema") != SCHEMA_VERSION:
        raise ValueError(f"unsupported schema version {envelope.get('schema')!r}")
    return envelope


@dataclass
class Violation:
    """A sandbox killed for breaking a limit."""

    request_id: str
    kind: str
    detail: str
    host: str


class CordonClient:
    """A connection to cordon's NATS server."""

    def __init__(self, nc: nats.NATS, client: str = DEFAULT_CLIENT):
        self._nc = nc
        self._js = nc.jetstream()
        self.client = client

    @classmethod
    async def connect(
        cls,
        url: str,
        client: Optional[str] = None,
        user: Optional[str] = None,
        password: Optional[str] = None,
    ) -> "CordonClient":
        """Connects as ``user`` (if given) under client name ``client`` (default: the user,
        else ``anonymous``), with replies on a private inbox when there is a user."""
        options: dict[str, Any] = {"name": "cordon-python"}
        if user is not None:
            options.update(user=user, password=password, inbox_prefix=f"_INBOX_{user}".encode())
        name = client or user or DEFAULT_CLIENT
        return cls(await nats.connect(url, **options), client=name)

    async def close(self) -> None:
        await self._nc.drain()

    async def submit(
        self,
        code: str | bytes,
        trust: str = "untrusted",
        origin: str = "external",
        timeout_ms: Optional[int] = None,
        session: Optional[str] = None,
        request_id: Optional[str] = None,
        network: Optional[str] = None,
    ) -> str:
        """Submits code; returns its request id. Resubmitting an id is deduplicated.
        ``session`` is a key of your own, kept in the audit log (the body's ``client``)."""
        request_id = request_id or new_request_id()
        body: dict[str, Any] = {"code": code, "trust": trust, "origin": origin}
        if timeout_ms is not None:
            body["timeout_ms"] = timeout_ms
        if session is not None:
            body["client"] = session
        if network is not None:
            body["network"] = network  # "none" or "allowlist" (trust levels per config)
        headers = {"Nats-Msg-Id": request_id, "Content-Type": "application/msgpack"}
        subject = submit_subject(self.client)
        await self._js.publish(subject, encode(request_id, body), headers=headers)
        return request_id

    async def result(self, request_id: str, wait: float = 600.0) -> dict[str, Any]:
        """Waits for a request's result document (also if it finished before we asked)."""
        deadline = time.monotonic() + wait
        subscription = await self._nc.subscribe(result_subject(self.client, request_id))
        try:
            while True:
                stored = await self.stored_result(request_id)
                if stored is not None:
                    return stored
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError(f"no result for {request_id} within {wait} s")
                try:
                    message = await subscription.next_msg(timeout=min(2.0, remaining))
                    return decode(message.data)["body"]
                except nats.errors.TimeoutError:
                    continue
        finally:
            await subscription.unsubscribe()

    async def stored_result(self, request_id: str) -> Optional[dict[str, Any]]:
        """The kept result of a finished request, or None (a direct get of its subject, which
        a permissioned server allows a client for its own results only)."""
        subject = result_subject(self.client, request_id)
        try:
            message = await self._js.get_last_msg(RESULTS_STREAM, subject, direct=True)
        except NotFoundError:
            return None
        return decode(message.data)["body"]

    async def run(self, code: str | bytes, wait: float = 600.0, **options: Any) -> dict[str, Any]:
        """Submits code and waits for its result document."""
        request_id = await self.submit(code, **options)
        return await self.result(request_id, wait=wait)

    async def violations(self) -> AsyncIterator[Violation]:
        """Yields every violation event of this client's requests from now on."""
        subscription = await self._nc.subscribe(violation_subject(self.client))
        try:
            async for message in subscription.messages:
                envelope = decode(message.data)
                body = envelope["body"]
                yield Violation(
                    request_id=envelope["request_id"],
                    kind=body["violation"]["kind"],
                    detail=body["violation"]["detail"],
                    host=body["host"],
                )
        finally:
            await subscription.unsubscribe()


__all__ = [
    "CordonClient",
    "Violation",
    "new_request_id",
    "submit_subject",
    "result_subject",
    "violation_subject",
    "encode",
    "decode",
]
