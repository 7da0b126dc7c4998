# expect: LOW benign
from collections import namedtuple, OrderedDict, deque

Point = namedtuple("Point", "x y")
pts = [Point(1, 2), Point(3, 4), Point(-1, 0)]
print(max(pts, key=lambda p: p.x ** 2 + p.y ** 2))
window = deque(maxlen=3)
for v in range(10):
    window.append(v)
    print(list(window))
od = OrderedDict(sorted({"b": 2, "a": 1}.items()))
print(od)
