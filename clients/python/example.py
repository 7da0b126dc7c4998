"""Runs two programs through cordon and prints how each ended, watching for violations.

Usage: python3 example.py nats://127.0.0.1:4222 [USER PASSWORD]
(with a user, as that client of a permissioned server: deploy/nats/cordon.conf)
"""

import asyncio
import sys
from typing import List, Optional

from cordon_client import AsyncCordon, ViolationEvent


async def main(url: str, user: Optional[str], password: Optional[str]) -> None:
    async with AsyncCordon(url, user=user, password=password) as client:
        seen: List[ViolationEvent] = []

        async def watch() -> None:
            async for violation in client.violations():
                seen.append(violation)
                print(f"violation event: {violation.kind} for {violation.request_id}")

        watcher = asyncio.create_task(watch())
        await asyncio.sleep(0.1)  # let the watcher subscribe
        ok = await client.run("print(sum(range(10)))", tag="example")
        print(f"first: {ok.status} exit={ok.exit_code} stdout={ok.stdout!r}")
        spin = await client.run("while True: pass", timeout_ms=1000, tag="example")
        kind = spin.violation.kind if spin.violation else None
        print(f"second: {spin.status} kind={kind}")
        print(spin.to_text())
        for _ in range(50):
            if seen:
                break
            await asyncio.sleep(0.1)
        watcher.cancel()
        await asyncio.gather(watcher, return_exceptions=True)


if __name__ == "__main__":
    user, password = (sys.argv[2], sys.argv[3]) if len(sys.argv) > 3 else (None, None)
    asyncio.run(main(sys.argv[1], user, password))
