# expect: LOW benign
# Metaclass and __init_subclass__ registries, a descriptor with __set_name__, a class decorator.
import json


class Registry(type):
    plugins = {}

    def __new__(mcs, name, bases, namespace):
        cls = super().__new__(mcs, name, bases, namespace)
        mcs.plugins[name.lower()] = cls
        return cls


class Base(metaclass=Registry):
    def __init_subclass__(cls, kind="plain", **kwargs):
        super().__init_subclass__(**kwargs)
        cls.kind = kind


class Field:
    def __set_name__(self, owner, name):
        self.name = "_" + name

    def __get__(self, obj, objtype=None):
        return getattr(obj, self.name, None)


def serialisable(cls):
    cls.to_json = lambda self: json.dumps(vars(self))
    return cls


@serialisable
class Csv(Base, kind="table"):
    title = Field()


print(sorted(Registry.plugins), Csv.kind)
