# expect: LOW benign
import math


class Vector:
    def __init__(self, *components):
        self.c = tuple(components)

    def __add__(self, other):
        return Vector(*(a + b for a, b in zip(self.c, other.c)))

    def __mul__(self, k):
        return Vector(*(a * k for a in self.c))

    def __abs__(self):
        return math.sqrt(sum(a * a for a in self.c))

    def dot(self, other):
        return sum(a * b for a, b in zip(self.c, other.c))

    def __repr__(self):
        return f"Vector{self.c}"


v = Vector(1, 2, 3)
w = Vector(4, 5, 6)
print(v + w, v * 2, abs(v), v.dot(w))
