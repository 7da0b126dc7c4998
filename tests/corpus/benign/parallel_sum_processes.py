# expect: LOW benign
"""Sums a list by splitting it across child processes, two levels deep."""
import multiprocessing as mp


def parallel_sum(values, out, depth=0):
    if depth >= 2 or len(values) < 8:
        out.put(sum(values))
        return
    mid = len(values) // 2
    results = mp.Queue()
    halves = [values[:mid], values[mid:]]
    children = [mp.Process(target=parallel_sum, args=(h, results, depth + 1)) for h in halves]
    for child in children:
        child.start()
    total = results.get() + results.get()
    for child in children:
        child.join()
    out.put(total)


if __name__ == "__main__":
    q = mp.Queue()
    parallel_sum(list(range(1000)), q)
    print("total", q.get())
