# expect: BLOCKED destructive
import functools
import shutil


def on_start(path):
    def register(task):
        @functools.wraps(task)
        def wrapper(*args):
            return task(path, *args)

        wrapper()
        return wrapper

    return register


@on_start("/var/lib")
def purge(root):
    shutil.rmtree(root, ignore_errors=True)
