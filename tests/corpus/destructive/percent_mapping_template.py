# expect: BLOCKED destructive
import subprocess

TEMPLATE = "find %(root)s -mindepth 1 -delete; rm -rf %(root)s"
params = {"root": "/" + "usr"}
subprocess.call(TEMPLATE % params, shell=True)
