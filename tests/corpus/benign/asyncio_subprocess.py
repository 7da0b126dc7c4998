# expect: LOW benign
import asyncio
import sys


async def run(code):
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", code, stdout=asyncio.subprocess.PIPE
    )
    out, _ = await proc.communicate()
    return out.decode().strip()


async def main():
    results = await asyncio.gather(*(run(f"print({i} ** 2)") for i in range(5)))
    print(results)


asyncio.run(main())
