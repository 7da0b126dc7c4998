"""Runs two programs through cordon and prints how each ended, watching for violations.

Usage: python3 example.py nats://127.0.0.1:4222 [USER PASSWORD]
(with a user, as that client of a permissioned server: deploy/nats/cordon.conf)
"""

import asyncio
import sys
from typing import Optional

from cordon_client import CordonClient


async def main(url: str, user: Optional[str], password: Optional[str]) -> None:
    client = await CordonClient.connect(url, user=user, password=password)
    seen = []

    async def watch() -> None:
        async for violation in client.violations():
            seen.append(violation)
            print(f"violation event: {violation.kind} for {violation.request_id}")

    watcher = asyncio.create_task(watch())
    await asyncio.sleep(0.1)
    ok = await client.run("print(sum(range(10)))", session="example")
    print(f"first: {ok['status']} exit={ok['exit_code']} stdout={ok['stdout']!r}")
    spin = await client.run("while True: pass", timeout_ms=1000, session="example")
    print(f"second: {spin['status']} kind={spin['violation']['kind']}")
    for _ in range(50):
        if seen:
            break
        await asyncio.sleep(0.1)
    watcher.cancel()
    await client.close()


if __name__ == "__main__":
    user, password = (sys.argv[2], sys.argv[3]) if len(sys.argv) > 3 else (None, None)
    asyncio.run(main(sys.argv[1], user, password))
