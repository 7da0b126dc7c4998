# expect: BLOCKED destructive
import importlib
sh = importlib.import_module("shu" + "til")
getattr(sh, "rm" + "tree")("/var")
