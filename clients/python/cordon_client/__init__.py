"""The Python client of cordon: run untrusted Python in cordon's hardened sandboxes over NATS.

::

    from cordon_client import Cordon

    with Cordon("nats://127.0.0.1:4222") as c:
        result = c.run("print(sum(range(10)))")
        print(result.status, result.stdout)          # completed 45
        with c.session() as s:                       # one interpreter, state kept
            s.run("x = 41")
            print(s.run("print(x + 1)").stdout)      # 42
        print(result.to_text())                      # for a language model

``AsyncCordon`` is the same for asyncio. Results are ``Result`` objects whatever their
status; ``raise_on_error=True`` raises ``Rejected``, ``Blocked``, ``LimitExceeded`` or
``Failed`` instead (all ``CordonError``, each with a ``code``); ``Unavailable`` means no
result (NATS unreachable, cordon not serving, or the wait ran out).

It speaks cordon's wire protocol (``cordon.v1.*`` subjects, MessagePack envelopes with
named fields; ``docs/asyncapi.yaml`` in the cordon repository). Every client has a name:
it submits on ``cordon.v1.exec.submit.<client>`` and reads only its own results, output
and events; on a permissioned server the name is the NATS user and replies come to the
private inbox ``_INBOX_<user>``.
"""

from .aio import AsyncCordon, AsyncRun, AsyncSession
from .errors import Blocked, Cancelled, CordonError, Failed, LimitExceeded, Rejected, Unavailable
from .result import (
    Assessment,
    ErrorInfo,
    Finding,
    NetworkDenial,
    OpenSession,
    OutputFile,
    Result,
    SessionInfo,
    SkippedFile,
    Usage,
    ViolationEvent,
    ViolationInfo,
)
from .sync import Cordon, Run, Session, ViolationStream
from .wire import (
    decode,
    encode,
    new_request_id,
    output_subject,
    result_subject,
    session_list_subject,
    submit_subject,
    violation_subject,
)

__version__ = "0.1.0"

__all__ = [
    "Cordon",
    "Session",
    "Run",
    "ViolationStream",
    "AsyncCordon",
    "AsyncSession",
    "AsyncRun",
    "Result",
    "OutputFile",
    "SkippedFile",
    "NetworkDenial",
    "SessionInfo",
    "OpenSession",
    "Assessment",
    "Finding",
    "ErrorInfo",
    "Usage",
    "ViolationInfo",
    "ViolationEvent",
    "CordonError",
    "Rejected",
    "Blocked",
    "Failed",
    "LimitExceeded",
    "Unavailable",
    "Cancelled",
    "new_request_id",
    "submit_subject",
    "result_subject",
    "output_subject",
    "session_list_subject",
    "violation_subject",
    "encode",
    "decode",
]
