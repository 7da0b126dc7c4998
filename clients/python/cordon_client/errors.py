"""Exceptions, each carrying a machine-readable ``code``.

A result's status maps to one exception (``error_for``): ``rejected`` -> ``Rejected``
(code: the error code, e.g. ``unknown_trust_level``), ``blocked`` -> ``Blocked`` (code
``blocked``, with the findings), ``failed`` -> ``Failed`` (e.g. ``session_lost``),
``violation`` -> ``LimitExceeded`` (code: the violation kind, e.g. ``timeout``).
``Unavailable`` means no result at all: NATS cannot be reached (``unreachable``), nothing
of cordon answers (``not_serving``), no result came in time (``timed_out``; the request
may still be queued or running, and its result is kept for 24 h), the server refused one
of the client's subjects (``not_permitted``: on a permissioned server the client name must
be the NATS user) or the client was closed (``closed``). ``Cancelled`` is raised to
whoever waits on a run that was cancelled.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, List, Optional

if TYPE_CHECKING:
    from .result import Finding, Result, ViolationInfo


class CordonError(Exception):
    """Base of every error of this client: ``code``, ``message``, and the ``result`` and
    ``request_id`` when there was one."""

    def __init__(
        self,
        code: str,
        message: str,
        result: Optional["Result"] = None,
        request_id: Optional[str] = None,
    ) -> None:
        super().__init__(f"{message} ({code})")
        self.code = code
        self.message = message
        self.result = result
        self.request_id = request_id if request_id is not None else (result.request_id if result else None)


class Rejected(CordonError):
    """The request itself was bad (``unknown_trust_level``, ``session_limit``,
    ``invalid_file``...); nothing ran."""


class Blocked(CordonError):
    """The assessment was BLOCKED: the code never ran. ``findings`` say why. It runs only if
    an operator releases it (``cordon override``)."""

    def __init__(self, message: str, result: "Result") -> None:
        super().__init__("blocked", message, result)
        self.findings: List["Finding"] = result.findings


class Failed(CordonError):
    """cordon could not run it, or the session is gone (``session_lost``,
    ``session_closed``, ``sandbox_lost``, ``image_missing``, ``docker``, ``internal``...)."""


class LimitExceeded(CordonError):
    """The sandbox was killed for breaking a limit; ``code`` is the kind (``timeout``,
    ``memory``, ``pids``, ``output``, ``disk``, ``cpu``, ``network``)."""

    def __init__(self, violation: "ViolationInfo", result: "Result") -> None:
        super().__init__(violation.kind, violation.detail, result)
        self.violation = violation


class Unavailable(CordonError):
    """No result: NATS cannot be reached (``unreachable``), nothing of cordon answers
    (``not_serving``), none came within the wait (``timed_out``), the server refused a
    subject (``not_permitted``), or the client was closed (``closed``)."""


class Cancelled(CordonError):
    """The run was cancelled by this client (code ``cancelled``): see ``AsyncRun.cancel``."""


def error_for(result: "Result") -> Optional[CordonError]:
    """The exception a result stands for, or None when it completed."""
    if result.status == "completed":
        return None
    if result.status == "blocked":
        rules = ", ".join(sorted({f.rule for f in result.findings if f.severity == "BLOCKED"})) or "its assessment"
        return Blocked(f"blocked before it ran ({rules}); an operator must release it", result)
    if result.status == "violation" and result.violation is not None:
        return LimitExceeded(result.violation, result)
    code = result.error.code if result.error else result.status
    message = result.error.message if result.error else f"the request ended {result.status}"
    if result.status == "rejected":
        return Rejected(code, message, result)
    return Failed(code, message, result)
