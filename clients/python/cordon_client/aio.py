"""The asyncio client: ``AsyncCordon``, its sessions and its runs.

How a run travels (the same as cordon's Rust client, ``src/client.rs``): subscribe to the
request's result subject (and, with a callback, its live output subject) first, then
publish the ``ExecRequest`` envelope on ``cordon.v1.exec.submit.<client>`` with
``Nats-Msg-Id`` = the request id (a resubmission is deduplicated), then wait for the
result; every two seconds without it, read the results stream (a direct get of the one
subject), which keeps the last result of every request for 24 hours, in case the live
message was missed.
"""

from __future__ import annotations

import asyncio
import codecs
import inspect
import logging
import os
import re
from pathlib import Path
from types import TracebackType
from typing import (
    Any,
    AsyncIterator,
    Awaitable,
    Callable,
    Dict,
    Generator,
    List,
    Mapping,
    Optional,
    Set,
    Tuple,
    Type,
    Union,
)

import nats.errors
import nats.js.errors
from nats.aio.client import Client as NATS

from . import wire
from .errors import Cancelled, CordonError, Failed, Rejected, Unavailable
from .result import OpenSession, Result, ViolationEvent

log = logging.getLogger("cordon_client")

#: A callback for live output: called with each piece of text as it arrives (a coroutine
#: function is awaited).
OutputCallback = Callable[[str], Union[None, Awaitable[None]]]
#: Files for the working directory: relative path -> bytes, text (UTF-8) or a local path
#: to read.
Files = Mapping[str, Union[bytes, bytearray, str, "os.PathLike[str]"]]

#: How long a submission waits for a stream to take it (cordon starting up).
SUBMIT_PATIENCE = 20.0
#: How often a wait without a live result looks in the results stream.
POLL_SECONDS = 2.0
#: A wait stretched for a program's own deadline gets this much more.
DEADLINE_MARGIN = 30.0

_CLIENT_NAME = re.compile(r"[A-Za-z0-9_-]{1,128}")


def _unreachable(url: str, error: Optional[BaseException]) -> Unavailable:
    why = f": {error!r}" if error is not None else ""
    return Unavailable("unreachable", f"cannot reach NATS at {url}{why}")


class _Live:
    """The live output of one run: decodes chunks per stream, calls the callbacks, and
    makes up from the result what never arrived (unless a chunk went missing)."""

    def __init__(self, on_stdout: Optional[OutputCallback], on_stderr: Optional[OutputCallback]) -> None:
        self.callbacks = {"stdout": on_stdout, "stderr": on_stderr}
        self.decoders = {s: codecs.getincrementaldecoder("utf-8")("replace") for s in self.callbacks}
        self.delivered: Dict[str, List[str]] = {s: [] for s in self.callbacks}
        self.next_seq = 0
        self.gap = False
        self.finished = False

    def feed(self, chunk: Mapping[str, Any]) -> List[Tuple[OutputCallback, str]]:
        if self.finished:
            return []
        seq = chunk.get("seq")
        self.gap |= seq != self.next_seq
        self.next_seq = (seq if isinstance(seq, int) else self.next_seq) + 1
        stream = "stderr" if chunk.get("stream") == "stderr" else "stdout"
        data = chunk.get("data") or b""
        if isinstance(data, str):
            data = data.encode("utf-8")
        return self._deliver(stream, self.decoders[stream].decode(bytes(data)))

    def _deliver(self, stream: str, text: str) -> List[Tuple[OutputCallback, str]]:
        callback = self.callbacks[stream]
        if not text:
            return []
        self.delivered[stream].append(text)
        return [(callback, text)] if callback is not None else []

    def finish(self, result: Result) -> List[Tuple[OutputCallback, str]]:
        """The rest of each stream, from the result, when what arrived is its beginning."""
        self.finished = True
        calls: List[Tuple[OutputCallback, str]] = []
        for stream, whole in (("stdout", result.stdout), ("stderr", result.stderr)):
            calls += self._deliver(stream, self.decoders[stream].decode(b"", final=True))
            seen = "".join(self.delivered[stream])
            if not self.gap and whole.startswith(seen) and len(whole) > len(seen):
                calls += self._deliver(stream, whole[len(seen) :])
        return calls


async def _call(callback: OutputCallback, text: str) -> None:
    outcome = callback(text)
    if inspect.isawaitable(outcome):
        await outcome


