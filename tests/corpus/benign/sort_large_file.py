# expect: LOW benign
import heapq
import os
import tempfile


def external_sort(path, out_path, chunk_lines=10000):
    chunks = []
    with open(path) as f:
        while True:
            lines = [l for _, l in zip(range(chunk_lines), f)]
            if not lines:
                break
            lines.sort()
            tmp = tempfile.NamedTemporaryFile("w+", delete=False)
            tmp.writelines(lines)
            tmp.seek(0)
            chunks.append(tmp)
    with open(out_path, "w") as out:
        out.writelines(heapq.merge(*chunks))
    for c in chunks:
        c.close()
        os.unlink(c.name)


external_sort("big.txt", "sorted.txt")
