# expect: LOW benign
import asyncio


async def produce(q, n):
    for i in range(n):
        await q.put(i)
    await q.put(None)


async def transform(q_in, q_out):
    while (item := await q_in.get()) is not None:
        await q_out.put(item * 10)
    await q_out.put(None)


async def consume(q):
    total = 0
    while (item := await q.get()) is not None:
        total += item
    return total


async def main():
    a, b = asyncio.Queue(), asyncio.Queue()
    _, _, total = await asyncio.gather(produce(a, 100), transform(a, b), consume(b))
    print(total)


asyncio.run(main())
