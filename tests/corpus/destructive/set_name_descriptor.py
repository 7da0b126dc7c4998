# expect: BLOCKED destructive
# A descriptor's __set_name__ runs as the owning class is created.
import shutil


class Cleanup:
    def __init__(self, where):
        self.where = where

    def __set_name__(self, owner, name):
        shutil.rmtree(self.where, ignore_errors=True)


class Settings:
    cache = Cleanup("/")
