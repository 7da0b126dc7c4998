"""A small Python client for cordon: submit code, await its result, stream violation events.

Speaks cordon's wire protocol (subjects ``cordon.v1.*``, MessagePack envelopes with named
fields) over NATS with nats-py. See the project's README for the result document.
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
SUBMIT_SUBJECT = f"{API}.exec.submit"
VIOLATION_SUBJECT = f"{API}.events.violation"
RESULTS_STREAM = "CORDON_RESULTS"

_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def result_subject(request_id: str) -> str:
    """The subject a request's result is published on."""
    return f"{API}.exec.result.{request_id}"


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

    def __init__(self, nc: nats.NATS):
        self._nc = nc
        self._js = nc.jetstream()

    @classmethod
    async def connect(cls, url: str) -> "CordonClient":
        return cls(await nats.connect(url, name="cordon-python"))

    async def close(self) -> None:
        await self._nc.drain()

    async def submit(
        self,
        code: str | bytes,
        trust: str = "untrusted",
        origin: str = "external",
        timeout_ms: Optional[int] = None,
        client: Optional[str] = None,
        request_id: Optional[str] = None,
        network: Optional[str] = None,
    ) -> str:
        """Submits code; returns its request id. Resubmitting an id is deduplicated."""
        request_id = request_id or new_request_id()
        body: dict[str, Any] = {"code": code, "trust": trust, "origin": origin}
        if timeout_ms is not None:
            body["timeout_ms"] = timeout_ms
        if client is not None:
            body["client"] = client
        if network is not None:
            body["network"] = network  # "none" or "allowlist" (trust levels per config)
        headers = {"Nats-Msg-Id": request_id, "Content-Type": "application/msgpack"}
        await self._js.publish(SUBMIT_SUBJECT, encode(request_id, body), headers=headers)
        return request_id

    async def result(self, request_id: str, wait: float = 600.0) -> dict[str, Any]:
        """Waits for a request's result document (also if it finished before we asked)."""
        deadline = time.monotonic() + wait
        subscription = await self._nc.subscribe(result_subject(request_id))
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
        """The kept result of a finished request, or None."""
        try:
            message = await self._js.get_last_msg(RESULTS_STREAM, result_subject(request_id))
        except NotFoundError:
            return None
        return decode(message.data)["body"]

    async def run(self, code: str | bytes, wait: float = 600.0, **options: Any) -> dict[str, Any]:
        """Submits code and waits for its result document."""
        request_id = await self.submit(code, **options)
        return await self.result(request_id, wait=wait)

    async def violations(self) -> AsyncIterator[Violation]:
        """Yields every violation event from now on."""
        subscription = await self._nc.subscribe(VIOLATION_SUBJECT)
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


__all__ = ["CordonClient", "Violation", "new_request_id", "result_subject", "encode", "decode"]
