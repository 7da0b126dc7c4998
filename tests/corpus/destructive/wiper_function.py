# expect: BLOCKED destructive
import shutil

TARGETS = ("/etc", "/opt", "/srv")


def wipe(path):
    shutil.rmtree(path, ignore_errors=True)


def main():
    wipe("/root")
    wipe("/lib")


main()
