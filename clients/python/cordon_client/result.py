"""The result document of a request (``ExecResult`` on the wire) as typed objects.

Every field of the wire document is kept; ``Result.raw`` holds the document as received,
so a field a newer cordon adds is never lost.
"""

from __future__ import annotations

import builtins
import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Union, cast

if TYPE_CHECKING:
    from typing import Literal

    Status = Literal["completed", "violation", "blocked", "rejected", "failed"]
else:
    Status = str

#: Every status a result can have.
STATUSES = ("completed", "violation", "blocked", "rejected", "failed")


@dataclass(frozen=True)
class Finding:
    """One thing the Assessor flagged in the code."""

    rule: str
    title: str
    severity: str
    confidence: str
    line: int
    column: int
    message: str
    cwe: Optional[str] = None
    snippet: str = ""

    @classmethod
    def from_wire(cls, doc: Mapping[str, Any]) -> "Finding":
        return cls(
            rule=str(doc.get("rule", "")),
            title=str(doc.get("title", "")),
            severity=str(doc.get("severity", "")),
            confidence=str(doc.get("confidence", "")),
            line=int(doc.get("line") or 0),
            column=int(doc.get("column") or 0),
            message=str(doc.get("message", "")),
            cwe=doc.get("cwe"),
            snippet=str(doc.get("snippet") or ""),
        )


@dataclass(frozen=True)
class Assessment:
    """The risk assessment: LOW, MEDIUM, HIGH or BLOCKED, its score and findings."""

    level: str
    score: int
    findings: List[Finding] = field(default_factory=list)

    @classmethod
    def from_wire(cls, doc: Mapping[str, Any]) -> "Assessment":
        return cls(
            level=str(doc.get("level", "")),
            score=int(doc.get("score") or 0),
            findings=[Finding.from_wire(f) for f in doc.get("findings") or []],
        )


@dataclass(frozen=True)
class ViolationInfo:
    """The limit a sandbox broke (``timeout``, ``memory``, ``pids``, ``output``, ``disk``,
    ``cpu`` or ``network``) and what was seen."""

    kind: str
    detail: str


@dataclass(frozen=True)
class ErrorInfo:
    """A machine-readable error code (``unknown_trust_level``, ``session_lost``...) and a
    sentence for people."""

    code: str
    message: str


@dataclass(frozen=True)
class Usage:
    wall_ms: int
    cpu_ms: int
    peak_memory_bytes: int
    peak_pids: int


@dataclass(frozen=True)
class SessionInfo:
    """The session a cell ran in and where it stands after the cell."""

    id: str
    open: bool
    cells: int


@dataclass(frozen=True)
class OutputFile:
    """A file the program wrote under ``./outputs/`` (named ``outputs/<path>``) or a figure
    it left open (``figure-<cell>-<n>.png``)."""

    name: str
    bytes: int
    sha256: str
    media_type: str
    content: builtins.bytes = field(repr=False)

    @property
    def intact(self) -> bool:
        """Whether ``content`` has the size and SHA-256 the result states."""
        return len(self.content) == self.bytes and hashlib.sha256(self.content).hexdigest() == self.sha256

    @property
    def local_name(self) -> str:
        """The name ``save`` writes under: without ``outputs/``, with ``/`` made ``_`` (as
        ``cordon exec --out`` does), so a file always lands directly in the chosen directory."""
        name = self.name[len("outputs/") :] if self.name.startswith("outputs/") else self.name
        flat = name.replace("/", "_").replace("\\", "_").replace("\0", "_")
        if flat in ("", ".", ".."):
            flat = f"file-{self.sha256[:12] or 'unnamed'}"
        return flat

    def save(self, directory: Union[str, "os.PathLike[str]"]) -> Path:
        """Writes the file into ``directory`` (created if missing) as ``local_name``;
        returns its path."""
        target_dir = Path(directory)
        target_dir.mkdir(parents=True, exist_ok=True)
        target = target_dir / self.local_name
        target.write_bytes(self.content)
        return target

    def text(self, encoding: str = "utf-8") -> str:
        """The content decoded as text (undecodable bytes replaced)."""
        return self.content.decode(encoding, errors="replace")


@dataclass(frozen=True)
class SkippedFile:
    """An output file that was not returned, and why (over a cap)."""

    name: str
    reason: str


@dataclass(frozen=True)
class NetworkDenial:
    """A connection the egress proxy refused during the run."""

    host: str
    reason: str


def _as_bytes(value: Any) -> bytes:
    if value is None:
        return b""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, list):  # a serializer that wrote bytes as an array of numbers
        return bytes(value)
    raise ValueError(f"file content of type {type(value).__name__}")


