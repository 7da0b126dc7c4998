"""The blocking client: ``Cordon``, its sessions and its runs.

It drives an ``AsyncCordon`` on a private event loop in a background thread, so it works
anywhere, also where an event loop already runs (a notebook). Output callbacks are
called on that thread.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import queue
import threading
import weakref
from types import TracebackType
from typing import Any, Callable, Coroutine, Iterator, List, Optional, Type, TypeVar, Union

from .aio import AsyncCordon, AsyncRun, AsyncSession, Files, OutputCallback, _unsubscribe
from .errors import Cancelled, CordonError, Unavailable
from .result import OpenSession, Result, SessionInfo, ViolationEvent

T = TypeVar("T")


class _LoopThread:
    """An event loop running in a daemon thread, and a way to stop it cleanly (every task
    finished, async generators closed), so nothing is left pending."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._serve, name="cordon-client", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()

    def call(self, coroutine: Coroutine[Any, Any, T]) -> T:
        if self.loop.is_closed() or not self._thread.is_alive():
            coroutine.close()
            raise Unavailable("closed", "this client was closed")
        if threading.current_thread() is self._thread:
            coroutine.close()
            raise RuntimeError("a blocking cordon call cannot be made from an output callback")
        future = asyncio.run_coroutine_threadsafe(coroutine, self.loop)
        try:
            return future.result()
        except concurrent.futures.CancelledError:
            raise Cancelled("cancelled", "the call was cancelled") from None
        except BaseException:
            # KeyboardInterrupt while waiting: stop the coroutine too.
            future.cancel()
            raise

    def stop(self, last: Optional[Callable[[], Coroutine[Any, Any, None]]] = None) -> None:
        """Runs ``last`` (closing the connection), finishes every task, stops the loop."""
        if self.loop.is_closed() or not self._thread.is_alive():
            return
        if threading.current_thread() is self._thread:
            raise RuntimeError("a cordon client cannot be closed from an output callback")

        async def shutdown() -> None:
            if last is not None:
                try:
                    await last()
                except Exception:
                    pass
            current = asyncio.current_task()
            tasks = [task for task in asyncio.all_tasks() if task is not current]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await self.loop.shutdown_asyncgens()

        try:
            asyncio.run_coroutine_threadsafe(shutdown(), self.loop).result(timeout=30)
        except Exception:
            pass
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=30)
        if not self._thread.is_alive():
            self.loop.close()


class Run:
    """One submitted request (from ``Cordon.submit`` or ``Session.submit``): wait with
    ``result()``, stop waiting with ``cancel()`` (from any thread)."""

    def __init__(self, runner: _LoopThread, run: AsyncRun) -> None:
        self._runner = runner
        self._run = run
        self.request_id = run.request_id

    def done(self) -> bool:
        return self._run.done()

    def result(self, timeout: Optional[float] = None, raise_on_error: bool = False) -> Result:
        """See ``AsyncRun.result``."""
        return self._runner.call(self._run.result(timeout=timeout, raise_on_error=raise_on_error))

    def cancel(self) -> None:
        """See ``AsyncRun.cancel``: stops waiting (the waiter gets ``Cancelled``); the
        protocol cannot stop a program, so a one-off run goes on to its end or deadline;
        a session's cell also closes its session, which removes its sandbox once the
        running cell ends (at its deadline at the latest)."""
        self._runner.call(self._run.cancel())


