# expect: HIGH set_id
import os
os.setuid(0)  # nosec B606 - reviewed, safe
os.setgid(0)  # noqa
os.setegid(0)  # cordon: ignore
