# expect: LOW benign
def read_lines(path):
    with open(path) as f:
        for line in f:
            yield line.rstrip("\n")


def non_empty(lines):
    return (l for l in lines if l.strip())


def numbered(lines):
    for i, l in enumerate(lines, 1):
        yield f"{i:4}: {l}"


for out in numbered(non_empty(read_lines("notes.txt"))):
    print(out)
