"""Runs two programs through cordon and prints how each ended, watching for violations.

Usage: python3 example.py nats://127.0.0.1:4222
"""

import asyncio
import sys

from cordon_client import CordonClient


async def main(url: str) -> None:
    client = await CordonClient.connect(url)
    seen = []

    async def watch() -> None:
        async for violation in client.violations():
            seen.append(violation)
            print(f"violation event: {violation.kind} for {violation.request_id}")

    watcher = asyncio.create_task(watch())
    await asyncio.sleep(0.1)
    ok = await client.run("print(sum(range(10)))", client="example")
    print(f"first: {ok['status']} exit={ok['exit_code']} stdout={ok['stdout']!r}")
    spin = await client.run("while True: pass", timeout_ms=1000, client="example")
    print(f"second: {spin['status']} kind={spin['violation']['kind']}")
    for _ in range(50):
        if seen:
            break
        await asyncio.sleep(0.1)
    watcher.cancel()
    await client.close()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
