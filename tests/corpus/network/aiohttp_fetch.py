# expect: MEDIUM network
import asyncio
import aiohttp


async def main(urls):
    async with aiohttp.ClientSession() as session:
        for url in urls:
            async with session.get(url) as resp:
                print(url, resp.status)


asyncio.run(main(["https://example.com", "https://example.org"]))