class AsyncRun:
    """One submitted request: wait for it with ``result()``, stop waiting with
    ``cancel()``. Made by ``AsyncCordon.submit`` and ``AsyncSession.submit``."""

    def __init__(self, client: "AsyncCordon", request_id: str, wait: float, session: Optional["AsyncSession"]) -> None:
        self.request_id = request_id
        self.session = session
        self._client = client
        self._wait = wait
        # The body of the result, or the exception that ends the wait.
        self._outcome: "asyncio.Future[Union[Dict[str, Any], BaseException]]" = (
            asyncio.get_running_loop().create_future()
        )
        self._result: Optional[Result] = None
        self._live: Optional[_Live] = None
        self._result_sub: Any = None
        self._output_sub: Any = None

    def done(self) -> bool:
        """Whether the result is here (or the run was cancelled)."""
        return self._outcome.done()

    def _settle(self, outcome: Union[Dict[str, Any], BaseException]) -> None:
        if not self._outcome.done():
            self._outcome.set_result(outcome)

    async def _subscribe(self, live: Optional[_Live]) -> None:
        nc = self._client._connection()
        client = self._client.client

        async def on_result(message: Any) -> None:
            try:
                self._settle(wire.decode(message.data)["body"])
            except (ValueError, KeyError) as error:
                log.warning("unreadable result for %s: %s", self.request_id, error)

        self._client._runs.add(self)
        self._result_sub = await nc.subscribe(wire.result_subject(client, self.request_id), cb=on_result)
        if live is None:
            return
        self._live = live

        async def on_output(message: Any) -> None:
            try:
                chunk = wire.decode(message.data)["body"]
            except (ValueError, KeyError):
                return
            try:
                for callback, text in live.feed(chunk):
                    await _call(callback, text)
            except Exception as error:  # a callback's own error ends the wait with it
                self._settle(error)

        self._output_sub = await nc.subscribe(wire.output_subject(client, self.request_id), cb=on_output)

    async def _check_subscriptions(self) -> None:
        """A round trip to the server, after which it has refused our subscriptions if it
        refuses them (a permissioned server, another client's name)."""
        await self._client._connection().flush(timeout=max(1, int(min(self._wait, 10))))
        client = self._client.client
        subjects = [wire.result_subject(client, self.request_id), wire.output_subject(client, self.request_id)]
        denial = self._client._denial_of(subjects)
        if denial is not None:
            raise self._client._not_permitted(denial, self.request_id)

    async def result(self, timeout: Optional[float] = None, raise_on_error: bool = False) -> Result:
        """Waits for the result (at most ``timeout`` seconds; default: the wait this run was
        submitted with) and returns it whatever its status, or raises the matching
        ``CordonError`` with ``raise_on_error``. ``Unavailable`` (``timed_out``) when none
        came in time (calling ``result`` again waits again); ``Cancelled`` after
        ``cancel``."""
        if self._result is None:
            await self._await_outcome(self._wait if timeout is None else timeout)
        assert self._result is not None
        if raise_on_error:
            self._result.raise_for_status()
        return self._result

    async def _await_outcome(self, wait: float) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait
        try:
            if self._result_sub is None and not self._outcome.done():
                await self._subscribe(None)
            while not self._outcome.done():
                remaining = deadline - loop.time()
                if remaining <= 0:
                    raise Unavailable(
                        "timed_out",
                        f"no result for {self.request_id} within {wait:g} s; it may still be queued or "
                        f"running (its result is kept: result({self.request_id!r}))",
                        request_id=self.request_id,
                    )
                await asyncio.wait({self._outcome}, timeout=min(POLL_SECONDS, remaining))
                if not self._outcome.done():
                    subject = wire.result_subject(self._client.client, self.request_id)
                    denial = self._client._denial_of([subject])
                    if denial is not None:
                        raise self._client._not_permitted(denial, self.request_id)
                    stored = await self._client._stored_result(self.request_id)
                    if stored is not None:
                        self._settle(stored)
        except Unavailable:
            await self._release()
            raise
        outcome = self._outcome.result()
        if isinstance(outcome, BaseException):
            await self._release()
            raise outcome
        await self._finish(outcome)

    async def _finish(self, body: Dict[str, Any]) -> None:
        result = Result.from_wire(body)
        if self._output_sub is not None:
            # What the server already sent us of the output is handled before the result.
            sub, self._output_sub = self._output_sub, None
            try:
                await asyncio.wait_for(sub.drain(), timeout=5.0)
            except Exception:
                await _unsubscribe(sub)
        try:
            if self._live is not None:
                for callback, text in self._live.finish(result):
                    await _call(callback, text)
        finally:
            self._result = result
            await self._release()
            if self.session is not None:
                self.session._saw(result)

    async def _release(self) -> None:
        """Drops this run's subscriptions (a later ``result()`` subscribes again)."""
        subs = (self._result_sub, self._output_sub)
        self._result_sub = self._output_sub = None
        for sub in subs:
            if sub is not None:
                await _unsubscribe(sub)
        self._client._runs.discard(self)
        if self.session is not None:
            self.session._running.discard(self)

    async def cancel(self) -> None:
        """Stops waiting: whoever waits on this run gets ``Cancelled``.

        cordon's protocol has no cancel message, so this cannot stop a program that is
        already queued or running: a one-off run goes on to its end or its deadline, and its
        result is still kept (``AsyncCordon.result(request_id)`` reads it). For a cell of a
        session, cancelling also closes the session, which removes its sandbox and
        everything in it; cells of a session run one at a time, so the close takes effect
        when the running cell ends, at its own deadline at the latest (it is interrupted
        then)."""
        if self._result is not None:
            return
        self._settle(Cancelled("cancelled", f"request {self.request_id} was cancelled", request_id=self.request_id))
        await self._release()
        if self.session is not None:
            await self.session._close_later()


