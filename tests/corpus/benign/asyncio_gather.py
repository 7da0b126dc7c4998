# expect: LOW benign
import asyncio
import random


async def worker(name, queue, results):
    while True:
        item = await queue.get()
        await asyncio.sleep(random.random() / 100)
        results.append((name, item * 2))
        queue.task_done()


async def main():
    queue = asyncio.Queue()
    results = []
    for i in range(50):
        queue.put_nowait(i)
    tasks = [asyncio.create_task(worker(f"w{i}", queue, results)) for i in range(5)]
    await queue.join()
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    print(len(results))


asyncio.run(main())
