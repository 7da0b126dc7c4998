"""cordon's wire protocol as this client speaks it: subjects, the MessagePack envelope with
named fields, and request ids. See ``docs/asyncapi.yaml`` in the cordon repository for the
contract; ``src/protocol/subjects.rs`` and ``src/protocol/envelope.rs`` are its source.
"""

from __future__ import annotations

import secrets
import time
from typing import Any, Dict

import msgpack

API = "cordon.v1"
#: The envelope schema version this client writes and accepts.
SCHEMA_VERSION = 1
#: The stream that keeps the last result of every request (24 h), read by direct get.
RESULTS_STREAM = "CORDON_RESULTS"
#: The client name on an open server when none is given and there is no NATS user.
DEFAULT_CLIENT = "anonymous"
#: The ``session`` value that opens a new session.
NEW_SESSION = "new"

_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def submit_subject(client: str) -> str:
    """The subject client ``client`` submits on (JetStream, ``Nats-Msg-Id`` = request id)."""
    return f"{API}.exec.submit.{client}"


def result_subject(client: str, request_id: str) -> str:
    """The subject the result of ``client``'s request ``request_id`` is published on."""
    return f"{API}.exec.result.{client}.{request_id}"


def output_subject(client: str, request_id: str) -> str:
    """The subject the live output (``OutputChunk``) of a request is published on."""
    return f"{API}.exec.output.{client}.{request_id}"


def session_list_subject(client: str) -> str:
    """The request/reply subject that lists ``client``'s open sessions."""
    return f"{API}.session.list.{client}"


def violation_subject(client: str) -> str:
    """The subject ``client``'s violation events are published on."""
    return f"{API}.events.violation.{client}"


def new_request_id() -> str:
    """A fresh ULID (time-ordered, 26 characters), as cordon uses for request ids."""
    value = (int(time.time() * 1000) << 80) | secrets.randbits(80)
    return "".join(_CROCKFORD[(value >> shift) & 31] for shift in range(125, -1, -5))


def now_ms() -> int:
    return int(time.time() * 1000)


def encode(request_id: str, body: Any) -> bytes:
    """Wraps ``body`` in cordon's versioned envelope, as MessagePack with named fields.
    (The envelope's ``client`` is left out: cordon takes it from the subject.)"""
    now = now_ms()
    envelope = {
        "schema": SCHEMA_VERSION,
        "request_id": request_id,
        "submitted_at_ms": now,
        "sent_at_ms": now,
        "body": body,
    }
    return msgpack.packb(envelope, use_bin_type=True)


def decode(payload: bytes) -> Dict[str, Any]:
    """Unwraps an envelope; raises ``ValueError`` for anything but one MessagePack map of
    this schema version."""
    try:
        envelope = msgpack.unpackb(payload, raw=False)
    except Exception as error:  # msgpack raises several types for bad input
        raise ValueError(f"payload is not valid MessagePack: {error}") from None
    if not isinstance(envelope, dict):
        raise ValueError("payload is not an envelope")
    if envelope.get("schema") != SCHEMA_VERSION:
        raise ValueError(f"unsupported schema version {envelope.get('schema')!r}")
    return envelope