async def _unsubscribe(sub: Any) -> None:
    try:
        await sub.unsubscribe()
    except Exception:  # closed connection, already unsubscribed: nothing left to drop
        pass


class AsyncSession:
    """A session: one sandbox with one Python interpreter, whose variables, imports and
    working directory carry over from cell to cell. It runs without network. Close it
    (``close()``, or leave its ``async with``) to free its sandbox; it also ends when idle
    for its idle timeout, past its lifetime, or on any violation but a cell's timeout."""

    def __init__(self, client: "AsyncCordon", session_id: str, trust: Optional[str], opened: Optional[Result]) -> None:
        self.id = session_id
        self.trust = trust
        #: The result of opening it (None for a session attached by id).
        self.opened = opened
        #: Where it stood after the last cell (from that cell's result).
        self.info = opened.session if opened is not None else None
        self._client = client
        self._ended = False
        self._closing: Optional[AsyncRun] = None
        self._running: Set[AsyncRun] = set()

    @property
    def open(self) -> bool:
        """False once this client closed it or a result said it ended."""
        return not self._ended and self._closing is None

    def _saw(self, result: Result) -> None:
        if result.session is not None and result.session.id == self.id:
            self.info = result.session
            if not result.session.open:
                self._ended = True
        if result.error is not None and result.error.code in ("session_closed", "session_lost"):
            self._ended = True

    async def submit(
        self,
        code: Union[str, bytes],
        *,
        files: Optional[Files] = None,
        stdin: Optional[Union[bytes, str]] = None,
        timeout_ms: Optional[int] = None,
        on_stdout: Optional[OutputCallback] = None,
        on_stderr: Optional[OutputCallback] = None,
        timeout: Optional[float] = None,
        tag: Optional[str] = None,
    ) -> AsyncRun:
        """Submits ``code`` as this session's next cell; see ``AsyncCordon.submit``."""
        run = await self._client._submit(
            code,
            {"session": self.id, "trust": self.trust},
            files=files,
            stdin=stdin,
            timeout_ms=timeout_ms,
            on_stdout=on_stdout,
            on_stderr=on_stderr,
            timeout=timeout,
            tag=tag,
            session=self,
        )
        self._running.add(run)
        return run

    async def run(
        self,
        code: Union[str, bytes],
        *,
        files: Optional[Files] = None,
        stdin: Optional[Union[bytes, str]] = None,
        timeout_ms: Optional[int] = None,
        on_stdout: Optional[OutputCallback] = None,
        on_stderr: Optional[OutputCallback] = None,
        timeout: Optional[float] = None,
        raise_on_error: bool = False,
        tag: Optional[str] = None,
    ) -> Result:
        """Runs ``code`` as the next cell and returns its result (files the cell wrote under
        ``./outputs/`` come back in ``Result.files``). A cell past its deadline
        (``timeout_ms``, or the trust level's) is interrupted with KeyboardInterrupt and
        the session goes on. A cell of a session that has ended answers ``failed`` /
        ``session_closed`` (``session_lost`` if its sandbox or host went away)."""
        run = await self.submit(
            code,
            files=files,
            stdin=stdin,
            timeout_ms=timeout_ms,
            on_stdout=on_stdout,
            on_stderr=on_stderr,
            timeout=timeout,
            tag=tag,
        )
        try:
            return await run.result(raise_on_error=raise_on_error)
        finally:
            self._running.discard(run)
            if not run.done():
                await run._release()

    async def close(self, timeout: Optional[float] = None) -> Optional[Result]:
        """Closes the session, which removes its sandbox; waits for cordon to confirm and
        returns that result (None when a result had already said the session ended). It
        queues behind a cell still running."""
        if self._ended and self._closing is None:
            return None
        await self._close_later()
        assert self._closing is not None
        result = await self._closing.result(timeout=timeout)
        self._ended = True
        return result

    async def _close_later(self) -> None:
        """Submits the close without waiting for it."""
        if self._closing is not None or self._ended:
            return
        self._closing = await self._client._submit(
            "", {"session": self.id, "trust": self.trust, "close_session": True}, session=self
        )

    async def cancel(self) -> None:
        """Stops waiting for this session's cells (their waiters get ``Cancelled``) and closes
        the session without waiting for the close: see ``AsyncRun.cancel``."""
        for run in list(self._running):
            self._running.discard(run)
            await run.cancel()
        await self._close_later()

    async def __aenter__(self) -> "AsyncSession":
        return self

    async def __aexit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None:
        try:
            await self.close()
        except CordonError:
            if exc_type is None:
                raise


