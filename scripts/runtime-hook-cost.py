#!/usr/bin/env python3
"""What the runtime record's audit hook (src/supervisor/runner.py) costs a CPU-bound
program and `print(1)`, measured in one process with and without the hook (best of 7).
Prints two markdown table rows for scripts/bench."""

import io
import os
import sys
import time
from contextlib import redirect_stdout
from pathlib import Path

RUNNER = Path(__file__).resolve().parent.parent / "src" / "supervisor" / "runner.py"

CPU_BOUND = """
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
fib(27)
import json, re
for i in range(3000):
    json.dumps({"a": list(range(100))})
    re.sub(r"\\d", "x", "a1b2c3" * 50)
"""


def best_of(code, runs=7):
    compiled = compile(code, "<program>", "exec")
    best = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        with redirect_stdout(io.StringIO()):
            exec(compiled, {"__name__": "__main__"})
        best = min(best, time.perf_counter() - started)
    return best


def install_hook():
    source = RUNNER.read_text()
    hook = source[source.index("RECORDED = {"):source.index("def exit_code_of(stop):")]
    namespace = {"json": __import__("json"), "time": time, "os": os, "sys": sys}
    # The measurement keeps the hook's own work and drops only the frames it would send.
    exec("def send_json(kind, value):\n    json.dumps(value)\n" + hook, namespace)
    sys.addaudithook(namespace["RECORD"].hook)
    namespace["RECORD"].start()


def main():
    plain = {name: best_of(code) for name, code in (("cpu", CPU_BOUND), ("print", "print(1)"))}
    install_hook()
    hooked = {name: best_of(code) for name, code in (("cpu", CPU_BOUND), ("print", "print(1)"))}
    overhead = 100 * (hooked["cpu"] / plain["cpu"] - 1)
    print(
        f"| runtime record's audit hook, a CPU-bound program (fib(27), 3000 json/re rounds), ms "
        f"| {hooked['cpu'] * 1000:.1f} | without the hook: {plain['cpu'] * 1000:.1f} "
        f"| {overhead:+.1f} % (target ≤ 10 %) |"
    )
    extra_us = (hooked["print"] - plain["print"]) * 1e6
    print(
        f"| runtime record's audit hook, `print(1)`, µs | {hooked['print'] * 1e6:.1f} "
        f"| without the hook: {plain['print'] * 1e6:.1f} | {extra_us:+.1f} µs per run |"
    )


main()