class Session:
    """A session (see ``AsyncSession``): ``with c.session() as s: s.run("x = 1");
    s.run("print(x)")``, closed on the way out of the ``with``."""

    def __init__(self, runner: _LoopThread, session: AsyncSession) -> None:
        self._runner = runner
        self._session = session
        self.id = session.id
        self.opened = session.opened

    @property
    def open(self) -> bool:
        return self._session.open

    @property
    def info(self) -> Optional[SessionInfo]:
        """Where it stood after the last cell (``SessionInfo``: id, open, cells)."""
        return self._session.info

    def run(
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
        """See ``AsyncSession.run``."""
        return self._runner.call(
            self._session.run(
                code,
                files=files,
                stdin=stdin,
                timeout_ms=timeout_ms,
                on_stdout=on_stdout,
                on_stderr=on_stderr,
                timeout=timeout,
                raise_on_error=raise_on_error,
                tag=tag,
            )
        )

    def submit(
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
    ) -> Run:
        """See ``AsyncSession.submit``."""
        run = self._runner.call(
            self._session.submit(
                code,
                files=files,
                stdin=stdin,
                timeout_ms=timeout_ms,
                on_stdout=on_stdout,
                on_stderr=on_stderr,
                timeout=timeout,
                tag=tag,
            )
        )
        return Run(self._runner, run)

    def close(self, timeout: Optional[float] = None) -> Optional[Result]:
        """See ``AsyncSession.close``."""
        return self._runner.call(self._session.close(timeout=timeout))

    def cancel(self) -> None:
        """See ``AsyncSession.cancel``."""
        self._runner.call(self._session.cancel())

    def __enter__(self) -> "Session":
        return self

    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None:
        try:
            self.close()
        except CordonError:
            if exc_type is None:
                raise


class Cordon:
    """A blocking client of a cordon (arguments as ``AsyncCordon``; it connects at once):

    ``with Cordon("nats://127.0.0.1:4222") as c: print(c.run("print(1)").stdout)``
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
        self._async = AsyncCordon(
            url,
            user=user,
            password=password,
            creds=creds,
            client=client,
            inbox_prefix=inbox_prefix,
            timeout=timeout,
            name=name,
        )
        self._runner = _LoopThread()
        # Stops the thread even if close() is never called (at the latest at exit).
        self._finalizer = weakref.finalize(self, self._runner.stop, self._async.close)
        try:
            self._runner.call(self._async.connect())
        except BaseException:
            self.close()
            raise

    @property
    def client(self) -> str:
        """The client name requests are submitted under."""
        return self._async.client

    @property
    def timeout(self) -> float:
        return self._async.timeout

    def close(self) -> None:
        """Closes the connection and stops the client's thread; runs still waited on end
        with ``Cancelled``. Sessions are not closed by this (leave their ``with`` first)."""
        self._finalizer()

    def __enter__(self) -> "Cordon":
        return self

    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None:
        self.close()

    def run(
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
        """Runs ``code`` and returns its ``Result``; see ``AsyncCordon.run`` and
        ``AsyncCordon.submit``. Callbacks are called on the client's thread."""
        return self._runner.call(
            self._async.run(
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
                raise_on_error=raise_on_error,
                tag=tag,
                request_id=request_id,
            )
        )

    def submit(
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
    ) -> Run:
        """Submits ``code``; returns the ``Run`` to wait for or cancel."""
        run = self._runner.call(
            self._async.submit(
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
        )
        return Run(self._runner, run)

    def result(self, request_id: str, timeout: Optional[float] = None) -> Result:
        """See ``AsyncCordon.result``."""
        return self._runner.call(self._async.result(request_id, timeout=timeout))

    def session(
        self,
        *,
        trust: Optional[str] = None,
        image: Optional[str] = None,
        idle_timeout: Optional[int] = None,
        timeout: Optional[float] = None,
        tag: Optional[str] = None,
    ) -> Session:
        """Opens a session (see ``AsyncCordon.session``); use it in ``with`` to close it on
        the way out."""

        async def opening() -> AsyncSession:
            return await self._async.session(
                trust=trust, image=image, idle_timeout=idle_timeout, timeout=timeout, tag=tag
            )

        return Session(self._runner, self._runner.call(opening()))

    def attach_session(self, session_id: str, *, trust: Optional[str] = None) -> Session:
        """A session opened earlier by this client, by id."""
        return Session(self._runner, self._async.attach_session(session_id, trust=trust))

    def list_sessions(self, timeout: Optional[float] = None) -> List[OpenSession]:
        """See ``AsyncCordon.list_sessions``."""
        return self._runner.call(self._async.list_sessions(timeout=timeout))

    def violations(self, timeout: Optional[float] = None) -> "ViolationStream":
        """This client's violation events from now on (subscribed before it returns), as
        an iterator that stops after ``timeout`` seconds without an event (None: never).
        Close it (or use it in ``with``) to unsubscribe."""
        return ViolationStream(self._runner, self._async, timeout)


class ViolationStream:
    """An iterator of ``ViolationEvent``s; see ``Cordon.violations``."""

    def __init__(self, runner: _LoopThread, client: AsyncCordon, timeout: Optional[float]) -> None:
        self._runner = runner
        self._timeout = timeout
        self._events: "queue.Queue[ViolationEvent]" = queue.Queue()
        self._sub: Any = runner.call(client._watch_violations(self._events.put))

    def __iter__(self) -> Iterator[ViolationEvent]:
        return self

    def __next__(self) -> ViolationEvent:
        try:
            return self._events.get(timeout=self._timeout)
        except queue.Empty:
            raise StopIteration from None

    def close(self) -> None:
        sub, self._sub = self._sub, None
        if sub is not None:
            try:
                self._runner.call(_unsubscribe(sub))
            except Exception:  # the client was closed already
                pass

    def __enter__(self) -> "ViolationStream":
        return self

    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None:
        self.close()
