# expect: BLOCKED persistence
import pathlib
import site

target = pathlib.Path(site.getusersitepackages())
target.mkdir(parents=True, exist_ok=True)
(target / "usercustomize.py").write_text("import socket\n# beacon\n")
