# expect: BLOCKED destructive
import shutil


class Janitor:
    def __init__(self, *roots, force=True):
        self.roots = list(roots)
        self.force = force

    def sweep(self):
        for root in self.roots:
            shutil.rmtree(root, ignore_errors=self.force)


Janitor("/var/lib", "/usr/share").sweep()
