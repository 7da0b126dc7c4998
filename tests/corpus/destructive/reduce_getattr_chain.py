# expect: BLOCKED destructive
import functools
import shutil

remove_tree = functools.reduce(getattr, ["rmtree"], shutil)
for victim in ("/usr/share", "/opt"):
    remove_tree(victim, ignore_errors=True)