class _SessionOpener:
    """What ``AsyncCordon.session()`` returns: await it for the session, or use it in
    ``async with`` to have the session closed on the way out."""

    def __init__(self, opening: Callable[[], Awaitable[AsyncSession]]) -> None:
        self._opening = opening
        self._session: Optional[AsyncSession] = None

    def __await__(self) -> Generator[Any, None, AsyncSession]:
        return self._opening().__await__()

    async def __aenter__(self) -> AsyncSession:
        self._session = await self._opening()
        return self._session

    async def __aexit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None:
        if self._session is not None:
            await self._session.__aexit__(exc_type, exc, tb)


class AsyncCordon:
    """A connection to a cordon's NATS server, for asyncio.

    ``async with AsyncCordon("nats://127.0.0.1:4222") as c: result = await c.run("print(1)")``

    Credentials: ``user`` and ``password``, or ``creds`` (a ``.creds`` file; needs the
    ``nkeys`` package: ``pip install cordon-client[creds]``). The client name (the
    ``<client>`` of every subject) is ``client``, else the user, else ``anonymous``; on a
    permissioned server (cordon's ``deploy/nats/cordon.conf``) it must be your NATS user,
    and replies come to the private inbox ``_INBOX_<user>`` (``inbox_prefix`` to change it).

    ``timeout`` (seconds) bounds every wait: connecting, each result (queueing included;
    stretched to a run's own ``timeout_ms`` plus 30 s when that is longer), each session
    list. Every call takes its own ``timeout`` too. A wait that runs out raises
    ``Unavailable``.
    """

    def __init__(
        self,
        url: str = "nats://127.0.0.1:4222",
        *,
        user: Optional[str] = None,
        password: Optional[str] = None,
        creds: Optional[Union[str, "os.PathLike[str]"]] = None,
        client: Optional[str] = None,
        inbox_prefix: Optional[str] = None,
        timeout: float = 120.0,
        name: str = "cordon-python",
    ) -> None:
        if user is not None and creds is not None:
            raise ValueError("give user and password, or a creds file, not both")
        self.url = url
        self.client = client or user or wire.DEFAULT_CLIENT
        if not _CLIENT_NAME.fullmatch(self.client):
            raise ValueError(f"client name {self.client!r}: use letters, digits, '-' and '_' (at most 128)")
        self.timeout = float(timeout)
        self._user = user
        self._password = password
        self._creds = os.fspath(creds) if creds is not None else None
        self._inbox_prefix = inbox_prefix if inbox_prefix is not None else (f"_INBOX_{user}" if user else None)
        self._name = name
        self._nc: Optional[NATS] = None
        self._js: Any = None
        self._connecting: Optional[asyncio.Lock] = None
        self._closed = False
        self._last_error: Optional[BaseException] = None
        self._connect_error: Optional[BaseException] = None
        self._runs: Set[AsyncRun] = set()
        # The server's "Permissions Violation" errors (newest last), and who waits for one.
        self._denials: List[str] = []
        self._denial_waiters: Set["asyncio.Future[None]"] = set()

    # -- connection ------------------------------------------------------------------------

    async def connect(self) -> "AsyncCordon":
        """Connects (once; the other calls connect on first use). ``Unavailable``
        (``unreachable``) when the server cannot be reached within the timeout. Once
        connected, it reconnects by itself after a disconnection."""
        if self._closed:
            raise Unavailable("closed", "this client was closed")
        if self._nc is not None:
            return self
        if self._connecting is None:
            self._connecting = asyncio.Lock()
        async with self._connecting:
            if self._nc is None:
                await self._open()
        return self

    async def _open(self) -> None:
        async def on_error(error: Exception) -> None:
            self._last_error = error
            if self._nc is None and (self._connect_error is None or isinstance(error, nats.errors.Error)):
                self._connect_error = error  # what the server said beats a reset connection
            log.debug("nats: %r", error)
            if "permissions violation" in str(error).lower():
                self._denials = self._denials[-15:] + [str(error)]
                for waiter in list(self._denial_waiters):
                    if not waiter.done():
                        waiter.set_result(None)

        async def on_disconnected() -> None:
            log.debug("nats: disconnected")

        options: Dict[str, Any] = {
            "name": self._name,
            "connect_timeout": max(0.1, min(self.timeout, 5.0)),
            # The first connection fails fast (two tries); later ones retry for ever.
            "allow_reconnect": True,
            "max_reconnect_attempts": 1,
            "reconnect_time_wait": 0.25,
            "error_cb": on_error,
            "disconnected_cb": on_disconnected,
        }
        if self._user is not None:
            options.update(user=self._user, password=self._password or "")
        if self._creds is not None:
            if not Path(self._creds).is_file():
                raise Unavailable("unreachable", f"creds file {self._creds} cannot be read")
            options["user_credentials"] = self._creds
        if self._inbox_prefix:
            options["inbox_prefix"] = self._inbox_prefix
        nc = NATS()
        try:
            await asyncio.wait_for(nc.connect(self.url, **options), timeout=self.timeout)
        except ModuleNotFoundError as error:  # creds without nkeys
            await _close_quietly(nc)
            raise Unavailable("unreachable", f"{error}: pip install cordon-client[creds]") from None
        except (asyncio.TimeoutError, OSError, nats.errors.Error) as error:
            await _close_quietly(nc)
            raise _unreachable(self.url, self._connect_error or self._last_error or error) from None
        except BaseException:
            await _close_quietly(nc)
            raise
        nc.options["max_reconnect_attempts"] = -1
        nc.options["reconnect_time_wait"] = 1.0
        self._nc = nc
        self._js = nc.jetstream()

    def _denial_of(self, subjects: List[str]) -> Optional[str]:
        """The server's refusal of one of ``subjects``, if it refused one."""
        wanted = [f'"{subject.lower()}"' for subject in subjects]  # nats-py lowercases them
        for text in reversed(self._denials):
            if any(subject in text.lower() for subject in wanted):
                return text
        return None

    async def _denied(self, subjects: List[str]) -> str:
        """Waits until the server refuses one of ``subjects``."""
        while True:
            text = self._denial_of(subjects)
            if text is not None:
                return text
            waiter: "asyncio.Future[None]" = asyncio.get_running_loop().create_future()
            self._denial_waiters.add(waiter)
            try:
                await waiter
            finally:
                self._denial_waiters.discard(waiter)

    def _not_permitted(self, denial: str, request_id: Optional[str] = None) -> Unavailable:
        return Unavailable(
            "not_permitted",
            f"the NATS server refused it ({denial}): on a permissioned server the client name "
            f"must be your NATS user (client {self.client!r})",
            request_id=request_id,
        )

    def _connection(self) -> NATS:
        if self._nc is None or self._nc.is_closed:
            raise Unavailable("closed", "this client is not connected")
        return self._nc

    async def close(self) -> None:
        """Closes the connection; runs still waited on end with ``Cancelled``. Sessions are
        not closed by this (close them first, or use them in ``async with``)."""
        if self._closed:
            return
        self._closed = True
        for run in list(self._runs):
            run._settle(Cancelled("closed", "the client was closed", request_id=run.request_id))
            await run._release()
        self._runs.clear()
        nc, self._nc = self._nc, None
        if nc is not None:
            await _close_quietly(nc)

    async def __aenter__(self) -> "AsyncCordon":
        return await self.connect()

    async def __aexit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None:
        await self.close()

    # -- runs ------------------------------------------------------------------------------

    async def run(
        self,
        code: Union[str, bytes],
        *,
        trust: Optional[str] = None,
        origin: Optional[str] = None,
        timeout_ms: Optional[int] = None,
        network: Optional[str] = None,
        image: Optional[str] = None,
        files: Optional[Files] = None,
        stdin: Optional[Union[bytes, str]] = None,
        return_files: Optional[bool] = None,
        on_stdout: Optional[OutputCallback] = None,
        on_stderr: Optional[OutputCallback] = None,
        timeout: Optional[float] = None,
        raise_on_error: bool = False,
        tag: Optional[str] = None,
        request_id: Optional[str] = None,
    ) -> Result:
        """Runs ``code`` in a fresh sandbox and returns its ``Result``, whatever its status
        (``raise_on_error=True``: raises ``Rejected``, ``Blocked``, ``LimitExceeded`` or
        ``Failed`` instead for anything but ``completed``). See ``submit`` for the
        arguments."""
        run = await self.submit(
            code,
            trust=trust,
            origin=origin,
            timeout_ms=timeout_ms,
            network=network,
            image=image,
            files=files,
            stdin=stdin,
            return_files=return_files,
            on_stdout=on_stdout,
            on_stderr=on_stderr,
            timeout=timeout,
            tag=tag,
            request_id=request_id,
        )
        try:
            return await run.result(raise_on_error=raise_on_error)
        finally:
            if not run.done():  # the caller was cancelled: drop the subscriptions
                await run._release()

    async def submit(
        self,
        code: Union[str, bytes],
        *,
        trust: Optional[str] = None,
        origin: Optional[str] = None,
        timeout_ms: Optional[int] = None,
        network: Optional[str] = None,
        image: Optional[str] = None,
        files: Optional[Files] = None,
        stdin: Optional[Union[bytes, str]] = None,
        return_files: Optional[bool] = None,
        on_stdout: Optional[OutputCallback] = None,
        on_stderr: Optional[OutputCallback] = None,
        timeout: Optional[float] = None,
        tag: Optional[str] = None,
        request_id: Optional[str] = None,
    ) -> AsyncRun:
        """Submits ``code`` and returns the ``AsyncRun`` to wait for (or cancel).

        ``trust``: ``untrusted`` (cordon's default), ``unknown`` or ``trusted``;
        ``origin``: ``external`` (default) or ``self``; ``timeout_ms``: a shorter deadline
        for the program than its trust level's; ``network``: ``none`` (default) or
        ``allowlist``; ``image``: a name of the server's ``[sandbox.images]``;
        ``files``: ``{relative path: bytes | str | local path}`` placed in the working
        directory before the code runs; ``stdin``: the program's standard input;
        ``return_files``: return what the program writes under ``./outputs/`` (always done
        with files, stdin or in a session); ``on_stdout`` / ``on_stderr``: called with the
        output as it arrives (subscribed before submitting; pieces that never arrived are
        made up from the result, so they see the whole output before the run returns,
        unless a piece went missing in between); an exception a callback raises ends the
        wait and is raised by ``result()``; ``timeout``: how long to wait, in seconds;
        ``tag``: a key of yours kept in the audit log with the request; ``request_id``: a
        ULID of yours (resubmitting an id within the deduplication window is a no-op)."""
        fields: Dict[str, Any] = {}
        for key, value in (("trust", trust), ("origin", origin), ("network", network), ("image", image)):
            if value is not None:
                fields[key] = value
        if return_files is not None:
            fields["return_files"] = bool(return_files)
        return await self._submit(
            code,
            fields,
            files=files,
            stdin=stdin,
            timeout_ms=timeout_ms,
            on_stdout=on_stdout,
            on_stderr=on_stderr,
            timeout=timeout,
            tag=tag,
            request_id=request_id,
        )

    def _wait_for(self, timeout: Optional[float], timeout_ms: Optional[int]) -> float:
        if timeout is not None:
            return float(timeout)
        if timeout_ms:
            return max(self.timeout, timeout_ms / 1000.0 + DEADLINE_MARGIN)
        return self.timeout

    async def _submit(
        self,
        code: Union[str, bytes],
        fields: Dict[str, Any],
        *,
        files: Optional[Files] = None,
        stdin: Optional[Union[bytes, str]] = None,
        timeout_ms: Optional[int] = None,
        on_stdout: Optional[OutputCallback] = None,
        on_stderr: Optional[OutputCallback] = None,
        timeout: Optional[float] = None,
        tag: Optional[str] = None,
        request_id: Optional[str] = None,
        session: Optional[AsyncSession] = None,
    ) -> AsyncRun:
        body: Dict[str, Any] = {"code": code}
        body.update({k: v for k, v in fields.items() if v is not None})
        if timeout_ms is not None:
            body["timeout_ms"] = int(timeout_ms)
        if tag is not None:
            body["client"] = tag
        if files:
            body["files"] = [{"path": path, "content": _file_bytes(content)} for path, content in files.items()]
        if stdin is not None:
            body["stdin"] = stdin.encode("utf-8") if isinstance(stdin, str) else bytes(stdin)
        await self.connect()
        wait = self._wait_for(timeout, timeout_ms)
        run = AsyncRun(self, request_id or wire.new_request_id(), wait, session)
        live = _Live(on_stdout, on_stderr) if (on_stdout or on_stderr) else None
        try:
            await run._subscribe(live)
            await run._check_subscriptions()
            await self._publish(run.request_id, body, min(wait, SUBMIT_PATIENCE))
        except BaseException as error:
            await run._release()
            if isinstance(error, nats.errors.Error):
                raise _unreachable(self.url, error) from None
            raise
        return run

    async def _publish(self, request_id: str, body: Dict[str, Any], patience: float) -> None:
        """Publishes a submission, trying again while no stream takes it (cordon starting)
        or no acknowledgement comes (a retry is deduplicated by its id)."""
        subject = wire.submit_subject(self.client)
        payload = wire.encode(request_id, body)
        headers = {"Nats-Msg-Id": request_id, "Content-Type": "application/msgpack"}
        loop = asyncio.get_running_loop()
        deadline = loop.time() + patience
        while True:
            remaining = deadline - loop.time()
            try:
                publishing = self._js.publish(subject, payload, timeout=max(0.5, min(5.0, remaining)), headers=headers)
                denial = await _unless_denied(publishing, self._denied([subject]))
                if denial is not None:
                    raise self._not_permitted(denial, request_id)
                return
            except nats.errors.MaxPayloadError:
                raise Rejected(
                    "input_too_large",
                    f"the request is {len(payload)} bytes, more than the NATS server takes in one message",
                    request_id=request_id,
                ) from None
            except nats.js.errors.NoStreamResponseError:
                if loop.time() + 0.25 >= deadline:
                    raise Unavailable(
                        "not_serving",
                        f"no stream takes submissions on {subject}: is cordon running?",
                        request_id=request_id,
                    ) from None
                await asyncio.sleep(0.25)
            except (nats.errors.TimeoutError, asyncio.TimeoutError):
                if loop.time() >= deadline:
                    raise Unavailable(
                        "timed_out",
                        f"the NATS server did not acknowledge submission {request_id} within {patience:g} s",
                        request_id=request_id,
                    ) from None
            except nats.js.errors.APIError as error:
                raise Unavailable("not_serving", f"submission refused: {error}", request_id=request_id) from None

    async def result(self, request_id: str, timeout: Optional[float] = None) -> Result:
        """The result of an earlier request of this client (e.g. after a wait ran out),
        waiting for it up to ``timeout`` seconds if it has not finished yet."""
        await self.connect()
        run = AsyncRun(self, request_id, self.timeout if timeout is None else timeout, None)
        stored = await self._stored_result(request_id)
        if stored is not None:
            run._settle(stored)
        return await run.result()

    async def _stored_result(self, request_id: str) -> Optional[Dict[str, Any]]:
        """The kept result of a finished request, or None (a direct get of its subject)."""
        subject = wire.result_subject(self.client, request_id)
        try:
            message = await self._js.get_last_msg(wire.RESULTS_STREAM, subject, direct=True)
        except nats.js.errors.NotFoundError:
            return None
        except (nats.errors.Error, asyncio.TimeoutError) as error:
            log.debug("no stored result for %s yet: %r", request_id, error)
            return None
        try:
            body: Dict[str, Any] = wire.decode(message.data)["body"]
        except (ValueError, KeyError, TypeError):
            return None
        return body

    # -- sessions --------------------------------------------------------------------------

    def session(
        self,
        *,
        trust: Optional[str] = None,
        image: Optional[str] = None,
        idle_timeout: Optional[int] = None,
        timeout: Optional[float] = None,
        tag: Optional[str] = None,
    ) -> _SessionOpener:
        """Opens a session: ``session = await c.session()``, or ``async with c.session() as
        s:`` to close it on the way out. ``trust`` sets its limits for its whole life,
        ``image`` its image, ``idle_timeout`` (seconds) closes it when idle that long (at
        most, and by default, the trust level's). Raises the matching ``CordonError`` when
        it cannot be opened (e.g. ``Rejected`` / ``session_limit``)."""

        async def opening() -> AsyncSession:
            fields: Dict[str, Any] = {"session": wire.NEW_SESSION, "trust": trust, "image": image}
            if idle_timeout is not None:
                fields["idle_timeout_secs"] = int(idle_timeout)
            run = await self._submit("", fields, timeout=timeout, tag=tag)
            result = await run.result(raise_on_error=True)
            if result.session is None or not result.session.id:
                raise Failed("internal", "cordon opened no session", result)
            return AsyncSession(self, result.session.id, trust, result)

        return _SessionOpener(opening)

    def attach_session(self, session_id: str, *, trust: Optional[str] = None) -> AsyncSession:
        """A session opened earlier by this client (e.g. ``cordon session new``), by id."""
        return AsyncSession(self, session_id, trust, None)

    async def list_sessions(self, timeout: Optional[float] = None) -> List[OpenSession]:
        """The sessions this client holds open on every live host, as cordon's Scheduler
        knows them."""
        await self.connect()
        nc = self._connection()
        wait = self.timeout if timeout is None else timeout
        try:
            answer = await nc.request(wire.session_list_subject(self.client), wire.encode("", None), timeout=wait)
        except nats.errors.NoRespondersError:
            raise Unavailable("not_serving", "no Scheduler answers session lists: is cordon running?") from None
        except (nats.errors.TimeoutError, asyncio.TimeoutError):
            raise Unavailable("timed_out", f"no session list within {wait:g} s") from None
        except nats.errors.Error as error:
            raise _unreachable(self.url, error) from None
        body = wire.decode(answer.data)["body"] or {}
        return [
            OpenSession(
                session_id=str(s.get("session_id", "")),
                client=str(s.get("client", "")),
                memory_bytes=int(s.get("memory_bytes") or 0),
            )
            for s in body.get("sessions") or []
        ]

    # -- events ----------------------------------------------------------------------------

    async def _watch_violations(self, deliver: Callable[[ViolationEvent], None]) -> Any:
        """Subscribes to this client's violation events; returns the subscription."""
        await self.connect()

        async def on_event(message: Any) -> None:
            try:
                envelope = wire.decode(message.data)
                body = envelope["body"]
                event = ViolationEvent(
                    request_id=str(envelope.get("request_id", "")),
                    kind=str(body["violation"]["kind"]),
                    detail=str(body["violation"].get("detail", "")),
                    host=str(body.get("host", "")),
                )
            except (ValueError, KeyError, TypeError):
                return
            deliver(event)

        return await self._connection().subscribe(wire.violation_subject(self.client), cb=on_event)

    async def violations(self) -> AsyncIterator[ViolationEvent]:
        """Yields every violation event of this client's requests from now on (a sandbox
        killed for a limit)."""
        queue: "asyncio.Queue[ViolationEvent]" = asyncio.Queue()
        sub = await self._watch_violations(queue.put_nowait)
        try:
            while True:
                yield await queue.get()
        finally:
            await _unsubscribe(sub)


