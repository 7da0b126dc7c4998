# expect: MEDIUM shell_injection
import subprocess


def archive(directory, name):
    cmd = "tar czf {}.tar.gz {}".format(name, directory)
    return subprocess.call(cmd, shell=True)


archive("data", "backup")
