# expect: HIGH system_write
import shutil


def install(binary, prefix="/usr/local/bin"):
    shutil.copy2(binary, prefix)


install("./helper")