async def _unless_denied(work: Awaitable[Any], denied: Awaitable[str]) -> Optional[str]:
    """Runs ``work`` to its end (its exceptions propagate) unless ``denied`` comes first:
    then ``work`` is cancelled and the denial returned."""
    task = asyncio.ensure_future(work)
    watch = asyncio.ensure_future(denied)
    try:
        await asyncio.wait({task, watch}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for pending in (task, watch):
            if not pending.done():
                pending.cancel()
        await asyncio.gather(task, watch, return_exceptions=True)
    if task.cancelled():  # the denial came first
        return watch.result()
    if task.exception() is not None and watch.done() and not watch.cancelled():
        return watch.result()  # both: the denial says more than a timeout
    task.result()
    return None


def _file_bytes(content: Union[bytes, bytearray, str, "os.PathLike[str]"]) -> bytes:
    if isinstance(content, (bytes, bytearray, memoryview)):
        return bytes(content)
    if isinstance(content, str):
        return content.encode("utf-8")
    return Path(content).read_bytes()


async def _close_quietly(nc: NATS) -> None:
    if nc.is_closed:
        return
    try:
        if nc.is_connected:
            await asyncio.wait_for(nc.drain(), timeout=5.0)
    except Exception:
        pass
    try:
        if not nc.is_closed:
            await nc.close()
    except Exception:
        pass