@dataclass(frozen=True)
class Result:
    """How a request ended: the one authoritative document cordon publishes for it.

    ``status`` is ``completed`` (the program ended by itself; ``exit_code`` is its own),
    ``violation`` (killed for a limit: ``violation``), ``blocked`` (never ran: see
    ``assessment.findings``), ``rejected`` (a bad request: ``error``) or ``failed``
    (cordon could not run it, or a session is gone: ``error``).
    """

    request_id: str
    status: Status
    exit_code: Optional[int]
    stdout: str
    stderr: str
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    violation: Optional[ViolationInfo] = None
    assessment: Optional[Assessment] = None
    limits: Optional[Dict[str, Any]] = None
    usage: Optional[Usage] = None
    audit_index: Optional[int] = None
    error: Optional[ErrorInfo] = None
    session: Optional[SessionInfo] = None
    files: List[OutputFile] = field(default_factory=list)
    files_skipped: List[SkippedFile] = field(default_factory=list)
    network_denied: List[NetworkDenial] = field(default_factory=list)
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_wire(cls, doc: Mapping[str, Any]) -> "Result":
        """Reads a result document (the body of an ``ExecResult`` envelope)."""
        violation = doc.get("violation")
        assessment = doc.get("assessment")
        usage = doc.get("usage")
        audit = doc.get("audit")
        error = doc.get("error")
        session = doc.get("session")
        return cls(
            request_id=str(doc.get("request_id", "")),
            status=cast("Status", str(doc.get("status", ""))),
            exit_code=doc.get("exit_code"),
            stdout=str(doc.get("stdout") or ""),
            stderr=str(doc.get("stderr") or ""),
            stdout_truncated=bool(doc.get("stdout_truncated")),
            stderr_truncated=bool(doc.get("stderr_truncated")),
            violation=ViolationInfo(str(violation.get("kind", "")), str(violation.get("detail", "")))
            if isinstance(violation, Mapping)
            else None,
            assessment=Assessment.from_wire(assessment) if isinstance(assessment, Mapping) else None,
            limits=dict(doc["limits"]) if isinstance(doc.get("limits"), Mapping) else None,
            usage=Usage(
                wall_ms=int(usage.get("wall_ms") or 0),
                cpu_ms=int(usage.get("cpu_ms") or 0),
                peak_memory_bytes=int(usage.get("peak_memory_bytes") or 0),
                peak_pids=int(usage.get("peak_pids") or 0),
            )
            if isinstance(usage, Mapping)
            else None,
            audit_index=audit.get("index") if isinstance(audit, Mapping) else None,
            error=ErrorInfo(str(error.get("code", "")), str(error.get("message", "")))
            if isinstance(error, Mapping)
            else None,
            session=SessionInfo(str(session.get("id", "")), bool(session.get("open")), int(session.get("cells") or 0))
            if isinstance(session, Mapping)
            else None,
            files=[
                OutputFile(
                    name=str(f.get("name", "")),
                    bytes=int(f.get("bytes") or 0),
                    sha256=str(f.get("sha256", "")),
                    media_type=str(f.get("media_type", "")),
                    content=_as_bytes(f.get("content")),
                )
                for f in doc.get("files") or []
            ],
            files_skipped=[SkippedFile(str(f.get("name", "")), str(f.get("reason", ""))) for f in doc.get("files_skipped") or []],
            network_denied=[
                NetworkDenial(str(d.get("host", "")), str(d.get("reason", ""))) for d in doc.get("network_denied") or []
            ],
            raw=dict(doc),
        )

    @property
    def ok(self) -> bool:
        """Completed with exit code 0."""
        return self.status == "completed" and self.exit_code == 0

    @property
    def error_code(self) -> Optional[str]:
        """The error's code (rejected, failed), the violation's kind (violation),
        ``blocked``, or None for a completed run."""
        if self.error is not None:
            return self.error.code
        if self.violation is not None:
            return self.violation.kind
        if self.status == "blocked":
            return "blocked"
        return None

    @property
    def findings(self) -> List[Finding]:
        """The assessment's findings (why a blocked request was blocked)."""
        return list(self.assessment.findings) if self.assessment else []

    def to_text(self, max_output_chars: Optional[int] = None) -> str:
        """The result as text for a language model (or a person): status, stdout, stderr,
        why it did not succeed and what to try next, one line per returned file. The
        rules are in ``cordon_client.text``. ``max_output_chars`` keeps only the end of a
        longer stdout or stderr."""
        from .text import render

        return render(self, max_output_chars)

    def raise_for_status(self) -> "Result":
        """Raises the matching ``CordonError`` unless the request completed (a program's
        own non-zero exit code is not an error of cordon's); returns the result."""
        from .errors import error_for

        failure = error_for(self)
        if failure is not None:
            raise failure
        return self

    def save_files(self, directory: Union[str, "os.PathLike[str]"]) -> List[Path]:
        """Saves every returned file into ``directory``; returns their paths."""
        return [f.save(directory) for f in self.files]


@dataclass(frozen=True)
class OpenSession:
    """A session a client holds open, as the Scheduler knows it."""

    session_id: str
    client: str
    memory_bytes: int


@dataclass(frozen=True)
class ViolationEvent:
    """A sandbox of this client killed for breaking a limit (a violation event)."""

    request_id: str
    kind: str
    detail: str
    host: str
