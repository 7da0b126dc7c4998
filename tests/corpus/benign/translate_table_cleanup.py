# expect: LOW benign
import configparser
import functools
import operator

table = str.maketrans("áéíóú", "aeiou", "!?")
titles = ["Canción!", "Pequeño?", "Árbol"]
print([t.translate(table).lower() for t in titles])
cfg = configparser.ConfigParser()
cfg.read("settings.ini")
print(cfg.sections(), functools.reduce(operator.add, [1, 2, 3]))
print((1025).to_bytes(2, "big"), int.from_bytes(b"\x04\x01", "big"))
