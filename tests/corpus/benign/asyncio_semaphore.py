# expect: LOW benign
import asyncio


async def job(i, sem):
    async with sem:
        await asyncio.sleep(0.01)
        return i * i


async def main():
    sem = asyncio.Semaphore(3)
    results = await asyncio.gather(*(job(i, sem) for i in range(12)))
    print(results)


asyncio.run(main())
