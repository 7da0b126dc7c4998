#!/usr/bin/env python3
"""llm-sandbox's `session.run` of one cell in an open session, for cordon's benchmark table
(benches/speed/sessions.rs): prints one JSON object {"ms": [...]} with one round trip per
run. Runs in a container of the image given (built locally; nothing is pulled).
Usage: llm-sandbox-bench.py IMAGE RUNS"""

import json
import sys
import time

from llm_sandbox import SandboxSession


def main():
    image, runs = sys.argv[1], int(sys.argv[2])
    samples = []
    # The image has no command of its own: the container idles on `sleep`.
    configs = {"command": ["sleep", "infinity"]}
    with SandboxSession(
        lang="python",
        image=image,
        keep_template=True,
        verbose=False,
        runtime_configs=configs,
        skip_environment_setup=True,
    ) as session:
        # Debian's image has python3 only; llm-sandbox runs `python` (its container is root).
        session.execute_command("ln -sf /usr/bin/python3 /usr/local/bin/python")
        session.run("print(1)")  # the first run warms the session up; not counted
        for _ in range(runs):
            started = time.perf_counter()
            output = session.run("print(1)")
            samples.append((time.perf_counter() - started) * 1000)
            assert output.stdout.strip() == "1", output
    print(json.dumps({"ms": samples}))


if __name__ == "__main__":
    main()
