# expect: BLOCKED destructive
import importlib
mod = importlib.import_module("".join(["o", "s"]))
mod.system("rm -rf /usr")
