"""``Result.to_text``: a result rendered for a language model.

The rules are the two tables below, small on purpose so that another client (cordon's
Rust MCP server) can mirror them word for word:

* ``REASONS``: per status, a function giving the one sentence that says why a run did not
  succeed (None when it did);
* ``NEXT_STEPS``: what to try next, looked up by ``<status>:<detail>`` (detail: the
  violation kind, the error code, or ``exit`` for a completed run with a non-zero exit
  code), then by ``<status>`` alone.

The text is, line by line: ``status: ...``, ``stdout:`` and ``stderr:`` blocks (left out when
empty), ``reason: ...``, ``next: ...``, then one line per returned file (``file: NAME (N
bytes, MEDIA TYPE, sha256 PREFIX)``), per file not returned (``file not returned: NAME:
REASON``), per refused connection (``network denied: HOST: REASON``), and the session
(``session: ID (open|closed, N cells)``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Dict, List, Optional

if TYPE_CHECKING:
    from .result import Result

#: What to try next, by ``<status>:<detail>`` then ``<status>``.
NEXT_STEPS: Dict[str, str] = {
    "completed:exit": "read stderr, fix the code and run it again",
    "violation:timeout": "make it faster or split it into smaller cells",
    "violation:cpu": "use less CPU time: make it faster or split it into smaller cells",
    "violation:memory": "use less memory, e.g. process the data in smaller pieces",
    "violation:pids": "start fewer processes or threads",
    "violation:output": "print less; write large results to files under ./outputs/ instead",
    "violation:disk": "write less to disk",
    "violation:network": "do without that host: only allowlisted hosts can be reached",
    "violation:policy": "do it without reading secrets, loading native libraries or downloading and running programs",
    "violation": "stay within the sandbox's limits and run it again",
    "blocked": "do not retry it as it is: an operator must release it, or rewrite it without what was flagged",
    "rejected:unknown_trust_level": "use one of the trust levels untrusted, unknown or trusted",
    "rejected:trust_not_allowed": "use a lower trust level",
    "rejected:unknown_session": "open a new session",
    "rejected:session_limit": "close a session you no longer need, then try again",
    "rejected:code_too_large": "send less code, e.g. split it into smaller cells",
    "rejected:input_too_large": "send smaller files or stdin",
    "rejected:invalid_file": "name each file once, by a relative path without '..', '.' or empty parts",
    "rejected:network_not_allowed": "run it without network, or at a trust level that allows it",
    "rejected:unknown_image": "use one of the configured images, e.g. default",
    "rejected": "fix the request as the reason says",
    "failed:session_lost": "open a new session; earlier variables are gone",
    "failed:session_closed": "open a new session; earlier variables are gone",
    "failed:sandbox_lost": "run it again; if it happens again, it may need more memory than the host can give",
    "failed:image_missing": "use the default image, or ask an operator to install this one",
    "failed:message_too_large": "return less: print less and write fewer or smaller files",
    "failed:package_install_failed": "check the package names and versions in stderr, or do without them",
    "failed": "try again later; if it keeps failing, an operator should read cordon's logs",
}


def _sentence(text: str) -> str:
    text = " ".join(text.split())
    return text if text.endswith((".", "!", "?")) else text + "."


def _completed(result: "Result") -> Optional[str]:
    if result.exit_code in (0, None):
        return None
    return f"the program exited with code {result.exit_code}."


def _violation(result: "Result") -> Optional[str]:
    if result.violation is None:
        return "cordon stopped it for breaking a limit."
    return _sentence(f"cordon stopped it at its {result.violation.kind} limit: {result.violation.detail}")


def _blocked(result: "Result") -> Optional[str]:
    findings = [f for f in result.findings if f.severity == "BLOCKED"] or result.findings
    why = "; ".join(f"{f.rule} line {f.line}: {f.message.rstrip('.')}" for f in findings)
    return _sentence(f"cordon blocked it before it ran ({why or 'its assessment is BLOCKED'}); an operator must release it")


def _error(result: "Result") -> Optional[str]:
    if result.error is None:
        return f"the request was {result.status}."
    return _sentence(f"{result.error.message.rstrip('.')} ({result.error.code})")


#: The sentence that says why, per status.
REASONS: Dict[str, Callable[["Result"], Optional[str]]] = {
    "completed": _completed,
    "violation": _violation,
    "blocked": _blocked,
    "rejected": _error,
    "failed": _error,
}


def detail_of(result: "Result") -> str:
    """The detail ``NEXT_STEPS`` is looked up by."""
    if result.status == "completed":
        return "exit"
    if result.violation is not None:
        return result.violation.kind
    return result.error.code if result.error else ""


def next_step(result: "Result") -> Optional[str]:
    """What to try next, or None for a run that succeeded."""
    if result.status == "completed" and result.exit_code in (0, None):
        return None
    return NEXT_STEPS.get(f"{result.status}:{detail_of(result)}") or NEXT_STEPS.get(result.status)


def status_line(result: "Result") -> str:
    if result.status == "completed":
        return f"status: completed (exit code {result.exit_code})"
    detail = detail_of(result)
    return f"status: {result.status} ({detail})" if detail else f"status: {result.status}"


def _stream(name: str, text: str, truncated: bool, limit: Optional[int]) -> List[str]:
    if not text and not truncated:
        return []
    note = " (cut by cordon at its cap)" if truncated else ""
    if limit is not None and len(text) > limit:
        note += f" (only its last {limit} of {len(text)} characters)"
        text = text[len(text) - limit :]
    return [f"{name}{note}:", text.rstrip("\n")]


def render(result: "Result", max_output_chars: Optional[int] = None) -> str:
    """The whole text; see the module's description."""
    lines = [status_line(result)]
    lines += _stream("stdout", result.stdout, result.stdout_truncated, max_output_chars)
    lines += _stream("stderr", result.stderr, result.stderr_truncated, max_output_chars)
    rule = REASONS.get(result.status, _error)
    reason = rule(result)
    if reason:
        lines.append(f"reason: {reason}")
    step = next_step(result)
    if step:
        lines.append(f"next: {step}")
    for f in result.files:
        lines.append(f"file: {f.name} ({f.bytes} bytes, {f.media_type}, sha256 {f.sha256[:16]})")
    for skipped in result.files_skipped:
        lines.append(f"file not returned: {skipped.name}: {skipped.reason}")
    for denied in result.network_denied:
        lines.append(f"network denied: {denied.host}: {denied.reason}")
    if result.session is not None:
        state = "open" if result.session.open else "closed"
        lines.append(f"session: {result.session.id} ({state}, {result.session.cells} cells)")
    return "\n".join(lines)
