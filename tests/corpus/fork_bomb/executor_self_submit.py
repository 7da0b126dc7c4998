# expect: BLOCKED fork_bomb
from concurrent.futures import ThreadPoolExecutor

executor = ThreadPoolExecutor(max_workers=64)


def crawl(depth=0):
    # "fan out" to two more crawlers per level
    executor.submit(crawl, depth + 1)
    executor.submit(crawl, depth + 1)


crawl()
