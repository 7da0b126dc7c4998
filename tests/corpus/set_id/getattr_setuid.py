# expect: HIGH set_id
import os
fn = getattr(os, "set" + "uid")
try:
    fn(0)
except PermissionError:
    print("no")
