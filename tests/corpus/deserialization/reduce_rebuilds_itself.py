# expect: MEDIUM deserialization
import pickle


class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y

    def __reduce__(self):
        return (self.__class__, (self.x, self.y))


copy = pickle.loads(pickle.dumps(Point(3, 4)))
print(copy.x + copy.y)
